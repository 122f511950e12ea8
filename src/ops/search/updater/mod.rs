//! The one writer of an index: full rebuild, catch-up against the files on disk, and
//! updates of named notes and attachments, each ending in one commit and a reader
//! reload. Attachments are indexed by path only (their bytes are never read).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use tantivy::schema::document::Document;
use tantivy::{IndexWriter, TantivyDocument, TantivyError, Term};

use super::columns::{self, classified};
use super::gauge::{Gauge, Held};
use super::{NotesIndex, index_dir, schema};
use crate::error::{Cause, Error, Result};
use crate::ops::files::AttachmentFile;
use crate::ops::ids::{FileId, hash_of};
use crate::ops::root::{self, RootDir};
use crate::ops::store::{self, NoteFile};
use crate::ops::{FilePath, NotePath};
use tantivy::indexer::{LogMergePolicy, NoMergePolicy};

mod attachments;

use self::attachments::known_file_stamps;

/// Memory the writer may use before it flushes a segment, in the server. Each segment
/// costs a fixed amount whatever its size (its words sorted and written, its table
/// and arena set up, merges later): at tantivy's smallest (15 MB) a segment held about
/// 250 notes, and a first start on the 10k notes of `just bench-scale` took 2.4 times
/// the CPU it takes at 32 MB (with commits every 2000 notes), at a higher peak RSS.
const WRITER_MEMORY: usize = 32_000_000;
/// The same for `notes reindex`, which runs on its own and commits once, at its end:
/// each indexing thread flushes a segment whenever it reaches this, so 100k notes end
/// in 5 or 6 segments, too few for the merge policy to merge any. (On 2 cores and 100k
/// notes: 64 MB with a commit every 5,000 notes took 14.6–19.2 s of which a fifth of
/// the CPU was merges, peak RSS 220 MB; one commit at the end, 64 MB, 13.0 s with a
/// merge of 94k notes; 100 MB, 9.8 s and 337 MB; 160 MB, 9.6 s and 484 MB.) The
/// memory is bounded by this times the threads plus tantivy's queue of up to 10k
/// documents, whatever the corpus.
const REBUILD_MEMORY: usize = 100_000_000;
/// Indexing threads at most (one per core up to this), in the server and in `notes
/// reindex`: with one, the indexing thread is the bottleneck of a long pass (three
/// quarters of its CPU; the reading and parsing of the notes is the rest, and waits
/// for it). On 2 cores and 100k notes, `notes reindex` with two threads and a commit
/// every 5,000 notes took 16.4–17.5 s where one thread with a commit every 2,500 took
/// 22.9–26.9 s; a first start, 13.5–18.3 s where one thread took 19.5–24 s. An idle
/// thread holds no memory: tantivy sets a thread's table up with its first document.
const INDEXING_THREADS: usize = 2;
/// Merges run on one thread beside the indexing threads: tantivy's default of four,
/// on a small machine, only competes with the indexing and with requests.
const MERGE_THREADS: usize = 1;
/// Segments merged into one at the end of a long pass: 100k notes end in 5 segments
/// of 20k (a search on them costs about what it costs on one).
const MERGE_GROUP: usize = 10;

/// Notes added between two commits of a catch-up: what a long pass has indexed becomes
/// searchable every so many notes. Each commit ends a segment per indexing thread, and
/// the threads' memory holds the notes since the last commit.
#[cfg(not(test))]
const PASS_CHUNK: usize = 2000;
/// In a pass of more than `LARGE_PASS` notes, a commit every `LARGE_PASS_CHUNK`: the
/// segments' number costs memory there, not their size. At 100k notes, segments of
/// about 1000 notes (100, merged 20 by 20) held 30 MB more in the server than segments
/// of about 2000 (50, merged 10 by 10); at 10k notes, a commit every 4000 held 10 MB
/// more than one every 2000 (the two threads' memory holds twice as many notes).
const LARGE_PASS: usize = 20_000;
const LARGE_PASS_CHUNK: usize = 2 * PASS_CHUNK;
/// Small in unit tests, so that a long pass of a few hundred notes makes more segments
/// than the merge policy lets be.
#[cfg(test)]
const PASS_CHUNK: usize = 50;

