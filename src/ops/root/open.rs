//! Opening notes beneath the notes dir through the `RootDir` handle (cap-std): only
//! regular files are notes.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::RootDir;
use crate::error::{Error, Result};
use crate::ops::{FilePath, NotePath};

impl RootDir {
    /// Opens the note for reading, with its metadata. Only a regular file is a note:
    /// anything else (a folder, a FIFO, a socket, a device) is refused like a missing
    /// note, and is opened non-blocking so the open itself never waits. The open walks
    /// from the notes dir's handle and is refused when a symlink on the way leads
    /// outside.
    pub(crate) fn open_note(&self, path: &NotePath) -> Result<(fs::File, fs::Metadata)> {
        self.open_regular(path.as_str())
    }

    /// Opens an attachment for reading, with its metadata, as `open_note` opens a note:
    /// beneath the notes dir, regular files only.
    pub(crate) fn open_attachment(&self, path: &FilePath) -> Result<(fs::File, fs::Metadata)> {
        self.open_regular(path.as_str())
    }

    /// Opens the regular file `rel` beneath the notes dir for reading.
    fn open_regular(&self, rel: &str) -> Result<(fs::File, fs::Metadata)> {
        use cap_fs_ext::OpenOptionsSyncExt;
        let root = self
            .handle()
            .map_err(|e| open_error(e, Error::AccessFailed))?;
        let mut options = cap_std::fs::OpenOptions::new();
        options.read(true).nonblock(true);
        #[cfg(target_os = "linux")]
        cap_std::fs::OpenOptionsExt::custom_flags(
            &mut options,
            rustix::fs::OFlags::NOCTTY.bits() as i32,
        );
        let file = match root.beneath(rel, |dir, rel| dir.open_with(rel, &options)) {
            Ok(file) => file.into_std(),
            Err(e) => {
                return Err(match open_error(e, Error::AccessFailed) {
                    // A socket cannot be opened at all (`ENXIO`), nor can a device
                    // without a driver or one the service may not read: they are not
                    // notes, so missing like any other special file.
                    Error::AccessFailed(_)
                        if root
                            .beneath(rel, |dir, rel| dir.metadata(rel))
                            .is_ok_and(|meta| !meta.is_file()) =>
                    {
                        Error::NotFound
                    }
                    err => err,
                });
            }
        };
        let meta = file.metadata().map_err(Error::AccessFailed)?;
        if !meta.is_file() {
            return Err(Error::NotFound);
        }
        Ok((file, meta))
    }

    /// The identity of the note's file, without opening it for reading: a kept
    /// version of the note is served when this matches it. Refused as `open` refuses.
    /// On Linux, one `statat` from the notes dir's handle (see `RootDir::identity`:
    /// only ever compared with a version read through the beneath open), else an
    /// `O_PATH` open beneath and an `fstat`; a FIFO or device is never opened.
    #[cfg(target_os = "linux")]
    pub(crate) fn stat_note(&self, path: &NotePath) -> Result<rustix::fs::Stat> {
        self.stat_regular(path.as_str())
    }

    /// The identity of an attachment's file without opening it for reading, as
    /// `stat_note` gives a note's: a kept version of it is served when this matches.
    #[cfg(target_os = "linux")]
    pub(crate) fn stat_attachment(&self, path: &FilePath) -> Result<rustix::fs::Stat> {
        self.stat_regular(path.as_str())
    }

    #[cfg(target_os = "linux")]
    fn stat_regular(&self, rel: &str) -> Result<rustix::fs::Stat> {
        use rustix::fs::{FileType, OFlags};
        let root = self;
        let stat = match root.identity(rel) {
            Ok(stat) => stat,
            // Not there, or not reachable by a plain stat: the beneath open decides.
            Err(_) => {
                let fd = root
                    .open_beneath(rel, OFlags::PATH, false)
                    .map_err(|e| open_error(e.into(), Error::AccessFailed))?;
                rustix::fs::fstat(&fd).map_err(|e| Error::AccessFailed(e.into()))?
            }
        };
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Err(Error::NotFound);
        }
        Ok(stat)
    }
}

/// The file inside `root` that `path` names, refused when a symlink on the way
/// leads outside `root`.
pub(crate) fn resolve(root: &Path, path: &NotePath) -> Result<PathBuf> {
    resolve_rel(root, path.as_str())
}

