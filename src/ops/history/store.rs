//! The history store: a bare git repository, `.notes/history.git`, owned by the
//! service. One commit per change on the branch `main` (`HEAD`), whose tree is the notebook's
//! notes after the change; the message names the operation and the path. Changes are
//! made durable by the write-ahead log (`wal`) and staged in memory until the next
//! settle (`stage`: the ref on disk may lag the log by about a second), the per-note
//! index (`index`) answers lookups, and a lock file keeps the commands and the server
//! taking turns.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use git2::{ObjectType, Oid, Repository, Signature, Time, build::TreeUpdateBuilder};

use super::index::{Entry, Index};
use super::layout::settle_layout;
use super::stage::{Staged, point_ref, replay};
use super::wal;

/// The branch the commits are on, the one `HEAD` names: git reads the store as any
/// repository (the store is a repository of its own; a user's is never opened).
pub(crate) const REF: &str = "refs/heads/main";
/// The lock file inside the repository that writers of the store take in turn.
const LOCK_FILE: &str = "notes.lock";

/// The id of the tree of no entry.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// One note's new state in a change: its text, or `None` when the change removes it.
pub(crate) struct Change {
    pub(crate) path: String,
    pub(crate) text: Option<Vec<u8>>,
}

/// A failure of the store, with what it was doing.
pub(crate) type StoreResult<T> = Result<T, String>;

pub(super) fn err(what: &str) -> impl Fn(git2::Error) -> String + '_ {
    move |e| format!("{what}: {}", e.message())
}

pub(super) fn io_err(what: &str) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// A change recorded by `Store::record`.
pub(crate) struct Recorded {
    /// What is left to make it durable.
    pub(crate) pending: Option<wal::Pending>,
    /// The notes of the change whose text replaces an earlier version of theirs: what a
    /// full pack could store as deltas (a note's first version has nothing to be a
    /// delta of, but its versions that follow are mostly the same text).
    pub(crate) replaced: usize,
}

/// The open store.
pub(crate) struct Store {
    pub(super) dir: PathBuf,
    inner: Mutex<Inner>,
    /// Held by a settle aside, so two never run at once.
    pub(super) settling: Mutex<()>,
}

pub(super) struct Inner {
    pub(super) repo: Repository,
    pub(super) index: Index,
    /// The log, opened with the store (again at the next use when that failed).
    pub(super) log: Option<wal::Log>,
    /// The objects staged in memory.
    pub(super) staged: Staged,
    /// The log's last commit, while it has records: the true tip.
    pub(super) log_tip: Option<Oid>,
}

/// The store's lock, held across processes while it is written, pruned, packed or its
/// index completed.
pub(super) struct Turn(File);

