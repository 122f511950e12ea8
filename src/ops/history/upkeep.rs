//! Retention and upkeep of the store: `notes history --prune` (drop the versions older
//! than the retention, then pack), and `serve`'s background thread, which packs the
//! store when enough versions could become deltas (`pack_due`) and, when a retention
//! is set, prunes at start-up and daily.

use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::error::HResult;
use super::prune::Cut;
use super::store::Store;
use super::{STORE_DIR, failed, now, rfc3339};
use crate::error::Result;
use crate::ops::Notebook;
use crate::ops::path::INTERNAL_DIR;

/// Versions replacing an earlier one (`Recorded::replaced`) after which the server's
/// upkeep packs the store.
const PACK_AFTER: u64 = 1000;
/// The longest such a version waits for a pack.
const PACK_EVERY: Duration = Duration::from_secs(3600);
/// A full pack is due only once those versions are at least the notes the history
/// holds divided by this (`pack_due`).
const PACK_SHARE: u64 = 10;
/// How often the server prunes, when a retention is set.
const PRUNE_EVERY: Duration = Duration::from_secs(24 * 3600);
/// How often the upkeep looks at the count of changes.
const LOOK_EVERY: Duration = Duration::from_secs(2);
/// The environment variable that lowers `PACK_AFTER`, so the tests see a pack made in
/// the background after a few versions.
pub(crate) const TEST_PACK_AFTER: &str = "NOTES_TEST_HISTORY_PACK_AFTER";
const DAY: i64 = 24 * 3600;

/// What `notes history --prune` did: `{"keepDays", "cutoff", "versionsDropped",
/// "notesForgotten", "storeBytesBefore", "storeBytesAfter"}` (`keepDays` and `cutoff`
/// null when everything is kept: the store was only packed).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Pruned {
    pub(crate) keep_days: Option<u32>,
    pub(crate) cutoff: Option<String>,
    pub(crate) versions_dropped: usize,
    pub(crate) notes_forgotten: usize,
    pub(crate) store_bytes_before: u64,
    pub(crate) store_bytes_after: u64,
}

impl Notebook {
    /// Drops the versions replaced (or deleted) more than `keep_days` days ago, when
    /// given, then packs the store.
    pub(crate) fn prune_history(&self, keep_days: Option<u32>) -> Result<Pruned> {
        tidy(self.history_store()?, keep_days).map_err(failed)
    }

    /// Starts the server's upkeep of the store on a thread of its own: packs in the
    /// background, and prunes when `keep_days` is set (the committer of the store
    /// commits and merges the small packs). Nothing when the history is off.
    pub(crate) fn start_history_upkeep(&self, keep_days: Option<u32>) {
        if !self.history_on() {
            return;
        }
        let dir = self.notes_dir().join(INTERNAL_DIR).join(STORE_DIR);
        let replaced = self.history.replaced.clone();
        let main = self.history.store.clone();
        let pack_after = crate::test_hooks::var(TEST_PACK_AFTER)
            .and_then(|s| s.parse().ok())
            .unwrap_or(PACK_AFTER);
        let spawned = std::thread::Builder::new()
            .name("history-upkeep".into())
            .spawn(move || upkeep(&dir, keep_days, &replaced, pack_after, &main));
        if let Err(e) = spawned {
            crate::log::error(&format!("history: cannot start the upkeep: {e}"));
        }
    }
}

