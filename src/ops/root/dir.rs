//! `RootDir`: the notes dir as an open folder, a `cap_std` `Dir`. Every note, folder and
//! temp file is reached from it, and cap-std refuses any walk that would leave it (`..`,
//! an absolute path, a symlink leading outside or any absolute symlink): one
//! `openat2(RESOLVE_BENEATH)` where the kernel has it, a walk name by name where not.
//! Nothing is checked by path and then used by path.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use cap_std::fs::Dir;

/// A notes dir, with a handle on it once it exists.
#[derive(Debug)]
pub(crate) struct RootDir {
    path: PathBuf,
    open: RwLock<Option<Arc<OpenRoot>>>,
    /// When the handle was last opened from the path, in milliseconds of
    /// [`coarse_millis`](crate::ops::clock::coarse_millis); 0 before the first time.
    opened: AtomicU64,
    /// The paths lately found free of symlinks (`landing`).
    plain_paths: super::landing::PlainPaths,
}

/// The open notes dir.
#[derive(Debug)]
pub(super) struct OpenRoot {
    pub(super) dir: Dir,
    /// The absolute paths the dir is known by, for absolute symlinks pointing inside
    /// (which cap-std refuses, as it refuses every absolute path).
    names: Vec<PathBuf>,
}

impl std::ops::Deref for OpenRoot {
    type Target = Dir;
    fn deref(&self) -> &Dir {
        &self.dir
    }
}

/// Most symlinks followed by hand in one path, as the kernel allows (`MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// How long a handle serves before the notes dir's path is opened again (a folder moved
/// aside and replaced by a fresh clone is noticed within a second).
const ROOT_RECHECK_MS: u64 = 1000;

impl RootDir {
    pub(crate) fn new(path: PathBuf) -> Self {
        RootDir {
            path,
            open: RwLock::new(None),
            opened: AtomicU64::new(0),
            plain_paths: Default::default(),
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn plain_paths(&self) -> &super::landing::PlainPaths {
        &self.plain_paths
    }

    /// The handle of the dir the notes dir's path names, opened on first use and again
    /// once a second.
    pub(super) fn handle(&self) -> io::Result<Arc<OpenRoot>> {
        let now = crate::ops::clock::coarse_millis();
        let opened = self.opened.load(Ordering::Relaxed);
        if opened != 0 && now.saturating_sub(opened) < ROOT_RECHECK_MS {
            let kept = self.open.read().unwrap_or_else(PoisonError::into_inner);
            if let Some(dir) = &*kept {
                return Ok(dir.clone());
            }
        }
        // The notes dir's own path is the configuration, trusted as given.
        let dir = Dir::open_ambient_dir(&self.path, cap_std::ambient_authority())?;
        let mut names = Vec::new();
        if let Ok(real) = self.path.canonicalize() {
            names.push(real);
        }
        if let Ok(given) = std::path::absolute(&self.path)
            && !names.contains(&given)
        {
            names.push(given);
        }
        let dir = Arc::new(OpenRoot { dir, names });
        *self.open.write().unwrap_or_else(PoisonError::into_inner) = Some(dir.clone());
        self.opened.store(now.max(1), Ordering::Relaxed);
        Ok(dir)
    }

    /// The handle, with the notes dir made first when it is missing.
    pub(super) fn handle_made(&self) -> io::Result<Arc<OpenRoot>> {
        match self.handle() {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&self.path)?;
                self.handle()
            }
            other => other,
        }
    }

    /// The folder `rel` beneath the notes dir (`.` or empty: the notes dir itself),
    /// opened for reading its entries, syncing it and creating in it; with `mkdir`,
    /// made name by name when missing, the notes dir itself included.
    pub(crate) fn open_folder(&self, rel: &str, mkdir: bool) -> io::Result<Dir> {
        use cap_fs_ext::OpenOptionsMaybeDirExt;
        let root = if mkdir {
            self.handle_made()?
        } else {
            self.handle()?
        };
        let rel = if rel.is_empty() { "." } else { rel };
        let mut options = cap_std::fs::OpenOptions::new();
        options.read(true).maybe_dir(true);
        let file = match root.beneath(rel, |dir, rel| dir.open_with(rel, &options)) {
            Err(e) if mkdir && e.kind() == io::ErrorKind::NotFound => {
                root.beneath(rel, |dir, rel| dir.create_dir_all(rel))?;
                root.beneath(rel, |dir, rel| dir.open_with(rel, &options))?
            }
            other => other?,
        };
        if !file.metadata()?.is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotADirectory, "not a folder"));
        }
        Ok(Dir::from_std_file(file.into_std()))
    }
}