/// The file inside `root` that the checked relative path `rel` names, refused when a
/// symlink on the way leads outside `root` or nowhere.
pub(crate) fn resolve_rel(root: &Path, rel: &str) -> Result<PathBuf> {
    match RootDir::new(root.to_path_buf()).landing(rel) {
        super::Landing::Unknown => Err(Error::InvalidPath),
        _ => Ok(root.join(rel)),
    }
}

/// Whether cap-std refused a walk for leaving the dir: its one error that carries no
/// number from the system.
pub(super) fn escaped(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_none()
}

/// The error of opening a note: missing is `NotFound`, and so is a path through a
/// file (`ENOTDIR`: `a.png/b.md` names no note); a walk refused for leaving the notes
/// dir, a symlink loop and a name too long for the file system are `InvalidPath`;
/// anything else is `other`.
pub(crate) fn open_error(e: io::Error, other: fn(io::Error) -> Error) -> Error {
    match e.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => Error::NotFound,
        _ => path_error(e, other),
    }
}

/// An error of the file system about a note path: `InvalidPath` when the path cannot
/// be used (it leaves the notes dir, loops, or is too long), `other` otherwise.
pub(crate) fn path_error(e: io::Error, other: fn(io::Error) -> Error) -> Error {
    if escaped(&e) {
        return Error::InvalidPath;
    }
    #[cfg(target_os = "linux")]
    if let Some(code) = e.raw_os_error() {
        use rustix::io::Errno;
        let errno = Errno::from_raw_os_error(code);
        if errno == Errno::XDEV || errno == Errno::LOOP || errno == Errno::NAMETOOLONG {
            return Error::InvalidPath;
        }
    }
    match e.kind() {
        io::ErrorKind::InvalidFilename => Error::InvalidPath,
        _ => other(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn symlinks_leaving_the_root_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), root.path().join("s.md"))
            .unwrap();
        std::os::unix::fs::symlink("/nonexistent/x.md", root.path().join("dangling.md")).unwrap();
        for p in ["out/secret.md", "out/new.md", "s.md", "dangling.md"] {
            let np = NotePath::parse(p).unwrap();
            assert!(resolve(root.path(), &np).is_err(), "{p}");
        }
        std::fs::create_dir(root.path().join("in")).unwrap();
        std::os::unix::fs::symlink(root.path().join("in"), root.path().join("alias")).unwrap();
        let np = NotePath::parse("alias/n.md").unwrap();
        assert!(resolve(root.path(), &np).is_ok());

        // Opening applies the same rules, whichever way it walks.
        std::fs::write(root.path().join("in/n.md"), "inside").unwrap();
        std::os::unix::fs::symlink("in/n.md", root.path().join("rel.md")).unwrap();
        let dirs = vec![RootDir::new(root.path().to_path_buf())];
        for dir in &dirs {
            for p in ["out/secret.md", "s.md", "dangling.md"] {
                let np = NotePath::parse(p).unwrap();
                assert!(matches!(dir.open_note(&np), Err(Error::InvalidPath)), "{p}");
            }
            for p in ["alias/n.md", "rel.md", "in/n.md"] {
                let mut text = String::new();
                std::io::Read::read_to_string(
                    &mut dir.open_note(&NotePath::parse(p).unwrap()).unwrap().0,
                    &mut text,
                )
                .unwrap();
                assert_eq!(text, "inside", "{p}");
            }
            assert!(matches!(
                dir.open_note(&NotePath::parse("missing.md").unwrap()),
                Err(Error::NotFound)
            ));
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn only_regular_files_are_notes() {
        let root = tempfile::tempdir().unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.path().join("fifo.md"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        std::fs::create_dir(root.path().join("dir.md")).unwrap();
        // A socket cannot even be opened: still a missing note, not a failure.
        let _socket = std::os::unix::net::UnixListener::bind(root.path().join("sock.md")).unwrap();
        std::os::unix::fs::symlink("sock.md", root.path().join("to-sock.md")).unwrap();
        let _file_socket =
            std::os::unix::net::UnixListener::bind(root.path().join("sock.png")).unwrap();
        let dirs = vec![RootDir::new(root.path().to_path_buf())];
        for dir in &dirs {
            for p in ["fifo.md", "dir.md", "sock.md", "to-sock.md"] {
                let np = NotePath::parse(p).unwrap();
                assert!(matches!(dir.open_note(&np), Err(Error::NotFound)), "{p}");
                assert!(matches!(dir.stat_note(&np), Err(Error::NotFound)), "{p}");
            }
            let file = FilePath::parse("sock.png").unwrap();
            assert!(matches!(dir.open_attachment(&file), Err(Error::NotFound)));
        }
    }
}
