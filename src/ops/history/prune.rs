//! Dropping the versions older than the retention. The commits before the cut become
//! one first commit (its tree is the notebook at the cut, so every note's latest
//! version then, and the last text of each note deleted since, is kept) and the
//! commits after it are written again on top of it, unchanged but for their parent.
//! The new chain is written as new objects and made durable before the ref moves to
//! it in one atomic rename: a crash at any point leaves the old history or the new one.

use std::collections::{HashMap, HashSet};

use git2::{Oid, Signature, Time};

use super::commit::{base_message, commit_records, trailer};
use super::error::{HResult, err};
use super::index::Entry;
use super::repo::{COMMIT_LOCK, REF, lock_file, point_ref, sync_store, tip};
use super::store::Store;

/// The environment variable that makes a prune stop dead (as a crash would) after one
/// of its steps: `commits` (the new chain written), `synced` (and the log emptied) or
/// `ref` (the ref moved, the index not yet rewritten). It exists so the tests can check
/// that each leaves a valid store.
pub(crate) const CRASH_AFTER: &str = "NOTES_TEST_CRASH_AFTER_PRUNE_STEP";

/// What a prune dropped.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cut {
    /// Versions no longer in the history.
    pub(super) versions: usize,
    /// Notes deleted before the cut, whose every version went (and their trash entry).
    pub(super) notes: usize,
}

fn crash_after(step: &str) {
    if crate::test_hooks::var(CRASH_AFTER).is_some_and(|s| s == step) {
        std::process::abort();
    }
}

impl Store {
    /// Drops every version that had been replaced (or deleted) before `cutoff`
    /// (seconds since the epoch): the history keeps the notebook as it was at any
    /// moment since then.
    pub(super) fn prune(&self, cutoff: i64) -> HResult<Cut> {
        let _turn = lock_file(&self.dir, COMMIT_LOCK)?;
        // A handle of its own, with no memory backend: the changes logged and not yet
        // committed are committed first (as loose objects; the pack after the prune
        // takes them).
        let repo = &git2::Repository::open_bare(&self.dir).map_err(err("cannot open the store"))?;
        let made = commit_records(repo, &self.dir, u64::MAX)?;
        if let Some(tip) = made.tip {
            point_ref(&self.dir, repo, tip, "committed")?;
        }
        let mut reader = self.reader()?;
        reader.catch_up(&self.dir, true)?;
        let Some(tip) = tip(repo, &self.dir)? else {
            return Ok(Cut::default());
        };
        let mut chain = Vec::new();
        let mut at = Some(tip);
        while let Some(id) = at {
            let commit = repo.find_commit(id).map_err(err("cannot read a commit"))?;
            chain.push((id, commit.time().seconds()));
            at = commit.parent_ids().next();
        }
        chain.reverse();
        let first_kept = chain
            .iter()
            .position(|(_, at)| *at >= cutoff)
            .unwrap_or(chain.len());
        // One commit before the cut holds nothing that is not current at the cut.
        if first_kept < 2 {
            return Ok(Cut::default());
        }
        let dropped: HashSet<Oid> = chain[..first_kept].iter().map(|(id, _)| *id).collect();

        // Each note's state at the cut: its last change before it, kept when it left a
        // text (a note deleted before the cut goes, trash entry and all).
        let mut cut = Cut::default();
        let mut base: Vec<(String, Entry)> = Vec::new();
        for (path, entries) in &reader.index.notes {
            let old = entries
                .iter()
                .filter(|e| dropped.contains(&e.commit))
                .count();
            let Some(last) = old.checked_sub(1).map(|i| &entries[i]) else {
                continue;
            };
            if last.blob.is_some() {
                cut.versions += old - 1;
                base.push((path.clone(), last.clone()));
            } else {
                cut.versions += old;
                if old == entries.len() {
                    cut.notes += 1;
                }
            }
        }
        base.sort_by(|a, b| a.0.cmp(&b.0));

        let (last_dropped, last_at) = chain[first_kept - 1];
        let odb = repo.odb().map_err(err("cannot open the objects"))?;
        let tree = repo
            .find_commit(last_dropped)
            .and_then(|c| c.tree())
            .map_err(err("cannot read a tree"))?;
        let signature = Signature::new("notes", "notes@localhost", &Time::new(last_at, 0))
            .map_err(err("cannot sign the commit"))?;
        // The log position of the last commit dropped: when no commit is kept after it,
        // the first commit is the tip, and the records up to there are committed.
        let position = repo
            .find_commit(last_dropped)
            .map_err(err("cannot read a commit"))?
            .message()
            .ok()
            .and_then(trailer);
        let mut message = base_message(cutoff, &base);
        if let Some(at) = position {
            message = format!("{message}\nNotes-Log: {}:{}\n", at.epoch, at.end);
        }
        let buffer = repo
            .commit_create_buffer(&signature, &signature, &message, &tree, &[])
            .map_err(err("cannot make the commit"))?;
        let first = odb
            .write(git2::ObjectType::Commit, &buffer)
            .map_err(err("cannot write a commit"))?;
        let mut parent = first;
        let mut renamed: HashMap<Oid, Oid> = HashMap::new();
        for (old, _) in &chain[first_kept..] {
            let commit = repo
                .find_commit(*old)
                .map_err(err("cannot read a commit"))?;
            let tree = commit.tree().map_err(err("cannot read a tree"))?;
            let new_parent = repo
                .find_commit(parent)
                .map_err(err("cannot read a commit"))?;
            let buffer = repo
                .commit_create_buffer(
                    &commit.author(),
                    &commit.committer(),
                    commit.message_raw().unwrap_or(""),
                    &tree,
                    &[&new_parent],
                )
                .map_err(err("cannot make the commit"))?;
            parent = odb
                .write(git2::ObjectType::Commit, &buffer)
                .map_err(err("cannot write a commit"))?;
            renamed.insert(*old, parent);
        }
        crash_after("commits");

        // Everything durable (the new commits, the old chain, its ref) before the ref
        // moves to the new chain, and after.
        drop((tree, odb));
        sync_store(&self.dir)?;
        crash_after("synced");
        repo.reference(REF, parent, true, "prune")
            .map_err(err("cannot move the store's ref"))?;
        sync_store(&self.dir)?;
        crash_after("ref");

        // The index, in commit order: the first commit's notes, then the kept commits'.
        let order: HashMap<Oid, usize> = chain[first_kept..]
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (*id, i))
            .collect();
        let mut kept: Vec<(usize, String, Entry)> = Vec::new();
        for (path, entries) in &reader.index.notes {
            for entry in entries {
                if let (Some(&n), Some(&id)) =
                    (order.get(&entry.commit), renamed.get(&entry.commit))
                {
                    kept.push((
                        n,
                        path.clone(),
                        Entry {
                            commit: id,
                            ..entry.clone()
                        },
                    ));
                }
            }
        }
        kept.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        let lines: Vec<(String, Entry)> = base
            .into_iter()
            .map(|(path, entry)| {
                (
                    path,
                    Entry {
                        commit: first,
                        ..entry
                    },
                )
            })
            .chain(kept.into_iter().map(|(_, path, entry)| (path, entry)))
            .collect();
        let dir = self.dir.clone();
        if let Err(e) = reader.index.replace(&dir, &lines) {
            // Rebuilt from the commits at the next lookup.
            crate::log::warn(&format!("cannot write the history index: {e}"));
            reader.index = Default::default();
        }
        Ok(cut)
    }
}
