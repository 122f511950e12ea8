//! `RootDir`: the notes dir as an open folder. On Linux every note, folder and temp file
//! is reached from its handle, by one `openat2(RESOLVE_BENEATH)` or, where the kernel
//! cannot vouch for the walk, by the component walk of `walk`; nothing is checked by
//! path and then used by path.

use std::path::{Path, PathBuf};

/// A notes dir, with a handle on it once it exists.
#[derive(Debug)]
pub(crate) struct RootDir {
    path: PathBuf,
    #[cfg(target_os = "linux")]
    open: std::sync::RwLock<Option<std::sync::Arc<OpenRoot>>>,
    /// When the path was last seen naming the handle's dir, in milliseconds of
    /// [`coarse_millis`](crate::ops::clock::coarse_millis); 0 before the first time.
    #[cfg(target_os = "linux")]
    confirmed: std::sync::atomic::AtomicU64,
    /// Cleared when the kernel has no `openat2`: every open then walks.
    #[cfg(target_os = "linux")]
    kernel_walk: std::sync::atomic::AtomicBool,
    /// The paths lately found free of symlinks (`landing`).
    #[cfg(target_os = "linux")]
    plain_paths: super::landing::PlainPaths,
}

/// The open notes dir.
#[cfg(target_os = "linux")]
#[derive(Debug)]
pub(super) struct OpenRoot {
    pub(super) fd: std::os::fd::OwnedFd,
    id: FolderId,
    /// The absolute paths the dir is known by, for absolute symlinks pointing inside.
    names: Vec<PathBuf>,
}

/// Device and inode of a folder.
#[cfg(target_os = "linux")]
type FolderId = (u64, u64);

/// How long a check that the notes dir's path still names the handle's dir holds.
#[cfg(target_os = "linux")]
const ROOT_RECHECK_MS: u64 = 1000;

/// How often an `openat2` interrupted by a concurrent rename is tried again before the
/// component walk takes over.
#[cfg(target_os = "linux")]
pub(super) const KERNEL_RETRIES: usize = 3;