/// The upkeep's loop, on the server's store once it has a history (the server's
/// first change creates it).
fn upkeep(
    dir: &Path,
    keep_days: Option<u32>,
    replaced: &AtomicU64,
    pack_after: u64,
    main: &OnceLock<Store>,
) {
    let mut packed_at = Instant::now();
    let mut pruned_at: Option<Instant> = None;
    loop {
        std::thread::sleep(LOOK_EVERY);
        let Some(store) = main.get().filter(|_| has_history(dir)) else {
            continue;
        };
        let seen = replaced.load(Ordering::Relaxed);
        let prune = keep_days.filter(|_| pruned_at.is_none_or(|at| at.elapsed() >= PRUNE_EVERY));
        let pack = pack_due(seen, pack_after, packed_at.elapsed(), || {
            store
                .with_index(|index| index.notes.len())
                .map_or(0, |notes| notes as u64)
        });
        if prune.is_none() && !pack {
            continue;
        }
        if let Some(days) = prune {
            match tidy(store, Some(days)) {
                Ok(pruned) if pruned.versions_dropped > 0 => crate::log::info(&format!(
                    "history: dropped {} version(s) older than {days} day(s)",
                    pruned.versions_dropped
                )),
                Ok(_) => {}
                Err(e) => crate::log::error(&format!("history: cannot prune: {e}")),
            }
            pruned_at = Some(Instant::now());
        } else if let Err(e) = store.pack() {
            crate::log::error(&format!("history: cannot pack the store: {e}"));
        }
        replaced.fetch_sub(seen, Ordering::Relaxed);
        packed_at = Instant::now();
    }
}

/// Whether a full pack is due, with `replaced` versions that replace an earlier one
/// recorded since the last: at least `pack_after` of them, or any after `PACK_EVERY`;
/// and at least a `PACK_SHARE`th of the notes the history holds (`held`, asked only
/// then). A full pack rewrites every object the store holds, and what it gains is
/// those versions stored as deltas; the small packs are merged meanwhile without it.
/// A first start records every note of the folder, each a first version: at 1M notes,
/// when each 1000 of its commits made a full pack, the first had taken 12.7 minutes
/// of the upkeep's CPU and 1.04 GiB of memory when stopped, in the middle of the pass.
fn pack_due(replaced: u64, pack_after: u64, since: Duration, held: impl FnOnce() -> u64) -> bool {
    let enough = replaced >= pack_after || (replaced > 0 && since >= PACK_EVERY);
    enough && replaced.saturating_mul(PACK_SHARE) >= held()
}

/// Whether the store has a commit (its ref, loose or packed by a `git gc`).
fn has_history(dir: &Path) -> bool {
    dir.join(super::repo::REF).exists() || dir.join("packed-refs").exists()
}

/// Prunes (when `keep_days` is given), then packs.
fn tidy(store: &Store, keep_days: Option<u32>) -> HResult<Pruned> {
    let before = size_of(&store.dir);
    let (cutoff, cut) = match keep_days {
        Some(days) => {
            let cutoff = now().saturating_sub(i64::from(days) * DAY);
            (Some(rfc3339(cutoff)), store.prune(cutoff)?)
        }
        None => (None, Cut::default()),
    };
    store.pack()?;
    Ok(Pruned {
        keep_days,
        cutoff,
        versions_dropped: cut.versions,
        notes_forgotten: cut.notes,
        store_bytes_before: before,
        store_bytes_after: size_of(&store.dir),
    })
}

/// The bytes of the store's files.
fn size_of(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_pack_is_due_for_enough_versions_that_replace_others() {
        let soon = Duration::from_secs(5);
        let held = |notes: u64| move || notes;
        // The count, or any after an hour, in a store of up to ten times the count.
        assert!(pack_due(1000, 1000, soon, held(10_000)));
        assert!(!pack_due(999, 1000, soon, held(100)));
        assert!(pack_due(1, 1000, PACK_EVERY, held(10)));
        assert!(!pack_due(0, 1000, PACK_EVERY, held(0)));
        // A tenth of the notes held at least: a large store waits for more.
        assert!(!pack_due(1000, 1000, soon, held(1_000_000)));
        assert!(!pack_due(5, 1000, PACK_EVERY, held(100)));
        assert!(pack_due(100_000, 1000, soon, held(1_000_000)));
        // The notes held are counted only when the versions are enough.
        assert!(!pack_due(10, 1000, soon, || unreachable!()));
    }
}