impl OpenRoot {
    /// `op` on `rel` beneath the dir; when cap-std refuses it for leaving the dir, once
    /// more on the path with its symlinks followed by hand, should an absolute one lead
    /// back inside. The second try goes through cap-std too, so it stays beneath.
    pub(super) fn beneath<T>(
        &self,
        rel: &str,
        op: impl Fn(&Dir, &str) -> io::Result<T>,
    ) -> io::Result<T> {
        match op(&self.dir, rel) {
            Err(e) if super::open::escaped(&e) => match self.rebased(rel) {
                Some(inside) => op(&self.dir, &inside),
                None => Err(e),
            },
            other => other,
        }
    }

    /// `rel` with every symlink on the way replaced by its target, an absolute target
    /// by its part below one of the dir's names; `None` when it leads outside or loops.
    fn rebased(&self, rel: &str) -> Option<String> {
        let split = |path: &str| -> Vec<String> {
            path.split('/')
                .filter(|n| !n.is_empty() && *n != ".")
                .map(str::to_string)
                .collect()
        };
        let mut pending: Vec<String> = split(rel).into_iter().rev().collect();
        let mut done: Vec<String> = Vec::new();
        let mut links = 0;
        while let Some(name) = pending.pop() {
            if name == ".." {
                done.pop()?;
                continue;
            }
            done.push(name);
            // `done` holds no symlink but its last name: nothing here can leave.
            let Ok(target) = self.dir.read_link_contents(done.join("/")) else {
                continue;
            };
            links += 1;
            if links > MAX_LINKS {
                return None;
            }
            done.pop();
            let target = target.to_str()?;
            let rest = if target.starts_with('/') {
                done.clear();
                let target = Path::new(target);
                let below = self
                    .names
                    .iter()
                    .find_map(|n| target.strip_prefix(n).ok())?;
                below.to_str()?.to_string()
            } else {
                target.to_string()
            };
            pending.extend(split(&rest).into_iter().rev());
        }
        Some(if done.is_empty() {
            ".".to_string()
        } else {
            done.join("/")
        })
    }
}

#[cfg(target_os = "linux")]
impl RootDir {
    /// The identity of the file `rel` leads to from the notes dir's handle (one
    /// `statat`, following links). Used only to confirm a version kept in memory: its
    /// bytes came through a beneath open, so a matching identity is that same file,
    /// wherever a link now points, and a stat never blocks on a FIFO.
    pub(crate) fn identity(&self, rel: &str) -> rustix::io::Result<rustix::fs::Stat> {
        let root = self.handle().map_err(|e| errno(&e))?;
        rustix::fs::statat(&root.dir, rel, rustix::fs::AtFlags::empty())
    }

    /// Opens `rel` below the notes dir with `flags` (read-only ones: `O_PATH`,
    /// `O_DIRECTORY`, `O_NONBLOCK`, `O_NOCTTY`), through cap-std: a walk that would
    /// leave the dir fails with `EXDEV`. With `mkdir`, `rel` is a folder, created name
    /// by name when missing, the notes dir itself included.
    pub(crate) fn open_beneath(
        &self,
        rel: &str,
        flags: rustix::fs::OFlags,
        mkdir: bool,
    ) -> rustix::io::Result<std::os::fd::OwnedFd> {
        use cap_std::fs::OpenOptionsExt;
        use rustix::fs::OFlags;
        if mkdir {
            let dir = self.open_folder(rel, true).map_err(|e| errno(&e))?;
            return Ok(dir.into_std_file().into());
        }
        let root = self.handle().map_err(|e| errno(&e))?;
        let rel = if rel.is_empty() { "." } else { rel };
        let mut options = cap_std::fs::OpenOptions::new();
        options
            .read(true)
            .custom_flags((flags & !OFlags::RWMODE).bits() as i32);
        match root.beneath(rel, |dir, rel| dir.open_with(rel, &options)) {
            Ok(file) => Ok(file.into_std().into()),
            Err(e) => Err(errno(&e)),
        }
    }
}

