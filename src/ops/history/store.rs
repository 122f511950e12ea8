//! The history store: a bare git repository, `.notes/history.git`, owned by the
//! service. One commit per change on the branch `main` (`HEAD`), whose tree is the
//! notebook's notes after the change; the message names the operation and the path.
//! A change is durable once its record is in the write-ahead log (`wal`); the
//! committer thread (`commit`) turns the records into commits in the background, and
//! the per-note index (`index`) answers lookups.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use git2::{Oid, Repository};
use xxhash_rust::xxh3::xxh3_128;

use super::change::{Change, encode};
use super::commit::{base_versions, op_of};
use super::committer::{Asked, Committer};
use super::error::{HResult, err, io_err};
use super::group::Group;
use super::index::{Entry, Index};
use super::layout::{migrate_log, settle_layout};
use super::repo::{APPEND_LOCK, COMMIT_LOCK, lock_file, open_lock, tip, tip_of};
use super::wal;

/// The open store.
pub(crate) struct Store {
    pub(super) dir: PathBuf,
    /// The log, opened at the first change (again after a failure), and the append
    /// lock file held open.
    log: Mutex<Option<(wal::Log, File)>>,
    /// The log's shared write-outs (group commit).
    group: Group,
    reader: Mutex<Reader>,
    pub(super) committer: Committer,
    /// The notes this handle recorded since its lookups last caught up, with whether
    /// their last change left a text and the change's number: tells a version that
    /// replaces another (for the packs) before the committer made it a commit.
    recent: Mutex<HashMap<String, (bool, u64)>>,
    /// Versions recorded that replace an earlier version of their note.
    replaced: Arc<AtomicU64>,
    /// Each note's latest text this handle recorded (its xxh3-128; `None`: removed):
    /// the watcher's news of the service's own writes is known for what it is without
    /// waiting for a commit. Emptied once it holds `OWN_MAX` notes.
    own: Mutex<HashMap<String, Option<u128>>>,
    /// The bytes of the records `record_unflushed` appended since it last asked for a
    /// batch, and since it last waited for every record to be committed; the batch it
    /// asked for and has not waited for (`Committer::ask`).
    unflushed: Mutex<Unflushed>,
}

#[derive(Default)]
struct Unflushed {
    since_batch: u64,
    since_flush: u64,
    asked: Option<Asked>,
}

/// How many notes `Store::own` remembers at most.
const OWN_MAX: usize = 16_384;

/// The bytes of records `record_unflushed` leaves to one batch at most: a batch reads
/// them all into memory, and writes them as one pack.
const UNFLUSHED_MOST: u64 = 4 << 20;

/// The lookups' handle on the repository, and the index.
pub(super) struct Reader {
    pub(super) repo: Repository,
    pub(super) index: Index,
    /// The committer's count of pack replacements this handle has read.
    packs: u64,
}

