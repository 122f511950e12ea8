//! The directory searches read the index from: tantivy's memory-mapped directory,
//! except that the big per-term files (postings, positions, stored texts) are read with
//! `pread` into buffers a query drops when done, rather than mapped. A mapped page a
//! search touched stays in the server's resident memory as long as its segment lives,
//! so the process grew with the index (at 100k notes, 200 searches left ~40 MB of it
//! resident); read this way, those pages are the kernel's page cache only, shared and
//! dropped under pressure, and the process holds what its queries hold. The term
//! dictionaries, fast fields and norms stay mapped: they are read in place, small, and
//! a copy would sit on the heap instead. The writer and its merges, which read whole
//! segments through, keep the map (`pread` per term made `notes reindex` ~70% slower).

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use tantivy::HasLen;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, OwnedBytes, WatchCallback,
    WatchHandle, WritePtr,
};
use tantivy_common::file_slice::WrapFile;

/// The files read rather than mapped, by extension.
const READ_NOT_MAPPED: [&str; 3] = ["idx", "pos", "store"];

/// The index directory (see the module's documentation).
#[derive(Clone, Debug)]
pub(crate) struct IndexDirectory {
    mapped: MmapDirectory,
    root: PathBuf,
    /// The files open for reading, shared: a reader's reload opens every segment
    /// again while the searcher before it still holds them, and would otherwise hold
    /// a second descriptor of each.
    open: Arc<Mutex<HashMap<PathBuf, Weak<ReadFile>>>>,
}

impl IndexDirectory {
    pub(crate) fn new(mapped: MmapDirectory, root: &Path) -> Self {
        IndexDirectory {
            mapped,
            root: root.to_path_buf(),
            open: Arc::default(),
        }
    }
}

/// A file read with `pread`; an empty range reads as empty bytes.
#[derive(Debug)]
struct ReadFile(WrapFile);

impl FileHandle for ReadFile {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        if range.is_empty() {
            return Ok(OwnedBytes::empty());
        }
        self.0.read_bytes(range)
    }
}

impl HasLen for ReadFile {
    fn len(&self) -> usize {
        self.0.len()
    }
}

impl Directory for IndexDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let read = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| READ_NOT_MAPPED.contains(&e));
        if !read {
            return self.mapped.get_file_handle(path);
        }
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(file) = open.get(path).and_then(Weak::upgrade) {
            return Ok(file);
        }
        let full = self.root.join(path);
        let file = File::open(&full).and_then(WrapFile::new).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                OpenReadError::FileDoesNotExist(path.to_path_buf())
            } else {
                OpenReadError::wrap_io_error(e, path.to_path_buf())
            }
        })?;
        let file = Arc::new(ReadFile(file));
        open.retain(|_, file| file.strong_count() > 0);
        open.insert(path.to_path_buf(), Arc::downgrade(&file));
        Ok(file)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(path);
        self.mapped.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.mapped.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.mapped.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.mapped.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.mapped.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.mapped.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.mapped.acquire_lock(lock)
    }

    fn watch(&self, callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.mapped.watch(callback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory over a new folder holding `files` (the folder goes with the guard).
    fn directory_with(files: &[(&str, &[u8])]) -> (tempfile::TempDir, IndexDirectory) {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        let read = IndexDirectory::new(MmapDirectory::open(dir.path()).unwrap(), dir.path());
        (dir, read)
    }

    #[test]
    fn read_files_answer_what_the_map_answers() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let (_dir, read) = directory_with(&[("a.idx", &bytes), ("a.term", &bytes)]);
        let mapped = read.mapped.clone();
        let handle = read.get_file_handle(Path::new("a.idx")).unwrap();
        assert_eq!(handle.len(), bytes.len());
        assert_eq!(
            handle.read_bytes(100..4200).unwrap().as_slice(),
            &bytes[100..4200]
        );
        assert!(handle.read_bytes(7..7).unwrap().is_empty());
        // The others are the map's.
        let term = read.get_file_handle(Path::new("a.term")).unwrap();
        let by_map = mapped.get_file_handle(Path::new("a.term")).unwrap();
        assert_eq!(
            term.read_bytes(0..bytes.len()).unwrap().as_slice(),
            by_map.read_bytes(0..bytes.len()).unwrap().as_slice()
        );
        assert!(matches!(
            read.get_file_handle(Path::new("missing.pos")),
            Err(OpenReadError::FileDoesNotExist(_))
        ));
    }

    #[test]
    fn a_file_open_for_reading_is_shared_while_held() {
        let (_dir, read) = directory_with(&[("c.pos", b"positions")]);
        let first = read.get_file_handle(Path::new("c.pos")).unwrap();
        let again = read.clone().get_file_handle(Path::new("c.pos")).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        drop((first, again));
        // Let go of by every reader: the next open is a new one.
        let third = read.get_file_handle(Path::new("c.pos")).unwrap();
        assert_eq!(read.open.lock().unwrap().len(), 1);
        assert_eq!(third.read_bytes(0..3).unwrap().as_slice(), b"pos");
    }

    #[test]
    fn a_read_file_stays_readable_once_deleted() {
        let (_dir, read) = directory_with(&[("b.store", b"stored text")]);
        let handle = read.get_file_handle(Path::new("b.store")).unwrap();
        // A merge deletes the files of the segments it replaced while searches read them.
        read.delete(Path::new("b.store")).unwrap();
        assert_eq!(handle.read_bytes(0..6).unwrap().as_slice(), b"stored");
    }
}
