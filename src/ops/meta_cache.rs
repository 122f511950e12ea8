//! Caches keyed by file identity (inode, size, modification and change times): a
//! note's list entry, so a warm list costs one `stat` per note, and the parsed head of
//! a note read, so reading an unchanged note skips the YAML. A file changed by anything
//! (the service, an editor, a `git pull`) is read again on the next request.

use std::collections::HashMap;
use std::fs::Metadata;
use std::sync::{Mutex, PoisonError};

use std::sync::Arc;

use super::front_matter::FrontMatter;
use super::model::{Note, NoteMeta};
use super::path::NotePath;

/// Most note reads remembered at once; past it the memory starts over.
const MAX_HEADS: usize = 50_000;

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
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    inode: u64,
    #[cfg(unix)]
    changed: (i64, i64),
}

impl FileId {
    pub fn of(meta: &Metadata) -> Self {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        FileId {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            inode: meta.ino(),
            #[cfg(unix)]
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

/// List entries by note path. Bounded by the number of notes: every list drops the
/// entries of files it did not see.
#[derive(Default)]
pub struct MetaCache {
    entries: Mutex<HashMap<String, (FileId, NoteMeta)>>,
    /// The last list body served, with the fingerprint of the files it was made from.
    snapshot: Mutex<Option<(u64, bytes::Bytes)>>,
    /// Held while a list body is built.
    building: Mutex<()>,
    /// Parsed heads of note versions read, by note path.
    heads: Mutex<HashMap<String, (FileId, Arc<Head>)>>,
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

    pub fn put(&self, id: FileId, meta: NoteMeta) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.insert(meta.path.clone(), (id, meta));
    }

    /// The last list body, when it was made from files with this fingerprint.
    pub fn snapshot(&self, fingerprint: u64) -> Option<bytes::Bytes> {
        let snapshot = self.snapshot.lock().unwrap_or_else(PoisonError::into_inner);
        match &*snapshot {
            Some((made_from, body)) if *made_from == fingerprint => Some(body.clone()),
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

    pub fn put_head(&self, path: &str, id: FileId, head: Head) {
        let mut heads = self.heads.lock().unwrap_or_else(PoisonError::into_inner);
        if heads.len() >= MAX_HEADS {
            heads.clear();
        }
        heads.insert(path.to_string(), (id, Arc::new(head)));
    }

    /// Serialises list builds.
    pub fn build_lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.building.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn set_snapshot(&self, fingerprint: u64, body: bytes::Bytes) {
        *self.snapshot.lock().unwrap_or_else(PoisonError::into_inner) = Some((fingerprint, body));
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
