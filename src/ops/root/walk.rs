//! The component walk: a path opened below a folder handle one name at a time, each
//! name opened with `O_NOFOLLOW` from the handle of the folder before it, symlinks read
//! with `readlinkat` and followed by hand, and any walk that would leave the folder
//! refused. It is what the kernel's `openat2(RESOLVE_BENEATH)` does, for the cases the
//! kernel will not vouch for (an absolute symlink pointing inside) or cannot (no
//! `openat2`, or a sandbox that forbids it).

use std::collections::VecDeque;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path};

use rustix::fs::{Mode, OFlags};
use rustix::io::{Errno, Result};

/// Most symlinks one walk follows, as the kernel allows (`MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// How many times one name is looked at again after a concurrent change (a folder
/// created or removed between two calls) before the walk gives up.
const MAX_RETRIES: usize = 8;

/// Opens `rel` below the folder `root` with `flags` for the last name.
///
/// `root_names` are the absolute paths the folder is known by: an absolute symlink
/// that starts with one of them continues from `root` itself; any other absolute
/// symlink, and any `..` above `root`, fails with `EXDEV` (as `openat2` does). With
/// `mkdir`, every name of `rel` is a folder, created with `mkdirat` when missing.
pub(crate) fn open_beneath(
    root: BorrowedFd<'_>,
    root_names: &[&Path],
    rel: &str,
    flags: OFlags,
    mkdir: bool,
) -> Result<OwnedFd> {
    let mut pending: VecDeque<Vec<u8>> = names(rel.as_bytes()).collect();
    // The folders entered below `root`, deepest last: `..` steps back through them and
    // never above `root`.
    let mut entered: Vec<OwnedFd> = Vec::new();
    let (mut links, mut retries) = (0, 0);
    while let Some(name) = pending.pop_front() {
        let here = entered.last().map_or(root, |fd| fd.as_fd());
        if name == b".." {
            if entered.pop().is_none() {
                return Err(Errno::XDEV);
            }
            continue;
        }
        let last = pending.is_empty();
        let wanted = if last && !mkdir {
            flags
        } else if last {
            flags | OFlags::DIRECTORY
        } else {
            OFlags::PATH | OFlags::DIRECTORY
        };
        let opened = rustix::fs::openat(
            here,
            name.as_slice(),
            wanted | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        );
        let error = match opened {
            // With `O_PATH`, `O_NOFOLLOW` opens a symlink itself: follow it as below.
            Ok(fd) if last && flags.contains(OFlags::PATH) && is_link(&fd) => Errno::LOOP,
            Ok(fd) if last => return Ok(fd),
            Ok(fd) => {
                entered.push(fd);
                continue;
            }
            Err(error) => error,
        };
        retries += 1;
        if retries > MAX_RETRIES + MAX_LINKS {
            return Err(Errno::AGAIN);
        }
        match error {
            Errno::NOENT if mkdir => {
                match rustix::fs::mkdirat(here, name.as_slice(), Mode::from_raw_mode(0o777)) {
                    // Made, or made by someone else meanwhile: open it on the next turn.
                    Ok(()) | Err(Errno::EXIST) => pending.push_front(name),
                    Err(error) => return Err(error),
                }
            }
            // `O_NOFOLLOW` refuses a symlink with ELOOP, or ENOTDIR with `O_DIRECTORY`.
            Errno::LOOP | Errno::NOTDIR => {
                let target = match rustix::fs::readlinkat(here, name.as_slice(), Vec::new()) {
                    Ok(target) => target.into_bytes(),
                    // Not a symlink (any more): a folder or symlink swapped in
                    // meanwhile is looked at again on the next turn; for anything
                    // else the open's answer stands.
                    Err(Errno::INVAL) => {
                        if is_folder_or_link(here, &name) {
                            pending.push_front(name);
                            continue;
                        }
                        return Err(error);
                    }
                    // Replaced between the two calls: look again.
                    Err(Errno::NOENT) => {
                        pending.push_front(name);
                        continue;
                    }
                    Err(other) => return Err(other),
                };
                links += 1;
                if links > MAX_LINKS {
                    return Err(Errno::LOOP);
                }
                let rest = if target.starts_with(b"/") {
                    let rest = inside(&target, root_names).ok_or(Errno::XDEV)?;
                    entered.clear();
                    rest
                } else {
                    target.as_slice()
                };
                for part in names(rest).collect::<Vec<_>>().into_iter().rev() {
                    pending.push_front(part);
                }
            }
            error => return Err(error),
        }
    }
    // Nothing left to walk (`rel` named `root` itself, or a symlink to it).
    let here = entered.last().map_or(root, |fd| fd.as_fd());
    let flags = if mkdir {
        flags | OFlags::DIRECTORY
    } else {
        flags
    };
    rustix::fs::openat(here, ".", flags | OFlags::CLOEXEC, Mode::empty())
}

