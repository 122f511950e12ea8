//! Where the history's commits are: the branch `HEAD` names, so plain `git log`,
//! `git clone` and `git gc` read the store with no options; a store made when the
//! history lived on a private ref is moved to that branch when opened.

use git2::{ErrorCode, Repository};

use super::error::{HResult, err};
use super::store::REF;

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