/// Bytes of note text handed to the writer and not yet indexed, at most, before the
/// reading waits. tantivy's queue holds up to 10k documents, and reading and parsing a
/// note is faster than indexing it: a pass filled it with whole texts (at 10k notes,
/// tens of MB of a first start's peak). Over 2 MB, the reading waits until the queue
/// is down to half of that: hundreds of notes stay queued, so the indexing thread
/// never waits for the reading, and the two threads meet once per hundreds of notes.
const IN_FLIGHT: usize = 2_000_000;
/// The longest a reading waits for the indexing thread before it goes on regardless
/// (should that thread have stopped, the queue is never emptied).
const IN_FLIGHT_WAIT: Duration = Duration::from_secs(2);

/// Notes the walk of a rebuild hands to the reading at a time.
const WALK_BATCH: usize = 512;

/// Progress of a long pass: notes done, notes in all.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize);

/// What a pass changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Changes {
    pub(crate) indexed: usize,
    pub(crate) removed: usize,
}

/// Holds the writer lock of an index, and the version of every note it holds.
pub struct IndexUpdater {
    index: NotesIndex,
    writer: IndexWriter<Queued>,
    /// The bytes of the documents in the writer's queue.
    queued: Arc<Gauge>,
    notes_dir: PathBuf,
    /// The notes dir notes are read from, through the checked open.
    root: RootDir,
    /// Note path → stamp of the file indexed.
    known: Stamps,
    /// Whether `known` names every note the index holds (it could not be read again
    /// after a failed commit): a note it does not name needs no delete then. (A
    /// delete costs memory and time until the commit, is looked up in every segment
    /// flushed after it, and at a first start or a rebuild there would be one per
    /// note.)
    known_exact: bool,
    /// Attachment path → stamp of the file indexed.
    known_files: Stamps,
}

impl IndexUpdater {
    /// Takes the writer of `index`. Fails with `IndexOwned` when another process holds it.
    pub fn new(index: NotesIndex, notes_dir: &Path) -> Result<Self> {
        Self::with_memory(index, notes_dir, WRITER_MEMORY, true)
    }

    /// The writer of `notes reindex`, with a larger memory budget (see `REBUILD_MEMORY`).
    /// What the index holds is not read: a rebuild throws it away.
    pub fn for_rebuild(index: NotesIndex, notes_dir: &Path) -> Result<Self> {
        Self::with_memory(index, notes_dir, REBUILD_MEMORY, false)
    }

    /// `read_known`: whether to read the stamps of what the index holds (without, it
    /// is only fit for `rebuild`).
    fn with_memory(
        index: NotesIndex,
        notes_dir: &Path,
        memory: usize,
        read_known: bool,
    ) -> Result<Self> {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let threads = cores.min(INDEXING_THREADS);
        let options = tantivy::indexer::IndexWriterOptions::builder()
            .memory_budget_per_thread(memory)
            .num_worker_threads(threads)
            .num_merge_threads(MERGE_THREADS)
            .build();
        let writer = index
            .index
            .writer_with_options(options)
            .map_err(|e| match e {
                TantivyError::LockFailure(..) => Error::IndexOwned,
                e => super::index_error("cannot write", &index_dir(notes_dir), e),
            })?;
        let (known, known_files) = if read_known {
            (known_stamps(&index)?, known_file_stamps(&index)?)
        } else {
            (Stamps::default(), Stamps::default())
        };
        Ok(IndexUpdater {
            index,
            writer,
            queued: Arc::default(),
            notes_dir: notes_dir.to_path_buf(),
            root: RootDir::new(notes_dir.to_path_buf()),
            known,
            known_exact: true,
            known_files,
        })
    }

    #[cfg(test)]
    pub(crate) fn index(&self) -> &NotesIndex {
        &self.index
    }

