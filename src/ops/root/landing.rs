//! Where a path beneath the notes dir lands once its symlinks are followed: a folder
//! token is judged by that place, not by the name it was given (`work/shared` linking
//! to `../private` is `private`). The common case costs one `openat2` that refuses
//! symlinks (and fails without opening anything for a file), and a path found plain is
//! trusted for the rest of that tick of the coarse clock (1–10 ms), as the tokens file
//! is: a symlink made meanwhile counts from the next tick. Only a path that meets a
//! symlink is followed to see where it ends.

use super::RootDir;

/// The paths found free of symlinks, with the tick of the coarse clock they were
/// found in; entries of older ticks are worthless and go when the map is full.
#[cfg(target_os = "linux")]
#[derive(Debug, Default)]
pub(super) struct PlainPaths(
    std::sync::Mutex<std::collections::HashMap<Box<str>, u64, foldhash::fast::RandomState>>,
);

/// Most paths remembered at once.
#[cfg(target_os = "linux")]
const PLAIN_PATHS: usize = 1024;

#[cfg(target_os = "linux")]
impl PlainPaths {
    fn holds(&self, rel: &str, now: u64) -> bool {
        let map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.get(rel) == Some(&now)
    }

    fn insert(&self, rel: &str, now: u64) {
        let mut map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.len() >= PLAIN_PATHS {
            map.retain(|_, tick| *tick == now);
            if map.len() >= PLAIN_PATHS {
                map.clear();
            }
        }
        map.insert(rel.into(), now);
    }
}

/// Where a path leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Landing {
    /// Where it says: no symlink on the way (or nothing there yet).
    AsNamed,
    /// Elsewhere beneath the notes dir: that path, cleaned, relative to it.
    At(String),
    /// Nowhere that can be told: outside the notes dir, a loop, a dangling symlink,
    /// or a place the system would not name.
    Unknown,
}

impl RootDir {
    /// Where the cleaned relative path `rel` leads beneath the notes dir.
    #[cfg(target_os = "linux")]
    pub(crate) fn landing(&self, rel: &str) -> Landing {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        use rustix::io::Errno;
        let now = crate::ops::clock::coarse_millis();
        if self.plain_paths().holds(rel, now) {
            return Landing::AsNamed;
        }
        let Ok(root) = self.handle() else {
            // No notes dir: nothing beneath it can be a symlink.
            return Landing::AsNamed;
        };
        if self.kernel_walks() {
            for _ in 0..super::dir::KERNEL_RETRIES {
                // `O_DIRECTORY`: a file (the usual case) fails with `ENOTDIR` once its
                // whole path was walked, so there is nothing to close.
                match rustix::fs::openat2(
                    &root.fd,
                    rel,
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                    ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
                ) {
                    // Every name on the way that exists is a real folder (or file):
                    // the kernel stops at the first symlink with `ELOOP`.
                    Ok(_) | Err(Errno::NOENT | Errno::NOTDIR) => {
                        self.plain_paths().insert(rel, now);
                        return Landing::AsNamed;
                    }
                    Err(Errno::AGAIN) => continue,
                    Err(_) => break,
                }
            }
        }
        self.followed(&root.fd, rel)
    }

