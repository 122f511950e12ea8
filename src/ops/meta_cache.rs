//! Caches keyed by file identity (inode, size, modification and change times): a
//! note's list entry, so a warm list costs one `stat` per note; the parsed head of a
//! note read, so reading an unchanged note skips the YAML; and the bytes and JSON of
//! recently read notes, so a hot note costs an open and a `stat`. A file changed by
//! anything (the service, an editor, a `git pull`) is read again on the next request.
//!
//! A change within one tick of the file system's clock that keeps the size leaves the
//! identity as it was, so a version is cached only once it has settled (last changed
//! over a second ago): any later change then gets a newer change time. This is the
//! rule git uses for "racily clean" index entries.

use std::collections::HashMap;
use std::fs::Metadata;
use std::sync::{Mutex, PoisonError};

use std::sync::Arc;

use super::front_matter::FrontMatter;
use super::model::{Note, NoteMeta};
use super::path::NotePath;

/// Most note reads remembered at once; past it the memory starts over.
const MAX_HEADS: usize = 50_000;
/// Bytes of note versions (text and JSON) kept for hot reads.
const VERSION_BUDGET: usize = 8 << 20;
/// Largest note whose version is kept.
const MAX_VERSION_LEN: usize = 256 << 10;
/// How long after its last change a file version is trusted to be told apart from
/// the next one by its identity.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(1);

/// What a read takes from parsing a note version: everything of the NoteResponse but
/// the text itself, and where the body starts in it.
#[derive(Debug)]
pub struct Head {
    title: String,
    front_matter: Option<FrontMatter>,
    last_modified: String,
    body_start: usize,
}

impl Head {
    /// The head of `note`, read from `text`; its body is always a suffix of the text.
    pub fn of(note: &Note, text: &str) -> Self {
        Head {
            title: note.title.clone(),
            front_matter: note.front_matter.clone(),
            last_modified: note.last_modified.clone(),
            body_start: text.len() - note.body.len(),
        }
    }

    /// The NoteResponse of `text`, the same version of the file this head was made from.
    pub fn note(&self, path: &NotePath, text: &str, size: u64) -> Option<Note> {
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

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    len: u64,
    #[cfg(not(unix))]
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    device: u64,
    #[cfg(unix)]
    inode: u64,
    #[cfg(unix)]
    modified: (i64, i64),
    #[cfg(unix)]
    changed: (i64, i64),
}

impl FileId {
    /// Whether this version last changed long enough ago that any later change shows
    /// in the identity (see the module's notes).
    pub fn settled(&self) -> bool {
        #[cfg(unix)]
        {
            let (secs, nanos) = self.changed;
            let Ok(secs) = u64::try_from(secs) else {
                return false;
            };
            let changed = std::time::UNIX_EPOCH
                + std::time::Duration::new(secs, u32::try_from(nanos).unwrap_or(0));
            std::time::SystemTime::now()
                .duration_since(changed)
                .is_ok_and(|age| age >= SETTLE)
        }
        #[cfg(not(unix))]
        false
    }