    /// Throws the index away and indexes every note and attachment again; says how
    /// many notes.
    pub fn rebuild(&mut self, progress: Progress) -> Result<usize> {
        self.writer.delete_all_documents().map_err(write_error)?;
        // Emptied: no note gets a delete (see `known_exact`).
        self.known.clear();
        self.known_exact = true;
        self.known_files.clear();
        for file in crate::ops::files::attachment_files(&self.notes_dir, &self.notes_dir) {
            self.add_file(&file)?;
        }
        // The walk of the folder runs on a thread of its own, a little ahead of the
        // reading: the indexing starts with the first note found, not after the walk
        // of all of them (0.3 s at 100k notes, with the indexing threads idle). The
        // total grows until the walk ends, far ahead of the indexing.
        // The notes found are handed over in batches: one handover per note woke
        // the reading thread or the walk 100k times at 100k notes (a second of system
        // time).
        let found = AtomicUsize::new(0);
        let notes_dir = self.notes_dir.clone();
        let indexed = std::thread::scope(|scope| -> Result<usize> {
            let (ahead, batches) = mpsc::channel::<Vec<NoteFile>>();
            let (found, notes_dir) = (&found, &notes_dir);
            let walk = std::thread::Builder::new()
                .name("index-walk".into())
                .spawn_scoped(scope, move || {
                    let mut batch = Vec::with_capacity(WALK_BATCH);
                    let walked = store::visit_note_files(notes_dir, |file| {
                        batch.push(file);
                        if batch.len() == WALK_BATCH {
                            found.fetch_add(batch.len(), Ordering::Relaxed);
                            // A rebuild that failed stopped reading: what is left
                            // is not read.
                            let _ = ahead.send(std::mem::take(&mut batch));
                        }
                    });
                    found.fetch_add(batch.len(), Ordering::Relaxed);
                    let _ = ahead.send(batch);
                    walked
                })
                .map_err(|e| Error::Index(Cause::new("cannot start the walk of the notes", e)))?;
            // A rebuild (`notes reindex`) runs on its own and commits once, at its
            // end: a commit waits for the indexing threads to empty their queue (the
            // reading stalls) and ends a segment per thread, which the merges then
            // read again. What a rebuild interrupted leaves is the index as it was
            // before it.
            let mut done = 0;
            for file in batches.iter().flatten() {
                self.add(&file)?;
                done += 1;
                progress(done, found.load(Ordering::Relaxed).max(done));
            }
            walk.join()
                .map_err(|_| Error::Index("the walk of the notes failed".into()))??;
            Ok(done)
        })?;
        self.commit()?;
        Ok(indexed)
    }

    /// Lets the merges under way finish, so the index is left as compact as they make
    /// it (dropping the writer abandons them).
    pub fn finish(self) -> Result<()> {
        self.writer.wait_merging_threads().map_err(write_error)
    }

    /// Brings the index up to date with the files: new and changed notes indexed,
    /// vanished ones removed. Only what differs is touched.
    pub(crate) fn catch_up(&mut self, progress: Progress) -> Result<Changes> {
        let files = store::note_files(&self.notes_dir)?;
        let (gone, stale) = differences(&self.known, &files);
        let mut changes = self.catch_up_files()?;
        for path in gone {
            self.remove(&path);
            changes.removed += 1;
        }
        let total = stale.len();
        // A long pass (a first start) merges its segments at its end, not while it
        // indexes: the merges would share the cores and the memory with the indexing.
        let long = total > PASS_CHUNK;
        let chunk = if total > LARGE_PASS {
            LARGE_PASS_CHUNK
        } else {
            PASS_CHUNK
        };
        if long {
            self.writer.set_merge_policy(Box::new(NoMergePolicy));
        }
        let indexing = || -> Result<()> {
            for (done, file) in stale.into_iter().enumerate() {
                self.add(file)?;
                changes.indexed += 1;
                if (done + 1).is_multiple_of(chunk) {
                    self.commit()?;
                }
                progress(done + 1, total);
            }
            Ok(())
        };
        let mut done = indexing();
        if done.is_ok() && changes != Changes::default() {
            done = self.commit();
        }
        if long {
            // The merge of the whole pass is started before the policy is back, which
            // would otherwise start one of its own at the commit, one the readers
            // would not hear of.
            if done.is_ok() {
                self.merge_all();
            }
            self.writer
                .set_merge_policy(Box::new(LogMergePolicy::default()));
        }
        done.map(|()| changes)
    }

