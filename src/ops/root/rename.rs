//! Moving a note's file to another path beneath the notes dir, never over a file that
//! is there, and the service's own small files in `.notes/` (read, written atomically,
//! removed): all reached from folder handles opened beneath the notes dir.

use std::io::{self, Read, Write};

use cap_std::fs::Dir;

use super::RootDir;
use crate::ops::NotePath;
use crate::ops::path::INTERNAL_DIR;

/// How many times a write makes its folder again when it went under it for being empty
/// (another request's delete emptied it between the folder's making and the new name):
/// a third loss needs two more folders emptied and removed in that instant.
const FOLDER_TRIES: usize = 3;

/// Runs `once` again while it fails for a folder that went away under it (`gone`),
/// at most `FOLDER_TRIES` times in all: the folder was removed for being empty
/// (`remove_emptied`), and the next try makes it again.
pub(crate) fn again_if_folder_gone<T, E>(
    mut once: impl FnMut() -> Result<T, E>,
    gone: impl Fn(&E) -> bool,
) -> Result<T, E> {
    let mut tries = 1;
    loop {
        match once() {
            Err(e) if gone(&e) && tries < FOLDER_TRIES => tries += 1,
            other => return other,
        }
    }
}

/// The path of a file of the service inside the notes dir.
fn internal(name: &str) -> String {
    format!("{INTERNAL_DIR}/{name}")
}

impl RootDir {
    /// Renames note `from` to `to`, making the folders of `to` on the way. Fails with
    /// `AlreadyExists` when something holds the name `to`, `NotFound` when `from` is
    /// gone; both folders are synced after. A folder of `to` removed meanwhile for
    /// being empty (`remove_emptied`) is made again, up to `FOLDER_TRIES` times.
    pub(crate) fn rename_note(&self, from: &NotePath, to: &NotePath) -> io::Result<()> {
        again_if_folder_gone(
            || self.rename_once(from, to),
            |e| e.kind() == io::ErrorKind::NotFound,
        )
    }

    fn rename_once(&self, from: &NotePath, to: &NotePath) -> io::Result<()> {
        let from_dir = self.open_folder(from.parent(), false)?;
        let to_dir = self.open_folder(to.parent(), true)?;
        let (old, new) = (from.file_name(), to.file_name());
        #[cfg(target_os = "linux")]
        let renamed = {
            use rustix::fs::RenameFlags;
            use rustix::io::Errno;
            match rustix::fs::renameat_with(&from_dir, old, &to_dir, new, RenameFlags::NOREPLACE) {
                Ok(()) => true,
                Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => false,
                Err(e) => return Err(e.into()),
            }
        };
        #[cfg(not(target_os = "linux"))]
        let renamed = false;
        if !renamed {
            // No `RENAME_NOREPLACE`: a hard link, which never replaces either, then the
            // old name goes.
            from_dir.hard_link(old, &to_dir, new)?;
            from_dir.remove_file(old)?;
        }
        sync(&to_dir)?;
        sync(&from_dir)
    }

    /// The bytes of the service's file `name` in `.notes/`; `None` when there is none.
    pub(crate) fn read_internal(&self, name: &str) -> io::Result<Option<Vec<u8>>> {
        let root = match self.handle() {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            other => other?,
        };
        match root.beneath(&internal(name), |dir, rel| dir.read(rel)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Replaces the service's file `name` in `.notes/` with `bytes`, atomically and
    /// durably (the folder made when missing).
    pub(crate) fn write_internal(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let dir = self.open_folder(INTERNAL_DIR, true)?;
        write_in(&dir, name, bytes, crate::ops::fsutil::NEW_FILE_MODE)
    }

    /// Changes the service's file `name` in `.notes/` under an exclusive lock on the
    /// folder, held across processes (two commands changing the file at once each see
    /// the other's change): `change` gets the current bytes (`None` when there is no
    /// file) and returns the new ones, written atomically and durably with `mode`.
    pub(crate) fn update_internal<T, E: From<io::Error>>(
        &self,
        name: &str,
        mode: u32,
        change: impl FnOnce(Option<Vec<u8>>) -> Result<(Vec<u8>, T), E>,
    ) -> Result<T, E> {
        use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
        let dir = self.open_folder(INTERNAL_DIR, true)?;
        // The lock goes with this handle of the folder.
        let lock = dir.try_clone()?.into_std_file();
        lock.lock()?;
        let mut options = cap_std::fs::OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No);
        let current = match dir.open_with(name, &options) {
            Ok(mut file) => {
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes)?;
                Some(bytes)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e.into()),
        };
        let (bytes, out) = change(current)?;
        write_in(&dir, name, &bytes, mode)?;
        Ok(out)
    }

