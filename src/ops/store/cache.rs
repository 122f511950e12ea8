//! The caches of the note store, each keyed by file identity (inode, size, modification
//! and change times): the list (`list::ListState`, kept valid by the watch of the
//! notes folder, or by the fingerprint of the files it was made from); the parsed head
//! of a note read, so reading an unchanged note skips the YAML; and the bytes of
//! recently read notes (with what a caller made of them), so a hot note costs an open
//! and a `stat`. A file changed by anything (the service, an editor, a `git pull`) is
//! read again on the next request.
//!
//! A change within one tick of the file system's clock that keeps the size leaves the
//! identity as it was, so a version is cached only once it has settled (last changed
//! over a second ago): any later change then gets a newer change time. This is the
//! rule git uses for "racily clean" index entries.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use std::sync::Arc;

use super::list::ListState;
use crate::ops::front_matter::FrontMatter;
use crate::ops::ids::FileId;
use crate::ops::model::Note;
use crate::ops::path::NotePath;

/// Bytes of parsed heads remembered at once; past it the memory starts over.
const HEAD_BUDGET: usize = 4 << 20;
/// Bytes of note versions (text and JSON) kept for hot reads.
const VERSION_BUDGET: usize = 8 << 20;
/// Largest note whose version is kept.
const MAX_VERSION_LEN: usize = 256 << 10;
/// What a read takes from parsing a note version: everything of the NoteResponse but
/// the text itself, and where the body starts in it.
#[derive(Debug)]
pub(crate) struct Head {
    title: String,
    front_matter: Option<FrontMatter>,
    last_modified: String,
    body_start: usize,
}

impl Head {
    /// What this head holds in memory, its strings and their places.
    fn weight(&self) -> usize {
        let strings = self.title.len()
            + self.last_modified.len()
            + self.front_matter.as_ref().map_or(0, |f| {
                f.title.len()
                    + f.date.len()
                    + f.last_modified.len()
                    + f.tags.iter().map(|t| t.len() + 24).sum::<usize>()
            });
        std::mem::size_of::<Self>() + strings + 64
    }

    /// The head of `note`, read from `text`; its body is always a suffix of the text.
    pub(crate) fn of(note: &Note, text: &str) -> Self {
        Head {
            title: note.title.clone(),
            front_matter: note.front_matter.clone(),
            last_modified: note.last_modified.clone(),
            body_start: text.len() - note.body.len(),
        }
    }

    /// The NoteResponse of `text`, the same version of the file this head was made from.
    pub(crate) fn note(&self, path: &NotePath, text: &str, size: u64) -> Option<Note> {
        Some(Note {
            path: path.to_string(),
            title: self.title.clone(),
            content: text.to_string(),
            body: text.get(self.body_start..)?.to_string(),
            front_matter: self.front_matter.clone(),
            last_modified: self.last_modified.clone(),
            size,
            etag: String::new(),
        })
    }
}

/// A map by note path. Every request looks one up, so it hashes with foldhash (seeded
/// per process) rather than SipHash: several times faster on short keys. Its keys are
/// the paths of notes read, not any path a client sends.
type PathMap<V> = HashMap<String, V, foldhash::fast::RandomState>;

/// Every cache of the store. The list holds one entry per note (no copy elsewhere);
/// heads and versions by byte budgets.
#[derive(Default)]
pub(crate) struct Caches {
    /// The list, and how it is kept valid. Held while a list is brought up to date.
    pub(super) list: Mutex<ListState>,
    /// Parsed heads of note versions read, by note path.
    heads: Mutex<Heads>,
    /// Hot note versions, by note path.
    versions: Mutex<Versions>,
}

/// One version of a note's file as read: its bytes, their entity tag, and what a
/// caller made of it (the API's JSON NoteResponse) once it made it.
#[derive(Debug)]
pub(crate) struct Version {
    pub(crate) id: FileId,
    pub(crate) bytes: bytes::Bytes,
    /// The entity tag, shared so a response header can take it without a copy.
    pub(crate) etag: bytes::Bytes,
    pub(crate) rendered: std::sync::OnceLock<bytes::Bytes>,
}

impl Version {
    pub(crate) fn new(id: FileId, bytes: Vec<u8>) -> Self {
        Version {
            id,
            etag: crate::ops::model::etag(&bytes).into(),
            bytes: bytes.into(),
            rendered: std::sync::OnceLock::new(),
        }
    }

    /// What this version holds in memory, its rendering counted as twice its text.
    fn weight(&self) -> usize {
        self.bytes.len() * 3
    }
}

#[derive(Default)]
struct Heads {
    by_path: PathMap<(FileId, Arc<Head>)>,
    weight: usize,
}

#[derive(Default)]
struct Versions {
    by_path: PathMap<Arc<Version>>,
    weight: usize,
}

impl Caches {
    /// The parsed head of `path` when the file is still the version it was read from.
    pub(crate) fn head(&self, path: &str, id: FileId) -> Option<Arc<Head>> {
        let heads = self.heads.lock().unwrap_or_else(PoisonError::into_inner);
        match heads.by_path.get(path) {
            Some((cached, head)) if *cached == id => Some(head.clone()),
            _ => None,
        }
    }

    /// Keeps the parsed head of a settled file version.
    pub(crate) fn put_head(&self, path: &str, id: FileId, head: Head) {
        if !id.settled() {
            return;
        }
        let weight = head.weight() + path.len();
        let mut heads = self.heads.lock().unwrap_or_else(PoisonError::into_inner);
        if heads.weight + weight > HEAD_BUDGET {
            heads.by_path.clear();
            heads.weight = 0;
        }
        heads.weight += weight;
        if let Some((_, old)) = heads.by_path.insert(path.to_string(), (id, Arc::new(head))) {
            heads.weight = heads.weight.saturating_sub(old.weight() + path.len());
        }
    }