    /// Merges the pass's segments, `MERGE_GROUP` at a time, in the background, and has
    /// the readers read each merged segment once it is written. The readers are
    /// reloaded by each commit only: without this, after a first start they kept
    /// reading every segment of the pass (50 at 100k notes: a search cost twice as
    /// much) and kept the files of all of them mapped (deleted, 200 MB resident) until
    /// the next change. The merges run one after the other (one merge thread), and a
    /// merge maps the files it reads: in groups, with the readers reloaded after each,
    /// those of one group only are mapped at a time (all 50 in one merge put 150 MB
    /// of files in the server's RSS at 100k notes).
    fn merge_all(&mut self) {
        let Ok(segments) = self.index.index.searchable_segment_ids() else {
            return;
        };
        let merges: Vec<_> = segments
            .chunks(MERGE_GROUP)
            .filter(|group| group.len() > 1)
            .map(|group| self.writer.merge(group))
            .collect();
        if merges.is_empty() {
            return;
        }
        let reader = self.index.reader.clone();
        let running = self.index.merges.hold(1);
        let spawned = std::thread::Builder::new()
            .name("index-merge".into())
            .spawn(move || {
                let _running = running;
                for merging in merges {
                    if let Err(e) = merging.wait() {
                        crate::log::error(&format!("search: merge failed: {e}"));
                        continue;
                    }
                    if let Err(e) = reader.reload() {
                        crate::log::error(&format!("search: cannot read the merged index: {e}"));
                    }
                }
            });
        if let Err(e) = spawned {
            crate::log::error(&format!("search: cannot start the merges: {e}"));
        }
    }

    /// Re-reads the named notes: indexed when the file exists and differs from the
    /// indexed version, removed when it does not exist any more.
    pub(crate) fn update<'a>(
        &mut self,
        paths: impl IntoIterator<Item = &'a NotePath>,
    ) -> Result<Changes> {
        let mut changes = Changes::default();
        for path in paths {
            let file = root::resolve(&self.notes_dir, path)
                .ok()
                .and_then(|full| fs::metadata(full).ok())
                .filter(fs::Metadata::is_file)
                .map(|meta| FileId::of(&meta));
            match file {
                Some(id) if self.known.get(path.as_str()) != Some(&stamp_key(&id)) => {
                    self.add(&NoteFile {
                        path: path.clone(),
                        id,
                    })?;
                    changes.indexed += 1;
                }
                Some(_) => {}
                None if self.known.contains_key(path.as_str()) => {
                    self.remove(path.as_str());
                    changes.removed += 1;
                }
                None => {}
            }
        }
        if changes != Changes::default() {
            self.commit()?;
        }
        Ok(changes)
    }

    /// Indexes `file`, the document the index holds of it deleted first.
    fn add(&mut self, file: &NoteFile) -> Result<()> {
        // Read through the checked open: the name was found by its path, which may
        // lead elsewhere by now.
        let read = self
            .root
            .open_note(&file.path)
            .and_then(|(mut opened, meta)| {
                let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
                io::Read::read_to_end(&mut opened, &mut bytes).map_err(Error::ReadFailed)?;
                Ok((bytes, FileId::of(&meta)))
            });
        let (bytes, id) = match read {
            Ok(read) => read,
            // Deleted between the listing and now, or no longer a note: nothing to index.
            Err(Error::NotFound | Error::InvalidPath) => {
                if self.known.contains_key(file.path.as_str()) {
                    self.remove(file.path.as_str());
                }
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let text = store::text_of(&bytes);
        // The stamp of the file read (the one listed may have changed since).
        let stamp = schema::stamp_of(&id);
        let doc = schema::document(&self.index.fields, &file.path, &text, &stamp);
        if !self.known_exact || self.known.contains_key(file.path.as_str()) {
            self.writer.delete_term(Term::from_field_text(
                self.index.fields.path,
                file.path.as_str(),
            ));
        }
        self.queue(doc, bytes.len())?;
        self.known
            .insert(file.path.as_str().into(), hash_of(&stamp));
        Ok(())
    }

    /// Hands `doc` (`bytes` of text) to the writer; first, when its queue holds more
    /// than `IN_FLIGHT`, waits until it holds half of that.
    fn queue(&mut self, doc: TantivyDocument, bytes: usize) -> Result<()> {
        if self.queued.held() > IN_FLIGHT {
            self.queued
                .wait_until_at_most(IN_FLIGHT / 2, IN_FLIGHT_WAIT);
        }
        let doc = Queued {
            doc,
            _held: self.queued.hold(bytes),
        };
        self.writer.add_document(doc).map_err(write_error)?;
        Ok(())
    }

    fn remove(&mut self, path: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.index.fields.path, path));
        self.known.remove(path);
    }

    fn commit(&mut self) -> Result<()> {
        if let Err(e) = self.writer.commit() {
            let _ = self.writer.rollback();
            // What the index holds is unknown now: the next pass starts afresh.
            let known = known_stamps(&self.index);
            self.known_exact = known.is_ok();
            self.known = known.unwrap_or_default();
            self.known_files = known_file_stamps(&self.index).unwrap_or_default();
            return Err(write_error(e));
        }
        self.index
            .reader
            .reload()
            .map_err(|e| classified("cannot reload the index", &e))
    }
}

