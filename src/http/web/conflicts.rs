//! Saves refused because the note changed after the editor opened it. The text that
//! was not saved is kept here, in memory, under a random id, and the save answers 303
//! to `/edit/<path>?conflict=<id>`: that page shows the text in the editor, what it
//! would change in the current version, a link to the current version, and saves it
//! over the current version on purpose. The page is a GET, so reloading it is
//! harmless. A kept text lives [`KEPT_FOR`] at most; at most [`MAX_TEXTS`] texts and
//! [`MAX_BYTES`] bytes are kept (the oldest go first); a restart forgets them.

use std::collections::VecDeque;
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a refused text is kept.
pub(super) const KEPT_FOR: Duration = Duration::from_secs(3600);
/// The most texts kept at once.
pub(super) const MAX_TEXTS: usize = 32;
/// The most bytes of text kept at once.
pub(super) const MAX_BYTES: usize = 32 * 1024 * 1024;

/// What the conflict page says above the editor.
pub(super) const MESSAGE: &str = "This note was changed elsewhere after you opened it, so \
     your text was not saved. It is kept below. See what it would change in the current \
     version, then save it over the current version, or open the current version.";
/// What the editor says when the kept text is gone.
pub(super) const GONE: &str = "The text of that refused save is no longer kept (an hour \
     passed, or the server restarted). This is the current version of the note.";

/// The editor's fields of a refused save.
#[derive(Debug, Clone, Default)]
pub(super) struct Draft {
    pub(super) path: String,
    pub(super) title: String,
    pub(super) tags: String,
    pub(super) body: String,
}

impl Draft {
    fn bytes(&self) -> usize {
        self.path.len() + self.title.len() + self.tags.len() + self.body.len()
    }
}

struct Kept {
    id: String,
    at: Instant,
    draft: Draft,
}

static KEPT: LazyLock<Mutex<VecDeque<Kept>>> = LazyLock::new(|| Mutex::new(VecDeque::new()));

/// Keeps `draft`; its id. `None` when it is too large to keep, or no random id can be
/// made.
pub(super) fn keep(draft: Draft) -> Option<String> {
    if draft.bytes() > MAX_BYTES {
        return None;
    }
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).ok()?;
    let id = crate::ops::tokens::to_hex(&random);
    let now = Instant::now();
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    kept.retain(|k| now.duration_since(k.at) < KEPT_FOR);
    let mut total: usize = kept.iter().map(|k| k.draft.bytes()).sum();
    while !kept.is_empty() && (kept.len() >= MAX_TEXTS || total + draft.bytes() > MAX_BYTES) {
        if let Some(oldest) = kept.pop_front() {
            total -= oldest.draft.bytes();
        }
    }
    kept.push_back(Kept {
        id: id.clone(),
        at: now,
        draft,
    });
    Some(id)
}

/// The text kept under `id` for the note at `path`, if it is still kept.
pub(super) fn find(id: &str, path: &str) -> Option<Draft> {
    let now = Instant::now();
    let kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    kept.iter()
        .find(|k| k.id == id && k.draft.path == path && now.duration_since(k.at) < KEPT_FOR)
        .map(|k| k.draft.clone())
}

/// Drops the text kept under `id` (it was saved).
pub(super) fn forget(id: &str) {
    if id.is_empty() {
        return;
    }
    KEPT.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|k| k.id != id);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(path: &str, body: &str) -> Draft {
        Draft {
            path: path.into(),
            body: body.into(),
            ..Draft::default()
        }
    }

    #[test]
    fn a_kept_text_is_found_by_its_id_and_path_until_forgotten_or_pushed_out() {
        let id = keep(draft("a.md", "mine")).unwrap();
        assert_eq!(id.len(), 32);
        assert_eq!(find(&id, "a.md").unwrap().body, "mine");
        assert!(find(&id, "b.md").is_none());
        assert!(find("0000", "a.md").is_none());
        forget(&id);
        assert!(find(&id, "a.md").is_none());
        // One test: the store is the process's, shared by tests that run at once.
        let first = keep(draft("first.md", "x")).unwrap();
        for _ in 0..MAX_TEXTS {
            keep(draft("other.md", "y")).unwrap();
        }
        assert!(find(&first, "first.md").is_none());
        assert!(keep(draft("big.md", &"z".repeat(MAX_BYTES + 1))).is_none());
    }
}
