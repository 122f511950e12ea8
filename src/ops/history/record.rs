//! Recording each change in the store before it is acknowledged: a note's new text side
//! by side with the note's own sync, and before its name appears (`store_recorded`); a
//! delete and a move before their first step; and the notes edited outside the service,
//! at start-up and whenever the service notices a change it did not make.

use std::io;

use git2::{ObjectType, Oid};

use super::store::Change;
use super::wal::Sync;
use super::{Op, Slot};
use crate::error::{Error, Result};
use crate::ops::{NotePath, Notebook};

/// How many notes one commit of outside edits holds at most (their locks are held
/// while it is recorded).
const OUTSIDE_BATCH: usize = 256;

impl Notebook {
    /// Stores `bytes` as the note, durably, its history recorded first: the commit is
    /// made on another thread while the note's data syncs, and written to the disk
    /// before the note's name appears; the sync of the note's folder then makes both
    /// durable (a record on another disk is synced before the name appears). The write
    /// is acknowledged only after that. A store that cannot be written fails the write
    /// and leaves the note as it was; a crash before the folder's sync is repaired at
    /// the next start (the note on disk wins and is recorded).
    pub(crate) fn store_recorded(
        &self,
        path: &NotePath,
        bytes: &[u8],
        mode: u32,
        create: bool,
        op: Op,
    ) -> Result<()> {
        if !self.history_on() {
            return self.store(path, bytes, mode, create);
        }
        let message = format!("{} {path}", op.as_str());
        let change = [Change {
            path: path.to_string(),
            text: Some(bytes.to_vec()),
        }];
        std::thread::scope(|scope| {
            let recording =
                scope.spawn(|| self.record_synced(op, message, &change, Sync::WithNext));
            let mut recording = Some(recording);
            let mut refused = None;
            let mut gate = |device: Option<u64>| -> io::Result<()> {
                let outcome = match recording.take() {
                    Some(handle) => handle.join().unwrap_or_else(|_| {
                        Err(Error::HistoryFailed("the recorder stopped".into()))
                    }),
                    None => Ok(None),
                };
                // On the folder's disk, the folder's sync after the name appears
                // makes the record durable; elsewhere it is synced now.
                let settled = outcome.and_then(|pending| match pending {
                    Some(pending) => pending
                        .settle(device)
                        .map_err(|e| Error::HistoryFailed(format!("cannot sync the log: {e}"))),
                    None => Ok(()),
                });
                settled.map_err(|e| {
                    refused = Some(e);
                    io::Error::other("the history store refused the change")
                })
            };
            let stored = self.store_gated(
                path.parent(),
                path.file_name(),
                bytes,
                mode,
                create,
                &mut gate,
            );
            match (stored, refused) {
                (_, Some(e)) => Err(e),
                (stored, None) => stored,
            }
        })
    }

    /// Records the removal of a note, before it is removed.
    pub(crate) fn record_delete(&self, path: &NotePath) -> Result<()> {
        let change = [Change {
            path: path.to_string(),
            text: None,
        }];
        self.record(Op::Delete, format!("delete {path}"), &change)
    }

    /// Records a move (the old path gone, the new one's text, every rewritten note's
    /// new text) as one commit, before its first step.
    pub(crate) fn record_move(
        &self,
        from: &str,
        to: &str,
        texts: Vec<(String, Vec<u8>)>,
    ) -> Result<()> {
        let mut changes = vec![Change {
            path: from.to_string(),
            text: None,
        }];
        changes.extend(texts.into_iter().map(|(path, text)| Change {
            path,
            text: Some(text),
        }));
        self.record(Op::Move, format!("move {from} -> {to}"), &changes)
    }

    /// Records every note whose text on disk is not its latest recorded version (the
    /// note on disk wins), and every recorded note that is gone from disk: edits made
    /// outside the service, or a change a crash cut between its record and its write.
    /// Each note is looked at under its lock. The number of notes recorded.
    pub(crate) fn record_outside_edits(&self) -> Result<usize> {
        if !self.history_on() {
            return Ok(0);
        }
        let mut paths: Vec<String> = self.list()?.notes.iter().map(|n| n.path.clone()).collect();
        let recorded = self
            .history_store()?
            .with_index(|index| {
                index
                    .notes
                    .iter()
                    .filter(|(_, entries)| entries.last().is_some_and(|e| e.blob.is_some()))
                    .map(|(path, _)| path.clone())
                    .collect::<Vec<_>>()
            })
            .map_err(super::failed)?;
        paths.extend(recorded);
        paths.sort();
        paths.dedup();
        let mut total = 0;
        for batch in paths.chunks(OUTSIDE_BATCH) {
            let parsed: Vec<NotePath> = batch
                .iter()
                .filter_map(|p| NotePath::parse(p).ok())
                .collect();
            total += self.record_outside(&parsed)?;
        }
        Ok(total)
    }

    /// Records the notes of `paths` whose text on disk differs from their latest
    /// version (an edit the service did not make, seen by the watcher).
    pub(crate) fn record_outside(&self, paths: &[NotePath]) -> Result<usize> {
        if !self.history_on() || paths.is_empty() {
            return Ok(0);
        }
        let keys: Vec<&str> = paths.iter().map(NotePath::as_str).collect();
        self.note_locks.with_all(&keys, || {
            let store = self.history_store()?;
            let mut changes = Vec::new();
            for path in paths {
                let on_disk = self.current_for_write(path)?.map(|(bytes, _)| bytes);
                let latest = store
                    .with_index(|index| index.latest(path.as_str()).map(|e| e.blob))
                    .map_err(super::failed)?;
                let differs = match (&on_disk, latest) {
                    (Some(bytes), Some(Some(blob))) => {
                        Oid::hash_object(ObjectType::Blob, bytes).ok() != Some(blob)
                    }
                    (Some(_), _) => true,
                    (None, Some(Some(_))) => true,
                    (None, _) => false,
                };
                if differs {
                    changes.push(Change {
                        path: path.to_string(),
                        text: on_disk,
                    });
                }
            }
            if changes.is_empty() {
                return Ok(0);
            }
            let message = match changes.as_slice() {
                [one] => format!("outside-edit {}", one.path),
                many => {
                    let list: Vec<&str> = many.iter().map(|c| c.path.as_str()).collect();
                    format!("outside-edit {} notes\n\n{}\n", many.len(), list.join("\n"))
                }
            };
            self.record(Op::OutsideEdit, message, &changes)?;
            Ok(changes.len())
        })
    }
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("history::Slot")
    }
}