    /// The kept version of `path`, whatever the file is now.
    pub(crate) fn version(&self, path: &str) -> Option<Arc<Version>> {
        let versions = self.versions.lock().unwrap_or_else(PoisonError::into_inner);
        versions.by_path.get(path).cloned()
    }

    /// Keeps `version` of `path` for the next reads when it is small and settled;
    /// older versions of other notes make room for it, in no particular order.
    pub(crate) fn put_version(&self, path: &str, version: &Arc<Version>) {
        if version.bytes.len() > MAX_VERSION_LEN || !version.id.settled() {
            return;
        }
        let mut versions = self.versions.lock().unwrap_or_else(PoisonError::into_inner);
        let versions = &mut *versions;
        if let Some(old) = versions.by_path.remove(path) {
            versions.weight -= old.weight();
        }
        while versions.weight + version.weight() > VERSION_BUDGET {
            let Some(victim) = versions.by_path.keys().next().cloned() else {
                break;
            };
            if let Some(old) = versions.by_path.remove(&victim) {
                versions.weight -= old.weight();
            }
        }
        versions.weight += version.weight();
        versions.by_path.insert(path.to_string(), version.clone());
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A file version of `len` bytes at `inode`, last changed `age` seconds ago.
    fn id(inode: u64, len: u64, age: i64) -> FileId {
        FileId::for_tests(inode, len, age)
    }

    #[test]
    fn a_version_is_settled_a_second_after_its_last_change() {
        assert!(id(1, 1, 5).settled());
        assert!(!id(1, 1, 0).settled());
        // A change time in the future (a clock set back) is never trusted.
        assert!(!id(1, 1, -60).settled());
    }

    #[test]
    fn unsettled_versions_are_not_kept() {
        let caches = Caches::default();
        let fresh = id(1, 4, 0);
        let note = crate::ops::store::note_of(
            &NotePath::parse("a.md").unwrap(),
            "---\ntitle: T\n---\nbody",
            22,
        );
        caches.put_head("a.md", fresh, Head::of(&note, "---\ntitle: T\n---\nbody"));
        assert!(caches.head("a.md", fresh).is_none());
        caches.put_version("a.md", &Arc::new(Version::new(fresh, b"abcd".to_vec())));
        assert!(caches.version("a.md").is_none());
    }

    #[test]
    fn heads_are_bounded_in_bytes() {
        let caches = Caches::default();
        let text = format!("---\ntitle: {}\ntags: [a, b]\n---\nbody", "t".repeat(200));
        let path = NotePath::parse("a.md").unwrap();
        let note = crate::ops::store::note_of(&path, &text, text.len() as u64);
        let one = Head::of(&note, &text).weight();
        let count = HEAD_BUDGET / one + 10;
        for n in 0..count {
            let name = format!("n{n}.md");
            caches.put_head(&name, id(n as u64, 1, 5), Head::of(&note, &text));
            // The same note again replaces its head, without counting it twice.
            caches.put_head(&name, id(n as u64, 1, 5), Head::of(&note, &text));
        }
        let heads = caches.heads.lock().unwrap();
        assert!(heads.weight <= HEAD_BUDGET);
        assert!(heads.by_path.len() < count);
        assert_eq!(
            heads.weight,
            heads
                .by_path
                .iter()
                .map(|(path, (_, head))| head.weight() + path.len())
                .sum::<usize>()
        );
    }

    #[test]
    fn heads_hold_for_their_version_only() {
        let caches = Caches::default();
        let text = "---\ntitle: T\n---\nbody";
        let path = NotePath::parse("a.md").unwrap();
        let note = crate::ops::store::note_of(&path, text, text.len() as u64);
        let v1 = id(1, text.len() as u64, 5);
        caches.put_head("a.md", v1, Head::of(&note, text));
        let head = caches.head("a.md", v1).unwrap();
        let again = head.note(&path, text, text.len() as u64).unwrap();
        assert_eq!((again.title.as_str(), again.body.as_str()), ("T", "body"));
        assert!(caches.head("a.md", id(2, text.len() as u64, 5)).is_none());
    }

    #[test]
    fn versions_are_replaced_and_bounded() {
        let caches = Caches::default();
        let v1 = Arc::new(Version::new(id(1, 3, 5), b"one".to_vec()));
        caches.put_version("a.md", &v1);
        assert!(Arc::ptr_eq(&caches.version("a.md").unwrap(), &v1));
        let v2 = Arc::new(Version::new(id(2, 3, 5), b"two".to_vec()));
        caches.put_version("a.md", &v2);
        assert!(Arc::ptr_eq(&caches.version("a.md").unwrap(), &v2));
        // Too large to keep.
        let big = vec![b'x'; MAX_VERSION_LEN + 1];
        caches.put_version(
            "big.md",
            &Arc::new(Version::new(id(3, big.len() as u64, 5), big)),
        );
        assert!(caches.version("big.md").is_none());
        // Past the budget, older versions make room; the weight never exceeds it.
        let chunk = vec![b'y'; MAX_VERSION_LEN];
        let count = VERSION_BUDGET / (MAX_VERSION_LEN * 3) + 4;
        for n in 0..count {
            let version = Version::new(id(10 + n as u64, chunk.len() as u64, 5), chunk.clone());
            caches.put_version(&format!("n{n}.md"), &Arc::new(version));
        }
        let versions = caches.versions.lock().unwrap();
        assert!(versions.weight <= VERSION_BUDGET);
        assert!(versions.by_path.len() < count + 1);
        assert_eq!(
            versions.weight,
            versions.by_path.values().map(|v| v.weight()).sum::<usize>()
        );
    }
}
