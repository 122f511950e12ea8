//! `serve --sync-every`: a sync at the start, then on that period, and soon after a
//! burst of writes settles. A failure is logged once until the outcome changes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::ops::Notebook;

/// How often the loop looks at the write count.
const TICK: Duration = Duration::from_millis(250);
/// Quiet after the last write before a sync.
const SETTLE: Duration = Duration::from_secs(2);

/// Syncs `notebook` every `every`, and `SETTLE` after the writes `writes` counts stop;
/// runs for the life of the process.
pub(crate) fn keep_in_sync(notebook: &Notebook, every: Duration, writes: &AtomicU64) {
    let mut seen = writes.load(Ordering::Relaxed);
    let mut written_at: Option<Instant> = None;
    let mut synced_at: Option<Instant> = None;
    let mut last_error: Option<String> = None;
    loop {
        let count = writes.load(Ordering::Relaxed);
        if count != seen {
            seen = count;
            written_at = Some(Instant::now());
        }
        let settled = written_at.is_some_and(|at| at.elapsed() >= SETTLE);
        let due = synced_at.is_none_or(|at| at.elapsed() >= every);
        if settled || due {
            let before = writes.load(Ordering::Relaxed);
            let error = notebook.sync().err().map(|e| e.to_string());
            match (&error, &last_error) {
                (Some(now), before) if before.as_ref() != Some(now) => {
                    crate::log::warn(&format!("sync: {}", super::redact(now)));
                }
                (None, Some(_)) => crate::log::info("sync: working again"),
                _ => {}
            }
            last_error = error;
            synced_at = Some(Instant::now());
            written_at = None;
            // Writes made during the sync (its own among them) are synced once they
            // settle.
            seen = before;
        }
        std::thread::sleep(TICK);
    }
}
