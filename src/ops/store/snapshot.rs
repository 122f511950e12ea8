//! The list as kept between requests: the entries sorted by path, the identity each
//! was read from, and what callers make of one list once (its JSON, its link resolver,
//! its order by recency and by tag); replaced, never changed, when a note changes.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use crate::ops::ids::FileId;
use crate::ops::links::LinkCache;
use crate::ops::model::{NoteList, NoteMeta};

/// A list of the notes, shared by every request made while no note file changed.
#[derive(Debug, Clone)]
pub(crate) struct ListSnapshot {
    pub(crate) list: Arc<NoteList>,
    /// The identity of each entry's file when it was read, when it had settled (so a
    /// re-scan may take the entry again for a file of the same identity).
    ids: Arc<Vec<Option<FileId>>>,
    /// Where a caller keeps what it made of this list (the API keeps its JSON when it
    /// is small), made once per list.
    pub(crate) rendered: Arc<OnceLock<bytes::Bytes>>,
    /// What the links of these notes make (their resolver, the attachments they may
    /// name), made once per list, when first asked for (`ops::links`).
    pub(crate) links: Arc<LinkCache>,
    order: Arc<OnceLock<ListOrder>>,
    /// The listed notes whose own name is a symlink, sorted: a token limited to a
    /// folder sees one only when it leads into that folder (`ops::tokens::reach`).
    linked: Arc<Vec<String>>,
}

/// A note's list entry and the identity of its file when it had settled.
pub(crate) type Listed = (NoteMeta, Option<FileId>);

/// The notes in the order the web interface shows them, made once per list, so a page
/// costs what it shows.
#[derive(Debug, Default)]
pub(crate) struct ListOrder {
    /// Indices into the list, most recently changed first (by `lastModified`; notes
    /// without a readable stamp last, in path order).
    pub(crate) recent: Vec<u32>,
    /// For each tag, the indices of its notes in the order of `recent`.
    pub(crate) tags: BTreeMap<String, Vec<u32>>,
}

impl ListSnapshot {
    pub(crate) fn new(list: NoteList, ids: Vec<Option<FileId>>) -> Self {
        debug_assert_eq!(list.notes.len(), ids.len());
        ListSnapshot {
            list: Arc::new(list),
            ids: Arc::new(ids),
            rendered: Arc::default(),
            links: Arc::default(),
            order: Arc::default(),
            linked: Arc::default(),
        }
    }

    /// This list, knowing which of its notes are symlinks.
    pub(crate) fn with_linked(mut self, mut linked: Vec<String>) -> Self {
        linked.sort();
        linked.dedup();
        self.linked = Arc::new(linked);
        self
    }

    /// The listed notes whose own name is a symlink, sorted.
    pub(crate) fn linked(&self) -> &[String] {
        &self.linked
    }

    /// The entry kept for `path` when its file still has the identity `id`.
    pub(crate) fn entry(&self, path: &str, id: FileId) -> Option<&NoteMeta> {
        let at = self.position(path).ok()?;
        (self.ids[at] == Some(id)).then(|| &self.list.notes[at])
    }

    /// The entry of `path`, whatever its file's identity.
    pub(crate) fn meta(&self, path: &str) -> Option<&NoteMeta> {
        self.position(path).ok().map(|at| &self.list.notes[at])
    }

    /// Where `path` is in the list, or where it would go.
    fn position(&self, path: &str) -> std::result::Result<usize, usize> {
        self.list
            .notes
            .binary_search_by(|note| note.path.as_str().cmp(path))
    }

    /// The order of the web interface's pages, made on first use.
    pub(crate) fn order(&self) -> &ListOrder {
        self.order.get_or_init(|| ListOrder::of(&self.list.notes))
    }

    /// This list with the entries of `changed` (sorted by path) replaced: `Some` is the
    /// note's entry now, `None` a note that is gone. The entries are moved, not
    /// copied, when no one else holds this list.
    pub(crate) fn patched(self, changed: Vec<(String, Option<Listed>)>) -> Self {
        let linked = self.linked.clone();
        let links = Arc::new(self.links.next());
        let notes = Arc::unwrap_or_clone(self.list).notes;
        let ids = Arc::unwrap_or_clone(self.ids);
        let mut out_notes = Vec::with_capacity(notes.len() + changed.len());
        let mut out_ids = Vec::with_capacity(notes.len() + changed.len());
        let mut old = notes.into_iter().zip(ids).peekable();
        for (path, now) in changed {
            while let Some((note, id)) = old.next_if(|(note, _)| note.path.as_str() < path.as_str())
            {
                out_notes.push(note);
                out_ids.push(id);
            }
            // The old entry of this path, if any, is replaced.
            old.next_if(|(note, _)| note.path.as_str() == path.as_str());
            if let Some((note, id)) = now {
                out_notes.push(note);
                out_ids.push(id);
            }
        }
        for (note, id) in old {
            out_notes.push(note);
            out_ids.push(id);
        }
        let mut patched = ListSnapshot::new(
            NoteList {
                total: out_notes.len(),
                notes: out_notes,
            },
            out_ids,
        );
        patched.linked = linked;
        patched.links = links;
        patched
    }

    /// This list, with the attachments listed again when next asked for (one was
    /// added, removed or renamed).
    pub(crate) fn with_files_changed(mut self) -> Self {
        self.links = Arc::default();
        self
    }
}

