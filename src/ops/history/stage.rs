//! Changes staged in memory until the next settle. A change's objects (blob, trees,
//! commit) go to libgit2's in-memory object backend, ahead of the repository's own
//! (reads see memory, then disk), and to the write-ahead log, which makes them
//! durable; the ref stays where it is. So a note's write creates no file: every
//! object file, and the ref's lock file, costs a file creation, by far the dearest
//! step of a write on a busy disk.
//!
//! The true tip is the log's last commit while the log has records, else the ref on
//! disk. A settle writes what memory holds as one pack, synced, empties the memory
//! and points the ref at the true tip. The server's upkeep settles when its store has
//! been idle a moment or a change has waited about a second, with the pack built and
//! synced aside (`Store::settle_aside`: the writes go on meanwhile); the others
//! settle under the store's lock: before every checkpoint (the log is only emptied
//! once all it holds is on disk), after a delete, a move or an outside edit, when the
//! store is closed, and by a change that finds an older one waiting too long (a
//! process with no upkeep).
//! Until then the ref on disk may lag the log; any handle (another process's
//! included) reads the log's new records before it looks at the tip, and takes into
//! its own memory the objects it cannot read, so no handle ever needs another's memory.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use git2::{Binding, Mempack, ObjectType, Oid, Repository};

use super::packfile::{self, Kept};
use super::store::{Inner, REF, Store, StoreResult, err, io_err};
use super::wal;

/// The in-memory backend's priority: above the pack (2) and loose (1) backends, so
/// every write goes to memory.
const PRIORITY: i32 = 1000;
/// How long the store stays idle before its staged changes are settled.
pub(super) const IDLE: Duration = Duration::from_millis(100);
/// The longest a staged change waits for a settle while changes keep coming.
pub(super) const LONGEST: Duration = Duration::from_secs(1);

/// The repository's in-memory backend and what it holds.
pub(super) struct Staged {
    /// The backend, owned by the repository's object database.
    raw: <Mempack<'static> as Binding>::Raw,
    /// When the oldest and the newest change not yet settled were staged.
    first: Option<Instant>,
    last: Option<Instant>,
    /// The objects of the changes this handle recorded since the last settle, in
    /// order (a settle aside packs them from here, without the store's lock).
    pending: Vec<Kept>,
}

// SAFETY: the backend is owned by the repository's object database (libgit2 frees it
// with that database, which the repository holds until it is freed), so the pointer is
// valid as long as the `Repository` of the same `Inner`, which never replaces its
// database; every use is through `Inner`, under the store's Mutex, so no two threads
// use the backend at once. git2's `Mempack` is not `Send` only because it borrows the
// `Odb` handle it came from, not the backend itself.
unsafe impl Send for Staged {}

impl Staged {
    /// Adds the in-memory backend to `repo`'s object database.
    pub(super) fn add(repo: &Repository) -> StoreResult<Staged> {
        let odb = repo.odb().map_err(err("cannot open the objects"))?;
        let mempack = odb
            .add_new_mempack_backend(PRIORITY)
            .map_err(err("cannot stage the objects"))?;
        Ok(Staged {
            raw: mempack.raw(),
            first: None,
            last: None,
            pending: Vec::new(),
        })
    }

