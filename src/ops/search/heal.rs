//! A damaged index: telling damaged files from a disk that refuses (full, read-only,
//! permissions) or another process holding the writer, and moving the damaged index
//! aside so a fresh one can be built from the notes, which are the truth.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use tantivy::TantivyError;
use tantivy::directory::error::{LockError, OpenReadError};
use tantivy::directory::{Directory, INDEX_WRITER_LOCK};

use super::{index_dir, mmap_directory};
use crate::error::{Cause, Error, Result};
use crate::ops::path::INTERNAL_DIR;

/// Prefix of the name a damaged index is moved to, followed by the Unix time.
const BROKEN_PREFIX: &str = "index.broken-";

/// The error of a failed open or read of the index in `dir`: `IndexBroken` when its
/// files are damaged, `Index` otherwise.
pub(crate) fn read_error(what: &str, dir: &Path, e: &TantivyError) -> Error {
    if is_damage(e) {
        Error::IndexBroken(format!("{what} the index {}: {e}", dir.display()))
    } else {
        Error::Index(Cause::new(
            format!("{what} the index {}", dir.display()),
            e.clone(),
        ))
    }
}

/// Whether an error says the index files are damaged or missing.
pub(crate) fn is_damage(e: &TantivyError) -> bool {
    match e {
        TantivyError::DataCorruption(_)
        | TantivyError::IncompatibleIndex(_)
        | TantivyError::DeserializeError(_)
        | TantivyError::SchemaError(_)
        | TantivyError::FieldNotFound(_)
        | TantivyError::InternalError(_) => true,
        TantivyError::OpenReadError(e) => match e {
            OpenReadError::FileDoesNotExist(_) | OpenReadError::IncompatibleIndex(_) => true,
            OpenReadError::IoError { io_error, .. } => io_damage(io_error),
        },
        TantivyError::IoError(e) => io_damage(e),
        _ => false,
    }
}

/// Short reads and undecodable bytes are damage; a refusal of the system is not.
fn io_damage(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidData | io::ErrorKind::NotFound
    )
}

/// Moves the index of `notes_dir` aside, to `.notes/index.broken-<unix seconds>`, after
/// removing an earlier one (at most one is kept, for a post-mortem). Fails with
/// `IndexRebuilding` when another process holds the index's writer (a running server,
/// which heals the index itself). `None` when there was no index folder.
pub(crate) fn move_aside(notes_dir: &Path) -> Result<Option<PathBuf>> {
    let dir = index_dir(notes_dir);
    if !dir.is_dir() {
        return Ok(None);
    }
    // The writer lock is a file lock in the folder: held across the rename, so no other
    // process starts writing to the folder being moved.
    let _lock = match mmap_directory(&dir)?.acquire_lock(&INDEX_WRITER_LOCK) {
        Ok(lock) => lock,
        Err(LockError::LockBusy) => return Err(Error::IndexRebuilding),
        Err(LockError::IoError(e)) => {
            return Err(Error::Index(Cause::new(
                format!("cannot lock the index {}", dir.display()),
                e,
            )));
        }
    };
    let internal = notes_dir.join(INTERNAL_DIR);
    remove_earlier(&internal)?;
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let target = internal.join(format!("{BROKEN_PREFIX}{seconds}"));
    std::fs::rename(&dir, &target).map_err(|e| {
        Error::Index(Cause::new(
            format!("cannot move the damaged index {} aside", dir.display()),
            e,
        ))
    })?;
    Ok(Some(target))
}

/// Removes the damaged indexes moved aside before.
fn remove_earlier(internal: &Path) -> Result<()> {
    let entries = match std::fs::read_dir(internal) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(Error::Index(Cause::new(
                format!("cannot list {}", internal.display()),
                e,
            )));
        }
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(BROKEN_PREFIX) {
            let path = entry.path();
            let removed = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            removed.map_err(|e| {
                Error::Index(Cause::new(format!("cannot remove {}", path.display()), e))
            })?;
        }
    }
    Ok(())
}

/// The damaged indexes kept aside in `notes_dir` (at most one, by design).
#[cfg(test)]
pub(crate) fn kept_aside(notes_dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(notes_dir.join(INTERNAL_DIR))
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(BROKEN_PREFIX))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::search::NotesIndex;

    #[test]
    fn a_garbage_meta_file_is_damage_and_is_moved_aside_keeping_one() {
        let notes = tempfile::tempdir().unwrap();
        NotesIndex::open_or_create(notes.path()).unwrap();
        let meta = index_dir(notes.path()).join("meta.json");
        std::fs::write(&meta, "{ not json").unwrap();
        let err = NotesIndex::open_or_create(notes.path()).err().unwrap();
        assert!(matches!(err, Error::IndexBroken(_)), "{err:?}");

        std::fs::create_dir_all(notes.path().join(".notes/index.broken-1")).unwrap();
        let moved = move_aside(notes.path()).unwrap().unwrap();
        assert!(!index_dir(notes.path()).exists());
        assert_eq!(kept_aside(notes.path()), std::slice::from_ref(&moved));
        assert_eq!(
            std::fs::read_to_string(moved.join("meta.json")).unwrap(),
            "{ not json"
        );
        NotesIndex::open_or_create(notes.path()).unwrap();
    }

    #[test]
    fn a_held_writer_is_not_moved() {
        let notes = tempfile::tempdir().unwrap();
        let index = NotesIndex::open_or_create(notes.path()).unwrap();
        let _writer = index
            .index
            .writer_with_num_threads::<tantivy::TantivyDocument>(1, 15_000_000)
            .unwrap();
        assert!(matches!(
            move_aside(notes.path()),
            Err(Error::IndexRebuilding)
        ));
        assert!(index_dir(notes.path()).join("meta.json").is_file());
    }
}