impl Store {
    /// Opens the store at `dir`, creating the bare repository when it is not there, and
    /// commits what its log holds (a change acknowledged before a crash is recorded).
    pub(crate) fn open(dir: &Path, replaced: Arc<AtomicU64>) -> HResult<Store> {
        let repo = match Repository::open_bare(dir) {
            Ok(repo) => repo,
            Err(e) if e.code() == git2::ErrorCode::NotFound => {
                std::fs::create_dir_all(dir).map_err(io_err("cannot create the store"))?;
                // Another process may be creating it at the same moment.
                Repository::init_bare(dir)
                    .or_else(|_| Repository::open_bare(dir))
                    .map_err(err("cannot create the store"))?
            }
            Err(e) => return Err(err("cannot open the store")(e)),
        };
        {
            let _turn = lock_file(dir, COMMIT_LOCK)?;
            settle_layout(dir, &repo)?;
            migrate_log(dir, &repo)?;
            // The index file is there from the start (the committer appends to it).
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join(super::index::FILE))
                .map_err(io_err("cannot create the history index"))?;
        }
        let store = Store {
            dir: dir.to_path_buf(),
            log: Mutex::new(None),
            group: Group::default(),
            reader: Mutex::new(Reader {
                repo,
                index: Index::default(),
                packs: 0,
            }),
            committer: Committer::start(dir)?,
            recent: Mutex::new(HashMap::new()),
            replaced,
            own: Mutex::new(HashMap::new()),
            unflushed: Mutex::default(),
        };
        store.committer.flush_all()?;
        Ok(store)
    }

    /// Appends `changes` to the log as one record (the commit is made by the committer
    /// thread), made durable as `sync` says; what is left to make it durable. A change
    /// synced now is committed before this returns, so git reads it at once.
    pub(crate) fn record(
        &self,
        message: &str,
        changes: &[Change],
        sync: wal::Sync,
    ) -> HResult<Option<wal::Pending<'_>>> {
        let pending = self.log_record(message, changes, sync)?;
        if sync == wal::Sync::Now {
            self.committer.flush()?;
        }
        Ok(pending)
    }

    /// `record`, synced now, its commit left to a batch of many records: for a pass
    /// over many notes (`bulk`, one caller at a time), which calls `flush` at its end.
    /// Every `UNFLUSHED_MOST` bytes it asks for a batch, which writes them as one pack,
    /// and goes on recording meanwhile: it waits for the batch asked for before (the
    /// log holds two batches' records at most), and for every record to be committed
    /// once the log is past `wal::CHECKPOINT_BYTES` (the log is then emptied).
    pub(crate) fn record_unflushed(&self, message: &str, changes: &[Change]) -> HResult<()> {
        self.log_record(message, changes, wal::Sync::Now)?;
        let bytes: u64 = changes
            .iter()
            .map(|c| (c.path.len() + c.text.as_ref().map_or(0, Vec::len)) as u64)
            .sum();
        let mut unflushed = self
            .unflushed
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        unflushed.since_batch += bytes;
        if unflushed.since_batch < UNFLUSHED_MOST {
            return Ok(());
        }
        unflushed.since_flush += std::mem::take(&mut unflushed.since_batch);
        if let Some(before) = unflushed.asked.take() {
            self.committer.wait_for(before)?;
        }
        if unflushed.since_flush >= wal::CHECKPOINT_BYTES {
            drop(unflushed);
            return self.flush();
        }
        unflushed.asked = Some(self.committer.ask());
        Ok(())
    }

    /// Starts or ends a pass over many notes (`record_unflushed`): meanwhile the
    /// committer runs its batches when asked only, and merges no pack; at the end, it
    /// merges as it would have.
    pub(crate) fn bulk(&self, on: bool) {
        self.committer.bulk(on);
    }

    /// Waits until every record this handle appended is committed.
    pub(crate) fn flush(&self) -> HResult<()> {
        *self
            .unflushed
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Unflushed::default();
        self.committer.flush().map(drop)
    }

    fn log_record(
        &self,
        message: &str,
        changes: &[Change],
        sync: wal::Sync,
    ) -> HResult<Option<wal::Pending<'_>>> {
        let objects = encode(super::now(), message, changes);
        let (pending, number) = self.append(&objects, sync)?;
        self.count_replaced(changes, number);
        self.remember_own(changes);
        Ok(pending)
    }

    /// Appends one record to the log, made durable as `sync` says; what is left to make
    /// it durable, and the change's number for the committer.
    pub(super) fn append(
        &self,
        objects: &[wal::Object],
        sync: wal::Sync,
    ) -> HResult<(Option<wal::Pending<'_>>, u64)> {
        let mut guard = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let (log, lock) = match &mut *guard {
            Some(open) => open,
            None => guard.insert((
                wal::Log::open(&self.dir).map_err(io_err("cannot open the log"))?,
                open_lock(&self.dir, APPEND_LOCK)?,
            )),
        };
        lock.lock().map_err(io_err("cannot lock the store"))?;
        let appended = log.append(objects, sync).map(|(_, unsynced)| {
            unsynced.map(|unsynced| {
                let number = self.group.written(unsynced.identity);
                (unsynced, number)
            })
        });
        let _ = lock.unlock();
        drop(guard);
        let pending = appended
            .map_err(io_err("cannot write the log"))?
            .map(|(unsynced, number)| wal::Pending::new(&self.group, unsynced, number));
        Ok((pending, self.committer.nudge()))
    }

    fn remember_own(&self, changes: &[Change]) {
        let mut own = self.own.lock().unwrap_or_else(PoisonError::into_inner);
        if own.len() + changes.len() > OWN_MAX {
            own.clear();
        }
        for change in changes {
            own.insert(change.path.clone(), change.text.as_deref().map(xxh3_128));
        }
    }

    /// Whether `text` (`None`: no note) is the latest version this handle recorded of
    /// the note at `path`: the watcher seeing the service's own write. A change another
    /// handle recorded since is not known here; the next start's pass over every note
    /// records whatever is on disk then.
    pub(crate) fn is_own(&self, path: &str, text: Option<&[u8]>) -> bool {
        let own = self.own.lock().unwrap_or_else(PoisonError::into_inner);
        own.get(path) == Some(&text.map(xxh3_128))
    }

    /// Counts the notes of a change whose text replaces an earlier version of theirs:
    /// what a full pack could store as deltas.
    fn count_replaced(&self, changes: &[Change], number: u64) {
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        let mut replaced = 0;
        for change in changes {
            let text = change.text.is_some();
            let before = match recent.insert(change.path.clone(), (text, number)) {
                Some((had, _)) => had,
                None => self
                    .reader
                    .try_lock()
                    .ok()
                    .and_then(|r| r.index.latest(&change.path).map(|e| e.blob.is_some()))
                    .unwrap_or(false),
            };
            replaced += u64::from(text && before);
        }
        self.replaced.fetch_add(replaced, Ordering::Relaxed);
    }

    /// The lookups' handle, opened again after a pack replaced the packs it read
    /// (libgit2 keeps a removed pack open, and its disk space, until then).
    pub(super) fn reader(&self) -> HResult<MutexGuard<'_, Reader>> {
        let mut reader = self.reader.lock().unwrap_or_else(PoisonError::into_inner);
        let packs = self.committer.packs_replaced();
        if reader.packs != packs {
            reader.repo = Repository::open_bare(&self.dir).map_err(err("cannot open the store"))?;
            reader.packs = packs;
        }
        Ok(reader)
    }

    /// Runs `f` on the index, brought up to date with the repository first (this
    /// handle's changes committed).
    pub(crate) fn with_index<T>(&self, f: impl FnOnce(&Index) -> T) -> HResult<T> {
        let committed = self.committer.flush()?;
        self.read_index(committed, f)
    }

    /// Runs `f` on the index brought up to the ref, once this handle's records up to
    /// `committed` are committed (the recent changes up to there are then forgotten:
    /// else a pass over every note would remember them all).
    fn read_index<T>(&self, committed: u64, f: impl FnOnce(&Index) -> T) -> HResult<T> {
        let mut reader = self.reader()?;
        reader.catch_up(&self.dir, false)?;
        self.forget_recent(committed);
        Ok(f(&reader.index))
    }

    /// Forgets the recent changes up to `committed`, which the index now holds.
    fn forget_recent(&self, committed: u64) {
        self.recent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, (_, number)| *number > committed);
    }

    /// The latest version of each of `paths` (`None`: none recorded; `Some(None)`: it
    /// removed the note), waiting for the committer only when this handle recorded a
    /// change of one of them that is not committed yet (a pass over many notes then
    /// lets the committer pack many records at once).
    pub(crate) fn latest_of(&self, paths: &[&str]) -> HResult<Vec<Option<Option<Oid>>>> {
        let latest = |index: &Index| {
            paths
                .iter()
                .map(|path| index.latest(path).map(|e| e.blob))
                .collect()
        };
        let committed = self.committer.committed();
        let waiting = {
            let recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
            paths
                .iter()
                .any(|path| recent.get(*path).is_some_and(|(_, n)| *n > committed))
        };
        if waiting {
            return self.with_index(latest);
        }
        self.read_index(committed, latest)
    }

    /// Commits every change recorded (at a graceful shutdown: git reads them all).
    pub(crate) fn settle(&self) -> HResult<()> {
        self.committer.flush_all().map(drop)
    }

    /// The bytes of blob `id`.
    pub(crate) fn blob(&self, id: Oid) -> HResult<Vec<u8>> {
        let reader = self.reader()?;
        let blob = reader
            .repo
            .find_blob(id)
            .map_err(err("cannot read a version"))?;
        Ok(blob.content().to_vec())
    }

    /// The message of commit `id`.
    pub(crate) fn message(&self, id: Oid) -> HResult<String> {
        let reader = self.reader()?;
        let commit = reader
            .repo
            .find_commit(id)
            .map_err(err("cannot read a change"))?;
        Ok(String::from_utf8_lossy(commit.message_bytes()).into_owned())
    }
}