impl Drop for Turn {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

impl Store {
    /// Opens the store at `dir`, creating the bare repository when it is not there,
    /// and replays its log (a change whose sync finished before a crash is complete
    /// again).
    pub(crate) fn open(dir: &Path) -> StoreResult<Store> {
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
        let _turn = lock_file(dir)?;
        settle_layout(dir, &repo)?;
        if let Some(last) = replay(dir, &repo)? {
            point_ref(dir, &repo, last, "replayed from the log")?;
        }
        // Staged in memory from here on: the replay above wrote to disk.
        let staged = Staged::add(&repo)?;
        let store = Store {
            dir: dir.to_path_buf(),
            inner: Mutex::new(Inner {
                repo,
                index: Index::default(),
                log: None,
                staged,
                log_tip: None,
            }),
            settling: Mutex::new(()),
        };
        {
            // Its records are on disk already: the first reading finds them readable.
            let mut inner = store.lock();
            inner.log = Some(open_log(dir)?);
            inner.refresh(&store.dir)?;
        }
        Ok(store)
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn turn(&self) -> StoreResult<Turn> {
        lock_file(&self.dir)
    }

    /// Settles the changes staged in memory (`stage`): on disk, the ref moved.
    pub(crate) fn settle(&self) -> StoreResult<()> {
        let _turn = self.turn()?;
        self.lock().settle(&self.dir)
    }

    /// Whether changes wait in memory for a settle.
    pub(crate) fn has_staged(&self) -> bool {
        !self.lock().staged.is_empty()
    }

    /// Settles when the store has been idle a moment or a change has waited long
    /// enough; whether it settled.
    pub(crate) fn settle_if_due(&self) -> StoreResult<bool> {
        if !self.lock().staged.due() {
            return Ok(false);
        }
        self.settle_aside().map(|()| true)
    }

    /// Records `changes` as one commit with `message` (first word: the operation),
    /// made durable as `sync` says.
    pub(crate) fn record(
        &self,
        op: &str,
        message: &str,
        changes: &[Change],
        sync: wal::Sync,
    ) -> StoreResult<Recorded> {
        let _turn = self.turn()?;
        let mut guard = self.lock();
        // Every other handle's change first: the parent is the true tip. A log that
        // cannot be read cannot be written either.
        guard
            .catch_up(&self.dir)
            .map_err(|e| format!("cannot write the log: {e}"))?;
        guard.index_to_tip(&self.dir)?;
        let tip = guard.tip()?;
        let replaced = changes
            .iter()
            .filter(|change| change.text.is_some())
            .filter(|change| {
                guard
                    .index
                    .latest(&change.path)
                    .is_some_and(|entry| entry.blob.is_some())
            })
            .count();
        let inner: &mut Inner = &mut guard;
        let (repo, staged) = (&inner.repo, &mut inner.staged);
        let parent = match tip {
            Some(id) => Some(
                repo.find_commit(id)
                    .map_err(err("cannot read the last commit"))?,
            ),
            None => None,
        };
        let base = match &parent {
            Some(commit) => commit.tree().map_err(err("cannot read the last tree"))?,
            // The empty tree, which libgit2 reads without it being stored.
            None => Oid::from_str(EMPTY_TREE)
                .and_then(|empty| repo.find_tree(empty))
                .map_err(err("cannot read a tree"))?,
        };
        // Each object of the change, with its id.
        let (mut objects, mut ids) = (Vec::new(), Vec::new());
        let mut update = TreeUpdateBuilder::new();
        let mut blobs = Vec::with_capacity(changes.len());
        for change in changes {
            match &change.text {
                Some(text) => {
                    let blob = staged.write(ObjectType::Blob, text)?;
                    ids.push(blob);
                    objects.push(wal::Object {
                        kind: b'b',
                        bytes: text.clone(),
                    });
                    update.upsert(change.path.as_str(), blob, git2::FileMode::Blob);
                    blobs.push(Some((blob, text.len() as u64)));
                }
                None => {
                    if base.get_path(Path::new(&change.path)).is_ok() {
                        update.remove(change.path.as_str());
                    }
                    blobs.push(None);
                }
            }
        }
        let tree_id = update
            .create_updated(repo, &base)
            .map_err(err("cannot write a tree"))?;
        let tree = repo.find_tree(tree_id).map_err(err("cannot read a tree"))?;
        let odb = repo.odb().map_err(err("cannot open the objects"))?;
        for id in trees_along(&tree, changes) {
            let object = odb.read(id).map_err(err("cannot read a tree"))?;
            ids.push(id);
            objects.push(wal::Object {
                kind: b't',
                bytes: object.data().to_vec(),
            });
        }
        let now = super::now();
        let signature = Signature::new("notes", "notes@localhost", &Time::new(now, 0))
            .map_err(err("cannot sign the commit"))?;
        let parents: Vec<&git2::Commit> = parent.iter().collect();
        let buffer = repo
            .commit_create_buffer(&signature, &signature, message, &tree, &parents)
            .map_err(err("cannot make the commit"))?;
        let commit = staged.write(ObjectType::Commit, &buffer)?;
        ids.push(commit);
        objects.push(wal::Object {
            kind: b'c',
            bytes: buffer.to_vec(),
        });
        let log = match &mut inner.log {
            Some(log) => log,
            None => inner.log.insert(open_log(&self.dir)?),
        };
        let appended = log.append(&objects, sync);
        let (logged, pending) = match appended {
            Ok(appended) => appended,
            Err(e) => {
                // Not recorded: what it staged goes at the next settle, unreachable.
                inner.staged.touch();
                return Err(io_err("cannot write the log")(e));
            }
        };
        // The ref moves at the next settle.
        inner.log_tip = Some(commit);
        inner.staged.touch();
        inner.staged.keep(ids.into_iter().zip(objects).collect());
        let entries = changes
            .iter()
            .zip(blobs)
            .map(|(change, blob)| {
                let entry = Entry {
                    commit,
                    at: now,
                    op: super::index::op_named(op),
                    size: blob.map_or(0, |(_, size)| size),
                    blob: blob.map(|(id, _)| id),
                };
                (change.path.clone(), entry)
            })
            .collect();
        let dir = self.dir.clone();
        if let Err(e) = inner.index.append(&dir, entries) {
            // The index is completed from the commits at the next lookup.
            crate::log::warn(&format!("cannot write the history index: {e}"));
            inner.index = Index::default();
        }
        // Done with the repository's objects: the settle below writes to it.
        drop(parents);
        drop((parent, base, tree, odb));
        if logged > wal::CHECKPOINT_BYTES {
            // The checkpoint syncs every object, the pending record's among them.
            match inner.checkpoint(&self.dir) {
                Ok(()) => {
                    return Ok(Recorded {
                        pending: None,
                        replaced,
                    });
                }
                Err(e) => crate::log::warn(&format!("cannot checkpoint the history log: {e}")),
            }
        } else if sync == wal::Sync::Now || inner.staged.overdue() {
            // A delete, a move or an outside edit: seen by git at once; or changes
            // no upkeep settled (a process without one).
            if let Err(e) = inner.settle(&self.dir) {
                crate::log::warn(&format!("cannot settle the history: {e}"));
            }
        }
        Ok(Recorded { pending, replaced })
    }

    /// Runs `f` on the index, brought up to date with the repository first.
    pub(crate) fn with_index<T>(&self, f: impl FnOnce(&Index) -> T) -> StoreResult<T> {
        let mut inner = self.lock();
        inner.catch_up(&self.dir)?;
        let tip = inner.tip()?;
        if tip != inner.index.tip {
            drop(inner);
            let _turn = self.turn()?;
            inner = self.lock();
            inner.refresh(&self.dir)?;
        }
        Ok(f(&inner.index))
    }

    /// The bytes of blob `id`.
    pub(crate) fn blob(&self, id: Oid) -> StoreResult<Vec<u8>> {
        let inner = self.lock();
        let blob = inner
            .repo
            .find_blob(id)
            .map_err(err("cannot read a version"))?;
        Ok(blob.content().to_vec())
    }

    /// The message of commit `id`.
    pub(crate) fn message(&self, id: Oid) -> StoreResult<String> {
        let inner = self.lock();
        let commit = inner
            .repo
            .find_commit(id)
            .map_err(err("cannot read a change"))?;
        Ok(String::from_utf8_lossy(commit.message_bytes()).into_owned())
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if self.lock().staged.is_empty() {
            return;
        }
        // Durable in the log anyway; the ref on disk catches up now rather than at
        // the next open.
        if let Err(e) = self.settle() {
            crate::log::warn(&format!("cannot settle the history: {e}"));
        }
    }
}

impl Inner {
    /// The true tip as far as the handle has read the log (`catch_up` reads on): the
    /// log's last commit, else the ref on disk.
    pub(super) fn tip(&self) -> StoreResult<Option<Oid>> {
        if let Some(tip) = self.log_tip {
            return Ok(Some(tip));
        }
        match self.repo.refname_to_id(REF) {
            Ok(id) => Ok(Some(id)),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(err("cannot read the store's ref")(e)),
        }
    }