    fn mempack(&self) -> Mempack<'_> {
        // SAFETY: see `unsafe impl Send`: the backend lives as long as the repository
        // beside this value, and the `Mempack` made here does not outlive `self`.
        unsafe { Mempack::from_raw(self.raw) }
    }

    /// Stages an object a change made: its id computed here and the object handed to
    /// the memory backend alone. Not `Odb::write`, which first looks for the object in
    /// every backend and, not finding it (a new object never is), reads the pack
    /// folder again and compares each file with each pack it holds: at a first start
    /// on 100k notes, with a pack per settle, that was most of the history's CPU. An
    /// object already on disk is staged again, and packed again by the next settle:
    /// git reads either copy.
    pub(super) fn write(&mut self, kind: ObjectType, bytes: &[u8]) -> StoreResult<Oid> {
        let id = Oid::hash_object(kind, bytes).map_err(err("cannot hash an object"))?;
        let backend = self.raw;
        // SAFETY: the backend is live as long as the repository beside this value (see
        // `unsafe impl Send`) and used under the store's Mutex only; libgit2's memory
        // backend always has a write function, which copies `bytes` and does not keep
        // the pointers it is given.
        let code = unsafe {
            let write = (*backend)
                .write
                .ok_or_else(|| "cannot stage an object: no write".to_string())?;
            write(
                backend,
                id.raw(),
                bytes.as_ptr().cast(),
                bytes.len(),
                kind.raw(),
            )
        };
        if code < 0 {
            return Err(format!(
                "cannot stage an object: {}",
                git2::Error::last_error(code).message()
            ));
        }
        Ok(id)
    }

    /// Notes that objects were staged now.
    pub(super) fn touch(&mut self) {
        let now = Instant::now();
        self.first.get_or_insert(now);
        self.last = Some(now);
    }

    /// Whether a settle is due: idle for `IDLE`, or a change waiting for `LONGEST`.
    pub(super) fn due(&self) -> bool {
        match (self.first, self.last) {
            (Some(first), Some(last)) => last.elapsed() >= IDLE || first.elapsed() >= LONGEST,
            _ => false,
        }
    }

    /// Whether a change has waited twice `LONGEST`: in a process with no upkeep
    /// (`notes mcp`, a long run of commands' changes), the next change settles.
    pub(super) fn overdue(&self) -> bool {
        self.first
            .is_some_and(|first| first.elapsed() >= 2 * LONGEST)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// Keeps a recorded change's objects (staged in memory already) for the next
    /// settle aside.
    pub(super) fn keep(&mut self, objects: Vec<Kept>) {
        self.pending.extend(objects);
    }

    /// Whether memory holds exactly the kept objects: nothing staged by another path
    /// (another handle's change taken from the log, a prune's commits) and no object
    /// kept twice, which only a settle under the lock packs.
    fn holds_only_pending(&self, more: usize) -> bool {
        let mut count = 0usize;
        // SAFETY: as in `thin_pack`; the function only reads the backend's map size.
        let code = unsafe { git_mempack_object_count(&mut count, self.raw.cast()) };
        code == 0 && count == self.pending.len() + more
    }

    /// A pack of exactly the objects memory holds (deltas among them only). Not
    /// libgit2's dump of the backend, which packs every object each staged commit
    /// reaches: the whole tree again, so a settle's cost grew with the notebook.
    fn thin_pack(&self, repo: &Repository) -> StoreResult<git2::Buf> {
        let mut builder = repo
            .packbuilder()
            .map_err(err("cannot pack the staged objects"))?;
        // The server's requests keep the other core.
        builder.set_threads(1);
        // SAFETY: both pointers are live libgit2 objects: the backend as long as the
        // repository (see `unsafe impl Send`), the builder as long as `builder`; the
        // function only reads the backend's object map and inserts into the builder.
        let code = unsafe { git_mempack_write_thin_pack(self.raw.cast(), builder.raw().cast()) };
        if code < 0 {
            return Err(format!(
                "cannot pack the staged objects: {}",
                git2::Error::last_error(code).message()
            ));
        }
        let mut pack = git2::Buf::new();
        builder
            .write_buf(&mut pack)
            .map_err(err("cannot pack the staged objects"))?;
        Ok(pack)
    }
}

// libgit2's (since 1.8; the vendored build is always used), which git2 does not wrap:
// inserts each object of a memory backend, and no other, into a pack builder; counts
// the objects of a memory backend.
unsafe extern "C" {
    fn git_mempack_write_thin_pack(
        backend: *mut std::ffi::c_void,
        builder: *mut std::ffi::c_void,
    ) -> std::ffi::c_int;
    fn git_mempack_object_count(
        count: *mut usize,
        backend: *mut std::ffi::c_void,
    ) -> std::ffi::c_int;
}

