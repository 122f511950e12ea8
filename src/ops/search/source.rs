//! Where a notebook's searches and links find the index: the server's, kept current by
//! its background indexer, or, in a command, the folder's own index brought up to date
//! with the files before each use. When another process (a running `serve`) holds the
//! index's writer, the command waits for it to catch up instead of writing.

use std::path::Path;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use super::indexer::SharedIndex;
use super::updater::{self, IndexUpdater};
use super::{NotesIndex, heal};
use crate::error::{Error, Result};
use crate::ops::Notebook;

/// Told of a catch-up's progress: notes done, notes in all.
pub(crate) type ProgressHook = Box<dyn FnMut(usize, usize) + Send>;

/// How long a command waits for the owner of the index to index one more note before
/// it reads the index as it is (a server commits every 2,000 notes of a long pass).
const OWNER_STALL: Duration = Duration::from_secs(10);
/// The longest a command waits for the owner in all.
const OWNER_WAIT: Duration = Duration::from_secs(600);
/// Between two looks at the owner's progress.
const OWNER_POLL: Duration = Duration::from_millis(100);

/// The notebook's index: the server's once `serve_index` named it, else the folder's
/// own, opened and caught up on each use.
#[derive(Default)]
pub(crate) struct IndexSlot {
    served: OnceLock<SharedIndex>,
    progress: Mutex<Option<ProgressHook>>,
}

impl Notebook {
    /// Has searches and links read `shared`, which the server's indexer keeps current.
    pub(crate) fn serve_index(&self, shared: SharedIndex) {
        let _ = self.index.served.set(shared);
    }

    /// Has a command's catch-ups report their progress to `hook` (a terminal's bar).
    pub(crate) fn on_index_progress(&self, hook: ProgressHook) {
        *self
            .index
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(hook);
    }

    /// Waits (briefly) until the server's index holds the writes made so far; a
    /// command's index is caught up when it is read, so it has nothing to wait for.
    pub(crate) fn settle_index(&self) {
        if let Some(shared) = self.index.served.get() {
            shared.settle();
        }
    }

    /// The index to read now, or why there is none (being rebuilt, cannot be opened).
    pub(crate) fn current_index(&self) -> Result<NotesIndex> {
        match self.index.served.get() {
            Some(shared) => shared.get(),
            None => self.caught_up(),
        }
    }

    /// `index` turned out damaged (`why`): the index to ask once more, or the error to
    /// answer. The server's indexer rebuilds in the background; a command moves the
    /// index aside and rebuilds it on the spot.
    pub(crate) fn damaged_index(&self, index: &NotesIndex, why: String) -> Result<NotesIndex> {
        if let Some(shared) = self.index.served.get() {
            shared.mark_damaged(index, why);
            return Err(Error::IndexRebuilding);
        }
        let moved = heal::move_aside(self.notes_dir())?;
        report_rebuild(&why, moved.as_deref());
        self.caught_up()
    }

    /// The folder's index, brought up to date with the files: by this process when it
    /// can take the writer, else by its owner, waited for (see `wait_for_owner`).
    fn caught_up(&self) -> Result<NotesIndex> {
        let dir = self.notes_dir();
        let (index, moved) = NotesIndex::open_or_heal(dir)?;
        if let Some(moved) = &moved {
            report_rebuild("it could not be opened", Some(moved));
        }
        let mut hook = self
            .index
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut progress = |done, total| {
            if let Some(hook) = hook.as_mut() {
                hook(done, total);
            }
        };
        match IndexUpdater::new(index.clone(), dir) {
            Ok(mut updater) => {
                updater.catch_up(&mut progress)?;
                // The merges a long catch-up started finish before the writer goes.
                updater.finish()?;
                Ok(index)
            }
            Err(Error::IndexOwned) => {
                wait_for_owner(&index, dir, &mut progress)?;
                Ok(index)
            }
            Err(err) => Err(err),
        }
    }
}

/// Reads `index` again until it holds every note as the files are, while its owner
/// (a running server) makes progress: the answer is then the one the server gives.
/// An owner that stalls (failing, or rebuilding in one commit) leaves the index read
/// as it is, and one log line says so.
fn wait_for_owner(
    index: &NotesIndex,
    notes_dir: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<()> {
    let started = Instant::now();
    let mut best = usize::MAX;
    let mut gained = started;
    loop {
        index
            .reader
            .reload()
            .map_err(|e| super::columns::classified("cannot reload the index", &e))?;
        let (behind, total) = updater::behind(index, notes_dir)?;
        if behind == 0 {
            return Ok(());
        }
        progress(total.saturating_sub(behind), total);
        if behind < best {
            best = behind;
            gained = Instant::now();
        } else if gained.elapsed() >= OWNER_STALL || started.elapsed() >= OWNER_WAIT {
            crate::log::warn(&format!(
                "search: the index lacks {behind} of the {total} notes and the process that \
                 owns it (a running `notes serve`) has not caught up; read as it is"
            ));
            return Ok(());
        }
        std::thread::sleep(OWNER_POLL);
    }
}

/// One log line: the index was damaged and is rebuilt here.
fn report_rebuild(why: &str, moved: Option<&Path>) {
    crate::log::warn(&format!(
        "search: the index was damaged ({why}); moved it to {} and rebuilt it",
        moved.map_or_else(
            || "nowhere (it was gone)".into(),
            |p| p.display().to_string()
        )
    ));
}
