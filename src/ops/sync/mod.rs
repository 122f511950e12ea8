//! Sync with a git remote: fetch the remote's `main` (`git`), merge it with the
//! notebook path by path (`plan`, `apply`: the notebook's own writes, three-way merged),
//! then push the merged tree (`tree`) without force, fetching and merging again when
//! another machine pushed first. The remote is an ordinary repository of the notebook;
//! the last sync's outcome is kept in `.notes/sync.json` (per machine).

mod apply;
mod every;
mod git;
mod plan;
mod tree;

use std::collections::HashSet;
use std::fs::File;
use std::path::Path;

use git2::{Oid, Repository, Tree};
use serde::{Deserialize, Serialize};

pub(crate) use self::every::keep_in_sync;
pub(crate) use self::git::redact;
use crate::error::{Cause, Error, Result};
use crate::ops::path::INTERNAL_DIR;
use crate::ops::{Notebook, fsutil};

/// The last sync's outcome, per machine, in `.notes/`.
const STATUS_FILE: &str = "sync.json";
/// The history's head the last sync merged and pushed whole, in the store's folder.
const MERGED_FILE: &str = "sync-merged";
/// Pushes tried when another machine keeps pushing first.
const ATTEMPTS: usize = 5;

/// The sync's status: `GET /api/v1/sync`, `notes sync --json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct SyncStatus {
    /// The remote, its credentials stripped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) remote: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_sync: Option<String>,
    /// `ok`, `failed` or `never`.
    pub(crate) outcome: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// Paths the last sync changed in the notebook.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pulled: Option<u64>,
    /// Paths the last sync changed on the remote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pushed: Option<u64>,
    /// Notes holding conflict markers, until resolved.
    #[serde(default)]
    pub(crate) conflicts: Vec<String>,
    /// Paths of the remote that were not written here (hidden paths, symlinks,
    /// submodules, names too long), each with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) refused: Vec<String>,
}

/// What one sync did.
#[derive(Default)]
struct Done {
    pulled: u64,
    pushed: u64,
    refused: Vec<String>,
}

fn git_failed(what: &'static str) -> impl Fn(git2::Error) -> Error {
    move |e| Error::HistoryFailed(Cause::new(what, e))
}

impl Notebook {
    /// Stores `url` as the remote (in `.notes/history.git/config`, remote `origin`).
    pub(crate) fn set_sync_remote(&self, url: &str) -> Result<()> {
        if !self.history_on() {
            return Err(Error::SyncNeedsHistory);
        }
        self.history_head()?;
        git::set_remote(&self.history_dir(), url)
    }

    /// The remote, the last sync's time and outcome, and the conflicted notes; no
    /// network.
    pub(crate) fn sync_status(&self) -> Result<SyncStatus> {
        let mut status = std::fs::read(self.status_file())
            .ok()
            .and_then(|bytes| serde_json::from_slice::<SyncStatus>(&bytes).ok())
            .unwrap_or_else(|| SyncStatus {
                outcome: "never".into(),
                ..SyncStatus::default()
            });
        status.remote = git::shown_remote(&self.history_dir());
        status.conflicts = self
            .conflicted()?
            .into_iter()
            .map(|p| p.as_str().to_string())
            .collect();
        Ok(status)
    }

