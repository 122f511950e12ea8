//! The repository's floor, shared by the store, its committer, packs and prunes: the
//! branch, the lock files, the ref, and durable writes.

use std::fs::File;
use std::path::Path;

use git2::{ObjectType, Oid, Repository};

use super::error::{HResult, HistoryError, err, io_err};

/// The branch the commits are on, the one `HEAD` names: git reads the store as any
/// repository (the store is a repository of its own; a user's is never opened).
pub(crate) const REF: &str = "refs/heads/main";
/// The lock file writers of the log take in turn (a moment per change).
pub(super) const APPEND_LOCK: &str = "notes.lock";
/// The lock file the committers, packs and prunes take in turn (processes' included).
pub(super) const COMMIT_LOCK: &str = "commit.lock";
/// The lock file a sync holds from its fetch to its push (`ops/sync`), and a full pack
/// before the commit lock: what a sync fetched or made is named by a ref only at its
/// end, and a pack removes what no ref names.
pub(crate) const SYNC_LOCK: &str = "sync.lock";

/// A store lock file, held while the value lives.
pub(super) struct Turn(File);

impl Drop for Turn {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// Takes the store's lock file `name`.
pub(super) fn lock_file(dir: &Path, name: &str) -> HResult<Turn> {
    let file = open_lock(dir, name)?;
    file.lock().map_err(io_err("cannot lock the store"))?;
    Ok(Turn(file))
}

pub(super) fn open_lock(dir: &Path, name: &str) -> HResult<File> {
    File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(name))
        .map_err(io_err("cannot open the store's lock"))
}

/// The commit the ref names; `None` before the first. A ref file a crash left empty
/// or torn is removed (the log's records are committed again).
pub(super) fn tip(repo: &Repository, dir: &Path) -> HResult<Option<Oid>> {
    match repo.refname_to_id(REF) {
        Ok(id) => Ok(Some(id)),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(_) => {
            let _ = std::fs::remove_file(dir.join(REF));
            tip_of(repo)
        }
    }
}

pub(super) fn tip_of(repo: &Repository) -> HResult<Option<Oid>> {
    match repo.refname_to_id(REF) {
        Ok(id) => Ok(Some(id)),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) => Err(err("cannot read the store's ref")(e)),
    }
}

/// Writes an object, and again when the repository holds it unreadable (a loose file a
/// crash left torn: removed first); its id.
pub(super) fn write_readable(
    dir: &Path,
    odb: &git2::Odb<'_>,
    kind: ObjectType,
    bytes: &[u8],
) -> HResult<Oid> {
    let id = odb
        .write(kind, bytes)
        .map_err(err("cannot write an object"))?;
    if odb.read_header(id).is_err() {
        let hex = id.to_string();
        let _ = std::fs::remove_file(dir.join("objects").join(&hex[..2]).join(&hex[2..]));
        odb.write(kind, bytes)
            .map_err(err("cannot write an object"))?;
    }
    Ok(id)
}

/// Points the ref at `tip`, unless it is there already.
pub(super) fn point_ref(dir: &Path, repo: &Repository, tip: Oid, why: &str) -> HResult<()> {
    if self::tip(repo, dir)? == Some(tip) {
        return Ok(());
    }
    repo.reference(REF, tip, true, why)
        .map(drop)
        .map_err(err("cannot move the store's ref"))
}

/// Makes every file of the store durable.
pub(super) fn sync_store(dir: &Path) -> HResult<()> {
    #[cfg(target_os = "linux")]
    {
        let store = File::open(dir).map_err(io_err("cannot sync the store"))?;
        rustix::fs::syncfs(&store).map_err(|e| HistoryError::Io {
            what: "cannot sync the store",
            source: e.into(),
        })?;
    }
    #[cfg(not(target_os = "linux"))]
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.map_err(|e| HistoryError::Io {
            what: "cannot sync the store",
            source: e.into(),
        })?;
        File::open(entry.path())
            .and_then(|f| f.sync_all())
            .map_err(io_err("cannot sync the store"))?;
    }
    Ok(())
}