impl NoteList {
    /// The notes after `after` (a path; from the first when `None`), at most `limit`
    /// (the list is in path order).
    pub(crate) fn page_after(&self, after: Option<&str>, limit: usize) -> &[NoteMeta] {
        let notes = &self.notes;
        let start = after.map_or(0, |after| {
            notes.partition_point(|note| note.path.as_str() <= after)
        });
        &notes[start..notes.len().min(start.saturating_add(limit))]
    }
}

impl ListOrder {
    fn of(notes: &[NoteMeta]) -> Self {
        let mut recent: Vec<u32> = (0..notes.len() as u32).collect();
        // Stable: notes of the same stamp stay in path order.
        recent.sort_by_cached_key(|&at| recency(&notes[at as usize]));
        let mut tags: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        let mut filed: Vec<&str> = Vec::new();
        for &at in &recent {
            notes[at as usize].filed_tags(&mut filed);
            for &tag in &filed {
                match tags.get_mut(tag) {
                    Some(list) => list.push(at),
                    None => {
                        tags.insert(tag.to_string(), vec![at]);
                    }
                }
            }
        }
        ListOrder { recent, tags }
    }
}

/// Sort key of a `DD-MM-YYYY:HH:MM` stamp: newest first; unreadable stamps last.
fn recency(note: &NoteMeta) -> std::cmp::Reverse<Option<chrono::NaiveDateTime>> {
    std::cmp::Reverse(note.changed_at())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn meta(path: &str, stamp: &str, tags: &[&str]) -> NoteMeta {
        NoteMeta {
            path: path.into(),
            title: path.into(),
            tags: tags.iter().map(|&t| t.into()).collect(),
            last_modified: stamp.into(),
            date: Default::default(),
            size: 1,
            modified: 0,
            body_tags: Box::default(),
            aliases: Vec::new(),
        }
    }

    fn snapshot(notes: Vec<NoteMeta>) -> ListSnapshot {
        let ids = (0..notes.len() as u64)
            .map(|n| Some(FileId::for_tests(n + 1, 1, 5)))
            .collect();
        ListSnapshot::new(
            NoteList {
                total: notes.len(),
                notes,
            },
            ids,
        )
    }

    fn paths(snapshot: &ListSnapshot) -> Vec<&str> {
        snapshot
            .list
            .notes
            .iter()
            .map(|n| n.path.as_str())
            .collect()
    }

    #[test]
    fn a_patch_replaces_adds_and_removes_in_path_order() {
        let old = snapshot(vec![
            meta("a.md", "", &[]),
            meta("c.md", "", &[]),
            meta("e.md", "", &[]),
        ]);
        let new = old.patched(vec![
            ("0.md".into(), Some((meta("0.md", "", &[]), None))),
            ("c.md".into(), None),
            ("d.md".into(), Some((meta("d.md", "", &["x"]), None))),
            ("e.md".into(), Some((meta("e.md", "", &["y"]), None))),
            ("z.md".into(), None),
        ]);
        assert_eq!(paths(&new), ["0.md", "a.md", "d.md", "e.md"]);
        assert_eq!(new.list.total, 4);
        assert_eq!(new.list.notes[3].tags, ["y"]);
        // The untouched entry keeps its identity; the new ones have none to reuse.
        assert!(new.entry("a.md", FileId::for_tests(1, 1, 5)).is_some());
        assert!(new.entry("e.md", FileId::for_tests(3, 1, 5)).is_none());
    }

    #[test]
    fn an_entry_is_reused_only_for_the_same_file_identity() {
        let list = snapshot(vec![meta("a.md", "", &[]), meta("b.md", "", &[])]);
        assert!(list.entry("b.md", FileId::for_tests(2, 1, 5)).is_some());
        assert!(list.entry("b.md", FileId::for_tests(2, 2, 5)).is_none());
        assert!(list.entry("c.md", FileId::for_tests(2, 1, 5)).is_none());
    }

    #[test]
    fn the_order_is_newest_first_and_by_tag() {
        let list = snapshot(vec![
            meta("a.md", "01-01-2024:10:00", &["x"]),
            meta("b.md", "", &["x", "y"]),
            meta("c.md", "02-01-2024:10:00", &["y"]),
            meta("d.md", "garbled", &[]),
        ]);
        let order = list.order();
        assert_eq!(order.recent, [2, 0, 1, 3]);
        assert_eq!(order.tags["x"], [0, 1]);
        assert_eq!(order.tags["y"], [2, 1]);
        assert_eq!(order.tags.len(), 2);
    }

    #[test]
    fn pages_follow_the_cursor() {
        let list = snapshot(vec![
            meta("a.md", "", &[]),
            meta("b/c.md", "", &[]),
            meta("d.md", "", &[]),
        ]);
        let page = |after, limit| -> Vec<String> {
            list.list
                .page_after(after, limit)
                .iter()
                .map(|n| n.path.to_string())
                .collect()
        };
        assert_eq!(page(None, 2), ["a.md", "b/c.md"]);
        assert_eq!(page(Some("b/c.md"), 2), ["d.md"]);
        // A cursor that is no note's path still starts after it.
        assert_eq!(page(Some("b"), 5), ["b/c.md", "d.md"]);
        assert!(page(Some("d.md"), 5).is_empty());
    }
}