    /// Syncs with the remote now: fetch, merge, push. Its outcome is kept for
    /// `sync_status`. A remote that cannot be reached changes nothing here.
    pub(crate) fn sync(&self) -> Result<SyncStatus> {
        if !self.history_on() {
            return Err(Error::SyncNeedsHistory);
        }
        let dir = self.history_dir();
        if !dir.exists() || git::remote_url(&dir).is_none() {
            return Err(Error::SyncNoRemote);
        }
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(crate::ops::history::SYNC_LOCK))
            .and_then(|file| file.lock().map(|()| file))
            .map_err(|e| Error::HistoryFailed(Cause::new("cannot lock the sync", e)))?;
        let outcome = self.sync_locked(&dir);
        drop(lock);
        let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let kept = match &outcome {
            Ok(done) => SyncStatus {
                last_sync: Some(now),
                outcome: "ok".into(),
                pulled: Some(done.pulled),
                pushed: Some(done.pushed),
                refused: done.refused.clone(),
                ..SyncStatus::default()
            },
            Err(e) => SyncStatus {
                last_sync: Some(now),
                outcome: "failed".into(),
                error: Some(redact(&e.to_string())),
                ..SyncStatus::default()
            },
        };
        if let Err(e) = fsutil::write_atomic(
            &self.status_file(),
            &serde_json::to_vec(&kept).unwrap_or_default(),
        ) {
            crate::log::warn(&format!("sync: cannot keep its status: {e}"));
        }
        outcome?;
        self.sync_status()
    }

    /// Whether neither side changed since the last sync, which left nothing behind:
    /// the history's head is the one it merged, and the remote's tip (`git
    /// ls-remote`, cheaper than a fetch) the one it pushed or found.
    fn nothing_new(&self, dir: &Path) -> Result<bool> {
        let Some(merged) = std::fs::read_to_string(dir.join(MERGED_FILE))
            .ok()
            .and_then(|id| Oid::from_str(id.trim()).ok())
        else {
            return Ok(false);
        };
        let repo = Repository::open_bare(dir).map_err(git_failed("cannot open the store"))?;
        let remote = repo.refname_to_id(git::REMOTE_REF).ok();
        if remote.is_none()
            || repo.refname_to_id(git::LOCAL_REF).ok() != remote
            || self.history_head()? != Some(merged)
        {
            return Ok(false);
        }
        Ok(git::remote_tip(dir) == remote)
    }

    fn status_file(&self) -> std::path::PathBuf {
        self.notes_dir().join(INTERNAL_DIR).join(STATUS_FILE)
    }

    /// Fetch, merge, push; again (bounded) when the push lost a race.
    fn sync_locked(&self, dir: &Path) -> Result<Done> {
        let mut done = Done::default();
        // A first sync starts from every note on disk: notes made before the history
        // (or by hand while no server ran) are recorded first.
        let first = Repository::open_bare(dir)
            .map_err(git_failed("cannot open the store"))?
            .refname_to_id(git::LOCAL_REF)
            .is_err();
        // A sync cut short (`kill -9`, a power loss) may have recorded a write whose
        // file never landed: the notes on disk are then recorded first, as on a first
        // sync, so the history the sync merges from is the folder as it is.
        if !first && !Running::was_cut(dir) && self.nothing_new(dir)? {
            return Ok(done);
        }
        let running = Running::mark(dir)?;
        if first || running.was_cut {
            self.record_outside_edits(&|| {})?;
        }
        for _ in 0..ATTEMPTS {
            let head = self.history_head()?;
            // No full pack runs until the sync ends (`SYNC_LOCK`): what it fetched and
            // made stays until a ref names it.
            let found = git::fetch(dir)?;
            let repo = Repository::open_bare(dir).map_err(git_failed("cannot open the store"))?;
            let remote = if found {
                repo.refname_to_id(git::REMOTE_REF).ok()
            } else {
                None
            };
            let last = repo.refname_to_id(git::LOCAL_REF).ok();
            let base = match (last, remote) {
                (Some(last), Some(remote)) => repo.merge_base(last, remote).ok(),
                _ => None,
            };
            let base_tree = tree_of(&repo, base)?;
            let remote_tree = tree_of(&repo, remote)?;
            let head_tree = tree_of(&repo, head)?;
            let theirs = plan::side(&repo, base_tree.as_ref(), remote_tree.as_ref())?;
            let ours = plan::side(&repo, base_tree.as_ref(), head_tree.as_ref())?;
            let plan = plan::plan(base_tree.as_ref(), head_tree.as_ref(), &theirs, &ours);
            let applied = self.apply_plan(&repo, &plan.actions);
            done.pulled += applied.pulled;
            done.refused = plan
                .refused
                .iter()
                .map(|(path, why)| format!("{path}: {why}"))
                .chain(applied.failed.iter().map(|(p, why)| format!("{p}: {why}")))
                .collect();
            let keep: HashSet<String> = applied.failed.into_iter().map(|(p, _)| p).collect();
            let head = self.history_head()?;
            let pushed = push(dir, &Tips { head, remote, last }, &keep)?;
            if let Some(count) = pushed {
                done.pushed = count;
                // What the next sync compares with to know nothing is new, when this
                // one left nothing behind.
                let whole = done.refused.is_empty();
                mark_merged(dir, head.filter(|_| whole))?;
                return Ok(done);
            }
        }
        Err(Error::SyncFailed(format!(
            "the remote kept changing: {ATTEMPTS} pushes refused, try again"
        )))
    }
}