impl Store {
    /// Settles the staged changes with the pack built and synced aside, so a write
    /// never waits for it: the kept objects are taken from memory's list (under the
    /// lock, a moment), packed as they are (`packfile::write`) and synced;
    /// then, under the lock again, memory is emptied and what was staged meanwhile
    /// staged again, and the ref moved to the tip the pack reaches, unless it moved
    /// meanwhile. Anything memory holds beyond the kept objects makes it a settle
    /// under the lock (`Inner::settle`), as does a failure of the pack aside.
    pub(crate) fn settle_aside(&self) -> StoreResult<()> {
        let _one = self
            .settling
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let Some(aside) = self.take_aside()? else {
            return Ok(());
        };
        let packed = packfile::write(&self.dir, &aside.taken);
        self.finish_aside(aside, packed)
    }

    /// The kept objects, taken for a pack aside; `None` when nothing is staged, or
    /// when memory holds more than they and it was settled under the lock instead.
    fn take_aside(&self) -> StoreResult<Option<Aside>> {
        let _turn = self.turn()?;
        let mut inner = self.lock();
        inner.catch_up(&self.dir)?;
        if inner.staged.is_empty() {
            return Ok(None);
        }
        let Some(tip) = inner.log_tip.filter(|_| inner.staged.holds_only_pending(0)) else {
            return inner.settle(&self.dir).map(|()| None);
        };
        Ok(Some(Aside {
            ref_before: inner.repo.refname_to_id(REF).ok(),
            taken: std::mem::take(&mut inner.staged.pending),
            tip,
        }))
    }

    /// Ends a settle aside once its pack is written (`packed`): see `settle_aside`.
    fn finish_aside(&self, aside: Aside, packed: StoreResult<()>) -> StoreResult<()> {
        let _turn = self.turn()?;
        let mut inner = self.lock();
        if packed.is_err() || !inner.staged.holds_only_pending(aside.taken.len()) {
            // Taken back (in front: recorded first), then all settled under the lock.
            let later = std::mem::replace(&mut inner.staged.pending, aside.taken);
            inner.staged.pending.extend(later);
            return inner.settle(&self.dir);
        }
        let Inner { repo, staged, .. } = &mut *inner;
        repo.odb()
            .and_then(|odb| {
                odb.refresh()?;
                staged.mempack().reset()
            })
            .map_err(err("cannot stage the objects"))?;
        // Staged meanwhile: into memory again.
        for (_, object) in std::mem::take(&mut staged.pending) {
            let id = staged.write(kind_of(object.kind), &object.bytes)?;
            staged.pending.push((id, object));
        }
        if staged.pending.is_empty() {
            staged.first = None;
            staged.last = None;
        } else {
            staged.first = staged.last;
        }
        // A ref moved meanwhile (another handle's settle, a checkpoint) is at a newer
        // tip already.
        if repo.refname_to_id(REF).ok() == aside.ref_before {
            point_ref(&self.dir, repo, aside.tip, "settled")?;
        }
        Ok(())
    }
}

/// What a settle aside took from memory.
struct Aside {
    /// The kept objects, in the order they were recorded.
    taken: Vec<Kept>,
    /// The true tip when they were taken: every object it reaches is on disk once
    /// they are.
    tip: Oid,
    /// The ref on disk then.
    ref_before: Option<Oid>,
}

impl Inner {
    /// Reads the log's new records: the true tip follows them, and every object of
    /// theirs this handle cannot read (another handle's change, in its memory) is
    /// taken into this handle's memory.
    pub(super) fn catch_up(&mut self, dir: &Path) -> StoreResult<()> {
        let log = match &mut self.log {
            Some(log) => log,
            None => self.log.insert(super::store::open_log(dir)?),
        };
        let fresh = log.read_new().map_err(io_err("cannot read the log"))?;
        if fresh.emptied {
            self.log_tip = None;
        }
        if fresh.records.is_empty() {
            return Ok(());
        }
        let (last, staged) = write_missing(&self.repo, &fresh.records, Missing::Absent)?;
        if last.is_some() {
            self.log_tip = last;
        }
        if staged {
            self.staged.touch();
        }
        Ok(())
    }

