//! Durable file writes: a hidden temp file in the same folder, fsync, rename, then an
//! fsync of the folder, so a reader never sees a torn file and a crash never leaves one.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Prefix of the temp files; hidden, so listings skip them.
pub(crate) const TEMP_PREFIX: &str = ".tmp-";

/// Replaces `path` with `bytes` atomically and durably. The file keeps the permissions
/// of the one it replaces; a new file gets the usual `0644`.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (dir, temp) = staged(path, bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// `bytes` in a hidden temp file beside `path` (not yet synced), with the permissions
/// of the file it will replace, or the usual `0644`; and the folder of `path`.
fn staged<'p>(path: &'p Path, bytes: &[u8]) -> io::Result<(&'p Path, tempfile::NamedTempFile)> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no parent"))?;
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    let permissions = match fs::metadata(path) {
        Ok(meta) => meta.permissions(),
        Err(_) => default_permissions(),
    };
    temp.as_file().set_permissions(permissions)?;
    Ok((dir, temp))
}

/// Joins the threads of `handles`: the first failure, or a panic as an error.
fn joined<'s>(handles: Vec<std::thread::ScopedJoinHandle<'s, io::Result<()>>>) -> io::Result<()> {
    handles.into_iter().try_for_each(|handle| {
        handle
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("sync")))
    })
}

/// `write_atomic` for several files, their syncs made side by side (one thread per
/// few files) and each folder synced once, side by side, after every name is in place.
/// A failure can leave the files before it written: the caller puts them back.
pub(crate) fn write_atomic_many(files: &[(&Path, &[u8])]) -> io::Result<()> {
    let mut temps = Vec::with_capacity(files.len());
    let mut dirs: Vec<&Path> = Vec::new();
    for (path, bytes) in files {
        let (dir, temp) = staged(path, bytes)?;
        temps.push(temp);
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    let per_thread = temps.len().div_ceil(8).max(1);
    std::thread::scope(|scope| {
        joined(
            temps
                .chunks(per_thread)
                .map(|chunk| scope.spawn(|| chunk.iter().try_for_each(|t| t.as_file().sync_all())))
                .collect(),
        )
    })?;
    for (temp, (path, _)) in temps.into_iter().zip(files) {
        temp.persist(path).map_err(|e| e.error)?;
    }
    std::thread::scope(|scope| {
        joined(
            dirs.into_iter()
                .map(|dir| scope.spawn(move || sync_dir(dir)))
                .collect(),
        )
    })
}

/// How a write relative to an open folder went.
#[cfg(target_os = "linux")]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum WrittenAt {
    Done,
    /// `create` was asked and the name is taken (a concurrent writer, a dangling
    /// symlink): nothing was written.
    NameTaken,
}

/// `write_atomic` for the file `name` in the open folder `dir`, with `mode` as its
/// permissions. With `create`, a new file is written anonymously (`O_TMPFILE`) and
/// linked in under its name in one folder operation, and an existing name is left
/// alone; otherwise a hidden temp file is renamed over the name. Either way the data
/// is synced before the name appears, and the folder after.
#[cfg(target_os = "linux")]
pub(crate) fn write_atomic_at(
    dir: &std::os::fd::OwnedFd,
    name: &str,
    bytes: &[u8],
    mode: u32,
    create: bool,
) -> io::Result<WrittenAt> {
    write_atomic_gated(dir, name, bytes, mode, create, &mut |_| Ok(()))
}

/// `write_atomic_at`, with `gate` called once the data is synced and before the name
/// appears: when it fails, the file is not written (the note's history is recorded
/// there, side by side with the note's own sync). The gate is given the device of
/// `dir`, whose sync comes after it.
#[cfg(target_os = "linux")]
pub(crate) fn write_atomic_gated(
    dir: &std::os::fd::OwnedFd,
    name: &str,
    bytes: &[u8],
    mode: u32,
    create: bool,
    gate: &mut dyn FnMut(Option<u64>) -> io::Result<()>,
) -> io::Result<WrittenAt> {
    use rustix::fs::{AtFlags, CWD, Mode, OFlags, RenameFlags};
    use rustix::io::Errno;
    use std::os::fd::AsRawFd;
    let mode = Mode::from_raw_mode(mode);
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    let device = rustix::fs::fstat(dir).ok().map(|s| s.st_dev as u64);
    let mut gate = || gate(device);
    let finish = |file: &fs::File| -> io::Result<()> {
        (&*file).write_all(bytes)?;
        // The umask applies at creation; the mode asked for is the one wanted.
        rustix::fs::fchmod(file, mode)?;
        file.sync_all()
    };
    if create {
        let anonymous = rustix::fs::openat(
            dir,
            ".",
            OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC,
            mode,
        );
        if let Ok(fd) = anonymous {
            let file = fs::File::from(fd);
            finish(&file)?;
            gate()?;
            let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
            match rustix::fs::linkat(CWD, &proc_path, dir, name, AtFlags::SYMLINK_FOLLOW) {
                Ok(()) => {
                    rustix::fs::fsync(dir)?;
                    return Ok(WrittenAt::Done);
                }
                Err(Errno::EXIST) => return Ok(WrittenAt::NameTaken),
                // No /proc: the named temp file below.
                Err(_) => {}
            }
        }
    }
    let (temp, file) = create_temp_at(dir, mode)?;
    let written = finish(&file).and_then(|()| gate()).and_then(|()| {
        let flags = if create {
            RenameFlags::NOREPLACE
        } else {
            RenameFlags::empty()
        };
        match rustix::fs::renameat_with(dir, &temp, dir, name, flags) {
            Ok(()) => Ok(WrittenAt::Done),
            Err(Errno::EXIST) if create => Ok(WrittenAt::NameTaken),
            Err(e) => Err(e.into()),
        }
    });
    if written.as_ref().map_or(true, |w| *w != WrittenAt::Done) {
        let _ = rustix::fs::unlinkat(dir, &temp, AtFlags::empty());
    }
    if written.as_ref().is_ok_and(|w| *w == WrittenAt::Done) {
        rustix::fs::fsync(dir)?;
    }
    written
}

