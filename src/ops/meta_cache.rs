//! The list's metadata cache: a note's list entry is kept with the identity of the file
//! it was read from (inode, size, modification and change times), so a warm list costs
//! one `stat` per note and a file changed by anything (the service, an editor, a
//! `git pull`) is read again on the next list.

use std::collections::HashMap;
use std::fs::Metadata;
use std::sync::{Mutex, PoisonError};

use super::model::NoteMeta;

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