/// The notes `known` holds that are gone from `files`, and those of `files` it does
/// not hold as they are (new or changed).
fn differences<'a>(known: &Stamps, files: &'a [NoteFile]) -> (Vec<Box<str>>, Vec<&'a NoteFile>) {
    let on_disk: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let gone = known
        .keys()
        .filter(|p| !on_disk.contains(&***p))
        .cloned()
        .collect();
    let stale = files
        .iter()
        .filter(|f| known.get(f.path.as_str()) != Some(&stamp_key(&f.id)))
        .collect();
    (gone, stale)
}

/// How many notes `index` does not hold as the files of `notes_dir` are (new, changed
/// or gone), and how many notes there are: what a catch-up would do, without the writer.
pub(crate) fn behind(index: &NotesIndex, notes_dir: &Path) -> Result<(usize, usize)> {
    let files = store::note_files(notes_dir)?;
    let (gone, stale) = differences(&known_stamps(index)?, &files);
    Ok((gone.len() + stale.len(), files.len()))
}

fn write_error(e: TantivyError) -> Error {
    classified("cannot write the index", &e)
}

/// Path → hash of the stamp of each note or attachment the index holds (`hash_of`:
/// the same within one run, all a `Stamps` needs). At 100k notes, a map of path and
/// stamp as owned strings held 16 MB for the server's life.
type Stamps = HashMap<Box<str>, u64>;

/// The hash of the stamp of the file version `id`, as `Stamps` holds it.
fn stamp_key(id: &FileId) -> u64 {
    hash_of(schema::stamp_of(id))
}

/// Path → stamp of every note the index holds, read from the two columns.
fn known_stamps(index: &NotesIndex) -> Result<Stamps> {
    let notes = index.reader.searcher().num_docs() as usize;
    stamps_of(index, "path", notes)
}

/// `expected`: how many there may be (the map is sized once for them).
fn stamps_of(index: &NotesIndex, key: &str, expected: usize) -> Result<Stamps> {
    let searcher = index.reader.searcher();
    let mut stamps = Stamps::with_capacity(expected);
    columns::string_pairs(
        &searcher,
        key,
        "stamp",
        "cannot read the index",
        |path, stamp| {
            stamps.insert(path.into(), hash_of(stamp));
        },
    )?;
    Ok(stamps)
}

/// A document in the writer's queue: its bytes counted in the updater's `queued`
/// until the indexing thread, done with it, drops it.
struct Queued {
    doc: TantivyDocument,
    _held: Held,
}

impl Document for Queued {
    type Value<'a> = <TantivyDocument as Document>::Value<'a>;
    type FieldsValuesIter<'a> = <TantivyDocument as Document>::FieldsValuesIter<'a>;

    fn iter_fields_and_values(&self) -> Self::FieldsValuesIter<'_> {
        self.doc.iter_fields_and_values()
    }
}

#[cfg(test)]
mod tests;
