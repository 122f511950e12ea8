//! The bytes of small attachments recently read, so a hot one (an image on a busy note)
//! costs one `stat` beneath the notes dir and no open or read: each kept version is
//! confirmed by its file's identity (device, inode, size, modification and change
//! times) on every read, so a file changed by anything (the service, an editor, a
//! `git pull`) is read again at once. As the notes' caches, a version is kept only once
//! it has settled (unchanged for a second; see `store::cache`).
//!
//! Bounded: files up to `MAX_KEPT` bytes, `BUDGET` bytes in all; a new version makes
//! room by dropping others, in no particular order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;

use super::FileInfo;
use super::sealed::Sealed;
use crate::ops::ids::FileId;

/// Bytes of attachment versions kept at once, bookkeeping included.
pub(crate) const BUDGET: usize = 64 << 20;
/// Largest attachment kept; larger ones are read (or streamed) per request.
pub(crate) const MAX_KEPT: u64 = 1 << 20;
/// What an entry holds beyond its bytes and path (its description, tag, map slot), as a
/// rough figure: a folder of tiny files cannot grow the map past the budget either.
const ENTRY_OVERHEAD: usize = 256;

/// One version of an attachment as read: its bytes, shared by every answer that sends
/// them, and what the API says of it.
#[derive(Debug)]
pub(crate) struct Kept {
    pub(super) id: FileId,
    pub(super) bytes: Bytes,
    pub(super) info: FileInfo,
    pub(super) etag: String,
    /// The same bytes in a sealed memory file, when the version has one.
    pub(super) sealed: Option<Arc<Sealed>>,
}

impl Kept {
    fn weight(&self) -> usize {
        self.bytes.len() + self.info.path.len() * 2 + ENTRY_OVERHEAD
    }
}

/// Kept versions by attachment path. Looked up on every read, so it hashes with
/// foldhash (seeded per process); its keys are paths of files read, not any path a
/// client sends.
#[derive(Default)]
pub(crate) struct FileCache {
    kept: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    by_path: HashMap<String, Arc<Kept>, foldhash::fast::RandomState>,
    weight: usize,
}

impl Entries {
    fn remove(&mut self, path: &str) {
        if let Some(old) = self.by_path.remove(path) {
            self.weight -= old.weight();
        }
    }
}

impl FileCache {
    /// The kept version of `path`, whatever the file is now: the caller compares ids.
    pub(crate) fn get(&self, path: &str) -> Option<Arc<Kept>> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.by_path.get(path).cloned()
    }

    /// Whether a version with this identity may be kept: small, and settled.
    pub(crate) fn keeps(id: &FileId) -> bool {
        id.size() <= MAX_KEPT && id.settled()
    }

    /// Keeps `version` for the next reads, when `keeps` says so; others make room.
    pub(crate) fn put(&self, version: &Arc<Kept>) {
        if !Self::keeps(&version.id) || version.bytes.len() as u64 != version.id.size() {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let kept = &mut *kept;
        kept.remove(&version.info.path);
        while kept.weight + version.weight() > BUDGET {
            let Some(victim) = kept.by_path.keys().next().cloned() else {
                break;
            };
            kept.remove(&victim);
        }
        kept.weight += version.weight();
        kept.by_path
            .insert(version.info.path.clone(), version.clone());
    }

    /// Drops the kept version of `path` (the file is gone or changed).
    pub(crate) fn forget(&self, path: &str) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.remove(path);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn kept(path: &str, inode: u64, len: usize, age: i64) -> Arc<Kept> {
        Arc::new(Kept {
            id: FileId::for_tests(inode, len as u64, age),
            bytes: Bytes::from(vec![b'x'; len]),
            info: FileInfo {
                path: path.into(),
                size: len as u64,
                last_modified: String::new(),
                content_type: "image/png".into(),
            },
            etag: format!("\"{inode:x}\""),
            sealed: None,
        })
    }

    #[test]
    fn versions_are_replaced_and_shared() {
        let cache = FileCache::default();
        let v1 = kept("a.png", 1, 10, 5);
        cache.put(&v1);
        assert!(Arc::ptr_eq(&cache.get("a.png").unwrap(), &v1));
        let v2 = kept("a.png", 2, 10, 5);
        cache.put(&v2);
        assert!(Arc::ptr_eq(&cache.get("a.png").unwrap(), &v2));
        cache.forget("a.png");
        assert!(cache.get("a.png").is_none());
        assert_eq!(cache.kept.lock().unwrap().weight, 0);
    }

    #[test]
    fn large_unsettled_and_short_versions_are_not_kept() {
        let cache = FileCache::default();
        cache.put(&kept("big.png", 1, MAX_KEPT as usize + 1, 5));
        assert!(cache.get("big.png").is_none());
        cache.put(&kept("new.png", 2, 10, 0));
        assert!(cache.get("new.png").is_none());
        // Fewer bytes than the identity's size (the file shrank while it was read).
        let short = Arc::new(Kept {
            id: FileId::for_tests(3, 20, 5),
            ..Arc::into_inner(kept("short.png", 3, 10, 5)).unwrap()
        });
        cache.put(&short);
        assert!(cache.get("short.png").is_none());
        let at_limit = kept("limit.png", 4, MAX_KEPT as usize, 5);
        cache.put(&at_limit);
        assert!(cache.get("limit.png").is_some());
    }

    #[test]
    fn the_budget_holds() {
        let cache = FileCache::default();
        let count = BUDGET / MAX_KEPT as usize + 8;
        for n in 0..count {
            cache.put(&kept(&format!("f{n}.png"), n as u64, MAX_KEPT as usize, 5));
        }
        let kept = cache.kept.lock().unwrap();
        assert!(kept.weight <= BUDGET);
        assert!(kept.by_path.len() < count);
        assert_eq!(
            kept.weight,
            kept.by_path.values().map(|k| k.weight()).sum::<usize>()
        );
    }
}
