//! Whether a public note's page still shows the note: the note file's modification
//! time against the record's publication time. A page is written from the note as it
//! was read, and the publication time is taken after that read, so only a change made
//! after publishing makes the note newer than its page.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::record::Record;
use crate::error::Result;
use crate::ops::{NotePath, Notebook};

/// A public note's publication, set against the note as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PublicState {
    /// The page file in the public dir.
    pub(crate) page: PathBuf,
    /// When the page was last written from the note.
    pub(crate) published_at: DateTime<Utc>,
    /// When the note file last changed; `None` when the file system gives no usable time.
    pub(crate) modified: Option<DateTime<Utc>>,
}

impl PublicState {
    /// The note changed after its page was written, so the page shows an older text.
    /// Without a modification time nothing is claimed.
    pub(crate) fn out_of_date(&self) -> bool {
        self.modified.is_some_and(|at| at > self.published_at)
    }
}

impl Notebook {
    /// The publication of `path`, `None` when the note is not public (or nothing was
    /// ever published). Fails as `read` does when the note cannot be read, and with
    /// `PublicRecordUnreadable` when the record cannot be.
    pub(crate) fn public_state(&self, path: &NotePath) -> Result<Option<PublicState>> {
        let modified = self.read_raw(path)?.modified();
        let Some(record) = Record::load(&Record::path(self.notes_dir()))? else {
            return Ok(None);
        };
        Ok(record.get(path.as_str()).map(|entry| PublicState {
            page: self.public_dir().join(&entry.file),
            published_at: entry.published_at,
            modified,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::error::Error;
    use crate::ops::model::{NoteInput, Precondition};

    use crate::ops::temp_notebook as notebook;
    use crate::ops::tokens::Scope;

    fn put(notebook: &Notebook, path: &NotePath, text: &str) {
        notebook
            .put(
                path,
                NoteInput::Markdown(text.to_string()),
                Precondition::None,
            )
            .unwrap();
    }

    #[test]
    fn a_note_is_out_of_date_once_changed_after_publishing() {
        let (_root, nb) = notebook();
        let path = NotePath::parse("n.md").unwrap();
        put(&nb, &path, "one\n");
        assert_eq!(nb.public_state(&path).unwrap(), None, "no record yet");

        nb.publish(&path, &Scope::full()).unwrap();
        let state = nb.public_state(&path).unwrap().unwrap();
        assert!(state.page.ends_with("n.html"), "{state:?}");
        assert!(!state.out_of_date(), "just published: {state:?}");

        // Past the file system clock's tick, which may lag the system clock a little.
        std::thread::sleep(Duration::from_millis(50));
        put(&nb, &path, "two\n");
        let state = nb.public_state(&path).unwrap().unwrap();
        assert!(state.out_of_date(), "changed after publishing: {state:?}");

        nb.publish(&path, &Scope::full()).unwrap();
        let state = nb.public_state(&path).unwrap().unwrap();
        assert!(!state.out_of_date(), "republished: {state:?}");

        nb.unpublish(&path, &Scope::full()).unwrap();
        assert_eq!(nb.public_state(&path).unwrap(), None, "private again");
    }

    #[test]
    fn without_a_time_nothing_is_out_of_date() {
        let state = PublicState {
            page: PathBuf::from("n.html"),
            published_at: Utc::now(),
            modified: None,
        };
        assert!(!state.out_of_date());
    }

    #[test]
    fn a_missing_note_or_an_unreadable_record_is_an_error() {
        let (_root, nb) = notebook();
        let missing = NotePath::parse("missing.md").unwrap();
        assert!(matches!(nb.public_state(&missing), Err(Error::NotFound)));
        let path = NotePath::parse("n.md").unwrap();
        put(&nb, &path, "x\n");
        std::fs::write(Record::path(nb.notes_dir()), "{not json").unwrap();
        assert!(matches!(
            nb.public_state(&path),
            Err(Error::PublicRecordUnreadable { .. })
        ));
    }
}