/// A new hidden temp file in `dir`, named with the process and a counter.
#[cfg(target_os = "linux")]
fn create_temp_at(
    dir: &std::os::fd::OwnedFd,
    mode: rustix::fs::Mode,
) -> io::Result<(String, fs::File)> {
    use rustix::fs::OFlags;
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    loop {
        let name = format!(
            "{TEMP_PREFIX}{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC;
        match rustix::fs::openat(dir, name.as_str(), flags, mode) {
            Ok(fd) => return Ok((name, fs::File::from(fd))),
            Err(rustix::io::Errno::EXIST) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Removes `path` and makes the removal durable.
pub(crate) fn remove_durable(path: &Path) -> io::Result<()> {
    fs::remove_file(path)?;
    match path.parent() {
        Some(dir) => sync_dir(dir),
        None => Ok(()),
    }
}

/// Flushes a folder's entries (a rename or removal inside it) to disk.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// The permission bits of a new note.
pub(crate) const NEW_FILE_MODE: u32 = 0o644;

/// The permission bits of a file.
#[cfg(unix)]
pub(crate) fn mode_of(meta: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
pub(crate) fn mode_of(_meta: &fs::Metadata) -> u32 {
    NEW_FILE_MODE
}

#[cfg(unix)]
fn default_permissions() -> fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    fs::Permissions::from_mode(NEW_FILE_MODE)
}

#[cfg(not(unix))]
fn default_permissions() -> fs::Permissions {
    fs::metadata(".")
        .map(|m| m.permissions())
        .unwrap_or_else(|_| unreachable!())
}

/// Deletes temp files a crash left behind under `root` (hidden folders included, so the
/// public record's folder is cleaned too). Returns how many were removed. Each folder
/// is entered from the handle of the one above without following symlinks, and each
/// file removed by name in its folder, so a folder swapped for a symlink meanwhile
/// leads nowhere outside.
pub(crate) fn clean_temp_files(root: &Path) -> usize {
    cap_std::fs::Dir::open_ambient_dir(root, cap_std::ambient_authority())
        .map_or(0, |dir| clean_temp_files_in(&dir))
}

fn clean_temp_files_in(dir: &cap_std::fs::Dir) -> usize {
    use cap_fs_ext::DirExt;
    let Ok(entries) = dir.entries() else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => {
                if let Ok(folder) = dir.open_dir_nofollow(&name) {
                    removed += clean_temp_files_in(&folder);
                }
            }
            Ok(kind)
                if kind.is_file()
                    && name.to_string_lossy().starts_with(TEMP_PREFIX)
                    && dir.remove_file(&name).is_ok() =>
            {
                removed += 1;
            }
            _ => {}
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_and_leave_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("n.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        fs::write(dir.path().join(".tmp-abc"), "torn").unwrap();
        fs::create_dir_all(dir.path().join("a/.b")).unwrap();
        fs::write(dir.path().join("a/.b/.tmp-def"), "torn").unwrap();
        // A temp file reached through a symlink is someone else's.
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join(".tmp-out"), "theirs").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        assert_eq!(clean_temp_files(dir.path()), 2);
        assert!(p.exists());
        assert!(!dir.path().join("a/.b/.tmp-def").exists());
        assert!(outside.path().join(".tmp-out").exists());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn writes_relative_to_an_open_folder() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let fd: std::os::fd::OwnedFd = fs::File::open(dir.path()).unwrap().into();
        let mode = |name: &str| {
            fs::metadata(dir.path().join(name))
                .unwrap()
                .permissions()
                .mode()
                & 0o7777
        };
        assert_eq!(
            write_atomic_at(&fd, "n.md", b"one", 0o640, true).unwrap(),
            WrittenAt::Done
        );
        assert_eq!(
            (fs::read(dir.path().join("n.md")).unwrap(), mode("n.md")),
            (b"one".to_vec(), 0o640)
        );
        // Creating never replaces: the existing note stays as it was.
        assert_eq!(
            write_atomic_at(&fd, "n.md", b"two", 0o644, true).unwrap(),
            WrittenAt::NameTaken
        );
        assert_eq!(fs::read(dir.path().join("n.md")).unwrap(), b"one");
        // A dangling symlink's name is taken too.
        std::os::unix::fs::symlink("missing.md", dir.path().join("d.md")).unwrap();
        assert_eq!(
            write_atomic_at(&fd, "d.md", b"x", 0o644, true).unwrap(),
            WrittenAt::NameTaken
        );
        assert!(!dir.path().join("missing.md").exists());
        assert_eq!(
            write_atomic_at(&fd, "n.md", b"three", 0o600, false).unwrap(),
            WrittenAt::Done
        );
        assert_eq!(
            (fs::read(dir.path().join("n.md")).unwrap(), mode("n.md")),
            (b"three".to_vec(), 0o600)
        );
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["d.md", "n.md"], "no temp file left");
    }
}
