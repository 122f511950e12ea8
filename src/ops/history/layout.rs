//! Where the history's commits are: the branch `HEAD` names, so plain `git log`,
//! `git clone` and `git gc` read the store with no options; a store made when the
//! history lived on a private ref is moved to that branch when opened, and a log an
//! older version left (git objects, not changes) is moved into the repository.

use std::path::Path;

use git2::{ErrorCode, ObjectType, Repository};

use super::error::{HResult, err, io_err};
use super::repo::{REF, point_ref, sync_store, write_readable};
use super::wal;

/// The ref the history lived on before it was a branch (outside `refs/heads`, so git
/// saw an empty repository).
const OLD_REF: &str = "refs/notes/history";

/// Moves the history of an older store onto the branch and points `HEAD` at it (the
/// store's lock held). Crash-safe at every step: the branch is created (libgit2 writes
/// a lock file and renames it) before the old ref goes, and when both exist the
/// branch is the one kept (it was made from the old ref, or has moved on since).
pub(super) fn settle_layout(dir: &std::path::Path, repo: &Repository) -> HResult<()> {
    match repo.find_reference(OLD_REF) {
        Ok(mut old) => {
            let branch = repo.refname_to_id(REF);
            if let (Err(_), Some(id)) = (&branch, old.target()) {
                repo.reference(REF, id, false, "history moved from refs/notes/history")
                    .map_err(err("cannot move the history to its branch"))?;
            }
            old.delete()
                .map_err(err("cannot remove the history's old ref"))?;
        }
        Err(e) if e.code() == ErrorCode::NotFound => {}
        // A ref file a crash left empty or torn: the log's replay sets the branch.
        Err(_) => {
            let _ = std::fs::remove_file(dir.join(OLD_REF));
        }
    }
    let head = repo
        .find_reference("HEAD")
        .ok()
        .and_then(|head| head.symbolic_target().ok().flatten().map(str::to_string));
    if head.as_deref() != Some(REF) {
        // Written as it is, the branch not looked up: it may be unborn, or torn by a
        // crash until the replay.
        repo.reference_symbolic("HEAD", REF, true, "the history's branch")
            .map_err(err("cannot point HEAD at the history"))?;
    }
    Ok(())
}

/// Moves a log the older version of the store left (git objects, not changes) into
/// the repository (the commit lock held): its objects written where the repository
/// cannot read them, the ref pointed at its last commit, everything synced and the
/// log emptied. A log of another older format is emptied the same way.
pub(super) fn migrate_log(dir: &Path, repo: &Repository) -> HResult<()> {
    let old_format = matches!(
        wal::Log::open(dir),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData
    );
    // A log is written by one version from its start: its first record tells (the
    // whole log is read only to move it).
    let older = !old_format
        && wal::first_record(dir)
            .map_err(io_err("cannot read the log"))?
            .is_some_and(|r| r.first().is_some_and(|o| o.kind != b'h'));
    if !older && !old_format {
        return Ok(());
    }
    let records = wal::records(dir).map_err(io_err("cannot read the log"))?;
    let odb = repo.odb().map_err(err("cannot open the objects"))?;
    let mut last = None;
    for object in records.iter().flatten() {
        let kind = match object.kind {
            b'b' => ObjectType::Blob,
            b't' => ObjectType::Tree,
            b'c' => ObjectType::Commit,
            _ => continue,
        };
        let id = write_readable(dir, &odb, kind, &object.bytes)?;
        if kind == ObjectType::Commit {
            last = Some(id);
        }
    }
    drop(odb);
    if let Some(last) = last {
        point_ref(dir, repo, last, "replayed from the log")?;
    }
    sync_store(dir)?;
    wal::clear(dir).map_err(io_err("cannot empty the log"))
}