    /// The identity of the service's file `name` in `.notes/` (one `stat`), `None` when
    /// there is none: cheap enough to ask on every request whether it changed.
    #[cfg(target_os = "linux")]
    pub(crate) fn internal_identity(&self, name: &str) -> Option<rustix::fs::Stat> {
        self.identity(&internal(name)).ok()
    }

    #[cfg(not(target_os = "linux"))]
    pub(crate) fn internal_identity(&self, name: &str) -> Option<std::fs::Metadata> {
        std::fs::metadata(self.path().join(internal(name))).ok()
    }

    /// Removes the service's file `name` from `.notes/`, durably; gone already is fine.
    pub(crate) fn remove_internal(&self, name: &str) -> io::Result<()> {
        let dir = match self.open_folder(INTERNAL_DIR, false) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            other => other?,
        };
        match dir.remove_file(name) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            other => other?,
        }
        sync(&dir)
    }
}

/// Flushes a folder's entries (a rename or removal inside it) to disk.
fn sync(dir: &Dir) -> io::Result<()> {
    dir.try_clone()?.into_std_file().sync_all()
}

/// Replaces `name` in `dir` with `bytes` and permissions `mode`: a hidden temp file,
/// synced, renamed over the name, then the folder synced.
fn write_in(dir: &Dir, name: &str, bytes: &[u8], mode: u32) -> io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let temp = format!(
        "{}{}-{}",
        crate::ops::fsutil::TEMP_PREFIX,
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let mut options = cap_std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    // Never more open than `mode`, not even before the `chmod` past the umask.
    #[cfg(unix)]
    cap_std::fs::OpenOptionsExt::mode(&mut options, mode);
    let mut file = dir.open_with(&temp, &options)?;
    let written = (|| {
        file.write_all(bytes)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let permissions = std::fs::Permissions::from_mode(mode);
            file.set_permissions(cap_std::fs::Permissions::from_std(permissions))?;
        }
        #[cfg(not(unix))]
        let _ = mode;
        file.sync_all()?;
        dir.rename(&temp, dir, name)
    })();
    if written.is_err() {
        let _ = dir.remove_file(&temp);
    }
    written?;
    sync(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_make_folders_and_never_replace() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("a.md"), "a").unwrap();
        std::fs::write(root.path().join("b.md"), "b").unwrap();
        let dir = RootDir::new(root.path().to_path_buf());
        let p = |s: &str| NotePath::parse(s).unwrap();
        let err = dir.rename_note(&p("a.md"), &p("b.md")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(
            std::fs::read_to_string(root.path().join("b.md")).unwrap(),
            "b"
        );
        dir.rename_note(&p("a.md"), &p("x/y/a2.md")).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.path().join("x/y/a2.md")).unwrap(),
            "a"
        );
        assert!(!root.path().join("a.md").exists());
        let err = dir.rename_note(&p("a.md"), &p("c.md")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn internal_files_round_trip() {
        let root = tempfile::tempdir().unwrap();
        let dir = RootDir::new(root.path().to_path_buf());
        assert_eq!(dir.read_internal("j.json").unwrap(), None);
        dir.write_internal("j.json", b"{}").unwrap();
        assert_eq!(
            dir.read_internal("j.json").unwrap().as_deref(),
            Some(&b"{}"[..])
        );
        assert!(root.path().join(".notes/j.json").is_file());
        dir.remove_internal("j.json").unwrap();
        dir.remove_internal("j.json").unwrap();
        assert_eq!(dir.read_internal("j.json").unwrap(), None);
    }
}
