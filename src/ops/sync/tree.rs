//! The tree a sync pushes: the remote's tree with the notebook's changes from it
//! applied (the history's head tree after the sync's writes), so the entries of the
//! remote the notebook does not hold (dot folders such as `.obsidian/`, refused paths,
//! paths a write failed for) are carried over unchanged; and the merge commit on
//! `refs/sync/local` that holds it.

use std::collections::HashSet;
use std::path::Path;

use git2::build::TreeUpdateBuilder;
use git2::{Delta, Oid, Repository, Signature, Tree};

use super::plan::kind_of;
use crate::error::{Cause, Error, Result};

fn failed(what: &'static str) -> impl Fn(git2::Error) -> Error {
    move |e| Error::HistoryFailed(Cause::new(what, e))
}

/// The tree to push and how many paths it changes on the remote.
pub(super) fn pushed_tree(
    repo: &Repository,
    remote: Option<&Tree<'_>>,
    head: Option<&Tree<'_>>,
    keep: &HashSet<String>,
) -> Result<(Option<Oid>, u64)> {
    let Some(remote) = remote else {
        // Nothing to carry over: the notebook as it is.
        let head = head.map(Tree::id);
        let count = match head {
            Some(id) => count_blobs(repo, id)?,
            None => 0,
        };
        return Ok((head, count));
    };
    let diff = repo
        .diff_tree_to_tree(Some(remote), head, None)
        .map_err(failed("cannot compare two trees"))?;
    let mut update = TreeUpdateBuilder::new();
    let mut count = 0;
    for delta in diff.deltas() {
        let (file, gone) = match delta.status() {
            Delta::Deleted => (delta.old_file(), true),
            Delta::Added | Delta::Modified | Delta::Typechange => (delta.new_file(), false),
            _ => continue,
        };
        let Some(path) = file.path().and_then(Path::to_str) else {
            continue;
        };
        // What the notebook cannot hold stays as the remote has it.
        let refused = gone && kind_of(path, u32::from(delta.old_file().mode())).is_err();
        if keep.contains(path) || refused {
            continue;
        }
        if gone {
            update.remove(path);
        } else {
            update.upsert(path, file.id(), file.mode());
        }
        count += 1;
    }
    if count == 0 {
        return Ok((Some(remote.id()), 0));
    }
    let tree = update
        .create_updated(repo, remote)
        .map_err(failed("cannot write the synced tree"))?;
    Ok((Some(tree), count))
}

/// The blobs of tree `id` (a first push sends all of them).
fn count_blobs(repo: &Repository, id: Oid) -> Result<u64> {
    let tree = repo.find_tree(id).map_err(failed("cannot read a tree"))?;
    let mut count = 0;
    tree.walk(git2::TreeWalkMode::PreOrder, |_, entry| {
        if entry.kind() == Some(git2::ObjectType::Blob) {
            count += 1;
        }
        git2::TreeWalkResult::Ok
    })
    .map_err(failed("cannot read a tree"))?;
    Ok(count)
}

/// A merge commit of `tree` on top of `parents`.
pub(super) fn commit(repo: &Repository, tree: Oid, parents: &[Oid]) -> Result<Oid> {
    let tree = repo.find_tree(tree).map_err(failed("cannot read a tree"))?;
    let parents = parents
        .iter()
        .map(|id| repo.find_commit(*id))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(failed("cannot read a commit"))?;
    let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
    let now = git2::Time::new(chrono::Utc::now().timestamp(), 0);
    let who =
        Signature::new("notes", "notes@localhost", &now).map_err(failed("cannot sign the sync"))?;
    repo.commit(None, &who, &who, "sync", &tree, &parents)
        .map_err(failed("cannot write the sync's commit"))
}