    pub fn of(meta: &Metadata) -> Self {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        FileId {
            len: meta.len(),
            #[cfg(not(unix))]
            modified: meta.modified().ok(),
            #[cfg(unix)]
            device: meta.dev(),
            #[cfg(unix)]
            inode: meta.ino(),
            #[cfg(unix)]
            modified: (meta.mtime(), meta.mtime_nsec()),
            #[cfg(unix)]
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// The identity in a `stat` result, equal to `of` the same file's metadata.
    #[cfg(target_os = "linux")]
    pub fn of_stat(stat: &rustix::fs::Stat) -> Self {
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        FileId {
            len: stat.st_size as u64,
            device: stat.st_dev as u64,
            inode: stat.st_ino as u64,
            modified: (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            changed: (stat.st_ctime as i64, stat.st_ctime_nsec as i64),
        }
    }
}

/// List entries by note path. Bounded by the number of notes: every list drops the
/// entries of files it did not see.
#[derive(Default)]
pub struct MetaCache {
    entries: Mutex<HashMap<String, (FileId, NoteMeta)>>,
    /// The last list body served, with the fingerprint of the files it was made from.
    snapshot: Mutex<Option<(u64, ListSnapshot)>>,
    /// Held while a list body is built.
    building: Mutex<()>,
    /// Parsed heads of note versions read, by note path.
    heads: Mutex<HashMap<String, (FileId, Arc<Head>)>>,
    /// Hot note versions, by note path.
    versions: Mutex<Versions>,
}

/// A list of the notes, shared by every request made while no note file changed.
#[derive(Debug, Clone)]
pub struct ListSnapshot {
    pub list: Arc<super::model::NoteList>,
    /// Where a caller keeps what it made of this list (the API keeps its JSON), made
    /// once per list.
    pub rendered: Arc<std::sync::OnceLock<bytes::Bytes>>,
}

impl ListSnapshot {
    pub fn new(list: super::model::NoteList) -> Self {
        ListSnapshot {
            list: Arc::new(list),
            rendered: Arc::default(),
        }
    }
}

/// One version of a note's file as read: its bytes, their entity tag, and what a
/// caller made of it (the API's JSON NoteResponse) once it made it.
#[derive(Debug)]
pub struct Version {
    pub id: FileId,
    pub bytes: bytes::Bytes,
    /// The entity tag, shared so a response header can take it without a copy.
    pub etag: bytes::Bytes,
    pub rendered: std::sync::OnceLock<bytes::Bytes>,
}

impl Version {
    pub fn new(id: FileId, bytes: Vec<u8>) -> Self {
        Version {
            id,
            etag: super::model::etag(&bytes).into(),
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
struct Versions {
    by_path: HashMap<String, Arc<Version>>,
    weight: usize,
}

impl MetaCache {
    /// The cached entry of `path` when the file is still the one it was read from.
    pub fn get(&self, path: &str, id: FileId) -> Option<NoteMeta> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        match entries.get(path) {
            Some((cached, meta)) if *cached == id => Some(meta.clone()),
            _ => None,
        }
    }

    /// Keeps the list entry of a settled file version.
    pub fn put(&self, id: FileId, meta: NoteMeta) {
        if !id.settled() {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.insert(meta.path.clone(), (id, meta));
    }

    /// The last list, when it was made from files with this fingerprint.
    pub fn snapshot(&self, fingerprint: u64) -> Option<ListSnapshot> {
        let snapshot = self.snapshot.lock().unwrap_or_else(PoisonError::into_inner);
        match &*snapshot {
            Some((made_from, list)) if *made_from == fingerprint => Some(list.clone()),
            _ => None,
        }
    }

    /// The parsed head of `path` when the file is still the version it was read from.
    pub fn head(&self, path: &str, id: FileId) -> Option<Arc<Head>> {
        let heads = self.heads.lock().unwrap_or_else(PoisonError::into_inner);
        match heads.get(path) {
            Some((cached, head)) if *cached == id => Some(head.clone()),
            _ => None,
        }
    }

    /// Keeps the parsed head of a settled file version.
    pub fn put_head(&self, path: &str, id: FileId, head: Head) {
        if !id.settled() {
            return;
        }
        let mut heads = self.heads.lock().unwrap_or_else(PoisonError::into_inner);
        if heads.len() >= MAX_HEADS {
            heads.clear();
        }
        heads.insert(path.to_string(), (id, Arc::new(head)));
    }

    /// The kept version of `path`, whatever the file is now.
    pub fn version(&self, path: &str) -> Option<Arc<Version>> {
        let versions = self.versions.lock().unwrap_or_else(PoisonError::into_inner);
        versions.by_path.get(path).cloned()
    }

    /// Keeps `version` of `path` for the next reads when it is small and settled;
    /// older versions of other notes make room for it, in no particular order.
    pub fn put_version(&self, path: &str, version: &Arc<Version>) {
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

    /// Serialises list builds.
    pub fn build_lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.building.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn set_snapshot(&self, fingerprint: u64, list: ListSnapshot) {
        *self.snapshot.lock().unwrap_or_else(PoisonError::into_inner) = Some((fingerprint, list));
    }

    /// Keeps only the entries of `seen` (the notes a full list just found).
    pub fn retain_listed(&self, seen: &[NoteMeta]) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() == seen.len() {
            return;
        }
        let keep: std::collections::HashSet<&str> = seen.iter().map(|m| m.path.as_str()).collect();
        entries.retain(|path, _| keep.contains(path.as_str()));
    }
}
