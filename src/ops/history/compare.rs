//! Two versions of a note side by side (for a diff), and the version an undo brings
//! back.

use super::failed;
use crate::error::{Error, Result};
use crate::ops::{NotePath, Notebook};

/// One side of a comparison: what it is (`version ID`, `now`, `(none)`) and its text
/// (empty when the note did not exist there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Side {
    pub(crate) label: String,
    pub(crate) text: Vec<u8>,
}

/// The two sides of a comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Compared {
    pub(crate) from: Side,
    pub(crate) to: Side,
}

fn absent() -> Side {
    Side {
        label: "(none)".into(),
        text: Vec::new(),
    }
}

impl Notebook {
    /// The texts to compare: with no version, the last change (the version before the
    /// latest, and the latest); with `from`, that version and the note as it is now;
    /// with both, those two versions.
    pub(crate) fn compare(
        &self,
        path: &NotePath,
        from: Option<&str>,
        to: Option<&str>,
    ) -> Result<Compared> {
        match (from, to) {
            (Some(from), Some(to)) => Ok(Compared {
                from: self.side(path, from)?,
                to: self.side(path, to)?,
            }),
            (Some(from), None) => {
                let now = match self.current_for_write(path)? {
                    Some((bytes, _)) => Side {
                        label: "now".into(),
                        text: bytes,
                    },
                    None => absent(),
                };
                Ok(Compared {
                    from: self.side(path, from)?,
                    to: now,
                })
            }
            (None, _) => {
                let versions = self.history(path)?;
                let side = |i: usize| match versions.get(i) {
                    Some(v) if v.size > 0 || self.version(path, &v.id).is_ok() => {
                        self.side(path, &v.id)
                    }
                    _ => Ok(absent()),
                };
                Ok(Compared {
                    from: side(1)?,
                    to: side(0)?,
                })
            }
        }
    }

    fn side(&self, path: &NotePath, id: &str) -> Result<Side> {
        Ok(Side {
            label: format!("version {}", id.get(..12).unwrap_or(id)),
            text: self.version(path, id)?,
        })
    }

    /// The version an undo brings back: a deleted note's last text, else the newest
    /// version whose text differs from the latest one.
    pub(crate) fn previous_version(&self, path: &NotePath) -> Result<String> {
        self.previous_of(path.as_str(), false)
    }

    /// The newest version of `key` before its latest with other content (a note's or
    /// an attachment's); with `delete_itself`, a latest change that removed it is the
    /// answer (restoring a delete brings back what it removed).
    pub(super) fn previous_of(&self, key: &str, delete_itself: bool) -> Result<String> {
        let found = self
            .history_store()?
            .with_index(|index| {
                let entries = index.notes.get(key)?;
                let latest = entries.last()?;
                if delete_itself && latest.blob.is_none() {
                    return Some(latest.commit.to_string());
                }
                entries
                    .iter()
                    .rev()
                    .skip(1)
                    .find(|e| e.blob.is_some() && e.blob != latest.blob)
                    .map(|e| e.commit.to_string())
            })
            .map_err(failed)?;
        found.ok_or(Error::VersionNotFound)
    }
}