    /// Settles the staged changes (the store's lock held): the log's new records read,
    /// what memory holds written as one pack and synced, the memory emptied, the ref
    /// pointed at the true tip.
    pub(super) fn settle(&mut self, dir: &Path) -> StoreResult<()> {
        self.catch_up(dir)?;
        if !self.staged.is_empty() {
            // The kept objects as they are when memory holds only them, else libgit2's
            // pack of what it holds.
            if self.staged.holds_only_pending(0) {
                packfile::write(dir, &self.staged.pending)?;
            } else {
                write_pack(dir, &self.staged.thin_pack(&self.repo)?)?;
            }
            self.repo
                .odb()
                .and_then(|odb| odb.refresh())
                .map_err(err("cannot open the objects"))?;
            // On disk now: memory can let them go.
            self.staged
                .mempack()
                .reset()
                .map_err(err("cannot empty the staged objects"))?;
            self.staged.first = None;
            self.staged.last = None;
            self.staged.pending.clear();
        }
        match self.log_tip {
            Some(tip) => point_ref(dir, &self.repo, tip, "settled"),
            None => Ok(()),
        }
    }
}

/// Points the ref on disk at `tip`, unless it is there already.
pub(super) fn point_ref(dir: &Path, repo: &Repository, tip: Oid, why: &str) -> StoreResult<()> {
    let current = repo.refname_to_id(REF).ok();
    if current == Some(tip) {
        return Ok(());
    }
    // A ref file a crash left empty or torn cannot be updated: it goes first.
    if current.is_none() {
        let _ = std::fs::remove_file(dir.join(REF));
    }
    repo.reference(REF, tip, true, why)
        .map(drop)
        .map_err(err("cannot move the store's ref"))
}

/// The object kind of a log object's tag.
pub(super) fn kind_of(tag: u8) -> ObjectType {
    match tag {
        b'b' => ObjectType::Blob,
        b't' => ObjectType::Tree,
        _ => ObjectType::Commit,
    }
}

/// Writes `pack` (a whole pack file) into the store's pack folder with its index, both
/// synced with their folder: a crash never leaves a torn pack whose index still names
/// the objects (a write of an object the index names is skipped, so the log's replay
/// could not write it again).
fn write_pack(dir: &Path, pack: &[u8]) -> StoreResult<()> {
    // A pack of no object: its header (12 bytes) and checksum (20) alone.
    if pack.len() <= 32 {
        return Ok(());
    }
    let folder = dir.join("objects").join("pack");
    std::fs::create_dir_all(&folder).map_err(io_err("cannot write a pack"))?;
    let mut indexer =
        git2::Indexer::new(None, &folder, 0, false).map_err(err("cannot write a pack"))?;
    indexer
        .write_all(pack)
        .map_err(io_err("cannot write a pack"))?;
    let name = indexer.commit().map_err(err("cannot write a pack"))?;
    for ext in ["pack", "idx"] {
        std::fs::File::open(folder.join(format!("pack-{name}.{ext}")))
            .and_then(|file| file.sync_all())
            .map_err(io_err("cannot sync a pack"))?;
    }
    std::fs::File::open(&folder)
        .and_then(|file| file.sync_all())
        .map_err(io_err("cannot sync a pack"))?;
    Ok(())
}

/// The log's objects written again where the repository cannot read them (their
/// loose file lost or torn by a crash), straight to disk (the handle has no memory
/// backend yet); the log's last commit.
pub(super) fn replay(dir: &Path, repo: &Repository) -> StoreResult<Option<Oid>> {
    let records = wal::records(dir).map_err(io_err("cannot read the log"))?;
    let (last, _) = write_missing(repo, &records, Missing::Unreadable(dir))?;
    Ok(last)
}

