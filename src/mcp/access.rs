//! What one MCP session may do: every tool, or the read tools only; every note, or the
//! notes of one folder only. It is a token's `Scope` (the stdio server makes one from
//! its command line, the HTTP endpoint takes the one the door leaves on the request),
//! asked through the notebook like every other layer asks it (`Notebook::may_read`,
//! `reader`), and handed to the operations that judge the paths they touch.

use crate::ops::tags::is_under;
use crate::ops::tokens::{Prefix, Reader, Scope};
use crate::ops::{FilePath, NotePath, Notebook};

use super::render::ToolError;

/// The reach of a session. The default reaches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct McpAccess {
    scope: Scope,
}

impl McpAccess {
    /// An access limited as given; the prefix is checked like any folder path (the
    /// notes folder itself is no limit).
    pub(crate) fn new(read_only: bool, prefix: Option<&str>) -> crate::error::Result<Self> {
        let prefix = match prefix {
            None => None,
            Some(raw) => match FilePath::parse_folder(raw.trim_matches('/'))?.as_str() {
                "." => None,
                folder => Some(Prefix::parse(folder)?),
            },
        };
        Ok(McpAccess {
            scope: Scope::new(read_only, prefix),
        })
    }

    /// The reach of a token's scope.
    pub(crate) fn of(scope: &Scope) -> Self {
        McpAccess {
            scope: scope.clone(),
        }
    }

    /// The scope, for the operations that apply it themselves.
    pub(crate) fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Only the tools that change nothing are listed and callable.
    pub(crate) fn read_only(&self) -> bool {
        self.scope.is_read_only()
    }

    /// The folder the session is limited to.
    pub(crate) fn prefix(&self) -> Option<&str> {
        self.scope.prefix().map(Prefix::as_str)
    }

    /// What the session sees of the listed notes.
    pub(crate) fn reader(&self, notebook: &Notebook) -> Result<Reader, ToolError> {
        Ok(notebook.reader(&self.scope)?)
    }

    /// The note, when within reach (where it leads included); else why not.
    pub(crate) fn check(&self, notebook: &Notebook, path: &NotePath) -> Result<(), ToolError> {
        if notebook.may_read(&self.scope, path) {
            Ok(())
        } else {
            Err(ToolError::new(format!(
                "{path}: out of reach: this session only reaches the notes under {}/",
                self.prefix().unwrap_or_default()
            )))
        }
    }

    /// Whether a folder listing may look under `folder` (a cleaned folder, `.` for all):
    /// the folder must lie within the prefix, or hold it (then only the prefix is seen).
    pub(crate) fn narrow(&self, folder: &str) -> Result<String, ToolError> {
        match self.prefix() {
            None => Ok(folder.to_string()),
            Some(prefix) if folder == "." || is_under(prefix, folder) => Ok(prefix.to_string()),
            Some(prefix) if folder == prefix || is_under(folder, prefix) => Ok(folder.to_string()),
            Some(prefix) => Err(ToolError::new(format!(
                "{folder}: out of reach: this session only reaches the notes under {prefix}/"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::temp_notebook;

    fn path(p: &str) -> NotePath {
        NotePath::parse(p).unwrap()
    }

    #[test]
    fn the_default_reaches_everything() {
        let (_dir, nb) = temp_notebook();
        let all = McpAccess::default();
        assert!(all.check(&nb, &path("a/b.md")).is_ok());
        assert_eq!(all.narrow(".").unwrap(), ".");
        assert_eq!(all.narrow("x").unwrap(), "x");
    }

    #[test]
    fn a_prefix_limits_paths_and_folders() {
        let (_dir, nb) = temp_notebook();
        let work = McpAccess::new(false, Some("/work/")).unwrap();
        assert_eq!(work.prefix(), Some("work"));
        assert!(work.check(&nb, &path("work/a.md")).is_ok());
        assert!(work.check(&nb, &path("work/deep/a.md")).is_ok());
        let refused = work.check(&nb, &path("workshop/a.md")).unwrap_err();
        assert!(refused.message().contains("under work/"), "{refused:?}");
        assert!(work.check(&nb, &path("a.md")).is_err());
        assert_eq!(work.narrow(".").unwrap(), "work");
        assert_eq!(work.narrow("work/deep").unwrap(), "work/deep");
        assert!(work.narrow("home").is_err());
        let nested = McpAccess::new(false, Some("a/b")).unwrap();
        assert_eq!(nested.narrow("a").unwrap(), "a/b");
    }

    #[test]
    fn bad_prefixes_are_refused_and_the_root_is_no_limit() {
        assert!(McpAccess::new(false, Some("../x")).is_err());
        assert!(McpAccess::new(false, Some(".notes")).is_err());
        assert_eq!(McpAccess::new(true, Some("/")).unwrap().prefix(), None);
        assert!(McpAccess::new(true, Some("/")).unwrap().read_only());
    }
}
