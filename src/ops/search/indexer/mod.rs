//! The background indexer of `serve`: one thread owns the index writer and is fed from
//! a queue (notes changed through the service, file events from the watcher). Bursts
//! coalesce into one pass and one commit; a failure is logged with its cause and the
//! indexer recovers with a catch-up once the index can be written again. An index found
//! damaged (by the indexer or by a search) is moved aside and rebuilt from the notes,
//! while searches answer "being rebuilt".

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};

use super::updater::IndexUpdater;
use super::{NotesIndex, heal};
use crate::error::{Error, Result};
use crate::ops::path::INTERNAL_DIR;
use crate::ops::{Changed, FilePath, NotePath};

mod shared;
mod watcher;

pub use self::shared::SharedIndex;
use self::shared::Slot;
use self::watcher::watch;

/// A pass starts once no change has come for this long…
const QUIET: Duration = Duration::from_millis(25);
/// …or this long after the first change of a burst, whichever comes first.
const MAX_DELAY: Duration = Duration::from_millis(250);
/// The longest a reader waits for the indexer to apply the writes made before it.
const SETTLE_WAIT: Duration = Duration::from_secs(2);
/// Wait before retrying a failed index, doubled on each failure up to `MAX_RETRY`.
const FIRST_RETRY: Duration = Duration::from_secs(2);
const MAX_RETRY: Duration = Duration::from_secs(60);

enum Message {
    /// A note was written or deleted.
    Changed(NotePath),
    /// An attachment was written or deleted.
    FileChanged(FilePath),
    /// A folder changed (made, moved in or out), or a name is gone: compare the files
    /// under it (or it).
    Under(String),
    /// Something else changed (events lost): compare every file.
    CatchUp,
    /// A search found the index damaged (why): move it aside and rebuild it.
    Heal(String),
    /// A reader waits for what was queued before this to be applied: answer once it is.
    Flush(Sender<()>),
    Stop,
}

/// The changes a pass of the indexer covers, told to whoever else follows the notes
/// folder (the history records the edits made outside the service).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Covered {
    /// These notes and attachments changed (by the service, or outside it).
    Changed {
        notes: Vec<NotePath>,
        files: Vec<FilePath>,
    },
    /// Anything may have changed: the start, or a change the watcher could not name.
    Everything,
}

/// The running indexer and watcher; stopped on drop.
pub(crate) struct Indexer {
    queue: Sender<Message>,
    thread: Option<JoinHandle<()>>,
    _watcher: Option<notify::RecommendedWatcher>,
}

impl Indexer {
    /// Starts the indexer of `notes_dir`: it first catches up with the files on disk,
    /// then follows the changes it is told of and those the watcher sees. `after_pass`
    /// runs in the indexer's thread after each pass (the server hands the memory the
    /// pass freed back to the system there).
    pub(crate) fn start(
        notes_dir: &Path,
        shared: SharedIndex,
        after_pass: impl Fn() + Send + 'static,
        covered: impl Fn(Covered) + Send + 'static,
    ) -> Indexer {
        let (queue, inbox) = mpsc::channel();
        *shared
            .0
            .indexer
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(queue.clone());
        let dir = notes_dir.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("search-indexer".into())
            .spawn(move || run(&dir, &shared, &inbox, &after_pass, &covered))
            .map_err(|e| crate::log::error(&format!("search: cannot start the indexer: {e}")))
            .ok();
        let watcher = watch(notes_dir, queue.clone())
            .map_err(|e| {
                crate::log::warn(&format!(
                    "search: cannot watch {} ({e}); notes edited outside the service are \
                     indexed at the next start",
                    notes_dir.display()
                ))
            })
            .ok();
        Indexer {
            queue,
            thread,
            _watcher: watcher,
        }
    }

    /// A listener for `Notebook::on_change`: queues the note or attachment, never waits.
    pub(crate) fn listener(&self) -> crate::ops::ChangeListener {
        let queue = std::sync::Mutex::new(self.queue.clone());
        Box::new(move |changed: Changed<'_>| {
            let message = match changed {
                Changed::Note(path) => Message::Changed(path.clone()),
                Changed::File(path) => Message::FileChanged(path.clone()),
            };
            let queue = queue.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = queue.send(message);
        })
    }
}