/// Which of the log's objects `write_missing` writes.
enum Missing<'a> {
    /// Those the repository does not hold (taken into memory).
    Absent,
    /// Those it cannot read, a torn loose file in the store at this path removed first.
    Unreadable(&'a Path),
}

/// Writes the objects of `records` that are `missing`; the last commit among them, and
/// whether any was written.
fn write_missing(
    repo: &Repository,
    records: &[Vec<wal::Object>],
    missing: Missing<'_>,
) -> StoreResult<(Option<Oid>, bool)> {
    let odb = repo.odb().map_err(err("cannot open the objects"))?;
    let (mut last, mut wrote) = (None, false);
    for object in records.iter().flatten() {
        let kind = kind_of(object.kind);
        let id = Oid::hash_object(kind, &object.bytes).map_err(err("cannot hash"))?;
        let write = match missing {
            Missing::Absent => !odb.exists(id),
            Missing::Unreadable(dir) => {
                let unreadable = odb.read(id).is_err();
                if unreadable {
                    let hex = id.to_string();
                    let _ =
                        std::fs::remove_file(dir.join("objects").join(&hex[..2]).join(&hex[2..]));
                }
                unreadable
            }
        };
        if write {
            odb.write(kind, &object.bytes)
                .map_err(err("cannot write an object from the log"))?;
            wrote = true;
        }
        if kind == ObjectType::Commit {
            last = Some(id);
        }
    }
    Ok((last, wrote))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use git2::{Oid, Repository};

    use super::super::store::{Change, REF, Store};
    use super::super::wal::Sync;
    use super::packfile;

    fn change(path: &str, text: &str) -> Change {
        Change {
            path: path.to_string(),
            text: Some(text.as_bytes().to_vec()),
        }
    }

    fn record(store: &Store, path: &str, text: &str) -> Oid {
        let message = format!("put {path}");
        store
            .record("put", &message, &[change(path, text)], Sync::WithNext)
            .unwrap();
        store.lock().tip().unwrap().unwrap()
    }

    /// The loose object files of the store.
    fn loose(dir: &Path) -> usize {
        std::fs::read_dir(dir.join("objects"))
            .unwrap()
            .flatten()
            .filter(|d| d.file_name().len() == 2)
            .map(|d| std::fs::read_dir(d.path()).unwrap().count())
            .sum()
    }

    fn packs(dir: &Path) -> usize {
        std::fs::read_dir(dir.join("objects/pack"))
            .map(|files| {
                files
                    .flatten()
                    .filter(|f| f.file_name().to_string_lossy().ends_with(".pack"))
                    .count()
            })
            .unwrap_or(0)
    }

    /// The commit subjects from the ref on disk, newest first, read by a handle with
    /// no memory of its own.
    fn chain_on_disk(dir: &Path) -> Vec<String> {
        let repo = Repository::open_bare(dir).unwrap();
        let mut walk = repo.revwalk().unwrap();
        walk.push_ref(REF).unwrap();
        walk.map(|id| {
            let commit = repo.find_commit(id.unwrap()).unwrap();
            commit.summary().unwrap().unwrap_or_default().to_string()
        })
        .collect()
    }

    #[test]
    fn a_change_is_read_from_memory_then_settled_into_a_pack_and_the_ref() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().join("history.git");
        let store = Store::open(&dir).unwrap();
        let commit = record(&store, "f3/n.md", "one\n");

        // Readable before any settle: the blob, the index, the tip.
        let blob = Oid::hash_object(git2::ObjectType::Blob, b"one\n").unwrap();
        assert_eq!(store.blob(blob).unwrap(), b"one\n");
        let latest = store
            .with_index(|index| index.latest("f3/n.md").cloned())
            .unwrap()
            .unwrap();
        assert_eq!((latest.commit, latest.blob), (commit, Some(blob)));
        // Not a file made for it: no loose object, the ref not moved yet.
        assert_eq!(loose(&dir), 0);
        assert_eq!(packs(&dir), 0);
        assert!(
            Repository::open_bare(&dir)
                .unwrap()
                .refname_to_id(REF)
                .is_err()
        );

        store.settle().unwrap();
        assert_eq!(loose(&dir), 0);
        assert_eq!(packs(&dir), 1);
        let repo = Repository::open_bare(&dir).unwrap();
        assert_eq!(repo.refname_to_id(REF).unwrap(), commit);
        assert_eq!(repo.find_blob(blob).unwrap().content(), b"one\n");
        // Still read by the handle that settled, from the pack now.
        assert_eq!(store.blob(blob).unwrap(), b"one\n");
        let second = record(&store, "f3/n.md", "two\n");
        store.settle().unwrap();
        assert_eq!(chain_on_disk(&dir), ["put f3/n.md", "put f3/n.md"]);
        assert_eq!(repo.refname_to_id(REF).unwrap(), second);
    }

    #[test]
    fn a_settle_aside_keeps_the_changes_recorded_while_it_packs() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().join("history.git");
        let store = Store::open(&dir).unwrap();
        record(&store, "a.md", "one\n");
        let first = record(&store, "a.md", "two\n");
        let aside = store.take_aside().unwrap().expect("changes to pack aside");
        assert_eq!(aside.tip, first);
        // Recorded while the pack is built, without the store's lock.
        let second = record(&store, "b.md", "three\n");
        let packed = packfile::write(&dir, &aside.taken);
        store.finish_aside(aside, packed).unwrap();

        // On disk: the pack of the first two changes, the ref at the second.
        assert_eq!((packs(&dir), loose(&dir)), (1, 0));
        assert_eq!(chain_on_disk(&dir), ["put a.md", "put a.md"]);
        let on_disk = Repository::open_bare(&dir).unwrap();
        let blob = |text: &[u8]| Oid::hash_object(git2::ObjectType::Blob, text).unwrap();
        assert!(on_disk.find_blob(blob(b"two\n")).is_ok());
        assert!(on_disk.find_blob(blob(b"three\n")).is_err());
        // The third is staged still, in memory again, and read from there.
        assert!(store.has_staged());
        assert_eq!(store.blob(blob(b"three\n")).unwrap(), b"three\n");
        assert_eq!(store.blob(blob(b"one\n")).unwrap(), b"one\n");
        assert_eq!(store.with_index(|index| index.tip).unwrap(), Some(second));

        store.settle_aside().unwrap();
        assert!(!store.has_staged());
        assert_eq!(packs(&dir), 2);
        assert_eq!(chain_on_disk(&dir), ["put b.md", "put a.md", "put a.md"]);
    }

    #[test]
    fn a_pack_of_objects_as_they_are_is_read_back_byte_exact_by_git() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().join("history.git");
        let store = Store::open(&dir).unwrap();
        // Sizes whose header takes one, two and three bytes, and an empty note.
        let texts: Vec<Vec<u8>> = [3usize, 200, 70_000, 0]
            .iter()
            .map(|&n| (0..n).map(|i| b"abcdefghij\n"[i % 11]).collect())
            .collect();
        for (i, text) in texts.iter().enumerate() {
            let change = Change {
                path: format!("f/n{i}.md"),
                text: Some(text.clone()),
            };
            store
                .record("put", "put", &[change], Sync::WithNext)
                .unwrap();
        }
        store.settle().unwrap();
        assert_eq!((packs(&dir), loose(&dir)), (1, 0));
        let repo = Repository::open_bare(&dir).unwrap();
        for text in &texts {
            let id = Oid::hash_object(git2::ObjectType::Blob, text).unwrap();
            assert_eq!(repo.find_blob(id).unwrap().content(), &text[..]);
        }
        assert_eq!(chain_on_disk(&dir).len(), 4);
    }

    #[test]
    fn a_settle_aside_of_another_handles_change_settles_under_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().join("history.git");
        let first = Store::open(&dir).unwrap();
        let other = Store::open(&dir).unwrap();
        record(&other, "b.md", "other\n");
        let last = record(&first, "a.md", "first\n");
        // The other handle's objects, taken from the log into the first one's memory,
        // are not among its kept objects: no pack aside, all settled at once.
        assert!(first.take_aside().unwrap().is_none());
        assert!(!first.has_staged());
        assert_eq!(chain_on_disk(&dir), ["put a.md", "put b.md"]);
        assert_eq!(
            Repository::open_bare(&dir)
                .unwrap()
                .refname_to_id(REF)
                .unwrap(),
            last
        );
    }

    #[test]
    fn two_handles_take_turns_and_neither_loses_a_commit() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().join("history.git");
        // Two handles, as two processes (the server and a command) would have.
        let first = Store::open(&dir).unwrap();
        let other = Store::open(&dir).unwrap();
        record(&first, "a.md", "first\n");
        // The other handle's change follows the first's, whose objects are only in the
        // first handle's memory (and the log).
        let middle = record(&other, "b.md", "other\n");
        let last = record(&first, "a.md", "first again\n");
        let parent = |store: &Store, id: Oid| {
            let inner = store.lock();
            inner.repo.find_commit(id).unwrap().parent_id(0).unwrap()
        };
        assert_eq!(parent(&first, last), middle);
        // Each handle sees the other's versions before any settle.
        let seen = |store: &Store| {
            store
                .with_index(|index| (index.notes["a.md"].len(), index.notes["b.md"].len()))
                .unwrap()
        };
        assert_eq!(seen(&first), (2, 1));
        assert_eq!(seen(&other), (2, 1));
        let blob = Oid::hash_object(git2::ObjectType::Blob, b"first again\n").unwrap();
        assert_eq!(other.blob(blob).unwrap(), b"first again\n");

        // The other handle packs (a checkpoint: the log emptied) while the first still
        // holds its changes in memory only; then the first is lost, as in a crash.
        assert!(other.pack().unwrap());
        std::mem::forget(first);
        drop(other);
        assert_eq!(
            chain_on_disk(&dir),
            ["put a.md", "put b.md", "put a.md"],
            "newest first"
        );
        let reopened = Store::open(&dir).unwrap();
        assert_eq!(reopened.blob(blob).unwrap(), b"first again\n");
        assert_eq!(reopened.with_index(|index| index.tip).unwrap(), Some(last));
    }

    #[test]
    fn a_handle_merges_the_packs_of_its_settles_and_reads_and_writes_on() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().join("history.git");
        let store = Store::open(&dir).unwrap();
        let other = Store::open(&dir).unwrap();
        let count = super::packfile::MERGE_PAST + 3;
        for i in 0..count {
            record(&store, &format!("n{i}.md"), &format!("text {i}\n"));
            store.settle().unwrap();
        }
        assert_eq!(packs(&dir), count);
        // The other handle has read some of the packs (libgit2 keeps them open).
        let blob = |i: usize| {
            Oid::hash_object(git2::ObjectType::Blob, format!("text {i}\n").as_bytes()).unwrap()
        };
        assert_eq!(other.blob(blob(1)).unwrap(), b"text 1\n");

        assert_eq!(store.merge_packs().unwrap(), count);
        assert_eq!(packs(&dir), 1);
        for i in 0..count {
            let text = format!("text {i}\n");
            assert_eq!(store.blob(blob(i)).unwrap(), text.as_bytes());
            assert_eq!(other.blob(blob(i)).unwrap(), text.as_bytes());
        }
        record(&store, "n0.md", "again\n");
        record(&other, "n1.md", "other\n");
        store.settle().unwrap();
        other.settle().unwrap();
        let chain = chain_on_disk(&dir);
        assert_eq!(chain.len(), count + 2);
        assert_eq!(chain[..2], ["put n1.md", "put n0.md"]);
        // Under the limit now: nothing to merge.
        assert_eq!(store.merge_packs().unwrap(), 0);
    }
}