impl Reader {
    /// Brings the index up to the ref: the lines the committers wrote, then (under the
    /// commit lock, unless `locked` says it is held) the commits no line names yet; a
    /// history the index does not lead to (pruned, or a lost index) is indexed again
    /// from the start.
    pub(super) fn catch_up(&mut self, dir: &Path, locked: bool) -> HResult<()> {
        let tip = tip(&self.repo, dir)?;
        if tip == self.index.tip {
            return Ok(());
        }
        self.index
            .read_new(dir)
            .map_err(io_err("cannot read the history index"))?;
        if tip == self.index.tip {
            return Ok(());
        }
        let _turn = if locked {
            None
        } else {
            Some(lock_file(dir, COMMIT_LOCK)?)
        };
        // The ref and the lines as they are now the lock is held.
        let tip = tip_of(&self.repo)?;
        self.index
            .read_new(dir)
            .map_err(io_err("cannot read the history index"))?;
        let Some(tip) = tip else {
            return Ok(());
        };
        let mut missing = Vec::new();
        let mut at = Some(tip);
        while let Some(id) = at {
            if Some(id) == self.index.tip {
                break;
            }
            let commit = self
                .repo
                .find_commit(id)
                .map_err(err("cannot read a commit"))?;
            missing.push(id);
            at = commit.parent_ids().next();
        }
        if at.is_none() && self.index.tip.is_some() {
            self.index
                .reset(dir)
                .map_err(io_err("cannot reset the history index"))?;
        }
        for id in missing.into_iter().rev() {
            let entries = entries_of(&self.repo, id)?;
            self.index
                .append(dir, entries)
                .map_err(io_err("cannot write the history index"))?;
        }
        Ok(())
    }
}

