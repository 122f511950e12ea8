//! Listing: every note file of the tree, walked with the listing's rules, and the list
//! of their entries, shared while no note file changed (its fingerprint is the same).

use std::fs;
use std::path::Path;
use std::sync::Arc;

use walkdir::WalkDir;

use super::cache::{FileId, ListSnapshot};
use super::{metadata_of, text_of};
use crate::error::{Error, Result};
use crate::ops::model::NoteList;
use crate::ops::{NotePath, Notebook};

impl Notebook {
    /// Every `.md` file of the tree, dot-files and dot-folders skipped, sorted by path.
    pub(crate) fn list(&self) -> Result<Arc<NoteList>> {
        Ok(self.list_snapshot()?.list)
    }

    fn sorted_note_files(&self) -> Result<Vec<NoteFile>> {
        let mut files = note_files(self.notes_dir())?;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// The list, shared by every call made while no note file changed (same paths,
    /// same file identities), without building 10k entries again for each.
    pub(crate) fn list_snapshot(&self) -> Result<ListSnapshot> {
        // The first walk keeps nothing but a fingerprint, so concurrent warm lists
        // cost a stat per note and almost no memory.
        if let Some(snapshot) = self.cache.snapshot(fingerprint(self.notes_dir())?) {
            return Ok(snapshot);
        }
        // One build at a time: concurrent requests that saw the same change wait for
        // it and share its result instead of each building their own.
        let _building = self.cache.build_lock();
        // Taken before the files are read: a change made during the build gives the
        // next request another fingerprint, never this list.
        let fingerprint = fingerprint(self.notes_dir())?;
        if let Some(snapshot) = self.cache.snapshot(fingerprint) {
            return Ok(snapshot);
        }
        let files = self.sorted_note_files()?;
        let snapshot = ListSnapshot::new(self.list_of(&files));
        // A list made while a file is unsettled could outlive a change the
        // fingerprint does not show.
        if files.iter().all(|file| FileId::of(&file.meta).settled()) {
            self.cache.set_snapshot(fingerprint, snapshot.clone());
        }
        Ok(snapshot)
    }

    /// The list entries of `files` (sorted), parsed only for files not seen before.
    fn list_of(&self, files: &[NoteFile]) -> NoteList {
        let mut notes = Vec::with_capacity(files.len());
        for file in files {
            let id = FileId::of(&file.meta);
            if let Some(cached) = self.cache.get(file.path.as_str(), id) {
                notes.push(cached);
                continue;
            }
            // Read through the checked open: the walk found the name by its path, which
            // may lead elsewhere by now. What is not a regular note any more is left out.
            let Ok((text, id)) = self.read_listed(&file.path) else {
                continue;
            };
            let entry = metadata_of(&file.path, &text_of(&text), text.len() as u64);
            self.cache.put(id, entry.clone());
            notes.push(entry);
        }
        self.cache.retain_listed(&notes);
        NoteList {
            total: notes.len(),
            notes,
        }
    }

    /// The bytes and identity of a note the list walk found.
    fn read_listed(&self, path: &NotePath) -> Result<(Vec<u8>, FileId)> {
        use std::io::Read;
        let (mut file, meta) = self.root.open_note(path)?;
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.read_to_end(&mut bytes).map_err(Error::ReadFailed)?;
        Ok((bytes, FileId::of(&meta)))
    }
}

/// `path` relative to `root` with `/` separators.
pub(crate) fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?.to_str()?;
    Some(if std::path::MAIN_SEPARATOR == '/' {
        rel.to_string()
    } else {
        rel.replace(std::path::MAIN_SEPARATOR, "/")
    })
}

/// Identifies the files a list considers and their versions, whatever the order they
/// are walked in: equal while no such file was added, removed or changed. Cheaper than
/// `visit_note_files`: every `.md` name outside dot-folders counts, without validating
/// its path or allocating for it (a file the list then leaves out only costs a rebuild
/// when it changes).
fn fingerprint(root: &Path) -> Result<u64> {
    use std::hash::{Hash, Hasher};
    let (mut sum, mut count) = (0u64, 0u64);
    for entry in markdown_entries(root)? {
        let meta = if entry.path_is_symlink() {
            fs::metadata(entry.path()).ok()
        } else {
            entry.metadata().ok()
        };
        let Some(meta) = meta.filter(fs::Metadata::is_file) else {
            continue;
        };
        let mut hasher = std::hash::DefaultHasher::new();
        entry
            .path()
            .as_os_str()
            .as_encoded_bytes()
            .hash(&mut hasher);
        FileId::of(&meta).hash(&mut hasher);
        sum = sum.wrapping_add(hasher.finish());
        count += 1;
    }
    Ok(sum ^ count.rotate_left(32))
}

/// A note file found on disk.
pub struct NoteFile {
    pub(crate) path: NotePath,
    pub full: std::path::PathBuf,
    pub(crate) meta: fs::Metadata,
}

/// Every note file under `root` with the listing's rules: dot-files and dot-folders
/// skipped, only valid `.md` paths inside the root, regular files only. Unsorted.
pub fn note_files(root: &Path) -> Result<Vec<NoteFile>> {
    let mut files = Vec::new();
    visit_note_files(root, |file| files.push(file))?;
    Ok(files)
}

/// The `.md` entries under `root`, dot-files and dot-folders skipped, in the walk's
/// order. A folder that cannot be read is left out rather than failing the list; a
/// root that cannot be read fails it.
fn markdown_entries(root: &Path) -> Result<impl Iterator<Item = walkdir::DirEntry>> {
    fs::read_dir(root).map_err(Error::ListFailed)?;
    Ok(WalkDir::new(root)
        .min_depth(1)
        .into_iter()
        .filter_entry(|e| !e.file_name().as_encoded_bytes().starts_with(b"."))
        .flatten()
        .filter(|e| e.file_name().as_encoded_bytes().ends_with(b".md")))
}

/// Calls `visit` with every note file under `root` (the rules of `note_files`), in
/// the walk's order, without keeping them.
pub(crate) fn visit_note_files(root: &Path, mut visit: impl FnMut(NoteFile)) -> Result<()> {
    for entry in markdown_entries(root)? {
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        let Ok(path) = NotePath::parse(&rel) else {
            continue;
        };
        // The walk does not follow links, so only a symlink can lead outside.
        let full = if entry.path_is_symlink() {
            match crate::ops::root::resolve(root, &path) {
                Ok(full) => full,
                Err(_) => continue,
            }
        } else {
            entry.path().to_path_buf()
        };
        let Ok(meta) = fs::metadata(&full) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        visit(NoteFile { path, full, meta });
    }
    Ok(())
}
