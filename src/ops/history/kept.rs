//! What the web interface asks of the history beyond the API's lookups: which versions
//! of a note hold a text (a delete or the old path of a move holds none), and a delete
//! that answers the version holding the text it removed, for its Undo.

use super::{Version, failed, version_of};
use crate::error::{Error, Result};
use crate::ops::model::Precondition;
use crate::ops::{NotePath, Notebook};

/// A version of a note and whether it holds a text (it can be shown and restored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptVersion {
    pub(crate) version: Version,
    pub(crate) has_text: bool,
}

impl Notebook {
    /// The versions of a note, newest first (under former paths too), each saying
    /// whether it holds a text; `NotFound` when the note has none.
    pub(crate) fn kept_versions(&self, path: &NotePath) -> Result<Vec<KeptVersion>> {
        let followed = self.followed(path)?.ok_or(Error::NotFound)?;
        Ok(followed
            .iter()
            .map(|(at, e)| KeptVersion {
                version: version_of(path, at, e),
                has_text: e.blob.is_some(),
            })
            .collect())
    }

    /// Deletes a note like `delete`, then answers the id of its newest version that
    /// holds a text: the one an Undo restores (`None` when the history is off).
    pub(crate) fn delete_undoable(
        &self,
        path: &NotePath,
        cond: &Precondition,
    ) -> Result<Option<String>> {
        self.delete(path, cond)?;
        if !self.history_on() {
            return Ok(None);
        }
        let kept = self.history_store()?.with_index(|index| {
            let entries = index.notes.get(path.as_str())?;
            let kept = entries.iter().rev().find(|e| e.blob.is_some())?;
            Some(kept.commit.to_string())
        });
        kept.map_err(failed)
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::model::{NoteInput, Precondition};
    use crate::ops::{NotePath, temp_notebook};

    #[test]
    fn a_delete_answers_the_version_that_undoes_it() {
        let (_dir, nb) = temp_notebook();
        let path = NotePath::parse("a.md").unwrap();
        let text = nb
            .put(
                &path,
                NoteInput::Markdown("---\ntitle: A\n---\nkeep me\n".into()),
                Precondition::None,
            )
            .unwrap()
            .note
            .content;
        let undo = nb
            .delete_undoable(&path, &Precondition::None)
            .unwrap()
            .expect("a version to restore");
        let kept = nb.kept_versions(&path).unwrap();
        assert_eq!(kept.len(), 2);
        assert!(!kept[0].has_text && kept[0].version.operation == "delete");
        assert!(kept[1].has_text && kept[1].version.id == undo);
        assert_eq!(nb.version(&path, &undo).unwrap(), text.as_bytes());
        nb.restore(&path, &undo).unwrap();
        assert_eq!(
            nb.read_raw(&path).unwrap().bytes().as_ref(),
            text.as_bytes()
        );
    }
}
