//! `NotePath`: a note's relative path, cleaned like a URL path and validated in the
//! spec's order. A value only: it is opened beneath the notes dir by `ops::root`.

use std::fmt;

use crate::error::{Error, Result};

/// The folder inside the notes dir that holds the service's own files (search index).
/// No note may live under it.
pub(crate) const INTERNAL_DIR: &str = ".notes";

/// Longest file name Linux file systems take, in bytes (`NAME_MAX`).
const MAX_NAME: usize = 255;
/// Longest path the kernel takes, in bytes, its closing NUL left out (`PATH_MAX - 1`).
const MAX_PATH: usize = 4095;

/// A validated note path: relative, `/`-separated, no `.`/`..` segments, ends in `.md`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NotePath(String);

impl NotePath {
    /// Validates a path as typed on the command line or sent in a form field (a URL's
    /// path is percent-decoded by the HTTP layer first). Checks run in the spec's
    /// order: traversal or absolute path first, then the extension.
    pub fn parse(raw: &str) -> Result<Self> {
        let cleaned = checked(raw)?;
        if !cleaned.ends_with(".md") {
            return Err(Error::NotMarkdown);
        }
        Ok(NotePath(cleaned))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The file name, e.g. `note.md` for `a/b/note.md`.
    pub(crate) fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// The file name without `.md`.
    pub(crate) fn stem(&self) -> &str {
        let name = self.file_name();
        name.strip_suffix(".md").unwrap_or(name)
    }

    /// The folder holding the note, relative to the notes dir (`.` at the top).
    pub(crate) fn parent(&self) -> &str {
        self.0.rsplit_once('/').map_or(".", |(dir, _)| dir)
    }

    /// Refuses, for a write, a path with a name starting with `.`: such names belong to
    /// the service (temp files, the public record, the search index), and the list
    /// never shows them.
    pub(crate) fn check_writable(&self) -> Result<()> {
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

/// The rules every path under the notes dir follows, notes and attachments alike:
/// cleaned like a URL path, then refused when it climbs out, is absolute, names the
/// service's own folder, or is longer than any file system takes.
fn checked(raw: &str) -> Result<String> {
    let cleaned = match scan(raw) {
        Scan::Refused => return Err(Error::InvalidPath),
        Scan::Clean => raw.to_string(),
        Scan::Unclean => clean(raw),
    };
    if cleaned.starts_with("..") || cleaned.starts_with('/') {
        return Err(Error::InvalidPath);
    }
    if cleaned
        .strip_prefix(INTERNAL_DIR)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    {
        return Err(Error::InvalidPath);
    }
    // Longer than any file system takes: a name over 255 bytes, a path over 4095.
    if cleaned.len() > MAX_PATH
        || (cleaned.len() > MAX_NAME && cleaned.split('/').any(|name| name.len() > MAX_NAME))
    {
        return Err(Error::InvalidPath);
    }
    Ok(cleaned)
}

/// A validated attachment path: the rules of a note path, but naming any file that is
/// not a note (`.md`), and never a hidden one: no name of it starts with `.` (the
/// service's own files and every dot folder are not attachments).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FilePath(String);

impl FilePath {
    /// Validates an attachment path (a URL's path is percent-decoded by the HTTP layer
    /// first): the note path rules, then `.md` is refused as a note, then hidden names.
    pub fn parse(raw: &str) -> Result<Self> {
        let cleaned = checked(raw)?;
        if cleaned == "." || cleaned.split('/').any(|name| name.starts_with('.')) {
            return Err(Error::InvalidPath);
        }
        if cleaned.ends_with(".md") {
            return Err(Error::FileIsNote);
        }
        Ok(FilePath(cleaned))
    }

    /// Validates the folder a listing looks under: the same rules, `.md` allowed as a
    /// folder name; empty (or `.`) is the notes dir itself, returned as `.`.
    pub fn parse_folder(raw: &str) -> Result<String> {
        if raw.is_empty() {
            return Ok(".".to_string());
        }
        let cleaned = checked(raw)?;
        if cleaned == "." {
            return Ok(cleaned);
        }
        if cleaned.split('/').any(|name| name.starts_with('.')) {
            return Err(Error::InvalidPath);
        }
        Ok(cleaned)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The file name, e.g. `img.png` for `a/b/img.png`.
    pub(crate) fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }

    /// The folder holding the file, relative to the notes dir (`.` at the top).
    pub(crate) fn parent(&self) -> &str {
        self.0.rsplit_once('/').map_or(".", |(dir, _)| dir)
    }
}

impl fmt::Display for FilePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Lexical cleaning with the rules of a URL path: repeated slashes fold, `.` segments go,
/// `..` removes the segment before it; a rooted path stays rooted, and `..` that climbs
/// above the start of a relative path is kept (so the caller can refuse it).
/// What one pass over a raw path finds.
#[derive(Debug, PartialEq)]
enum Scan {
    /// A NUL byte or a backslash: never a note path.
    Refused,
    /// No empty, `.` or `..` segment: cleaning would not change it.
    Clean,
    Unclean,
}

/// One pass over the bytes of `path`, for the common case of a path that is clean
/// already (every one a listing finds, nearly every one a client sends).
fn scan(path: &str) -> Scan {
    let bytes = path.as_bytes();
    let plain = |segment: &[u8]| !matches!(segment, b"" | b"." | b"..");
    let mut clean = true;
    let mut start = 0;
    for (i, byte) in bytes.iter().enumerate() {
        match byte {
            0 | b'\\' => return Scan::Refused,
            b'/' => {
                clean &= plain(&bytes[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    clean &= plain(&bytes[start..]);
    if clean { Scan::Clean } else { Scan::Unclean }
}

pub(crate) fn clean(path: &str) -> String {
    if scan(path) == Scan::Clean {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_finds_what_cleaning_would_change() {
        for clean_path in ["a.md", "a/b.md", "a/.b.md", "a/..b/c.md", "x...md"] {
            assert_eq!(scan(clean_path), Scan::Clean, "{clean_path}");
            assert_eq!(clean(clean_path), clean_path);
        }
        // These take the slow way, which keeps them as they are (and parse refuses them).
        for kept in ["/a.md", "../a.md"] {
            assert_eq!(scan(kept), Scan::Unclean, "{kept}");
            assert_eq!(clean(kept), kept);
        }
        for unclean in ["", "a//b.md", "./a.md", "a/./b.md", "a/..", "a/"] {
            assert_eq!(scan(unclean), Scan::Unclean, "{unclean}");
            assert_ne!(clean(unclean), unclean);
        }
        for refused in ["a\\b.md", "a\0.md", "\\"] {
            assert_eq!(scan(refused), Scan::Refused, "{refused}");
        }
    }

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

    #[test]
    fn attachment_paths_follow_the_note_rules() {
        assert_eq!(FilePath::parse("img/a.png").unwrap().as_str(), "img/a.png");
        assert_eq!(FilePath::parse("a/../b.pdf").unwrap().as_str(), "b.pdf");
        assert_eq!(FilePath::parse("Makefile").unwrap().file_name(), "Makefile");
        assert_eq!(FilePath::parse("x/y/z.bin").unwrap().parent(), "x/y");
        assert_eq!(FilePath::parse("z.bin").unwrap().parent(), ".");
        for raw in [
            "../x.png",
            "a/../../x.png",
            "/etc/passwd",
            ".hidden/x.png",
            "a/.x.png",
            ".notes/index/meta.json",
            "a\\b.png",
            "a\0.png",
            "",
            ".",
        ] {
            assert!(
                matches!(FilePath::parse(raw), Err(Error::InvalidPath)),
                "{raw:?}"
            );
        }
        assert!(matches!(
            FilePath::parse("dir/n.md"),
            Err(Error::FileIsNote)
        ));
    }

    #[test]
    fn listing_folders() {
        assert_eq!(FilePath::parse_folder("").unwrap(), ".");
        assert_eq!(FilePath::parse_folder("a//b/").unwrap(), "a/b");
        assert_eq!(FilePath::parse_folder("a/..").unwrap(), ".");
        for raw in ["..", "a/../..", "/abs", ".notes", "a/.git"] {
            assert!(FilePath::parse_folder(raw).is_err(), "{raw:?}");
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
                    let root = std::path::Path::new("/srv/notes");
                    prop_assert!(root.join(s).starts_with(root));
                }
            }
        }
    }
}