/// Keeps `head` as the history's head the last sync merged whole (a file, not a ref:
/// a ref would keep versions a prune dropped); `None` forgets it.
fn mark_merged(dir: &Path, head: Option<Oid>) -> Result<()> {
    let file = dir.join(MERGED_FILE);
    match head {
        Some(head) => fsutil::write_atomic(&file, head.to_string().as_bytes()),
        None => match fsutil::remove_durable(&file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        },
    }
    .map_err(|e| Error::HistoryFailed(Cause::new("cannot keep the sync's state", e)))
}

/// A file that says a sync is running, left behind only when one was cut short.
struct Running {
    file: std::path::PathBuf,
    was_cut: bool,
}

impl Running {
    const FILE: &'static str = "sync-running";

    fn was_cut(dir: &Path) -> bool {
        dir.join(Self::FILE).exists()
    }

    fn mark(dir: &Path) -> Result<Running> {
        let file = dir.join(Self::FILE);
        let was_cut = Self::was_cut(dir);
        if !was_cut {
            fsutil::write_atomic(&file, b"")
                .map_err(|e| Error::HistoryFailed(Cause::new("cannot mark the sync", e)))?;
        }
        Ok(Running { file, was_cut })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = fsutil::remove_durable(&self.file);
    }
}

/// The commits a push starts from: the history's head after the writes, the remote
/// tip merged, the last merge commit made.
#[derive(Clone, Copy)]
struct Tips {
    head: Option<Oid>,
    remote: Option<Oid>,
    last: Option<Oid>,
}

/// Commits the tree to push on top of the remote tip and pushes it: the paths it
/// changed there, or `None` when another machine pushed first.
fn push(dir: &Path, tips: &Tips, keep: &HashSet<String>) -> Result<Option<u64>> {
    let Tips { head, remote, last } = *tips;
    // Opened again: the objects the writes just committed.
    let repo = Repository::open_bare(dir).map_err(git_failed("cannot open the store"))?;
    let head_tree = tree_of(&repo, head)?;
    let remote_tree = tree_of(&repo, remote)?;
    let (tree, count) = tree::pushed_tree(&repo, remote_tree.as_ref(), head_tree.as_ref(), keep)?;
    let Some(tree) = tree else {
        return Ok(Some(0));
    };
    if Some(tree) == remote_tree.as_ref().map(Tree::id) {
        if let Some(remote) = remote
            && last != Some(remote)
        {
            set_ref(&repo, git::LOCAL_REF, remote)?;
        }
        return Ok(Some(0));
    }
    let mut parents = Vec::new();
    if let Some(last) = last
        && Some(last) != remote
        && !remote.is_some_and(|r| repo.graph_descendant_of(r, last).unwrap_or(false))
    {
        parents.push(last);
    }
    parents.extend(remote);
    let commit = tree::commit(&repo, tree, &parents)?;
    // The notebook holds this merge now (its writes are done): a retry
    // after a refused push, or the next sync after a crash, merges from
    // it, so nothing is merged twice.
    set_ref(&repo, git::LOCAL_REF, commit)?;
    match git::push(dir, commit)? {
        git::Pushed::Done => {
            set_ref(&repo, git::REMOTE_REF, commit)?;
            Ok(Some(count))
        }
        git::Pushed::Rejected => Ok(None),
    }
}

fn tree_of(repo: &Repository, commit: Option<Oid>) -> Result<Option<Tree<'_>>> {
    match commit {
        Some(id) => repo
            .find_commit(id)
            .and_then(|c| c.tree())
            .map(Some)
            .map_err(git_failed("cannot read a commit")),
        None => Ok(None),
    }
}

fn set_ref(repo: &Repository, name: &str, id: Oid) -> Result<()> {
    repo.reference(name, id, true, "sync")
        .map(drop)
        .map_err(git_failed("cannot move a sync ref"))
}

#[cfg(test)]
mod tests;
