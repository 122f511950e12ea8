//! Every note's past versions: the store (`store`, a bare git repository at
//! `.notes/history.git`; a change made durable by its log `wal` before it is
//! acknowledged, committed by the background `commit`ter, packed by `pack`, looked up
//! through `index`), the recording of each change (`record`), and the lookups and the
//! restore the API and the commands offer (here).

mod change;
mod commit;
mod committer;
mod compare;
mod error;
mod files;
mod follow;
mod group;
mod index;
mod kept;
mod layout;
mod outside_files;
mod pack;
mod prune;
mod record;
mod repo;
mod store;
mod upkeep;
mod wal;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use self::change::Change;
pub(crate) use self::compare::Compared;
use self::error::HistoryError;
pub(crate) use self::kept::KeptVersion;
use self::store::Store;
use crate::error::{Cause, Error, Result};
pub(crate) use crate::ops::ids::Op;
use crate::ops::model::{Note, Precondition, PutOutcome};
use crate::ops::path::INTERNAL_DIR;
use crate::ops::{NotePath, Notebook};

pub(crate) use self::repo::SYNC_LOCK;

/// The store's folder inside `.notes/`.
pub(crate) const STORE_DIR: &str = "history.git";

/// One version of a note: `{"id", "at", "operation", "size"}`, and `"path"` when the
/// note had another path then (before a move); `size` is 0 for a change that removed
/// the note (a delete, or the old path of a move).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Version {
    pub(crate) id: String,
    /// RFC 3339, UTC, whole seconds.
    pub(crate) at: String,
    pub(crate) operation: String,
    pub(crate) size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) path: Option<String>,
}

/// A note's history, newest first: the API's answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct History {
    pub(crate) path: String,
    pub(crate) versions: Vec<Version>,
}

/// A deleted note or attachment: `{"path", "deletedAt", "version", "kind"}`,
/// `version` being its last text (or bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Trashed {
    pub(crate) path: String,
    #[serde(rename = "deletedAt")]
    pub(crate) deleted_at: String,
    pub(crate) version: String,
    /// `"note"`, or `"file"` for an attachment.
    pub(crate) kind: &'static str,
}

/// The deleted notes, most recently deleted first: the API's answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Trash {
    pub(crate) notes: Vec<Trashed>,
}