/// Whether `fd` is a symlink opened itself.
fn is_link(fd: &OwnedFd) -> bool {
    rustix::fs::fstat(fd).is_ok_and(|stat| {
        rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Symlink
    })
}

/// Whether `name` in `dir` is a folder or a symlink now (not following it).
fn is_folder_or_link(dir: BorrowedFd<'_>, name: &[u8]) -> bool {
    use rustix::fs::FileType;
    rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|stat| {
        matches!(
            FileType::from_raw_mode(stat.st_mode),
            FileType::Directory | FileType::Symlink
        )
    })
}

/// The names of a `/`-separated path, empty and `.` names left out.
fn names(path: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
    path.split(|&b| b == b'/')
        .filter(|name| !name.is_empty() && *name != b".")
        .map(<[u8]>::to_vec)
}

/// The part of the absolute symlink target `target` below one of `root_names`,
/// compared name by name (`/notes-old/x` is not below `/notes`).
fn inside<'a>(target: &'a [u8], root_names: &[&Path]) -> Option<&'a [u8]> {
    use std::os::unix::ffi::OsStrExt;
    for root in root_names {
        let mut rest = target;
        let mut matched = true;
        for component in root.components() {
            let name = match component {
                Component::RootDir => continue,
                Component::Normal(name) => name.as_bytes(),
                _ => {
                    matched = false;
                    break;
                }
            };
            let trimmed = trim_slashes(rest);
            match trimmed.strip_prefix(name) {
                Some(after) if after.is_empty() || after.starts_with(b"/") => rest = after,
                _ => {
                    matched = false;
                    break;
                }
            }
        }
        if matched {
            return Some(trim_slashes(rest));
        }
    }
    None
}