/// The entries of commit `id`: the notes its tree changed from its first parent's.
pub(super) fn entries_of(repo: &Repository, id: Oid) -> HResult<Vec<(String, Entry)>> {
    let commit = repo.find_commit(id).map_err(err("cannot read a commit"))?;
    let tree = commit.tree().map_err(err("cannot read a tree"))?;
    let parent_tree = match commit.parent(0) {
        Ok(parent) => Some(parent.tree().map_err(err("cannot read a tree"))?),
        Err(_) => None,
    };
    let diff = repo
        .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), None)
        .map_err(err("cannot compare two trees"))?;
    let op = op_of(commit.message().unwrap_or("")).to_string();
    let at = commit.time().seconds();
    // The first commit of a pruned history holds every note's text at the cut, and a
    // commit of several records their versions; its message says when each was made,
    // and by what.
    let kept = base_versions(commit.message().unwrap_or(""));
    let odb = repo.odb().map_err(err("cannot open the objects"))?;
    let mut entries = Vec::new();
    for delta in diff.deltas() {
        let (file, gone) = match delta.status() {
            git2::Delta::Deleted => (delta.old_file(), true),
            _ => (delta.new_file(), false),
        };
        let Some(path) = file.path().and_then(Path::to_str) else {
            continue;
        };
        let (blob, size) = if gone {
            (None, 0)
        } else {
            let id = file.id();
            let size = odb.read_header(id).map_or(0, |(size, _)| size as u64);
            (Some(id), size)
        };
        let (at, op) = kept.get(path).cloned().unwrap_or((at, op.clone()));
        entries.push((
            path.to_string(),
            Entry {
                commit: id,
                at,
                op: super::index::op_named(&op),
                size,
                blob,
            },
        ));
    }
    Ok(entries)
}

impl Store {
    /// Packs the store (`pack::pack_all`) once every change is committed; whether there
    /// was a history to pack.
    pub(super) fn pack(&self) -> HResult<bool> {
        self.committer.flush_all()?;
        // A sync running waits for no pack: the pack waits for it (`SYNC_LOCK`).
        let _sync = lock_file(&self.dir, super::repo::SYNC_LOCK)?;
        let _turn = lock_file(&self.dir, COMMIT_LOCK)?;
        let packed = super::pack::pack_all(&self.dir)?;
        if packed {
            self.committer.replaced_packs();
        }
        Ok(packed)
    }
}
