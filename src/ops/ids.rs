//! Identities shared by the store, the history, the files and the links, one floor
//! below them all: what identifies a file's version (`FileId`), a stable hash
//! (`hash_of`) and what a change did (`Op`).

use std::fs::Metadata;

/// How long after its last change a file version is trusted to be told apart from
/// the next one by its identity.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(1);

/// The test hook that sets `SETTLE` in milliseconds, so the tests that need versions
/// kept do not wait a second for them.
pub(crate) const TEST_SETTLE_MS: &str = "NOTES_TEST_SETTLE_MS";

fn settle() -> std::time::Duration {
    static SPAN: std::sync::LazyLock<std::time::Duration> = std::sync::LazyLock::new(|| {
        crate::test_hooks::var(TEST_SETTLE_MS)
            .and_then(|ms| ms.parse().ok())
            .map_or(SETTLE, std::time::Duration::from_millis)
    });
    *SPAN
}

/// `value` as a number, to compare or to keep instead of it: the same on every run of
/// a build (the standard hasher with its fixed keys); another build's numbers may
/// differ, so what keeps them on disk is a cache.
pub(crate) fn hash_of(value: impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut hasher = std::hash::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct FileId {
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
    pub(crate) fn settled(&self) -> bool {
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
                .is_ok_and(|age| age >= settle())
        }
        #[cfg(not(unix))]
        false
    }

    /// When the file's content last changed; `None` when the file system gives no
    /// time the clock can represent.
    pub(crate) fn modified(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        #[cfg(unix)]
        {
            let (secs, nanos) = self.modified;
            chrono::DateTime::from_timestamp(secs, u32::try_from(nanos).ok()?)
        }
        #[cfg(not(unix))]
        self.modified.map(chrono::DateTime::from)
    }

    /// When the file's content last changed, in nanoseconds since the epoch (0 before
    /// it, or when the file system gives no time).
    pub(crate) fn modified_nanos(&self) -> u128 {
        #[cfg(unix)]
        {
            let (secs, nanos) = self.modified;
            match (u128::try_from(secs), u128::try_from(nanos)) {
                (Ok(secs), Ok(nanos)) => secs * 1_000_000_000 + nanos,
                _ => 0,
            }
        }
        #[cfg(not(unix))]
        self.modified
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos())
    }

    /// The file's size in bytes.
    pub(crate) fn size(&self) -> u64 {
        self.len
    }

    /// A version of `len` bytes at `inode`, last changed `age` seconds ago.
    #[cfg(all(test, unix))]
    pub(crate) fn for_tests(inode: u64, len: u64, age: i64) -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        FileId {
            len,
            device: 1,
            inode,
            modified: (now - age, 0),
            changed: (now - age, 0),
        }
    }

    pub(crate) fn of(meta: &Metadata) -> Self {
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
    pub(crate) fn of_stat(stat: &rustix::fs::Stat) -> Self {
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

/// What a change did, the first word of its commit message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Put,
    Delete,
    Move,
    Restore,
    OutsideEdit,
    /// A change a sync brought from the remote.
    Sync,
}

impl Op {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Op::Put => "put",
            Op::Delete => "delete",
            Op::Move => "move",
            Op::Restore => "restore",
            Op::OutsideEdit => "outside-edit",
            Op::Sync => "sync",
        }
    }
}