fn trim_slashes(mut path: &[u8]) -> &[u8] {
    while let Some(rest) = path.strip_prefix(b"/") {
        path = rest;
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::symlink;

    fn read(fd: OwnedFd) -> String {
        let mut text = String::new();
        std::fs::File::from(fd).read_to_string(&mut text).unwrap();
        text
    }

    /// A notes dir with a folder, a note, and an outside folder with a secret.
    fn setup() -> (tempfile::TempDir, tempfile::TempDir, OwnedFd) {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("in")).unwrap();
        std::fs::write(root.path().join("in/n.md"), "inside").unwrap();
        let fd = std::fs::File::open(root.path()).unwrap().into();
        (root, outside, fd)
    }

    fn open(root: &Path, fd: &OwnedFd, rel: &str) -> Result<OwnedFd> {
        open_beneath(fd.as_fd(), &[root], rel, OFlags::RDONLY, false)
    }

    #[test]
    fn symlinks_inside_are_followed_by_hand() {
        let (root, _outside, fd) = setup();
        let r = root.path();
        symlink(r.join("in"), r.join("abs")).unwrap();
        symlink(r.join("in/n.md"), r.join("abs.md")).unwrap();
        symlink("in/n.md", r.join("rel.md")).unwrap();
        symlink("../in", r.join("in/up")).unwrap();
        symlink(format!("{}//in/./n.md", r.display()), r.join("odd.md")).unwrap();
        let path_only = open_beneath(fd.as_fd(), &[r], "rel.md", OFlags::PATH, false).unwrap();
        let stat = rustix::fs::fstat(&path_only).unwrap();
        assert!(rustix::fs::FileType::from_raw_mode(stat.st_mode).is_file());
        for rel in [
            "in/n.md",
            "abs/n.md",
            "abs.md",
            "rel.md",
            "in/up/n.md",
            "in/up/up/up/n.md",
            "in/../in/n.md",
            "odd.md",
        ] {
            assert_eq!(read(open(r, &fd, rel).unwrap()), "inside", "{rel}");
        }
    }

    #[test]
    fn walks_leaving_the_folder_are_refused() {
        let (root, outside, fd) = setup();
        let r = root.path();
        symlink(outside.path(), r.join("out")).unwrap();
        symlink(outside.path().join("secret.md"), r.join("s.md")).unwrap();
        symlink("../../", r.join("in/up2")).unwrap();
        // A sibling whose name starts like the root's.
        let sibling = format!("{}-x/secret.md", r.display());
        symlink(&sibling, r.join("sibling.md")).unwrap();
        symlink(format!("{}/../x.md", r.display()), r.join("climb.md")).unwrap();
        for rel in [
            "out/secret.md",
            "s.md",
            "in/up2/secret.md",
            "sibling.md",
            "climb.md",
            "../x.md",
            "in/../../x.md",
        ] {
            assert_eq!(open(r, &fd, rel).err(), Some(Errno::XDEV), "{rel}");
        }
    }

    #[test]
    fn dangling_and_looping_symlinks_are_refused() {
        let (root, _outside, fd) = setup();
        let r = root.path();
        symlink("missing.md", r.join("dangling.md")).unwrap();
        symlink("/nonexistent/x.md", r.join("gone.md")).unwrap();
        symlink("loop.md", r.join("loop.md")).unwrap();
        assert_eq!(open(r, &fd, "dangling.md").err(), Some(Errno::NOENT));
        assert_eq!(open(r, &fd, "gone.md").err(), Some(Errno::XDEV));
        assert_eq!(open(r, &fd, "loop.md").err(), Some(Errno::LOOP));
        assert_eq!(open(r, &fd, "missing/x.md").err(), Some(Errno::NOENT));
        assert_eq!(open(r, &fd, "in/n.md/x.md").err(), Some(Errno::NOTDIR));
    }

    #[test]
    fn missing_folders_are_made_one_at_a_time() {
        let (root, outside, fd) = setup();
        let r = root.path();
        symlink(outside.path(), r.join("out")).unwrap();
        let made = open_beneath(fd.as_fd(), &[r], "a/b/c", OFlags::RDONLY, true).unwrap();
        rustix::fs::fstat(&made).unwrap();
        assert!(r.join("a/b/c").is_dir());
        assert_eq!(
            open_beneath(fd.as_fd(), &[r], "out/new", OFlags::RDONLY, true).err(),
            Some(Errno::XDEV)
        );
        assert!(!outside.path().join("new").exists());
        // A file in the way is not a folder.
        assert_eq!(
            open_beneath(fd.as_fd(), &[r], "in/n.md/x", OFlags::RDONLY, true).err(),
            Some(Errno::NOTDIR)
        );
    }

    #[test]
    fn root_names_match_name_by_name() {
        let roots = [Path::new("/srv/notes")];
        assert_eq!(inside(b"/srv/notes/a.md", &roots), Some(&b"a.md"[..]));
        assert_eq!(inside(b"//srv//notes", &roots), Some(&b""[..]));
        assert_eq!(inside(b"/srv/notes-old/a.md", &roots), None);
        assert_eq!(inside(b"/srv/a.md", &roots), None);
    }
}
