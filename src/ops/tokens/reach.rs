//! A scope applied to the notes folder as it is on disk: the one check every layer asks
//! about a path (`Notebook::may_read`, `may_write`) and the view of listings it leaves
//! (`Reader`). A path is judged by its name and, for a scope limited to a folder, by
//! where it resolves: a symlink inside the notes folder leading into another folder is
//! that folder. A full scope costs nothing; a folder costs one `openat2` per path,
//! and a walk only for a path that meets a symlink.

use super::{Scope, Scoped};
use crate::error::{Error, Result};
use crate::ops::Notebook;
use crate::ops::root::{Landing, RootDir};
use crate::ops::store::ListSnapshot;

impl Notebook {
    /// Whether the holder of `scope` may read `path` (a note, an attachment, a folder).
    pub(crate) fn may_read<P: Scoped + ?Sized>(&self, scope: &Scope, path: &P) -> bool {
        readable(&self.root, scope, path.scoped_path())
    }

    /// Whether the holder of `scope` may create, change, move or delete `path`.
    pub(crate) fn may_write<P: Scoped + ?Sized>(&self, scope: &Scope, path: &P) -> bool {
        scope.allows_any_write() && readable(&self.root, scope, path.scoped_path())
    }

    /// `may_write`, as the error that refuses the operation.
    pub(crate) fn check_write<P: Scoped + ?Sized>(&self, scope: &Scope, path: &P) -> Result<()> {
        if self.may_write(scope, path) {
            Ok(())
        } else {
            Err(Error::OutsideScope)
        }
    }

    /// What the holder of `scope` sees of the notes: its folder, less the symlinked
    /// notes in it that lead out of it. Reads the list only for a folder scope.
    pub(crate) fn reader(&self, scope: &Scope) -> Result<Reader> {
        if scope.prefix().is_none() {
            return Ok(Reader {
                scope: scope.clone(),
                hidden: Vec::new(),
            });
        }
        Ok(self.reader_of(scope, &self.list_snapshot()?))
    }

    /// `reader`, from a list `snapshot` the caller already holds (the one it filters).
    pub(crate) fn reader_of(&self, scope: &Scope, snapshot: &ListSnapshot) -> Reader {
        let hidden = match scope.prefix() {
            None => Vec::new(),
            Some(_) => snapshot
                .linked()
                .iter()
                .filter(|path| {
                    scope.allows_read(path.as_str()) && !self.may_read(scope, path.as_str())
                })
                .cloned()
                .collect(),
        };
        Reader {
            scope: scope.clone(),
            hidden,
        }
    }
}

/// Whether `scope` reaches `rel` (a path relative to the notes dir `root`), by its
/// name and by where it leads.
pub(crate) fn readable(root: &RootDir, scope: &Scope, rel: &str) -> bool {
    if !scope.allows_read(rel) {
        return false;
    }
    if scope.prefix().is_none() {
        return true;
    }
    match root.landing(rel) {
        Landing::AsNamed => true,
        Landing::At(real) => scope.allows_read(real.as_str()),
        Landing::Unknown => false,
    }
}

/// What one caller may see of the listed notes: its scope, and the notes of its folder
/// whose name is a symlink leading out of it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reader {
    scope: Scope,
    /// Sorted.
    hidden: Vec<String>,
}

impl Reader {
    /// Whether the caller sees note (or attachment) `path` of a listing.
    pub(crate) fn holds(&self, path: &str) -> bool {
        self.scope.allows_read(path)
            && self
                .hidden
                .binary_search_by(|h| h.as_str().cmp(path))
                .is_err()
    }

    /// The folder the caller is limited to, if any.
    pub(crate) fn folder(&self) -> Option<&str> {
        self.scope.prefix().map(super::Prefix::as_str)
    }

    /// The notes of the folder the caller does not see (symlinks leading out), sorted.
    pub(crate) fn hidden(&self) -> &[String] {
        &self.hidden
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::ops::tokens::Prefix;
    use crate::ops::{NotePath, temp_notebook};

    #[test]
    fn a_folder_scope_is_judged_where_paths_lead() {
        let (_dir, nb) = temp_notebook();
        let at = |p: &str| nb.notes_dir().join(p);
        std::fs::create_dir_all(at("work")).unwrap();
        std::fs::create_dir_all(at("private")).unwrap();
        std::fs::write(at("private/secret.md"), "# Secret\n").unwrap();
        std::fs::write(at("work/a.md"), "# A\n").unwrap();
        std::os::unix::fs::symlink("../private", at("work/shared")).unwrap();
        std::os::unix::fs::symlink("../private/secret.md", at("work/s.md")).unwrap();
        let work = Scope::new(false, Some(Prefix::parse("work").unwrap()));
        let note = |p: &str| NotePath::parse(p).unwrap();
        assert!(nb.may_read(&work, &note("work/a.md")));
        assert!(nb.may_write(&work, &note("work/new.md")));
        assert!(!nb.may_read(&work, &note("work/shared/secret.md")));
        assert!(!nb.may_write(&work, &note("work/shared/new.md")));
        assert!(!nb.may_read(&work, &note("work/s.md")));
        assert!(!nb.may_read(&work, &note("private/secret.md")));
        assert!(matches!(
            nb.check_write(&work, &note("work/s.md")),
            Err(Error::OutsideScope)
        ));
        // The full scope reads everything, through links too.
        assert!(nb.may_read(&Scope::full(), &note("work/s.md")));
        let reader = nb.reader(&work).unwrap();
        assert_eq!(reader.hidden(), ["work/s.md"]);
        assert!(reader.holds("work/a.md") && !reader.holds("work/s.md"));
        assert!(!reader.holds("private/secret.md"));
        assert!(nb.reader(&Scope::full()).unwrap().holds("work/s.md"));
    }
}