impl Drop for Indexer {
    fn drop(&mut self) {
        let _ = self.queue.send(Message::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the indexer owes the index.
#[derive(Default)]
struct Pending {
    paths: BTreeSet<NotePath>,
    files: BTreeSet<FilePath>,
    /// Folders whose files are compared (`Message::Under`).
    folders: BTreeSet<String>,
    catch_up: bool,
    /// Why the index must be moved aside and rebuilt, when it must.
    heal: Option<String>,
    /// Readers waiting for this work to be applied.
    waiting: Vec<Sender<()>>,
}

impl Pending {
    /// No work to do (readers may be waiting).
    fn is_empty(&self) -> bool {
        self.paths.is_empty()
            && self.files.is_empty()
            && self.folders.is_empty()
            && !self.catch_up
            && self.heal.is_none()
    }

    fn answer_waiting(&mut self) {
        for reader in self.waiting.drain(..) {
            let _ = reader.send(());
        }
    }
}

fn run(
    notes_dir: &Path,
    shared: &SharedIndex,
    inbox: &Receiver<Message>,
    after_pass: &dyn Fn(),
    covered: &dyn Fn(Covered),
) {
    let mut updater: Option<IndexUpdater> = None;
    let mut pending = Pending {
        catch_up: true,
        ..Pending::default()
    };
    let mut retry = FIRST_RETRY;
    // When a failing index is tried again: a deadline, not a wait restarted by each
    // message, so readers settling often (a note page polled) do not put it off.
    let mut retry_at = Instant::now();
    let mut failing = false;
    loop {
        // Wait for work, unless some is left over from a failed pass.
        if pending.is_empty() || failing {
            let first = if failing {
                match inbox.recv_timeout(retry_at.saturating_duration_since(Instant::now())) {
                    Ok(message) => Some(message),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            } else {
                match inbox.recv() {
                    Ok(message) => Some(message),
                    Err(_) => return,
                }
            };
            let flush = matches!(first, Some(Message::Flush(_)));
            if let Some(message) = first
                && !take(message, &mut pending)
            {
                return;
            }
            if flush && (pending.is_empty() || failing) {
                // A reader, and nothing queued before it (or a failing index that a
                // retry now would not help): it reads the index as it is.
                pending.answer_waiting();
                continue;
            }
        }
        // Let the burst finish: the pass covers everything that came meanwhile. A reader
        // waiting cuts the wait short.
        let started = Instant::now();
        while pending.waiting.is_empty() {
            let left = MAX_DELAY.saturating_sub(started.elapsed());
            match inbox.recv_timeout(QUIET.min(left)) {
                Ok(message) => {
                    if !take(message, &mut pending) {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if left.is_zero() {
                break;
            }
        }
        let mut work = std::mem::take(&mut pending);
        // A folder's files are compared one by one, told to the history as such; without
        // the index's writer (opened by the pass), everything is.
        match updater.as_ref() {
            Some(updater) if !work.catch_up => {
                for folder in std::mem::take(&mut work.folders) {
                    let (notes, files) = updater.under(&folder);
                    work.paths.extend(notes);
                    work.files.extend(files);
                }
            }
            _ => work.catch_up |= !work.folders.is_empty(),
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            pass(notes_dir, shared, &mut updater, &work)
        }))
        .unwrap_or_else(|_| Err(Error::Index("the indexer panicked".into())));
        // Answered even after a failure: the readers then read the index as it is.
        work.answer_waiting();
        // The history hears of the same changes (its own writes are recorded already,
        // and found unchanged), once the pass is done: at a first start its recording
        // of every note would otherwise share the cores with the indexing, and the
        // notes would be searchable later.
        covered(if work.catch_up {
            Covered::Everything
        } else {
            Covered::Changed {
                notes: work.paths.iter().cloned().collect(),
                files: work.files.iter().cloned().collect(),
            }
        });
        after_pass();
        match outcome {
            Ok(()) => {
                if failing {
                    crate::log::info("search: the index is writable again and up to date");
                }
                failing = false;
                retry = FIRST_RETRY;
            }
            Err(err) => {
                crate::log::error(&format!(
                    "search: index update failed: {}; retrying in {} s",
                    err.detailed(),
                    retry.as_secs()
                ));
                // Drop the writer (and its lock); the retry reopens and catches up,
                // or moves the damaged index aside again.
                updater = None;
                pending.catch_up = true;
                if let Some(why) = work.heal {
                    pending.heal.get_or_insert(why);
                }
                if failing {
                    retry = (retry * 2).min(MAX_RETRY);
                }
                retry_at = Instant::now() + retry;
                failing = true;
            }
        }
    }
}

/// Adds a message to the pending work; false on `Stop`.
fn take(message: Message, pending: &mut Pending) -> bool {
    match message {
        Message::Changed(path) => {
            pending.paths.insert(path);
        }
        Message::FileChanged(path) => {
            pending.files.insert(path);
        }
        Message::Under(folder) => {
            pending.folders.insert(folder);
        }
        Message::CatchUp => pending.catch_up = true,
        Message::Heal(why) => pending.heal = Some(why),
        Message::Flush(reader) => pending.waiting.push(reader),
        Message::Stop => return false,
    }
    true
}

fn pass(
    notes_dir: &Path,
    shared: &SharedIndex,
    updater: &mut Option<IndexUpdater>,
    work: &Pending,
) -> Result<()> {
    if let Some(why) = &work.heal {
        return rebuild(notes_dir, shared, updater, why);
    }
    match update(notes_dir, shared, updater, work) {
        Err(Error::IndexBroken(why)) => rebuild(notes_dir, shared, updater, &why),
        other => other,
    }
}

/// Moves the damaged index aside and builds a new one from the notes; searches answer
/// "being rebuilt" meanwhile. One log line says what happened.
fn rebuild(
    notes_dir: &Path,
    shared: &SharedIndex,
    updater: &mut Option<IndexUpdater>,
    why: &str,
) -> Result<()> {
    // Readers of the old index keep their mapped files; the writer lock is released.
    *updater = None;
    shared.put(Slot::Rebuilding);
    let moved = heal::move_aside(notes_dir)?;
    crate::log::warn(&format!(
        "search: the index is damaged ({why}); moved it to {} and rebuilding it from the notes",
        moved.map_or_else(
            || "nowhere (it was gone)".into(),
            |p| p.display().to_string()
        )
    ));
    let index = NotesIndex::open_or_create(notes_dir)?;
    let mut fresh = IndexUpdater::new(index.clone(), notes_dir)?;
    fresh.catch_up(&mut |_, _| {})?;
    shared.set(index);
    *updater = Some(fresh);
    Ok(())
}

fn update(
    notes_dir: &Path,
    shared: &SharedIndex,
    updater: &mut Option<IndexUpdater>,
    work: &Pending,
) -> Result<()> {
    let mut catch_up = work.catch_up;
    if updater.is_none() {
        // The index searches use, when it is there; else open (or create) it again.
        let index = match shared.get() {
            Ok(index) if index_dir_ok(notes_dir) => index,
            _ => NotesIndex::open_or_create(notes_dir)?,
        };
        shared.set(index.clone());
        *updater = Some(IndexUpdater::new(index, notes_dir)?);
        catch_up = true;
    }
    let Some(updater) = updater.as_mut() else {
        return Ok(());
    };
    let started = Instant::now();
    let changes = if catch_up {
        updater.catch_up(&mut |_, _| {})?
    } else {
        let notes = updater.update(&work.paths)?;
        let files = updater.update_files(&work.files)?;
        super::updater::Changes {
            indexed: notes.indexed + files.indexed,
            removed: notes.removed + files.removed,
        }
    };
    if catch_up && changes.indexed + changes.removed > 0 {
        crate::log::info(&format!(
            "search: caught up with the notes folder ({} indexed, {} removed) in {} ms",
            changes.indexed,
            changes.removed,
            started.elapsed().as_millis()
        ));
    }
    Ok(())
}

/// Whether the index folder is still there (it may have been removed or replaced).
fn index_dir_ok(notes_dir: &Path) -> bool {
    super::index_dir(notes_dir).join("meta.json").is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settle_returns_once_queued_changes_are_indexed() {
        let notes = tempfile::tempdir().unwrap();
        let shared = SharedIndex::open(notes.path());
        let indexer = Indexer::start(notes.path(), shared.clone(), || {}, |_| {});
        shared.settle();
        let count = || shared.get().unwrap().reader.searcher().num_docs();
        assert_eq!(count(), 0);
        let listener = indexer.listener();
        for i in 0..3 {
            let name = format!("n{i}.md");
            std::fs::write(notes.path().join(&name), "x").unwrap();
            listener(Changed::Note(&NotePath::parse(&name).unwrap()));
        }
        let started = Instant::now();
        shared.settle();
        assert_eq!(count(), 3, "settle returned before the pass");
        assert!(
            started.elapsed() < SETTLE_WAIT,
            "settle waited for its bound"
        );
        // Nothing queued: answered at once, not after the bound.
        let started = Instant::now();
        shared.settle();
        assert!(
            started.elapsed() < SETTLE_WAIT / 2,
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_note_indexed_again_replaces_its_document_and_a_new_one_adds_one() {
        let notes = tempfile::tempdir().unwrap();
        let shared = SharedIndex::open(notes.path());
        let indexer = Indexer::start(notes.path(), shared.clone(), || {}, |_| {});
        shared.settle();
        let count = || shared.get().unwrap().reader.searcher().num_docs();
        let listener = indexer.listener();
        let write = |name: &str, text: &str| {
            std::fs::write(notes.path().join(name), text).unwrap();
            listener(Changed::Note(&NotePath::parse(name).unwrap()));
            shared.settle();
        };
        write("a.md", "first");
        write("b.md", "other");
        assert_eq!(count(), 2);
        // Known to the index: its document is deleted before the new one is added.
        write("a.md", "second, longer");
        write("a.md", "third and longer still");
        assert_eq!(count(), 2, "a note indexed again left a second document");
        write("c.md", "new");
        assert_eq!(count(), 3);
    }

    #[test]
    fn a_damaged_index_reads_as_being_rebuilt_until_replaced() {
        let notes = tempfile::tempdir().unwrap();
        let shared = SharedIndex::default();
        assert!(matches!(shared.get(), Err(Error::Index(_))));
        let first = NotesIndex::open_or_create(notes.path()).unwrap();
        shared.set(first.clone());
        assert!(shared.get().is_ok());
        shared.mark_damaged(&first, "test".into());
        assert!(matches!(shared.get(), Err(Error::IndexRebuilding)));
        // Once the indexer puts a new index in place, damage seen through the old one
        // no longer takes it away.
        let second = NotesIndex::open_or_create(notes.path()).unwrap();
        shared.set(second);
        shared.mark_damaged(&first, "late".into());
        assert!(shared.get().is_ok());
    }
}