impl RootDir {
    pub(crate) fn new(path: PathBuf) -> Self {
        RootDir {
            path,
            #[cfg(target_os = "linux")]
            open: std::sync::RwLock::new(None),
            #[cfg(target_os = "linux")]
            confirmed: std::sync::atomic::AtomicU64::new(0),
            #[cfg(target_os = "linux")]
            kernel_walk: std::sync::atomic::AtomicBool::new(true),
            #[cfg(target_os = "linux")]
            plain_paths: Default::default(),
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether opens may ask the kernel (`openat2`) rather than walk name by name.
    #[cfg(target_os = "linux")]
    pub(super) fn kernel_walks(&self) -> bool {
        self.kernel_walk.load(std::sync::atomic::Ordering::Relaxed)
    }

    #[cfg(target_os = "linux")]
    pub(super) fn plain_paths(&self) -> &super::landing::PlainPaths {
        &self.plain_paths
    }
}

#[cfg(target_os = "linux")]
impl RootDir {
    /// The handle of the dir the notes dir's path names, opened on first use and
    /// opened again when the path names another dir (a folder moved aside and replaced
    /// by a fresh clone), noticed within a second.
    pub(super) fn handle(&self) -> rustix::io::Result<std::sync::Arc<OpenRoot>> {
        use rustix::fs::{Mode, OFlags};
        use std::sync::PoisonError;
        use std::sync::atomic::Ordering;
        let now = crate::ops::clock::coarse_millis();
        let kept = self
            .open
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(root) = &kept {
            let confirmed = self.confirmed.load(Ordering::Relaxed);
            if confirmed != 0 && now.saturating_sub(confirmed) < ROOT_RECHECK_MS {
                return Ok(root.clone());
            }
        }
        let current = folder_id(&rustix::fs::stat(&self.path)?);
        let root = match kept {
            Some(root) if root.id == current => root,
            _ => {
                // The notes dir's own path is the configuration, trusted as given.
                let fd = rustix::fs::open(
                    &self.path,
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                )?;
                let id = folder_id(&rustix::fs::fstat(&fd)?);
                let mut names = Vec::new();
                if let Ok(real) = self.path.canonicalize() {
                    names.push(real);
                }
                if let Ok(given) = std::path::absolute(&self.path)
                    && !names.contains(&given)
                {
                    names.push(given);
                }
                let root = std::sync::Arc::new(OpenRoot { fd, id, names });
                *self.open.write().unwrap_or_else(PoisonError::into_inner) = Some(root.clone());
                root
            }
        };
        self.confirmed.store(now.max(1), Ordering::Relaxed);
        Ok(root)
    }

    /// The identity of the file `rel` leads to from the notes dir's handle (one
    /// `statat`, following links). Used only to confirm a version kept in memory: its
    /// bytes came through a beneath open, so a matching identity is that same file,
    /// wherever a link now points, and a stat never blocks on a FIFO.
    pub(crate) fn identity(&self, rel: &str) -> rustix::io::Result<rustix::fs::Stat> {
        rustix::fs::statat(&self.handle()?.fd, rel, rustix::fs::AtFlags::empty())
    }

    /// Opens `rel` below the notes dir with `flags`: one `openat2` with
    /// `RESOLVE_BENEATH`, which the kernel refuses when the walk would leave the dir;
    /// what it will not vouch for (an absolute symlink, even one pointing inside) or
    /// cannot do (no `openat2`, a sandbox forbidding it, renames racing the walk) goes to
    /// the component walk, which applies the same rule. With `mkdir`, `rel` is a folder,
    /// created name by name when missing, the notes dir itself included.
    pub(crate) fn open_beneath(
        &self,
        rel: &str,
        flags: rustix::fs::OFlags,
        mkdir: bool,
    ) -> rustix::io::Result<std::os::fd::OwnedFd> {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        use rustix::io::Errno;
        use std::os::fd::AsFd;
        use std::sync::atomic::Ordering;
        let root = match self.handle() {
            Err(Errno::NOENT) if mkdir => {
                std::fs::create_dir_all(&self.path)
                    .map_err(|e| e.raw_os_error().map_or(Errno::IO, Errno::from_raw_os_error))?;
                self.handle()?
            }
            other => other?,
        };
        let flags = if mkdir {
            flags | OFlags::DIRECTORY
        } else {
            flags
        };
        if self.kernel_walk.load(Ordering::Relaxed) {
            for _ in 0..KERNEL_RETRIES {
                match rustix::fs::openat2(
                    &root.fd,
                    rel,
                    flags | OFlags::CLOEXEC,
                    Mode::empty(),
                    ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
                ) {
                    Ok(fd) => return Ok(fd),
                    Err(Errno::AGAIN) => continue,
                    Err(Errno::NOSYS) => {
                        self.kernel_walk.store(false, Ordering::Relaxed);
                        break;
                    }
                    Err(Errno::NOENT) if mkdir => break,
                    Err(Errno::XDEV | Errno::LOOP | Errno::PERM) => break,
                    Err(error) => return Err(error),
                }
            }
        }
        let names: Vec<&Path> = root.names.iter().map(PathBuf::as_path).collect();
        super::walk::open_beneath(root.fd.as_fd(), &names, rel, flags, mkdir)
    }
}

#[cfg(all(test, target_os = "linux"))]
impl RootDir {
    /// The same dir, opened by the component walk only, as on a kernel without
    /// `openat2`.
    pub(crate) fn without_openat2(self) -> Self {
        self.kernel_walk
            .store(false, std::sync::atomic::Ordering::Relaxed);
        self
    }
}

#[cfg(target_os = "linux")]
#[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
fn folder_id(stat: &rustix::fs::Stat) -> FolderId {
    (stat.st_dev as u64, stat.st_ino as u64)
}
