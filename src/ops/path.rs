//! `NotePath`: a note's relative path, cleaned like a URL path, validated in the spec's
//! order, and resolved inside the notes dir without ever leaving it.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

mod root;
#[cfg(target_os = "linux")]
mod walk;

pub use root::RootDir;

/// The folder inside the notes dir that holds the service's own files (search index).
/// No note may live under it.
pub const INTERNAL_DIR: &str = ".notes";

/// Longest file name Linux file systems take, in bytes (`NAME_MAX`).
const MAX_NAME: usize = 255;
/// Longest path the kernel takes, in bytes, its closing NUL left out (`PATH_MAX - 1`).
const MAX_PATH: usize = 4095;

/// A validated note path: relative, `/`-separated, no `.`/`..` segments, ends in `.md`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NotePath(String);

impl NotePath {
    /// Validates a path as typed on the command line or sent in a form field (a URL's
    /// path is percent-decoded by the HTTP layer first). Checks run in the spec's order: traversal or absolute path
    /// first, then the extension.
    pub fn parse(raw: &str) -> Result<Self> {
        if raw.contains('\0') || raw.contains('\\') {
            return Err(Error::InvalidPath);
        }
        let cleaned = clean(raw);
        if cleaned.starts_with("..") || cleaned.starts_with('/') {
            return Err(Error::InvalidPath);
        }
        if cleaned
            .strip_prefix(INTERNAL_DIR)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        {
            return Err(Error::InvalidPath);
        }
        if !cleaned.ends_with(".md") {
            return Err(Error::NotMarkdown);
        }
        // Longer than any file system takes: a name over 255 bytes, a path over 4095.
        if cleaned.len() > MAX_PATH
            || (cleaned.len() > MAX_NAME && cleaned.split('/').any(|name| name.len() > MAX_NAME))
        {
            return Err(Error::InvalidPath);
        }
        Ok(NotePath(cleaned))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The file name, e.g. `note.md` for `a/b/note.md`.
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// The file name without `.md`.
    pub fn stem(&self) -> &str {
        let name = self.file_name();
        name.strip_suffix(".md").unwrap_or(name)
    }

    /// The file inside `root` this path names, refused when a symlink on the way
    /// leads outside `root`.
    pub fn resolve(&self, root: &Path) -> Result<PathBuf> {
        let full = root.join(&self.0);
        ensure_inside(root, &full)?;
        Ok(full)
    }

    /// Opens the note for reading, with its metadata. Only a regular file is a note:
    /// anything else (a folder, a FIFO, a socket, a device) is refused like a missing
    /// note, and is opened non-blocking so the open itself never waits. On Linux the
    /// open walks from the notes dir's handle and is refused when a symlink on the way
    /// leads outside (see `RootDir::open_beneath`).
    pub fn open(&self, root: &RootDir) -> Result<(fs::File, fs::Metadata)> {
        #[cfg(target_os = "linux")]
        let file = {
            use rustix::fs::OFlags;
            let flags = OFlags::RDONLY | OFlags::NOCTTY | OFlags::NONBLOCK;
            fs::File::from(
                root.open_beneath(&self.0, flags, false)
                    .map_err(|e| open_error(e.into(), Error::AccessFailed))?,
            )
        };
        #[cfg(not(target_os = "linux"))]
        let file = {
            let full = self.resolve(root.path())?;
            // Without `O_NONBLOCK` at hand, a special file is refused before the open.
            match fs::metadata(&full) {
                Ok(meta) if !meta.is_file() => return Err(Error::NotFound),
                _ => {}
            }
            fs::File::open(full).map_err(|e| open_error(e, Error::AccessFailed))?
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
    pub fn stat(&self, root: &RootDir) -> Result<rustix::fs::Stat> {
        use rustix::fs::{FileType, OFlags};
        let stat = match root.identity(&self.0) {
            Ok(stat) => stat,
            // Not there, or not reachable by a plain stat: the beneath open decides.
            Err(_) => {
                let fd = root
                    .open_beneath(&self.0, OFlags::PATH, false)
                    .map_err(|e| open_error(e.into(), Error::AccessFailed))?;
                rustix::fs::fstat(&fd).map_err(|e| Error::AccessFailed(e.into()))?
            }
        };
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Err(Error::NotFound);
        }
        Ok(stat)
    }

    /// The folder holding the note, relative to the notes dir (`.` at the top).
    pub fn parent(&self) -> &str {
        self.0.rsplit_once('/').map_or(".", |(dir, _)| dir)
    }

    /// Refuses, for a write, a path with a name starting with `.`: such names belong to
    /// the service (temp files, the public record, the search index), and the list
    /// never shows them.
    pub fn check_writable(&self) -> Result<()> {
        if self.0.split('/').any(|name| name.starts_with('.')) {
            return Err(Error::InvalidPath);
        }
        Ok(())
    }
}

impl fmt::Display for NotePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The error of opening a note: missing is `NotFound`; a walk refused for leaving the
/// notes dir, a symlink loop and a name too long for the file system are
/// `InvalidPath`; anything else is `other`.
pub(crate) fn open_error(e: io::Error, other: fn(io::Error) -> Error) -> Error {
    match e.kind() {
        io::ErrorKind::NotFound => Error::NotFound,
        _ => path_error(e, other),
    }
}

/// An error of the file system about a note path: `InvalidPath` when the path cannot
/// be used (it leaves the notes dir, loops, or is too long), `other` otherwise.
pub(crate) fn path_error(e: io::Error, other: fn(io::Error) -> Error) -> Error {
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

/// Lexical cleaning with the rules of a URL path: repeated slashes fold, `.` segments go,
/// `..` removes the segment before it; a rooted path stays rooted, and `..` that climbs
/// above the start of a relative path is kept (so the caller can refuse it).
pub fn clean(path: &str) -> String {
    // Most paths (every one a listing finds) are clean already.
    if !path.is_empty()
        && path
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
    {
        return path.to_string();
    }
    let rooted = path.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => match out.last() {
                Some(&last) if last != ".." => {
                    out.pop();
                }
                _ if rooted => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    let joined = out.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// The real location of a notes dir, remembered after the first success: every
/// request resolves against it. Should the dir be moved away while serving, paths
/// resolve outside the remembered place and are refused, never let through.
fn canonical_root(root: &Path) -> Option<PathBuf> {
    use std::sync::{Mutex, PoisonError};
    static ROOTS: Mutex<Vec<(PathBuf, PathBuf)>> = Mutex::new(Vec::new());
    let mut roots = ROOTS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, real)) = roots.iter().find(|(given, _)| given == root) {
        return Some(real.clone());
    }
    let real = root.canonicalize().ok()?;
    if roots.len() >= 16 {
        roots.remove(0);
    }
    roots.push((root.to_path_buf(), real.clone()));
    Some(real)
}

/// Refuses `full` when it, or the deepest part of it that exists, resolves (through
/// symlinks) to a place outside `root`.
fn ensure_inside(root: &Path, full: &Path) -> Result<()> {
    let Some(root) = canonical_root(root) else {
        // No notes dir yet: nothing under it can be a symlink.
        return Ok(());
    };
    let mut probe = full.to_path_buf();
    let mut retries = 3;
    loop {
        match probe.canonicalize() {
            Ok(real) => {
                return if real.starts_with(&root) {
                    Ok(())
                } else {
                    Err(Error::InvalidPath)
                };
            }
            Err(_) => match probe.symlink_metadata() {
                // A dangling symlink cannot be followed to check where it points:
                // refuse it rather than write through it.
                Ok(meta) if meta.file_type().is_symlink() => return Err(Error::InvalidPath),
                // Created by a concurrent writer since the first look: look again.
                Ok(_) if retries > 0 => retries -= 1,
                _ => {
                    if !probe.pop() {
                        return Ok(());
                    }
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_follows_url_rules() {
        assert_eq!(clean("a/../b.md"), "b.md");
        assert_eq!(clean("a//b/./c.md"), "a/b/c.md");
        assert_eq!(clean("../x.md"), "../x.md");
        assert_eq!(clean("a/../../x.md"), "../x.md");
        assert_eq!(clean("/etc/passwd.md"), "/etc/passwd.md");
        assert_eq!(clean("/../x.md"), "/x.md");
        assert_eq!(clean(""), ".");
        assert_eq!(clean("a/b/.."), "a");
    }

    #[test]
    fn checks_run_in_spec_order() {
        assert!(matches!(
            NotePath::parse("../x.txt"),
            Err(Error::InvalidPath)
        ));
        assert!(matches!(
            NotePath::parse("/abs.md"),
            Err(Error::InvalidPath)
        ));
        assert!(matches!(
            NotePath::parse("a/b.txt"),
            Err(Error::NotMarkdown)
        ));
        assert!(matches!(NotePath::parse("a"), Err(Error::NotMarkdown)));
        assert_eq!(NotePath::parse("a/../b.md").unwrap().as_str(), "b.md");
        assert_eq!(
            NotePath::parse("dir/sub/n.md").unwrap().as_str(),
            "dir/sub/n.md"
        );
    }

    #[test]
    fn hostile_inputs_are_refused() {
        for raw in [
            "a\\..\\b.md",
            "a\0.md",
            "..foo.md",
            ".notes/x.md",
            "x/../../y.md",
        ] {
            assert!(
                matches!(NotePath::parse(raw), Err(Error::InvalidPath)),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn names() {
        let p = NotePath::parse("a/b/my-note.md").unwrap();
        assert_eq!(p.file_name(), "my-note.md");
        assert_eq!(p.stem(), "my-note");
    }

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
            assert!(np.resolve(root.path()).is_err(), "{p}");
        }
        std::fs::create_dir(root.path().join("in")).unwrap();
        std::os::unix::fs::symlink(root.path().join("in"), root.path().join("alias")).unwrap();
        let np = NotePath::parse("alias/n.md").unwrap();
        assert!(np.resolve(root.path()).is_ok());

        // Opening applies the same rules, whichever way it walks.
        std::fs::write(root.path().join("in/n.md"), "inside").unwrap();
        std::os::unix::fs::symlink("in/n.md", root.path().join("rel.md")).unwrap();
        let mut dirs = vec![RootDir::new(root.path().to_path_buf())];
        #[cfg(target_os = "linux")]
        dirs.push(RootDir::new(root.path().to_path_buf()).without_openat2());
        for dir in &dirs {
            for p in ["out/secret.md", "s.md", "dangling.md"] {
                let np = NotePath::parse(p).unwrap();
                assert!(matches!(np.open(dir), Err(Error::InvalidPath)), "{p}");
            }
            for p in ["alias/n.md", "rel.md", "in/n.md"] {
                let mut text = String::new();
                std::io::Read::read_to_string(
                    &mut NotePath::parse(p).unwrap().open(dir).unwrap().0,
                    &mut text,
                )
                .unwrap();
                assert_eq!(text, "inside", "{p}");
            }
            assert!(matches!(
                NotePath::parse("missing.md").unwrap().open(dir),
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
        let dir = RootDir::new(root.path().to_path_buf());
        for p in ["fifo.md", "dir.md"] {
            let np = NotePath::parse(p).unwrap();
            assert!(matches!(np.open(&dir), Err(Error::NotFound)), "{p}");
        }
    }

    #[test]
    fn paths_too_long_for_the_file_system_are_invalid() {
        let name = format!("{}.md", "a".repeat(252));
        assert!(NotePath::parse(&name).is_ok());
        let long_name = format!("{}.md", "a".repeat(253));
        assert!(matches!(
            NotePath::parse(&long_name),
            Err(Error::InvalidPath)
        ));
        let deep = format!("{}x.md", "abcdefg/".repeat(511));
        assert_eq!(deep.len(), 4092);
        assert!(NotePath::parse(&deep).is_ok());
        let deeper = format!("{}xxxxx.md", "abcdefg/".repeat(511));
        assert_eq!(deeper.len(), 4096);
        assert!(matches!(NotePath::parse(&deeper), Err(Error::InvalidPath)));
    }

    #[test]
    fn names_starting_with_a_dot_are_not_written() {
        for p in [".hidden/x.md", "a/.x.md", ".tmp-keep.md", "a/.b/c.md"] {
            let np = NotePath::parse(p).unwrap();
            assert!(
                matches!(np.check_writable(), Err(Error::InvalidPath)),
                "{p}"
            );
        }
        for p in ["x.md", "a/b.c.md", "a/b./c.md"] {
            assert!(NotePath::parse(p).unwrap().check_writable().is_ok(), "{p}");
        }
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        fn segment() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("..".to_string()),
                Just(".".to_string()),
                Just(String::new()),
                Just("%2e%2e".to_string()),
                "[a-z.é]{1,6}",
            ]
        }

        fn raw_path() -> impl Strategy<Value = String> {
            (
                any::<bool>(),
                prop::collection::vec(segment(), 0..8),
                any::<bool>(),
            )
                .prop_map(|(rooted, segments, md)| {
                    let mut p = segments.join("/");
                    if rooted {
                        p.insert(0, '/');
                    }
                    if md {
                        p.push_str(".md");
                    }
                    p
                })
        }

        proptest! {
            #[test]
            fn cleaning_is_idempotent(raw in raw_path()) {
                let once = clean(&raw);
                prop_assert_eq!(clean(&once), once.clone());
            }

            #[test]
            fn accepted_paths_never_escape(raw in raw_path()) {
                if let Ok(p) = NotePath::parse(&raw) {
                    let s = p.as_str();
                    prop_assert!(!s.starts_with('/'));
                    prop_assert!(s.ends_with(".md"));
                    prop_assert!(s.split('/').all(|seg| !seg.is_empty() && seg != "." && seg != ".."));
                    let root = Path::new("/srv/notes");
                    prop_assert!(root.join(s).starts_with(root));
                }
            }
        }
    }
}
