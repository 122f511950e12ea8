//! Notes a merge left with conflict markers (an offline edit from the web interface,
//! a sync): a short list at `.notes/conflicts.json`, and a note stays on it while its
//! text still holds a conflict block. A save without the markers resolves it.

use std::collections::BTreeSet;

use super::merge::has_conflict;
use super::path::INTERNAL_DIR;
use super::{NotePath, Notebook, fsutil};
use crate::error::Error;

const LIST_FILE: &str = "conflicts.json";

impl Notebook {
    fn conflicts_file(&self) -> std::path::PathBuf {
        self.notes_dir().join(INTERNAL_DIR).join(LIST_FILE)
    }

    fn read_conflict_list(&self) -> BTreeSet<String> {
        std::fs::read(self.conflicts_file())
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    fn write_conflict_list(&self, list: &BTreeSet<String>) -> Result<(), Error> {
        let file = self.conflicts_file();
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(Error::WriteFailed)?;
        }
        let bytes = serde_json::to_vec(list).unwrap_or_default();
        fsutil::write_atomic(&file, &bytes).map_err(Error::WriteFailed)
    }

    /// Puts `path` on the list of conflicted notes (its text holds markers).
    pub(crate) fn mark_conflicted(&self, path: &NotePath) -> Result<(), Error> {
        self.note_locks.with(LIST_FILE, || {
            let mut list = self.read_conflict_list();
            if list.insert(path.as_str().to_string()) {
                self.write_conflict_list(&list)?;
            }
            Ok(())
        })
    }

    /// Whether the note at `path` is conflicted: on the list and still marked.
    pub(crate) fn is_conflicted(&self, path: &NotePath) -> bool {
        self.read_conflict_list().contains(path.as_str()) && self.holds_markers(path)
    }

    /// The conflicted notes, in path order; notes resolved (or gone) since are dropped
    /// from the list.
    pub(crate) fn conflicted(&self) -> Result<Vec<NotePath>, Error> {
        self.note_locks.with(LIST_FILE, || {
            let list = self.read_conflict_list();
            let mut still = BTreeSet::new();
            let mut out = Vec::new();
            for raw in &list {
                let Ok(path) = NotePath::parse(raw) else {
                    continue;
                };
                if self.holds_markers(&path) {
                    still.insert(raw.clone());
                    out.push(path);
                }
            }
            if still.len() != list.len() {
                self.write_conflict_list(&still)?;
            }
            Ok(out)
        })
    }

    fn holds_markers(&self, path: &NotePath) -> bool {
        self.read_raw(path)
            .is_ok_and(|raw| has_conflict(&String::from_utf8_lossy(raw.bytes())))
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::{NotePath, temp_notebook};

    #[test]
    fn a_note_is_conflicted_while_it_holds_markers() {
        let (dir, notebook) = temp_notebook();
        let path = NotePath::parse("a.md").unwrap();
        let file = dir.path().join("notes/a.md");
        std::fs::write(&file, "<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n").unwrap();
        notebook.mark_conflicted(&path).unwrap();
        assert!(notebook.is_conflicted(&path));
        assert_eq!(notebook.conflicted().unwrap(), vec![path.clone()]);
        std::fs::write(&file, "x\ny\n").unwrap();
        assert!(notebook.conflicted().unwrap().is_empty());
        assert!(!notebook.is_conflicted(&path));
    }
}
