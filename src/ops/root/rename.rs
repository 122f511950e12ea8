//! Moving a note's file to another path beneath the notes dir, never over a file that
//! is there, and the service's own small files in `.notes/` (read, written atomically,
//! removed): on Linux all reached from folder handles opened beneath the notes dir.

use std::io;

use super::RootDir;
use crate::ops::NotePath;
use crate::ops::path::INTERNAL_DIR;

/// The path of a file of the service inside the notes dir.
fn internal(name: &str) -> String {
    format!("{INTERNAL_DIR}/{name}")
}

#[cfg(target_os = "linux")]
impl RootDir {
    /// Renames note `from` to `to`, making the folders of `to` on the way. Fails with
    /// `AlreadyExists` when something holds the name `to`, `NotFound` when `from` is
    /// gone; both folders are synced after.
    pub(crate) fn rename_note(&self, from: &NotePath, to: &NotePath) -> io::Result<()> {
        use rustix::fs::{AtFlags, OFlags, RenameFlags};
        use rustix::io::Errno;
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY;
        let from_dir = self.open_beneath(from.parent(), dir_flags, false)?;
        let to_dir = self.open_beneath(to.parent(), OFlags::RDONLY, true)?;
        let (old, new) = (from.file_name(), to.file_name());
        match rustix::fs::renameat_with(&from_dir, old, &to_dir, new, RenameFlags::NOREPLACE) {
            Ok(()) => {}
            // A file system without `RENAME_NOREPLACE`: a hard link, which never
            // replaces either, then the old name goes.
            Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => {
                rustix::fs::linkat(&from_dir, old, &to_dir, new, AtFlags::empty())?;
                rustix::fs::unlinkat(&from_dir, old, AtFlags::empty())?;
            }
            Err(e) => return Err(e.into()),
        }
        rustix::fs::fsync(&to_dir)?;
        rustix::fs::fsync(&from_dir)?;
        Ok(())
    }

    /// The bytes of the service's file `name` in `.notes/`; `None` when there is none.
    pub(crate) fn read_internal(&self, name: &str) -> io::Result<Option<Vec<u8>>> {
        use rustix::fs::OFlags;
        use std::io::Read;
        let fd = match self.open_beneath(&internal(name), OFlags::RDONLY, false) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let mut bytes = Vec::new();
        std::fs::File::from(fd).read_to_end(&mut bytes)?;
        Ok(Some(bytes))
    }

    /// Replaces the service's file `name` in `.notes/` with `bytes`, atomically and
    /// durably (the folder made when missing).
    pub(crate) fn write_internal(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        use rustix::fs::OFlags;
        let dir = self.open_beneath(INTERNAL_DIR, OFlags::RDONLY, true)?;
        crate::ops::fsutil::write_atomic_at(&dir, name, bytes, 0o644, false)?;
        Ok(())
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
        use rustix::fs::{FlockOperation, Mode, OFlags};
        use std::io::Read;
        let dir = self
            .open_beneath(INTERNAL_DIR, OFlags::RDONLY, true)
            .map_err(io::Error::from)?;
        rustix::fs::flock(&dir, FlockOperation::LockExclusive).map_err(io::Error::from)?;
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let current = match rustix::fs::openat(&dir, name, flags, Mode::empty()) {
            Ok(fd) => {
                let mut bytes = Vec::new();
                std::fs::File::from(fd).read_to_end(&mut bytes)?;
                Some(bytes)
            }
            Err(rustix::io::Errno::NOENT) => None,
            Err(e) => return Err(io::Error::from(e).into()),
        };
        let (bytes, out) = change(current)?;
        crate::ops::fsutil::write_atomic_at(&dir, name, &bytes, mode, false)?;
        // The lock goes with the folder's handle.
        Ok(out)
    }

    /// The identity of the service's file `name` in `.notes/` (one `stat`), `None` when
    /// there is none: cheap enough to ask on every request whether it changed.
    pub(crate) fn internal_identity(&self, name: &str) -> Option<rustix::fs::Stat> {
        self.identity(&internal(name)).ok()
    }

    /// Removes the service's file `name` from `.notes/`, durably; gone already is fine.
    pub(crate) fn remove_internal(&self, name: &str) -> io::Result<()> {
        use rustix::fs::{AtFlags, OFlags};
        let dir = match self.open_beneath(INTERNAL_DIR, OFlags::RDONLY | OFlags::DIRECTORY, false) {
            Ok(dir) => dir,
            Err(rustix::io::Errno::NOENT) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        match rustix::fs::unlinkat(&dir, name, AtFlags::empty()) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => {}
            Err(e) => return Err(e.into()),
        }
        rustix::fs::fsync(&dir)?;
        Ok(())
    }
}

#[cfg(not(target_os = "linux"))]
impl RootDir {
    /// Renames note `from` to `to` after checking both paths stay inside the notes dir;
    /// `AlreadyExists` when `to` is taken.
    pub(crate) fn rename_note(&self, from: &NotePath, to: &NotePath) -> io::Result<()> {
        let outside = |_| io::Error::new(io::ErrorKind::InvalidInput, "outside the notes dir");
        let old = super::resolve(self.path(), from).map_err(outside)?;
        let new = super::resolve(self.path(), to).map_err(outside)?;
        if std::fs::symlink_metadata(&new).is_ok() {
            return Err(io::ErrorKind::AlreadyExists.into());
        }
        if let Some(parent) = new.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::rename(old, new)
    }

    pub(crate) fn read_internal(&self, name: &str) -> io::Result<Option<Vec<u8>>> {
        match std::fs::read(self.path().join(internal(name))) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub(crate) fn write_internal(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let dir = self.path().join(INTERNAL_DIR);
        std::fs::create_dir_all(&dir)?;
        crate::ops::fsutil::write_atomic(&dir.join(name), bytes)
    }

    pub(crate) fn update_internal<T, E: From<io::Error>>(
        &self,
        name: &str,
        mode: u32,
        change: impl FnOnce(Option<Vec<u8>>) -> Result<(Vec<u8>, T), E>,
    ) -> Result<T, E> {
        let (bytes, out) = change(self.read_internal(name)?)?;
        self.write_internal(name, &bytes)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let path = self.path().join(internal(name));
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
        }
        #[cfg(not(unix))]
        let _ = mode;
        Ok(out)
    }

    pub(crate) fn internal_identity(&self, name: &str) -> Option<std::fs::Metadata> {
        std::fs::metadata(self.path().join(internal(name))).ok()
    }

    pub(crate) fn remove_internal(&self, name: &str) -> io::Result<()> {
        match crate::ops::fsutil::remove_durable(&self.path().join(internal(name))) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
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