/// The notebook's store: opened on first use, or turned off.
#[derive(Default)]
pub(crate) struct Slot {
    off: AtomicBool,
    /// Shared with the server's upkeep, which packs and prunes it.
    store: std::sync::Arc<OnceLock<Store>>,
    /// Held while the store is opened: two first uses at once must not both create it.
    opening: std::sync::Mutex<()>,
    /// Versions recorded since the upkeep last packed the store that replace an
    /// earlier version of their note (`upkeep`).
    replaced: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// The environment variable that sets the history's clock (seconds since the epoch):
/// the time of the commits made and the "now" of a prune. It exists so the tests can
/// make versions days apart and prune them.
pub(crate) const TEST_NOW: &str = "NOTES_TEST_HISTORY_NOW";

/// Seconds since the epoch, from the history's clock.
fn now() -> i64 {
    static SET: std::sync::LazyLock<Option<i64>> =
        std::sync::LazyLock::new(|| crate::test_hooks::var(TEST_NOW).and_then(|s| s.parse().ok()));
    SET.unwrap_or_else(|| chrono::Utc::now().timestamp())
}

fn failed(why: HistoryError) -> Error {
    Error::HistoryFailed(Cause::of(why))
}

fn rfc3339(secs: i64) -> String {
    chrono::DateTime::from_timestamp(secs, 0)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

impl Notebook {
    /// Turns the history off for this notebook (the reference runs of the benchmark):
    /// nothing is recorded, lookups find nothing.
    pub(crate) fn turn_history_off(&self) {
        self.history.off.store(true, Ordering::Relaxed);
    }

    pub(crate) fn history_on(&self) -> bool {
        !self.history.off.load(Ordering::Relaxed)
    }

    /// The store, opened (and created) on first use.
    fn history_store(&self) -> Result<&Store> {
        if !self.history_on() {
            return Err(Error::NotFound);
        }
        if let Some(store) = self.history.store.get() {
            return Ok(store);
        }
        let _opening = self
            .history
            .opening
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(store) = self.history.store.get() {
            return Ok(store);
        }
        let dir = self.notes_dir().join(INTERNAL_DIR).join(STORE_DIR);
        let store = Store::open(&dir, self.history.replaced.clone()).map_err(failed)?;
        Ok(self.history.store.get_or_init(|| store))
    }

    /// Commits every change the log holds: at a graceful shutdown, so git reads every
    /// change at once.
    pub(crate) fn settle_history(&self) -> Result<()> {
        match self.history.store.get() {
            Some(store) => store.settle().map_err(failed),
            None => Ok(()),
        }
    }

    /// The store's folder, `.notes/history.git`.
    pub(crate) fn history_dir(&self) -> std::path::PathBuf {
        self.notes_dir().join(INTERNAL_DIR).join(STORE_DIR)
    }

    /// Every change recorded committed, then the commit the branch names (`None`
    /// before the first change); the store is created when missing.
    pub(crate) fn history_head(&self) -> Result<Option<git2::Oid>> {
        let store = self.history_store()?;
        store.settle().map_err(failed)?;
        let repo = git2::Repository::open_bare(&store.dir)
            .map_err(|e| failed(error::err("cannot open the store")(e)))?;
        repo::tip_of(&repo).map_err(failed)
    }

    /// Records one commit of `changes`, durably, when the history is on.
    pub(crate) fn record(&self, op: Op, message: String, changes: &[Change]) -> Result<()> {
        self.record_synced(op, message, changes, wal::Sync::Now)
            .map(drop)
    }

    /// Records one commit of `changes` when the history is on, made durable as `sync`
    /// says; what is left to make it durable.
    pub(super) fn record_synced(
        &self,
        op: Op,
        message: String,
        changes: &[Change],
        sync: wal::Sync,
    ) -> Result<Option<wal::Pending<'_>>> {
        if !self.history_on() {
            return Ok(None);
        }
        debug_assert!(message.starts_with(op.as_str()));
        self.history_store()?
            .record(&message, changes, sync)
            .map_err(failed)
    }

    /// The versions of a note, newest first, its versions under former paths
    /// included (`follow`); `NotFound` when it has none.
    pub(crate) fn history(&self, path: &NotePath) -> Result<Vec<Version>> {
        let followed = self.followed(path)?.ok_or(Error::NotFound)?;
        Ok(followed
            .iter()
            .map(|(at, e)| version_of(path, at, e))
            .collect())
    }

    /// The text of version `id` of a note (the full id, or a prefix of at least 4 hex
    /// digits that names one version); `VersionNotFound` when the note has no such
    /// version or that version removed it.
    pub(crate) fn version(&self, path: &NotePath, id: &str) -> Result<Vec<u8>> {
        self.version_text(path, id, false)
    }

    /// The text of version `id`, or when that version removed the note (a delete, the
    /// old path of a move) and `before_removal`, the text it had just before.
    fn version_text(&self, path: &NotePath, id: &str, before_removal: bool) -> Result<Vec<u8>> {
        let followed = self.followed(path)?.ok_or(Error::VersionNotFound)?;
        // Newest first: the text just before a removal is further on.
        let blob = listed(followed.iter().map(|(_, e)| e), id)
            .and_then(|at| {
                if before_removal {
                    followed[at..].iter().find_map(|(_, e)| e.blob)
                } else {
                    followed[at].1.blob
                }
            })
            .ok_or(Error::VersionNotFound)?;
        self.history_store()?.blob(blob).map_err(failed)
    }

    /// Version `id` of a note as a NoteResponse (its text read like a note's).
    pub(crate) fn version_note(&self, path: &NotePath, id: &str) -> Result<Note> {
        let bytes = self.version(path, id)?;
        let text = crate::ops::store::text_of(&bytes);
        Ok(crate::ops::store::note_of(path, &text, bytes.len() as u64))
    }

    /// Writes version `id` of a note back as a new change, byte for byte; `created`
    /// when the note had been deleted. Any listed version can be restored: one that
    /// removed the note brings back the text it had before.
    /// A note moved away that is at its new path now is not restored at the old one
    /// (that would make a second copy): the error names where it is.
    pub(crate) fn restore(&self, path: &NotePath, id: &str) -> Result<PutOutcome> {
        path.check_writable()?;
        let bytes = self.version_text(path, id, true)?;
        if let Some(now) = self.moved_to(path)? {
            return Err(Error::NoteMovedTo(now));
        }
        let text = String::from_utf8(bytes).map_err(|_| Error::VersionNotFound)?;
        self.write_recorded(path, &Precondition::None, Op::Restore, |_| Ok(text))
    }

    /// The notes whose last change removed them, most recently deleted first, each with
    /// its last version that had text.
    pub(crate) fn trash(&self) -> Result<Vec<Trashed>> {
        if !self.history_on() {
            return Ok(Vec::new());
        }
        let mut trashed = self
            .history_store()?
            .with_index(|index| {
                index
                    .notes
                    .iter()
                    .filter_map(|(path, entries)| {
                        let last = entries.last()?;
                        // Only deleted notes: a move's old path is not in the trash.
                        if last.blob.is_some() || &*last.op == Op::Move.as_str() {
                            return None;
                        }
                        let kept = entries.iter().rev().find(|e| e.blob.is_some())?;
                        Some((
                            last.at,
                            Trashed {
                                path: path.clone(),
                                deleted_at: rfc3339(last.at),
                                version: kept.commit.to_string(),
                                kind: files::kind_of(path),
                            },
                        ))
                    })
                    .collect::<Vec<_>>()
            })
            .map_err(failed)?;
        // And absent now: a note written again at its path outside the service (or
        // before the history saw it) is not deleted.
        trashed.retain(|(_, t)| !self.on_disk(&t.path));
        trashed.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.path.cmp(&b.1.path)));
        Ok(trashed.into_iter().map(|(_, t)| t).collect())
    }
}

