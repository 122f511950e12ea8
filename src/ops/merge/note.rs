//! An edit made from a known version of a note (an offline edit from the web
//! interface), merged into the note as it is now: applied as is when the note has
//! not changed since, merged three-way otherwise, and the note listed as conflicted
//! when both changed the same lines.

use std::cell::Cell;

use chrono::Local;
use serde::Serialize;

use super::merge;
use crate::error::Result;
use crate::ops::ids::Op;
use crate::ops::model::{NoteEdit, Precondition, PutOutcome};
use crate::ops::{NotePath, Notebook, clock, store};

/// What the edit is: a whole text, or the web editor's fields.
#[derive(Debug)]
pub(crate) enum Edited {
    Text(String),
    Fields(NoteEdit),
}

/// How an edit landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Landed {
    /// The note had not changed since the edit's base (or did not exist): the edit is
    /// the note.
    Saved,
    /// Both changed, in different places: the note holds both changes.
    Merged,
    /// Both changed the same lines: the note holds both versions between markers.
    Conflict,
    /// The note already says what the edit says.
    Unchanged,
}

impl Notebook {
    /// Merges `edited`, made from `base` (the note's text then; `None` for a note made
    /// new), into the note at `path`.
    pub(crate) fn merge_edit(
        &self,
        path: &NotePath,
        base: Option<String>,
        edited: Edited,
    ) -> Result<(PutOutcome, Landed)> {
        let landed = Cell::new(Landed::Saved);
        let now = clock::stamp(Local::now());
        let outcome = self.write_recorded(path, &Precondition::None, Op::Put, |current| {
            let base = base.as_deref();
            let theirs = match edited {
                Edited::Text(text) => store::verbatim(text, base, &now)?,
                Edited::Fields(fields) => store::apply_edit(path, fields, base, &now)?,
            };
            let Some(current) = current else {
                return Ok(theirs);
            };
            if current == theirs {
                landed.set(Landed::Unchanged);
                return Ok(theirs);
            }
            let base = base.unwrap_or("");
            if base == current {
                return Ok(theirs);
            }
            let merged = merge(base, current, &theirs);
            landed.set(if merged.conflicted {
                Landed::Conflict
            } else {
                Landed::Merged
            });
            Ok(merged.text)
        })?;
        if landed.get() == Landed::Conflict {
            self.mark_conflicted(path)?;
        }
        Ok((outcome, landed.get()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::temp_notebook;

    fn text_of(dir: &tempfile::TempDir, path: &str) -> String {
        std::fs::read_to_string(dir.path().join("notes").join(path)).unwrap()
    }

    #[test]
    fn an_edit_lands_as_saved_merged_or_conflicted() {
        let (dir, notebook) = temp_notebook();
        let path = NotePath::parse("a.md").unwrap();
        let base = "one\ntwo\nthree\n".to_string();
        let (_, landed) = notebook
            .merge_edit(&path, None, Edited::Text(base.clone()))
            .unwrap();
        assert_eq!(landed, Landed::Saved);

        let edit = |text: &str| Edited::Text(text.to_string());
        let (_, landed) = notebook
            .merge_edit(&path, Some(base.clone()), edit("ONE\ntwo\nthree\n"))
            .unwrap();
        assert_eq!(landed, Landed::Saved);
        let (_, landed) = notebook
            .merge_edit(&path, Some(base.clone()), edit("one\ntwo\nTHREE\n"))
            .unwrap();
        assert_eq!(landed, Landed::Merged);
        assert_eq!(text_of(&dir, "a.md"), "ONE\ntwo\nTHREE\n");
        let (_, landed) = notebook
            .merge_edit(&path, Some(base.clone()), edit("uno\ntwo\nthree\n"))
            .unwrap();
        assert_eq!(landed, Landed::Conflict);
        assert_eq!(
            text_of(&dir, "a.md"),
            "<<<<<<< ours\nONE\n=======\nuno\n>>>>>>> theirs\ntwo\nTHREE\n"
        );
        assert_eq!(notebook.conflicted().unwrap(), vec![path]);
    }
}
