//! What a token may do: read only or read and write, everywhere or inside one folder.
//! Every layer that serves a caller holding a token (the HTTP door and routes, the MCP
//! tools) asks the same two questions here: `allows_read` and `allows_write`.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::ops::{FilePath, NotePath};

/// What a token allows. The default is what a caller without tokens gets: everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    read_only: bool,
    prefix: Option<Prefix>,
}

/// The folder a token is limited to, cleaned (`work/projects`, no slash at either end).
/// Shared, so cloning a scope for each request copies no text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prefix(Arc<str>);

impl Prefix {
    /// Validates a folder given on the command line: the rules of a note's folder
    /// (inside the notes dir, no hidden name); the notes dir itself is refused, since a
    /// token limited to everything is a token without a prefix.
    pub fn parse(raw: &str) -> Result<Self> {
        let folder = FilePath::parse_folder(raw.trim_matches('/'))?;
        if folder == "." {
            return Err(Error::InvalidPath);
        }
        Ok(Prefix(folder.into()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `path` (a note, file or folder path relative to the notes dir) is this
    /// folder or inside it: `work` holds `work/a.md` and `work`, not `workshop/a.md`.
    fn holds(&self, path: &str) -> bool {
        path.strip_prefix(&*self.0)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }
}

/// A path a scope can be asked about: a note, an attachment, or a folder (`str`, the
/// notes dir itself being `.` or empty).
pub trait Scoped {
    /// The path relative to the notes dir.
    fn scoped_path(&self) -> &str;
}

impl Scoped for NotePath {
    fn scoped_path(&self) -> &str {
        self.as_str()
    }
}

impl Scoped for FilePath {
    fn scoped_path(&self) -> &str {
        self.as_str()
    }
}

impl Scoped for str {
    fn scoped_path(&self) -> &str {
        self
    }
}

impl Scope {
    /// Every read and every write: the scope of a full token, and of a server without
    /// tokens.
    pub fn full() -> Self {
        Scope::default()
    }

    pub fn new(read_only: bool, prefix: Option<Prefix>) -> Self {
        Scope { read_only, prefix }
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    pub fn prefix(&self) -> Option<&Prefix> {
        self.prefix.as_ref()
    }

    /// Whether nothing is limited (a full token).
    pub fn is_full(&self) -> bool {
        !self.read_only && self.prefix.is_none()
    }

    /// Whether the holder may read `path` (a folder: list what is in it).
    pub fn allows_read<P: Scoped + ?Sized>(&self, path: &P) -> bool {
        self.prefix
            .as_ref()
            .is_none_or(|prefix| prefix.holds(path.scoped_path()))
    }

    /// Whether the holder may create, change, move or delete `path`.
    pub fn allows_write<P: Scoped + ?Sized>(&self, path: &P) -> bool {
        !self.read_only && self.allows_read(path)
    }

    /// Whether the holder may change anything at all (a read-only token never does).
    pub fn allows_any_write(&self) -> bool {
        !self.read_only
    }

    /// Whether a listing of `folder` (`.` or empty: every note) shows only part of what
    /// is there to this holder, so its entries must be filtered with `allows_read`.
    pub fn narrows(&self, folder: &str) -> bool {
        self.prefix.is_some() && !self.allows_read(folder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(p: &str) -> NotePath {
        NotePath::parse(p).unwrap()
    }

    #[test]
    fn prefixes_hold_their_folder_only() {
        let work = Scope::new(false, Some(Prefix::parse("/work/").unwrap()));
        assert!(work.allows_read(&note("work/a.md")));
        assert!(work.allows_write(&note("work/deep/b.md")));
        assert!(work.allows_read("work"));
        assert!(!work.allows_read(&note("workshop/a.md")));
        assert!(!work.allows_write(&note("a.md")));
        assert!(!work.allows_read("."));
        assert!(work.narrows("."));
        assert!(!work.narrows("work/deep"));
        assert!(work.allows_read(&FilePath::parse("work/img.png").unwrap()));
        assert!(!work.allows_read(&FilePath::parse("img.png").unwrap()));
    }

    #[test]
    fn read_only_reads_everything_and_writes_nothing() {
        let ro = Scope::new(true, None);
        assert!(ro.allows_read(&note("a.md")));
        assert!(!ro.allows_write(&note("a.md")));
        assert!(!ro.allows_any_write());
        let full = Scope::full();
        assert!(full.is_full() && full.allows_write(&note("x/y.md")) && !full.narrows("."));
    }

    #[test]
    fn bad_prefixes_are_refused() {
        for raw in ["", "/", ".", "..", "../x", ".notes", "a/.hidden", "a\\b"] {
            assert!(Prefix::parse(raw).is_err(), "{raw:?}");
        }
        assert_eq!(Prefix::parse("a//b/").unwrap().as_str(), "a/b");
    }
}
