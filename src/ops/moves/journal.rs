//! The journal of a move, `.notes/move.json`: the whole plan (the two paths, and each
//! rewritten note's path, new text and the entity tag of the text the plan was made
//! from), written atomically before the first change and removed after the last, so a
//! move a crash interrupted is finished from it. One move at a time holds
//! `.notes/move.lock` (an advisory lock the kernel drops with its process), across
//! processes: a command never finishes a move a running server is in the middle of.

use std::fs::{self, File};
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::ops::path::INTERNAL_DIR;
use crate::ops::root::RootDir;

/// The journal's file name inside `.notes/`.
pub(crate) const FILE: &str = "move.json";
/// The lock's file name inside `.notes/`.
const LOCK_FILE: &str = "move.lock";
/// The layout version this build reads and writes.
const VERSION: u32 = 1;

/// A planned move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Journal {
    version: u32,
    pub(crate) from: String,
    pub(crate) to: String,
    /// The notes whose links change, by their path after the move (the moved note's
    /// own text under `to`).
    pub(crate) rewrites: Vec<Rewrite>,
}

/// One note's new text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Rewrite {
    pub(crate) path: String,
    /// The entity tag of the text the new one was made from: the note is only
    /// rewritten while it still holds that text.
    pub(crate) old: String,
    pub(crate) text: String,
}

fn failed(why: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
    Error::MoveFailed(io::Error::other(why))
}

impl Journal {
    pub(crate) fn new(from: String, to: String, rewrites: Vec<Rewrite>) -> Self {
        Journal {
            version: VERSION,
            from,
            to,
            rewrites,
        }
    }

    /// The journal left in the notes dir, if any. One that cannot be read is an error
    /// (never ignored: it may be the only record of a half-done move).
    pub(crate) fn load(root: &RootDir) -> Result<Option<Journal>> {
        let Some(bytes) = root.read_internal(FILE).map_err(Error::MoveFailed)? else {
            return Ok(None);
        };
        let journal: Journal = serde_json::from_slice(&bytes)
            .map_err(|e| failed(format!("{INTERNAL_DIR}/{FILE} is unreadable: {e}")))?;
        if journal.version != VERSION {
            return Err(failed(format!(
                "{INTERNAL_DIR}/{FILE} has the unknown version {}",
                journal.version
            )));
        }
        Ok(Some(journal))
    }

    /// Writes the journal, atomically and durably.
    pub(crate) fn save(&self, root: &RootDir) -> Result<()> {
        let text = serde_json::to_vec(self).map_err(failed)?;
        root.write_internal(FILE, &text).map_err(Error::MoveFailed)
    }

    /// Removes the journal: the move it describes is complete.
    pub(crate) fn remove(root: &RootDir) -> Result<()> {
        root.remove_internal(FILE).map_err(Error::MoveFailed)
    }
}

/// Whether a journal is there, without reading it (a cheap look before taking the lock).
pub(crate) fn exists(notes_dir: &Path) -> bool {
    notes_dir.join(INTERNAL_DIR).join(FILE).exists()
}

/// Waits for, then holds, the lock of moves in `notes_dir` until the file is dropped.
pub(crate) fn lock(notes_dir: &Path) -> Result<File> {
    let dir = notes_dir.join(INTERNAL_DIR);
    fs::create_dir_all(&dir).map_err(Error::MoveFailed)?;
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(LOCK_FILE))
        .map_err(Error::MoveFailed)?;
    file.lock().map_err(Error::MoveFailed)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journals_round_trip_and_bad_ones_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let root = RootDir::new(dir.path().to_path_buf());
        assert_eq!(Journal::load(&root).unwrap(), None);
        assert!(!exists(dir.path()));
        let journal = Journal::new(
            "a.md".into(),
            "b/c.md".into(),
            vec![Rewrite {
                path: "n.md".into(),
                old: "\"1\"".into(),
                text: "[[c]]".into(),
            }],
        );
        journal.save(&root).unwrap();
        assert!(exists(dir.path()));
        assert_eq!(Journal::load(&root).unwrap(), Some(journal));
        Journal::remove(&root).unwrap();
        assert_eq!(Journal::load(&root).unwrap(), None);

        std::fs::write(dir.path().join(".notes/move.json"), "{not json").unwrap();
        assert!(matches!(Journal::load(&root), Err(Error::MoveFailed(_))));
        std::fs::write(
            dir.path().join(".notes/move.json"),
            r#"{"version":9,"from":"a.md","to":"b.md","rewrites":[]}"#,
        )
        .unwrap();
        let err = Journal::load(&root).unwrap_err();
        assert!(
            err.detailed().contains("unknown version 9"),
            "{}",
            err.detailed()
        );
    }
}
