//! What one MCP session may do: every tool, or the read tools only; every note, or the
//! notes of one folder only. The stdio server gets it from its command line, the HTTP
//! endpoint from the token's `Scope` the door leaves on the request.

use crate::ops::tags::is_under;
use crate::ops::tokens::Scope;
use crate::ops::{FilePath, NotePath};

use super::render::ToolError;

/// The reach of a session. The default reaches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct McpAccess {
    /// Only the tools that change nothing are listed and callable.
    pub(crate) read_only: bool,
    /// Only the notes under this folder (a cleaned relative path) are seen or touched.
    pub(crate) prefix: Option<String>,
}

impl McpAccess {
    /// An access limited as given; the prefix is checked like any folder path.
    pub(crate) fn new(read_only: bool, prefix: Option<&str>) -> crate::error::Result<Self> {
        let prefix = match prefix {
            None => None,
            Some(raw) => {
                Some(FilePath::parse_folder(raw.trim_matches('/'))?).filter(|folder| folder != ".")
            }
        };
        Ok(McpAccess { read_only, prefix })
    }

    /// The reach of a token's scope.
    pub(crate) fn of(scope: &Scope) -> Self {
        McpAccess {
            read_only: scope.is_read_only(),
            prefix: scope.prefix().map(|prefix| prefix.as_str().to_string()),
        }
    }

    /// Whether a note path is within reach.
    pub(crate) fn reaches(&self, path: &str) -> bool {
        self.prefix
            .as_deref()
            .is_none_or(|prefix| is_under(path, prefix))
    }

    /// The note, when within reach; else why not.
    pub(crate) fn check(&self, path: &NotePath) -> Result<(), ToolError> {
        if self.reaches(path.as_str()) {
            Ok(())
        } else {
            Err(ToolError::new(format!(
                "{path}: out of reach: this session only reaches the notes under {}/",
                self.prefix.as_deref().unwrap_or_default()
            )))
        }
    }

    /// Whether a folder listing may look under `folder` (a cleaned folder, `.` for all):
    /// the folder must lie within the prefix, or hold it (then only the prefix is seen).
    pub(crate) fn narrow(&self, folder: &str) -> Result<String, ToolError> {
        match self.prefix.as_deref() {
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

    fn path(p: &str) -> NotePath {
        NotePath::parse(p).unwrap()
    }

    #[test]
    fn the_default_reaches_everything() {
        let all = McpAccess::default();
        assert!(all.check(&path("a/b.md")).is_ok());
        assert_eq!(all.narrow(".").unwrap(), ".");
        assert_eq!(all.narrow("x").unwrap(), "x");
    }

    #[test]
    fn a_prefix_limits_paths_and_folders() {
        let work = McpAccess::new(false, Some("/work/")).unwrap();
        assert_eq!(work.prefix.as_deref(), Some("work"));
        assert!(work.check(&path("work/a.md")).is_ok());
        assert!(work.check(&path("work/deep/a.md")).is_ok());
        let refused = work.check(&path("workshop/a.md")).unwrap_err();
        assert!(refused.message().contains("under work/"), "{refused:?}");
        assert!(work.check(&path("a.md")).is_err());
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
        assert_eq!(McpAccess::new(true, Some("/")).unwrap().prefix, None);
    }
}
