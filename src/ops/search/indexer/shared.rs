//! The index searches read from, shared by every request and replaced by the indexer
//! when it reopens or rebuilds it; a search reports damage to it.

use super::*;

/// The index searches read from; replaced by the indexer when it reopens or rebuilds
/// the index.
#[derive(Clone, Default)]
pub struct SharedIndex(pub(super) Arc<Shared>);

#[derive(Default)]
pub(super) struct Shared {
    slot: RwLock<Slot>,
    /// The indexer's queue, where a search reports a damaged index.
    pub(super) indexer: Mutex<Option<Sender<Message>>>,
}

#[derive(Default)]
pub(super) enum Slot {
    /// Not open: the first open failed for a reason other than damage (logged by the
    /// indexer, which retries).
    #[default]
    Closed,
    /// Boxed: an index handle is a few hundred bytes, the other states none.
    Ready(Box<NotesIndex>),
    /// Damaged and being rebuilt by the indexer.
    Rebuilding,
}

impl SharedIndex {
    /// Opens the index of `notes_dir` for searches; a damaged one reads as being rebuilt
    /// (the indexer's first pass rebuilds it).
    pub(crate) fn open(notes_dir: &Path) -> SharedIndex {
        let shared = SharedIndex::default();
        match NotesIndex::open_or_create(notes_dir) {
            Ok(index) => shared.set(index),
            Err(Error::IndexBroken(_)) => shared.put(Slot::Rebuilding),
            Err(_) => {}
        }
        shared
    }

    /// The current index, or why there is none.
    pub(crate) fn get(&self) -> Result<NotesIndex> {
        match &*self.0.slot.read().unwrap_or_else(PoisonError::into_inner) {
            Slot::Ready(index) => Ok(NotesIndex::clone(index)),
            Slot::Rebuilding => Err(Error::IndexRebuilding),
            Slot::Closed => Err(Error::Index(
                "the search index cannot be opened (the server log says why)".into(),
            )),
        }
    }

    pub(crate) fn set(&self, index: NotesIndex) {
        self.put(Slot::Ready(Box::new(index)));
    }

    pub(super) fn put(&self, slot: Slot) {
        *self.0.slot.write().unwrap_or_else(PoisonError::into_inner) = slot;
    }

    /// Marks `index` as damaged, unless it was replaced meanwhile, and asks the indexer
    /// to rebuild it; searches answer `IndexRebuilding` meanwhile.
    pub(crate) fn mark_damaged(&self, index: &NotesIndex, why: String) {
        {
            let mut slot = self.0.slot.write().unwrap_or_else(PoisonError::into_inner);
            match &*slot {
                Slot::Ready(current) if current.id == index.id => *slot = Slot::Rebuilding,
                _ => return,
            }
        }
        let queue = self
            .0
            .indexer
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(queue) = queue.as_ref() {
            let _ = queue.send(Message::Heal(why));
        }
    }

    /// Asks the indexer to apply what it was told before now, and waits for its answer
    /// for at most `SETTLE_WAIT` (a failing or busy indexer does not hold a request up
    /// longer; the answer is then what the index holds).
    pub(crate) fn settle(&self) {
        let (reply, answer) = mpsc::channel();
        {
            let queue = self
                .0
                .indexer
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let Some(queue) = queue.as_ref() else { return };
            if queue.send(Message::Flush(reply)).is_err() {
                return;
            }
        }
        let _ = answer.recv_timeout(SETTLE_WAIT);
    }
}