impl Notebook {
    /// Whether something is at note path `path` on disk (a note, or anything else
    /// holding its name).
    fn on_disk(&self, path: &str) -> bool {
        std::fs::symlink_metadata(self.notes_dir().join(path)).is_ok()
    }

    /// Where the note last at `path` is now, when its last change there moved it away
    /// and it is still at the end of its moves (followed through each move's commit
    /// message, `move FROM -> TO`); `None` when nothing is at `path`'s place elsewhere or
    /// something is at `path` itself.
    fn moved_to(&self, path: &NotePath) -> Result<Option<String>> {
        if self.on_disk(path.as_str()) {
            return Ok(None);
        }
        let store = self.history_store()?;
        let mut at = path.to_string();
        // Each step follows one move: bounded by the moves a history can hold in a row.
        for _ in 0..MOVES_FOLLOWED {
            let last = store
                .with_index(|index| {
                    let last = index.notes.get(&at)?.last()?;
                    Some((
                        last.commit,
                        last.blob.is_none() && &*last.op == Op::Move.as_str(),
                    ))
                })
                .map_err(failed)?;
            let Some((commit, true)) = last else {
                // The end of the moves: the note is there, unless deleted since.
                let moved = at != path.as_str() && self.on_disk(&at);
                return Ok(moved.then_some(at));
            };
            let message = store.message(commit).map_err(failed)?;
            let first = message.lines().next().unwrap_or_default();
            let Some(to) = first
                .strip_prefix(Op::Move.as_str())
                .and_then(|rest| rest.strip_prefix(' '))
                .and_then(|rest| rest.strip_prefix(at.as_str()))
                .and_then(|rest| rest.strip_prefix(" -> "))
            else {
                break;
            };
            at = to.to_string();
        }
        Ok(None)
    }
}

/// A version of the note at `path` that it had at `at`.
fn version_of(path: &NotePath, at: &str, e: &index::Entry) -> Version {
    Version {
        id: e.commit.to_string(),
        at: rfc3339(e.at),
        operation: e.op.to_string(),
        size: e.size,
        path: (at != path.as_str()).then(|| at.to_string()),
    }
}

/// How many moves in a row `moved_to` and `follow` follow.
const MOVES_FOLLOWED: usize = 1000;

/// Where version `id` (the full id, or a prefix of at least 4 hex digits that names
/// one version) is among a note's entries.
fn listed<'a>(entries: impl Iterator<Item = &'a index::Entry>, id: &str) -> Option<usize> {
    let id = id.to_ascii_lowercase();
    if id.len() < 4 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut found = entries
        .enumerate()
        .filter(|(_, e)| e.commit.to_string().starts_with(&id));
    let (at, first) = found.next()?;
    match found.next() {
        Some((_, other)) if other.commit != first.commit => None,
        _ => Some(at),
    }
}

#[cfg(test)]
mod store_tests;
#[cfg(test)]
mod tests;