    /// Where `rel` leads, found by opening the longest part of it that exists
    /// (symlinks followed, beneath the root) and asking the system for that folder's
    /// or file's path; the names after it are kept as they are.
    #[cfg(target_os = "linux")]
    fn followed(&self, root: &std::os::fd::OwnedFd, rel: &str) -> Landing {
        use rustix::fs::{AtFlags, FileType, OFlags};
        use rustix::io::Errno;
        let names: Vec<&str> = rel
            .split('/')
            .filter(|n| !n.is_empty() && *n != ".")
            .collect();
        let Some(root_at) = fd_path(root) else {
            return Landing::Unknown;
        };
        for found in (0..=names.len()).rev() {
            let head = if found == 0 {
                ".".to_string()
            } else {
                names[..found].join("/")
            };
            let fd = match self.open_beneath(&head, OFlags::PATH, false) {
                Ok(fd) => fd,
                Err(Errno::NOENT) => continue,
                Err(_) => return Landing::Unknown,
            };
            // The first missing name must not be a symlink leading nowhere (yet): a
            // later write would go where it points.
            if let Some(next) = names.get(found)
                && rustix::fs::statat(&fd, *next, AtFlags::SYMLINK_NOFOLLOW)
                    .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink)
            {
                return Landing::Unknown;
            }
            let Some(at) = fd_path(&fd) else {
                return Landing::Unknown;
            };
            return landed(inside(&root_at, &at, &names[found..]), &names);
        }
        Landing::Unknown
    }

    /// Where `rel` leads, by the paths of the file system (no folder handles here).
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn landing(&self, rel: &str) -> Landing {
        let Ok(root_at) = self.path().canonicalize() else {
            return Landing::AsNamed;
        };
        let names: Vec<&str> = rel
            .split('/')
            .filter(|n| !n.is_empty() && *n != ".")
            .collect();
        for found in (0..=names.len()).rev() {
            let head = names[..found]
                .iter()
                .fold(self.path().to_path_buf(), |p, n| p.join(n));
            match head.canonicalize() {
                Ok(at) => {
                    if let Some(next) = names.get(found)
                        && std::fs::symlink_metadata(head.join(next)).is_ok()
                    {
                        return Landing::Unknown;
                    }
                    return landed(inside(&root_at, &at, &names[found..]), &names);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(_) => return Landing::Unknown,
            }
        }
        Landing::Unknown
    }
}

/// The landing of a path whose names are `names`, found to lead to `path`.
fn landed(path: Option<String>, names: &[&str]) -> Landing {
    match path {
        Some(path) if path == names.join("/") || (path == "." && names.is_empty()) => {
            Landing::AsNamed
        }
        Some(path) => Landing::At(path),
        None => Landing::Unknown,
    }
}

/// The path the system gives an open file or folder (`/proc/self/fd/N`).
#[cfg(target_os = "linux")]
fn fd_path(fd: &std::os::fd::OwnedFd) -> Option<std::path::PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()
}

/// `at` relative to `root_at`, with the names `rest` after it, `/`-separated; `None`
/// when `at` is not beneath `root_at`.
fn inside(root_at: &std::path::Path, at: &std::path::Path, rest: &[&str]) -> Option<String> {
    let rel = at.strip_prefix(root_at).ok()?;
    let mut names: Vec<&str> = Vec::new();
    for part in rel.components() {
        match part {
            std::path::Component::Normal(name) => names.push(name.to_str()?),
            _ => return None,
        }
    }
    names.extend_from_slice(rest);
    Some(if names.is_empty() {
        ".".to_string()
    } else {
        names.join("/")
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn symlinks_are_followed_to_where_they_lead() {
        let root = tempfile::tempdir().unwrap();
        let at = |p: &str| root.path().join(p);
        std::fs::create_dir_all(at("work/deep")).unwrap();
        std::fs::create_dir_all(at("private")).unwrap();
        std::fs::write(at("private/secret.md"), "x").unwrap();
        std::os::unix::fs::symlink("../private", at("work/shared")).unwrap();
        std::os::unix::fs::symlink("../private/secret.md", at("work/s.md")).unwrap();
        std::os::unix::fs::symlink("../private/none.md", at("work/dangling.md")).unwrap();
        std::os::unix::fs::symlink("deep", at("work/alias")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), at("work/out")).unwrap();
        let mut dirs = vec![RootDir::new(root.path().to_path_buf())];
        #[cfg(target_os = "linux")]
        dirs.push(RootDir::new(root.path().to_path_buf()).without_openat2());
        for dir in &dirs {
            assert_eq!(dir.landing("work/a.md"), Landing::AsNamed);
            assert_eq!(dir.landing("work/deep/new/b.md"), Landing::AsNamed);
            assert_eq!(dir.landing("private/secret.md"), Landing::AsNamed);
            assert_eq!(
                dir.landing("work/shared/secret.md"),
                Landing::At("private/secret.md".into())
            );
            assert_eq!(
                dir.landing("work/shared/new/c.md"),
                Landing::At("private/new/c.md".into())
            );
            assert_eq!(
                dir.landing("work/s.md"),
                Landing::At("private/secret.md".into())
            );
            assert_eq!(
                dir.landing("work/alias/x.md"),
                Landing::At("work/deep/x.md".into())
            );
            assert_eq!(dir.landing("work/dangling.md"), Landing::Unknown);
            assert_eq!(dir.landing("work/out/x.md"), Landing::Unknown);
        }
    }
}
