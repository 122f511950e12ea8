//! Recording each change in the store before it is acknowledged: a note's new text side
//! by side with the note's own sync, and before its name appears (`store_recorded`); a
//! delete and a move before their first step; and the notes edited outside the service,
//! at start-up and whenever the service notices a change it did not make.

use std::io;

use git2::{ObjectType, Oid};

use super::change::Change;
use super::wal::Sync;
use super::{Op, Slot};
use crate::error::{Cause, Error, Result};
use crate::ops::ids::{FileId, hash_of};
use crate::ops::{NotePath, Notebook};

/// How many notes one commit of outside edits holds at most (their locks are held
/// while it is recorded).
const OUTSIDE_BATCH: usize = 256;

/// Batches of a pass over every note between two calls of its `every_few_batches`.
const FEW_BATCHES: usize = 16;

impl Notebook {
    /// Stores `bytes` as the note, durably, its history recorded first: the record is
    /// appended to the log, and written out to the disk (shared with concurrent
    /// records) once the note's data is synced, before the note's name appears; the sync
    /// of the note's folder then makes both durable (a record on another disk is synced
    /// before the name appears). The write is acknowledged only after that. A store
    /// that cannot be written fails the write and leaves the note as it was; a crash
    /// before the folder's sync is repaired at the next start (the note on disk wins and
    /// is recorded).
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
        self.make_folders(path.parent())?;
        let message = format!("{} {path}", op.as_str());
        let change = [Change {
            path: path.to_string(),
            text: Some(bytes.to_vec()),
        }];
        let mut pending = self.record_synced(op, message, &change, Sync::WithNext)?;
        let mut refused = None;
        let mut gate = |device: Option<u64>| -> io::Result<()> {
            let Some(pending) = pending.take() else {
                return Ok(());
            };
            pending.settle(device).map_err(|e| {
                refused = Some(Error::HistoryFailed(Cause::new("cannot sync the log", e)));
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
    /// Each note is looked at under its lock. A note whose file is the one the last
    /// such pass read and found equal to its latest version (`Seen`) is not read again.
    /// Then the attachments, the same way (`record_every_outside_file`). The number of
    /// notes and files recorded. `every_few_batches` is called now and then (the server
    /// returns freed memory to the system there).
    pub(crate) fn record_outside_edits(&self, every_few_batches: &dyn Fn()) -> Result<usize> {
        if !self.history_on() {
            return Ok(0);
        }
        // The paths alone: the list's rows (titles, tags) are not needed here.
        let mut paths = Vec::new();
        crate::ops::store::visit_note_files(self.notes_dir(), |file| paths.push(file.path))?;
        paths.sort_unstable();
        // And the recorded notes gone from disk.
        let gone = self
            .history_store()?
            .with_index(|index| {
                index
                    .notes
                    .iter()
                    .filter(|(_, entries)| entries.last().is_some_and(|e| e.blob.is_some()))
                    .filter(|(path, _)| {
                        paths
                            .binary_search_by(|p| p.as_str().cmp(path.as_str()))
                            .is_err()
                    })
                    .filter_map(|(path, _)| NotePath::parse(path).ok())
                    .collect::<Vec<_>>()
            })
            .map_err(super::failed)?;
        paths.extend(gone);
        paths.sort_unstable();
        let mut seen = Seen::read(self);
        let mut total = 0;
        let store = self.history_store()?;
        let bulk = Bulk::start(store);
        for (n, batch) in paths.chunks(OUTSIDE_BATCH).enumerate() {
            total += self.record_outside_seen(batch, Some(&mut seen))?;
            if n % FEW_BATCHES == FEW_BATCHES - 1 {
                every_few_batches();
            }
        }
        store.flush().map_err(super::failed)?;
        drop(bulk);
        seen.write(self);
        Ok(total + self.record_every_outside_file()?)
    }

    /// Records the notes of `paths` whose text on disk differs from their latest
    /// version (an edit the service did not make, seen by the watcher), a batch of
    /// notes under their locks at a time (a folder moved in may bring thousands).
    pub(crate) fn record_outside(&self, paths: &[NotePath]) -> Result<usize> {
        let mut recorded = 0;
        for batch in paths.chunks(OUTSIDE_BATCH) {
            recorded += self.record_outside_seen(batch, None)?;
        }
        Ok(recorded)
    }

    /// `record_outside`, skipping the notes `seen` vouches for and telling it of the
    /// notes read.
    fn record_outside_seen(
        &self,
        paths: &[NotePath],
        mut seen: Option<&mut Seen>,
    ) -> Result<usize> {
        if !self.history_on() || paths.is_empty() {
            return Ok(0);
        }
        let keys: Vec<&str> = paths.iter().map(NotePath::as_str).collect();
        self.note_locks.with_all(&keys, || {
            let store = self.history_store()?;
            // The watcher's news of a write the service made: nothing to record, and
            // no commit to wait for to know it.
            let mut left = Vec::new();
            for path in paths {
                let early = match seen {
                    Some(_) => None,
                    None => Some(self.current_for_write(path)?.map(|(bytes, _)| bytes)),
                };
                if let Some(text) = &early
                    && store.is_own(path.as_str(), text.as_deref())
                {
                    continue;
                }
                left.push((path, early));
            }
            let left_keys: Vec<&str> = left.iter().map(|(path, _)| path.as_str()).collect();
            let latest_of = store.latest_of(&left_keys).map_err(super::failed)?;
            let mut changes = Vec::new();
            for ((path, early), latest) in left.into_iter().zip(latest_of) {
                // Only a start pass keeps identities (one `stat` before the read, one
                // after); the watcher's passes read what they are told of.
                let before = seen.as_ref().and_then(|_| self.file_id(path));
                if let (Some(seen), Some(Some(blob)), Some(id)) =
                    (seen.as_deref_mut(), latest, before)
                    && seen.vouches(path.as_str(), id, blob)
                {
                    continue;
                }
                let on_disk = match early {
                    Some(text) => text,
                    None => self.current_for_write(path)?.map(|(bytes, _)| bytes),
                };
                let hash = on_disk
                    .as_ref()
                    .and_then(|bytes| Oid::hash_object(ObjectType::Blob, bytes).ok());
                let differs = match (&on_disk, latest) {
                    (Some(_), Some(Some(blob))) => hash != Some(blob),
                    (Some(_), _) => true,
                    (None, Some(Some(_))) => true,
                    (None, _) => false,
                };
                // The file read is the version identified before the read when it
                // has not changed since (a change always changes its identity).
                if let (Some(seen), Some(hash), Some(id)) = (seen.as_deref_mut(), hash, before)
                    && id.settled()
                    && self.file_id(path) == Some(id)
                {
                    seen.saw(path.as_str(), id, hash);
                }
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
            if seen.is_some() {
                // A pass over every note: committed in batches of many records.
                store
                    .record_unflushed(&message, &changes)
                    .map_err(super::failed)?;
            } else {
                self.record(Op::OutsideEdit, message, &changes)?;
            }
            Ok(changes.len())
        })
    }

    /// The identity of the note's file (one `stat` beneath the notes dir); `None` when
    /// it is not a note file, or where no such `stat` exists.
    fn file_id(&self, path: &NotePath) -> Option<FileId> {
        #[cfg(target_os = "linux")]
        {
            self.root
                .stat_note(path)
                .ok()
                .map(|stat| FileId::of_stat(&stat))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = path;
            None
        }
    }
}

/// A pass over every note recording (`Store::bulk`), ended when dropped, also on an
/// error.
struct Bulk<'a>(&'a super::store::Store);

impl<'a> Bulk<'a> {
    fn start(store: &'a super::store::Store) -> Bulk<'a> {
        store.bulk(true);
        Bulk(store)
    }
}

impl Drop for Bulk<'_> {
    fn drop(&mut self) {
        self.0.bulk(false);
    }
}

/// What the last start-up pass over the notes found: each note's file identity and the
/// blob its text hashed to, in `.notes/history-seen`. A note whose file still has that
/// identity, and whose latest recorded version is still that blob, holds that version:
/// a restart then reads only the notes that changed, not the whole notebook. It is a
/// cache: missing, damaged or stale, it only costs reads. A change recorded since (by
/// the service, or cut by a crash before its write) has another blob, so it never
/// vouches for it; a file changed since has another identity (a file whose change is
/// too recent to show in its identity is left out, see `FileId::settled`).
struct Seen {
    /// The file's entries, by hash of the path (hashes keep it small: a note is
    /// vouched for only when its identity, with its inode and times, matches as well).
    read: Vec<SeenEntry>,
    /// The file's next entries: one per note this pass vouched for or read.
    found: Vec<SeenEntry>,
    /// How many of the file's entries this pass vouched for, and whether it found a
    /// note the file did not vouch for: the file is written again only when it
    /// changes (it is synced).
    vouched: usize,
    read_others: bool,
}

/// One note of `Seen`: hash of its path, hash of its file's identity, the blob it held.
/// 36 bytes in the file (the text lines with the path held before took 87 at 100k
/// notes, and their map and the text of the next file were the largest part of a
/// restart's peak heap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SeenEntry {
    path: u64,
    id: u64,
    blob: [u8; 20],
}

impl SeenEntry {
    const LEN: usize = 36;

    fn parse(bytes: &[u8]) -> Option<SeenEntry> {
        Some(SeenEntry {
            path: u64::from_le_bytes(bytes.get(0..8)?.try_into().ok()?),
            id: u64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?),
            blob: bytes.get(16..Self::LEN)?.try_into().ok()?,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.path.to_le_bytes());
        out.extend_from_slice(&self.id.to_le_bytes());
        out.extend_from_slice(&self.blob);
    }
}

/// The file of `Seen`, in `.notes/`.
const SEEN_FILE: &str = "history-seen";
/// The first line of that file; a file without it (another format) vouches for none.
const SEEN_HEADER: &[u8] = b"notes history-seen 2\n";

impl Seen {
    /// The file's entries; none when it is missing, unreadable or of another format.
    fn read(notebook: &Notebook) -> Seen {
        let mut read = Vec::new();
        if let Ok(Some(bytes)) = notebook.root.read_internal(SEEN_FILE)
            && let Some(entries) = bytes.strip_prefix(SEEN_HEADER)
            && entries.len().is_multiple_of(SeenEntry::LEN)
        {
            read = entries
                .chunks_exact(SeenEntry::LEN)
                .filter_map(SeenEntry::parse)
                .collect();
            read.sort_unstable_by_key(|e| e.path);
        }
        // Sized for as many notes as the file had: the notes rarely change in number.
        let found = Vec::with_capacity(read.len());
        Seen {
            read,
            found,
            vouched: 0,
            read_others: false,
        }
    }

    /// Whether the note's file with identity `id` is known to hold `blob` (kept for
    /// the next start when it is).
    fn vouches(&mut self, path: &str, id: FileId, blob: Oid) -> bool {
        let entry = entry_of(path, id, blob);
        let known = self
            .read
            .binary_search_by_key(&entry.path, |e| e.path)
            .is_ok_and(|at| self.read[at] == entry);
        if !known {
            return false;
        }
        self.found.push(entry);
        self.vouched += 1;
        true
    }

    /// The note's file with identity `id` was read and holds `blob`.
    fn saw(&mut self, path: &str, id: FileId, blob: Oid) {
        self.found.push(entry_of(path, id, blob));
        self.read_others = true;
    }

    /// Writes what this pass found (atomically); a failure is logged and costs the
    /// next start its reads only.
    fn write(&self, notebook: &Notebook) {
        // Every entry of the file vouched for, and nothing else found: the same file.
        if !self.read_others && self.vouched == self.read.len() {
            return;
        }
        let mut bytes = Vec::with_capacity(SEEN_HEADER.len() + self.found.len() * SeenEntry::LEN);
        bytes.extend_from_slice(SEEN_HEADER);
        for entry in &self.found {
            entry.write(&mut bytes);
        }
        if let Err(e) = notebook.root.write_internal(SEEN_FILE, &bytes) {
            crate::log::warn(&format!(
                "history: cannot write .notes/{SEEN_FILE} ({e}); the next start reads every note"
            ));
        }
    }
}

fn entry_of(path: &str, id: FileId, blob: Oid) -> SeenEntry {
    let mut bytes = [0; 20];
    bytes.copy_from_slice(&blob.as_bytes()[..20]);
    SeenEntry {
        path: hash_of(path),
        id: hash_of(id),
        blob: bytes,
    }
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("history::Slot")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::temp_notebook;

    #[test]
    #[cfg(target_os = "linux")]
    fn a_start_pass_vouches_for_the_notes_it_read_and_never_for_a_later_change() {
        let (dir, nb) = temp_notebook();
        let notes = dir.path().join("notes");
        std::fs::write(notes.join("a.md"), "one\n").unwrap();
        std::fs::write(notes.join("b.md"), "two\n").unwrap();
        // Old enough for their identities to be trusted.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        assert_eq!(nb.record_outside_edits(&|| {}).unwrap(), 2);
        let a = NotePath::parse("a.md").unwrap();
        let b = NotePath::parse("b.md").unwrap();
        let latest = |path: &NotePath| {
            let store = nb.history_store().unwrap();
            store
                .with_index(|index| index.latest(path.as_str()).and_then(|e| e.blob))
                .unwrap()
                .unwrap()
        };
        let mut seen = Seen::read(&nb);
        assert!(seen.vouches("a.md", nb.file_id(&a).unwrap(), latest(&a)));
        assert!(seen.vouches("b.md", nb.file_id(&b).unwrap(), latest(&b)));
        assert!(!seen.vouches("b.md", nb.file_id(&b).unwrap(), latest(&a)));
        let seen_file = notes.join(".notes").join(SEEN_FILE);
        let inode = || std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&seen_file).unwrap());
        let before = inode();
        assert_eq!(nb.record_outside_edits(&|| {}).unwrap(), 0);
        assert_eq!(Seen::read(&nb).read.len(), 2);
        assert_eq!(
            inode(),
            before,
            "a pass that found nothing new wrote the file again"
        );
        // An edit outside that keeps the size, and a change recorded but never
        // written (a crash between the two): both found, the note on disk wins.
        std::fs::write(notes.join("b.md"), "TWO\n").unwrap();
        let lost = [Change {
            path: "a.md".into(),
            text: Some(b"lost\n".to_vec()),
        }];
        nb.record(Op::Put, "put a.md".into(), &lost).unwrap();
        assert_eq!(nb.record_outside_edits(&|| {}).unwrap(), 2);
        let text = |path: &NotePath| nb.version(path, &nb.history(path).unwrap()[0].id).unwrap();
        assert_eq!(text(&a), b"one\n");
        assert_eq!(text(&b), b"TWO\n");
        // A damaged file, or one of another format, only costs reads.
        std::fs::write(&seen_file, b"junk\n\xff 1 2\n").unwrap();
        assert!(Seen::read(&nb).read.is_empty());
        let mut cut = SEEN_HEADER.to_vec();
        cut.extend_from_slice(&[7; SeenEntry::LEN + 1]);
        std::fs::write(&seen_file, cut).unwrap();
        assert!(Seen::read(&nb).read.is_empty());
        assert_eq!(nb.record_outside_edits(&|| {}).unwrap(), 0);
        // Written again: a.md; b.md changed less than a second ago is left out.
        assert_eq!(Seen::read(&nb).read.len(), 1);
    }
}
