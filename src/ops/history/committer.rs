//! The committer: one thread per store handle that turns the log's records into
//! commits (`commit`). A batch (the store idle a moment, a change waiting about a
//! second, or a lookup asking) takes the commit lock, commits the new records with
//! their objects in libgit2's in-memory backend (a change makes no loose file), writes
//! them as one pack with libgit2's pack builder, syncs it and moves the ref. The small
//! packs are merged now and then, and the log emptied once large.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use git2::{Oid, Repository};

use super::commit::{commit_records, position};
use super::error::{HResult, HistoryError, err, io_err};
use super::index;
use super::pack;
use super::repo::{APPEND_LOCK, COMMIT_LOCK, REF, lock_file, point_ref, sync_store, tip};
use super::wal;

/// How long the store stays idle before its records are committed.
const IDLE: Duration = Duration::from_millis(100);
/// The longest a record waits for a commit while changes keep coming.
const LONGEST: Duration = Duration::from_secs(1);
/// The objects a pack is written for, at most about: memory holds them until then
/// (thousands of notes written into one folder make a large tree each).
const PACK_BYTES: u64 = 16 << 20;
/// The in-memory backend's priority: above the pack (2) and loose (1) backends, so
/// every write goes to memory.
const PRIORITY: i32 = 1000;

/// A batch asked for: the number of batches finished once it has run, and the records
/// appended before it was asked for, which it commits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Asked {
    batch: u64,
    target: u64,
}

/// The handle's committer thread.
pub(crate) struct Committer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    state: Mutex<State>,
    /// Wakes the thread (a change, a lookup, the end).
    wake: Condvar,
    /// Wakes the lookups waiting for a batch.
    done: Condvar,
    /// How many times a pack replaced others: every handle opens the repository again.
    packs_replaced: AtomicU64,
}

#[derive(Default)]
struct State {
    /// Records this handle appended, and how many of them are committed.
    appended: u64,
    committed: u64,
    /// The number of the batch a lookup waits for, the batches finished, and whether
    /// one is running.
    asked: u64,
    batches: u64,
    running: bool,
    /// When the oldest and the newest record not yet committed were appended.
    first: Option<Instant>,
    last: Option<Instant>,
    /// The last batch's failure.
    failed: Option<String>,
    stop: bool,
    /// A pass over many notes is recording (`Committer::bulk`): batches run when asked
    /// only, and the small packs are not merged.
    bulk: bool,
}

impl State {
    fn due(&self) -> bool {
        if self.bulk {
            return false;
        }
        match (self.first, self.last) {
            (Some(first), Some(last)) => last.elapsed() >= IDLE || first.elapsed() >= LONGEST,
            _ => false,
        }
    }
}

