//! `NotePath`: a note's relative path, cleaned like a URL path, validated in the spec's
//! order, and resolved inside the notes dir without ever leaving it.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The folder inside the notes dir that holds the service's own files (search index).
/// No note may live under it.
pub const INTERNAL_DIR: &str = ".notes";

/// A validated note path: relative, `/`-separated, no `.`/`..` segments, ends in `.md`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NotePath(String);

impl NotePath {
    /// Validates a path already percent-decoded (as typed on the command line or sent
    /// in a form field). Checks run in the spec's order: traversal or absolute path
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
        if cleaned.len() > 255 && cleaned.split('/').any(|segment| segment.len() > 255) {
            return Err(Error::InvalidPath);
        }
        Ok(NotePath(cleaned))
    }

    /// Validates the percent-encoded path of a URL (the text after `/api/v1/notes/`).
    /// Decoding happens once, before cleaning, so `%2e%2e%2f` is traversal like `../`.
    pub fn from_url(encoded: &str) -> Result<Self> {
        if !encoded.contains('%') {
            return Self::parse(encoded);
        }
        let decoded = percent_encoding::percent_decode_str(encoded)
            .decode_utf8()
            .map_err(|_| Error::InvalidPath)?;
        Self::parse(&decoded)
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

    /// Opens the note for reading, refused like `resolve` when a symlink leads outside
    /// `root`. On Linux, one `openat2` from the root's handle with `RESOLVE_BENEATH` does
    /// the walk and the check together; what the kernel will not vouch for (an absolute
    /// symlink, even one pointing inside) takes the `resolve` route.
    pub fn open(&self, root: &RootDir) -> Result<fs::File> {
        let not_found = |e: io::Error| match e.kind() {
            io::ErrorKind::NotFound => Error::NotFound,
            _ => Error::AccessFailed(e),
        };
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::OFlags;
            use rustix::io::Errno;
            match root.open_beneath(&self.0, OFlags::RDONLY | OFlags::NOCTTY) {
                Some(Ok(fd)) => return Ok(fs::File::from(fd)),
                None
                | Some(Err(
                    Errno::XDEV | Errno::LOOP | Errno::NOSYS | Errno::PERM | Errno::AGAIN,
                )) => {}
                Some(Err(errno)) => return Err(not_found(errno.into())),
            }
        }
        let full = self.resolve(root.path())?;
        fs::File::open(full).map_err(not_found)
    }
}

/// A notes dir, with a handle on it once it exists: note opens walk from the handle.
#[derive(Debug)]
pub struct RootDir {
    path: PathBuf,
    #[cfg(target_os = "linux")]
    handle: std::sync::OnceLock<(std::os::fd::OwnedFd, FolderId)>,
    /// When the path was last seen naming the handle's dir, in milliseconds after
    /// `since`.
    #[cfg(target_os = "linux")]
    confirmed: std::sync::atomic::AtomicU64,
    #[cfg(target_os = "linux")]
    since: std::time::Instant,
}

/// Device and inode of a folder.
#[cfg(target_os = "linux")]
type FolderId = (u64, u64);

/// How long a check that the notes dir's path still names the handle's dir holds.
#[cfg(target_os = "linux")]
const ROOT_RECHECK_MS: u64 = 1000;