/// The system's error number of a cap-std error; a walk refused for leaving the dir
/// (which has none) is `EXDEV`, as `openat2` says it.
#[cfg(target_os = "linux")]
fn errno(e: &io::Error) -> rustix::io::Errno {
    rustix::io::Errno::from_io_error(e).unwrap_or(if super::open::escaped(e) {
        rustix::io::Errno::XDEV
    } else {
        rustix::io::Errno::IO
    })
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use rustix::fs::OFlags;
    use rustix::io::Errno;
    use std::io::Read;
    use std::os::unix::fs::symlink;

    /// A notes dir with a folder and a note, and an outside folder with a secret.
    fn setup() -> (tempfile::TempDir, tempfile::TempDir, RootDir) {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("in")).unwrap();
        std::fs::write(root.path().join("in/n.md"), "inside").unwrap();
        let dir = RootDir::new(root.path().to_path_buf());
        (root, outside, dir)
    }

    fn read(dir: &RootDir, rel: &str) -> rustix::io::Result<String> {
        let mut text = String::new();
        std::fs::File::from(dir.open_beneath(rel, OFlags::RDONLY, false)?)
            .read_to_string(&mut text)
            .unwrap();
        Ok(text)
    }

    #[test]
    fn symlinks_inside_are_followed_absolute_ones_too() {
        let (root, _outside, dir) = setup();
        let r = root.path();
        symlink(r.join("in"), r.join("abs")).unwrap();
        symlink(r.join("in/n.md"), r.join("abs.md")).unwrap();
        symlink("in/n.md", r.join("rel.md")).unwrap();
        symlink("abs.md", r.join("rel-abs.md")).unwrap();
        symlink("../in", r.join("in/up")).unwrap();
        symlink(format!("{}//in/./n.md", r.display()), r.join("odd.md")).unwrap();
        for rel in [
            "in/n.md",
            "abs/n.md",
            "abs.md",
            "rel.md",
            "rel-abs.md",
            "in/up/n.md",
            "in/up/up/up/n.md",
            "in/../in/n.md",
            "odd.md",
        ] {
            assert_eq!(read(&dir, rel).unwrap(), "inside", "{rel}");
        }
    }

    #[test]
    fn walks_leaving_the_folder_are_refused() {
        let (root, outside, dir) = setup();
        let r = root.path();
        symlink(outside.path(), r.join("out")).unwrap();
        symlink(outside.path().join("secret.md"), r.join("s.md")).unwrap();
        symlink("../../", r.join("in/up2")).unwrap();
        // A sibling whose name starts like the root's.
        symlink(format!("{}-x/secret.md", r.display()), r.join("sibling.md")).unwrap();
        symlink(format!("{}/../x.md", r.display()), r.join("climb.md")).unwrap();
        symlink("/nonexistent/x.md", r.join("gone.md")).unwrap();
        for rel in [
            "out/secret.md",
            "s.md",
            "in/up2/secret.md",
            "sibling.md",
            "climb.md",
            "gone.md",
            "../x.md",
            "in/../../x.md",
        ] {
            assert_eq!(read(&dir, rel).err(), Some(Errno::XDEV), "{rel}");
        }
        symlink("missing.md", r.join("dangling.md")).unwrap();
        symlink("loop.md", r.join("loop.md")).unwrap();
        assert_eq!(read(&dir, "dangling.md").err(), Some(Errno::NOENT));
        assert_eq!(read(&dir, "loop.md").err(), Some(Errno::LOOP));
        assert_eq!(read(&dir, "missing/x.md").err(), Some(Errno::NOENT));
        assert_eq!(read(&dir, "in/n.md/x.md").err(), Some(Errno::NOTDIR));
    }

    #[test]
    fn missing_folders_are_made_beneath_only() {
        let (root, outside, dir) = setup();
        let r = root.path();
        symlink(outside.path(), r.join("out")).unwrap();
        dir.open_beneath("a/b/c", OFlags::RDONLY, true).unwrap();
        assert!(r.join("a/b/c").is_dir());
        assert_eq!(
            dir.open_beneath("out/new", OFlags::RDONLY, true).err(),
            Some(Errno::XDEV)
        );
        assert!(!outside.path().join("new").exists());
        assert!(dir.open_beneath("in/n.md/x", OFlags::RDONLY, true).is_err());
    }
}