impl Committer {
    /// Starts the thread of the store at `dir`.
    pub(super) fn start(dir: &Path) -> HResult<Committer> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            done: Condvar::new(),
            packs_replaced: AtomicU64::new(0),
        });
        let (run_shared, dir) = (shared.clone(), dir.to_path_buf());
        let thread = std::thread::Builder::new()
            .name("history-commit".into())
            .spawn(move || run(&run_shared, &dir))
            .map_err(io_err("cannot start the committer"))?;
        Ok(Committer {
            shared,
            thread: Some(thread),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.shared.lock()
    }

    /// Tells the thread of a record appended; its number.
    pub(super) fn nudge(&self) -> u64 {
        let mut state = self.state();
        state.appended += 1;
        let now = Instant::now();
        state.first.get_or_insert(now);
        state.last = Some(now);
        self.shared.wake.notify_one();
        state.appended
    }

    /// Waits until every record this handle appended is committed; how many are.
    pub(super) fn flush(&self) -> HResult<u64> {
        let state = self.state();
        if state.committed >= state.appended {
            return Ok(state.committed);
        }
        self.wait(state)
    }

    /// Waits for a batch, which commits every record of the log (another handle's, or
    /// those a crash left).
    pub(super) fn flush_all(&self) -> HResult<u64> {
        let state = self.state();
        self.wait(state)
    }

    /// Waits for a batch that starts after now (one running may have read the log
    /// before the last record).
    fn wait(&self, mut state: MutexGuard<'_, State>) -> HResult<u64> {
        let asked = ask(&self.shared, &mut state);
        self.wait_in(state, asked)
    }

    /// Asks for a batch that starts after now, without waiting for it.
    pub(super) fn ask(&self) -> Asked {
        ask(&self.shared, &mut self.state())
    }

    /// Waits until the batch `asked` for has run; fails when the records appended
    /// before it was asked for are not committed.
    pub(super) fn wait_for(&self, asked: Asked) -> HResult<()> {
        let state = self.state();
        self.wait_in(state, asked).map(drop)
    }

    fn wait_in(&self, mut state: MutexGuard<'_, State>, asked: Asked) -> HResult<u64> {
        while state.batches < asked.batch {
            state = self
                .shared
                .done
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        match &state.failed {
            Some(failed) if state.committed < asked.target => {
                Err(HistoryError::Committer(failed.clone()))
            }
            _ => Ok(state.committed),
        }
    }

    /// Starts or ends a pass over many notes: meanwhile, batches run only when asked
    /// (each then packs many records) and small packs are not merged (at 100k notes,
    /// merges during the pass wrote 2.9 times the notes again); at its end, a batch is
    /// asked for, which merges what the geometric rule picks.
    pub(super) fn bulk(&self, on: bool) {
        let mut state = self.state();
        state.bulk = on;
        if !on {
            ask(&self.shared, &mut state);
        }
    }

    /// How many of the records this handle appended are committed.
    pub(super) fn committed(&self) -> u64 {
        self.state().committed
    }

    /// How many times a pack replaced others (the lookups' handle then opens the
    /// repository again).
    pub(super) fn packs_replaced(&self) -> u64 {
        self.shared.packs_replaced.load(Ordering::Relaxed)
    }

    /// Tells every handle of this store that packs were replaced.
    pub(super) fn replaced_packs(&self) {
        self.shared.packs_replaced.fetch_add(1, Ordering::Relaxed);
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Committer {
    /// Commits what is left, then ends the thread.
    fn drop(&mut self) {
        self.state().stop = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The thread: sessions on a repository handle with an in-memory backend, each ended
/// when a pack replaced the packs it read; until the store is closed.
fn run(shared: &Shared, dir: &Path) {
    loop {
        match session(shared, dir) {
            Ok(true) => return,
            Ok(false) => {}
            Err(e) => {
                if finish(shared, 0, Err(e)) {
                    return;
                }
                std::thread::sleep(LONGEST);
            }
        }
    }
}

/// One session: a batch whenever one is due; whether the store was closed.
fn session(shared: &Shared, dir: &Path) -> HResult<bool> {
    let packs = shared.packs_replaced.load(Ordering::Relaxed);
    let repo = Repository::open_bare(dir).map_err(err("cannot open the store"))?;
    pack::without_deltas(&repo, dir)?;
    let odb = repo.odb().map_err(err("cannot open the objects"))?;
    let mempack = odb
        .add_new_mempack_backend(PRIORITY)
        .map_err(err("cannot stage the objects"))?;
    let memory = Memory {
        repo: &repo,
        odb: &odb,
        mempack: &mempack,
    };
    while shared.packs_replaced.load(Ordering::Relaxed) == packs {
        let (target, bulk) = {
            let mut state = shared.lock();
            while !(state.stop || state.asked > state.batches || state.due()) {
                let wait = if state.first.is_some() {
                    IDLE / 4
                } else {
                    LONGEST
                };
                state = shared
                    .wake
                    .wait_timeout(state, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            state.running = true;
            (state.appended, state.bulk)
        };
        let batch = memory.batch(dir, !bulk);
        if let Ok(true) = batch {
            shared.packs_replaced.fetch_add(1, Ordering::Relaxed);
        }
        if finish(shared, target, batch.map(drop)) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Asks for a batch that starts after now (one running may have read the log before
/// the last record): the number of batches to wait for, and the records it commits.
fn ask(shared: &Shared, state: &mut State) -> Asked {
    let need = state.batches + 1 + u64::from(state.running);
    state.asked = state.asked.max(need);
    shared.wake.notify_one();
    Asked {
        batch: need,
        target: state.appended,
    }
}

/// Records a batch's outcome and wakes the lookups waiting for it; whether the thread
/// ends.
fn finish(shared: &Shared, target: u64, outcome: HResult<()>) -> bool {
    let mut state = shared.lock();
    match outcome {
        Ok(()) => {
            state.committed = state.committed.max(target);
            if state.appended == target {
                state.first = None;
                state.last = None;
            } else {
                state.first = state.last;
            }
            state.failed = None;
        }
        Err(e) => {
            let e = e.to_string();
            // Said once, not at every try: the changes are durable in the log meanwhile.
            if state.failed.as_ref() != Some(&e) {
                crate::log::error(&format!("history: {e}"));
            }
            state.failed = Some(e);
            // Tried again after a while, not at once.
            if state.first.is_some() {
                state.first = Some(Instant::now());
                state.last = state.first;
            }
        }
    }
    state.running = false;
    state.batches += 1;
    shared.done.notify_all();
    state.stop
}

/// The committer's handle on the repository.
struct Memory<'a> {
    repo: &'a Repository,
    odb: &'a git2::Odb<'a>,
    mempack: &'a git2::Mempack<'a>,
}

impl Memory<'_> {
    /// Commits the log's new records, packed, and merges the small packs when they are
    /// many and `merge` allows; whether packs were merged.
    fn batch(&self, dir: &Path, merge: bool) -> HResult<bool> {
        let _turn = lock_file(dir, COMMIT_LOCK)?;
        let made = loop {
            let made = commit_records(self.repo, dir, PACK_BYTES)?;
            if let Some(tip) = made.tip {
                let packed = self.pack(dir, &made.objects);
                // Packed or not, memory holds nothing the next batch needs.
                self.mempack
                    .reset()
                    .map_err(err("cannot empty the staged objects"))?;
                self.odb.refresh().map_err(err("cannot open the objects"))?;
                packed?;
                point_ref(dir, self.repo, tip, "committed")?;
                sync_ref(dir);
                if let Err(e) = index::append_after(dir, made.parent, &made.entries) {
                    // Completed from the commits at the next lookup.
                    crate::log::warn(&format!("cannot write the history index: {e}"));
                }
            }
            if !made.more {
                break made;
            }
        };
        if made.log_bytes > wal::CHECKPOINT_BYTES {
            empty_log(dir, self.repo)?;
        }
        if merge && pack::small_packs(dir) > pack::MERGE_PAST {
            return pack::merge_small(dir);
        }
        Ok(false)
    }

    /// Writes `objects` (staged in memory) as one pack, synced.
    fn pack(&self, dir: &Path, objects: &[Oid]) -> HResult<()> {
        pack::write_objects(self.repo, dir, objects, "cannot pack the changes").map(drop)
    }
}

/// Syncs the ref file, so a crash cannot leave it torn (best effort: a torn ref only
/// makes the log's records committed again).
fn sync_ref(dir: &Path) {
    if let Ok(file) = std::fs::File::open(dir.join(REF)) {
        let _ = file.sync_data();
    }
}

/// Empties the log once every record it holds is committed, with everything durable
/// first (the commit lock held; the append lock taken so no record comes meanwhile).
fn empty_log(dir: &Path, repo: &Repository) -> HResult<()> {
    let _appends = lock_file(dir, APPEND_LOCK)?;
    let after = position(repo, tip(repo, dir)?)?;
    let (left, _) = wal::records_after(dir, after).map_err(io_err("cannot read the log"))?;
    if !left.is_empty() {
        return Ok(());
    }
    sync_store(dir)?;
    wal::clear(dir).map_err(io_err("cannot empty the log"))
}