impl RootDir {
    pub fn new(path: PathBuf) -> Self {
        RootDir {
            path,
            #[cfg(target_os = "linux")]
            handle: std::sync::OnceLock::new(),
            #[cfg(target_os = "linux")]
            confirmed: std::sync::atomic::AtomicU64::new(0),
            #[cfg(target_os = "linux")]
            since: std::time::Instant::now(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The handle of the dir that `canonical_root` remembers, opened on first use, and
    /// only while the notes dir's path names that dir: a dir moved aside and replaced
    /// (a fresh clone) is read through its path instead, from at most a second after.
    #[cfg(target_os = "linux")]
    fn handle(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        use rustix::fs::{Mode, OFlags};
        use std::os::fd::AsFd;
        use std::sync::atomic::Ordering;
        let now = u64::try_from(self.since.elapsed().as_millis()).unwrap_or(u64::MAX);
        if let Some((fd, _)) = self.handle.get() {
            let confirmed = self.confirmed.load(Ordering::Relaxed);
            if confirmed != 0 && now.saturating_sub(confirmed) < ROOT_RECHECK_MS {
                return Some(fd.as_fd());
            }
        }
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        let folder_id = |stat: rustix::fs::Stat| (stat.st_dev as u64, stat.st_ino as u64);
        let current = folder_id(rustix::fs::stat(&self.path).ok()?);
        let (fd, id) = match self.handle.get() {
            Some(handle) => handle,
            None => {
                let real = canonical_root(&self.path)?;
                let fd = rustix::fs::open(
                    &real,
                    OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .ok()?;
                let opened = folder_id(rustix::fs::fstat(&fd).ok()?);
                self.handle.get_or_init(|| (fd, opened))
            }
        };
        if *id != current {
            return None;
        }
        self.confirmed.store(now.max(1), Ordering::Relaxed);
        Some(fd.as_fd())
    }

    /// The folder holding `note`, opened for writes relative to it, when it exists and
    /// the kernel walk from the handle vouches that it is inside. `None` sends the
    /// caller down the path route, which decides every other case.
    #[cfg(target_os = "linux")]
    pub fn open_parent(&self, note: &NotePath) -> Option<std::os::fd::OwnedFd> {
        let parent = note.as_str().rsplit_once('/').map_or(".", |(dir, _)| dir);
        self.open_beneath(
            parent,
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY,
        )?
        .ok()
    }

    /// `openat2` of `rel` from the handle, refused by the kernel when the walk would
    /// leave the dir (`..`, symlinks pointing outside, absolute symlinks, magic links).
    /// `None` when the handle is not usable.
    #[cfg(target_os = "linux")]
    fn open_beneath(
        &self,
        rel: &str,
        flags: rustix::fs::OFlags,
    ) -> Option<rustix::io::Result<std::os::fd::OwnedFd>> {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        Some(rustix::fs::openat2(
            self.handle()?,
            rel,
            flags | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
        ))
    }

    /// `stat` of the file `rel` names under the dir (following symlinks), when the
    /// dir's handle is usable.
    #[cfg(target_os = "linux")]
    pub fn stat(&self, rel: &NotePath) -> Option<rustix::fs::Stat> {
        rustix::fs::statat(self.handle()?, rel.as_str(), rustix::fs::AtFlags::empty()).ok()
    }
}

impl fmt::Display for NotePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
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
        for encoded in [
            "%2e%2e%2fx.md",
            "..%2fx.md",
            "%2E%2E/x.md",
            "%2fetc%2fx.md",
            "a%00.md",
        ] {
            assert!(
                matches!(NotePath::from_url(encoded), Err(Error::InvalidPath)),
                "{encoded}"
            );
        }
        assert!(matches!(
            NotePath::from_url("%ff.md"),
            Err(Error::InvalidPath)
        ));
        // Double encoding decodes once: a literal `%2e%2e` file name, inside the dir.
        assert_eq!(
            NotePath::from_url("%252e%252e%252fx.md").unwrap().as_str(),
            "%2e%2e%2fx.md"
        );
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
        let dir = RootDir::new(root.path().to_path_buf());
        for p in ["out/secret.md", "s.md", "dangling.md"] {
            let np = NotePath::parse(p).unwrap();
            assert!(matches!(np.open(&dir), Err(Error::InvalidPath)), "{p}");
        }
        for p in ["alias/n.md", "rel.md", "in/n.md"] {
            let mut text = String::new();
            std::io::Read::read_to_string(
                &mut NotePath::parse(p).unwrap().open(&dir).unwrap(),
                &mut text,
            )
            .unwrap();
            assert_eq!(text, "inside", "{p}");
        }
        assert!(matches!(
            NotePath::parse("missing.md").unwrap().open(&dir),
            Err(Error::NotFound)
        ));
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
                for p in [NotePath::parse(&raw), NotePath::from_url(&raw)].into_iter().flatten() {
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