    /// Brings the index up to date with the true tip (holding the store's lock): the
    /// log's new records read, the lines other writers added, then the commits no line
    /// names yet; a history the index does not lead to (pruned, or a lost index) is
    /// indexed again from the start.
    pub(super) fn refresh(&mut self, dir: &Path) -> StoreResult<()> {
        self.catch_up(dir)?;
        self.index_to_tip(dir)
    }

    /// Opens the repository again, once what memory holds is settled (the store's lock
    /// held): libgit2 never forgets a pack it has read, even once removed (its file
    /// kept open, its disk space kept), so after packs are merged or replaced the
    /// handle reads the pack folder as it is now.
    pub(super) fn reopen(&mut self, dir: &Path) -> StoreResult<()> {
        self.settle(dir)?;
        let repo = Repository::open_bare(dir).map_err(err("cannot open the store"))?;
        self.staged = Staged::add(&repo)?;
        // The memory backend staged from here on is the new repository's; the old one
        // goes with its own (empty) backend.
        self.repo = repo;
        Ok(())
    }

    /// `refresh` once the log's new records are read.
    fn index_to_tip(&mut self, dir: &Path) -> StoreResult<()> {
        let tip = self.tip()?;
        if tip == self.index.tip {
            return Ok(());
        }
        self.index
            .read_new(dir)
            .map_err(io_err("cannot read the history index"))?;
        let Some(tip) = tip else {
            return Ok(());
        };
        if Some(tip) == self.index.tip {
            return Ok(());
        }
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
fn entries_of(repo: &Repository, id: Oid) -> StoreResult<Vec<(String, Entry)>> {
    let commit = repo.find_commit(id).map_err(err("cannot read a commit"))?;
    let tree = commit.tree().map_err(err("cannot read a tree"))?;
    let parent_tree = match commit.parent(0) {
        Ok(parent) => Some(parent.tree().map_err(err("cannot read a tree"))?),
        Err(_) => None,
    };
    let diff = repo
        .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), None)
        .map_err(err("cannot compare two trees"))?;
    let op = commit
        .message()
        .ok()
        .and_then(|m| m.split_whitespace().next())
        .unwrap_or("put")
        .to_string();
    let at = commit.time().seconds();
    // The first commit of a pruned history holds every note's text at the cut; its
    // message says when each of those versions was made, and by what.
    let kept = if commit.parent_count() == 0 {
        super::prune::base_versions(commit.message().unwrap_or(""))
    } else {
        Default::default()
    };
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
            let size = repo
                .odb()
                .and_then(|odb| odb.read_header(id))
                .map_or(0, |(size, _)| size as u64);
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

/// Takes the store's lock file.
fn lock_file(dir: &Path) -> StoreResult<Turn> {
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(LOCK_FILE))
        .map_err(io_err("cannot open the store's lock"))?;
    file.lock().map_err(io_err("cannot lock the store"))?;
    Ok(Turn(file))
}

/// Opens the log; one of the older format (replayed at open) is checkpointed first.
pub(super) fn open_log(dir: &Path) -> StoreResult<wal::Log> {
    match wal::Log::open(dir) {
        Ok(log) => Ok(log),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            checkpoint(dir).map_err(io_err("cannot checkpoint the log"))?;
            wal::Log::open(dir).map_err(io_err("cannot open the log"))
        }
        Err(e) => Err(io_err("cannot open the log")(e)),
    }
}

/// The ids of the root tree and of each folder tree on the way to a changed note.
fn trees_along(tree: &git2::Tree, changes: &[Change]) -> Vec<Oid> {
    let mut ids = vec![tree.id()];
    for change in changes {
        let mut folder = PathBuf::new();
        let parts: Vec<&str> = change.path.split('/').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            folder.push(part);
            if let Ok(entry) = tree.get_path(&folder)
                && !ids.contains(&entry.id())
            {
                ids.push(entry.id());
            }
        }
    }
    ids
}

impl Inner {
    /// Settles, then makes every object and the ref durable and empties the log (the
    /// store's lock held): every object the log holds is on disk first, whichever
    /// handle staged it.
    pub(super) fn checkpoint(&mut self, dir: &Path) -> StoreResult<()> {
        self.settle(dir)?;
        checkpoint(dir).map_err(io_err("cannot sync the store"))?;
        self.log_tip = None;
        Ok(())
    }
}

/// Makes every object and the ref durable, then empties the log; only once every
/// object the log holds is on disk (`Inner::checkpoint`), or was replayed there by
/// `Store::open` before this handle staged anything.
fn checkpoint(dir: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let store = File::open(dir)?;
        rustix::fs::syncfs(&store)?;
    }
    #[cfg(not(target_os = "linux"))]
    {
        for entry in walkdir::WalkDir::new(dir) {
            let entry = entry.map_err(std::io::Error::other)?;
            File::open(entry.path())?.sync_all()?;
        }
    }
    wal::clear(dir)
}
