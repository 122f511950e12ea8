//! Listing: every note file of the tree, walked with the listing's rules, and the list
//! of their entries, kept between requests. While `serve` runs, the list is kept valid
//! by the watch of the notes folder (`watch`): a warm list costs a read of the events
//! queued since the last one, and a changed note costs reading that note. Without a
//! watch (the commands, another system, the kernel's limit of watches reached) every
//! list walks the tree and compares its fingerprint.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use walkdir::WalkDir;

use super::snapshot::{ListSnapshot, Listed};
use super::{metadata_of, text_of};
use crate::error::{Error, Result};
use crate::ops::ids::FileId;
use crate::ops::model::NoteList;
use crate::ops::{NotePath, Notebook};

/// How long a watched list is trusted without a full re-scan: what the events miss
/// (a file system that does not report every change, a race with a folder being
/// created while it was scanned) shows after this at the latest.
const RESCAN_EVERY: Duration = Duration::from_secs(300);

/// The list kept between requests and how it is kept valid.
#[derive(Default)]
pub(crate) struct ListState {
    snapshot: Option<ListSnapshot>,
    /// The fingerprint of the files the snapshot was made from, when it is kept valid
    /// by comparing fingerprints (no watch).
    fingerprint: Option<u64>,
    /// Whether the list should be kept valid by a watch (`serve`).
    watching: bool,
    #[cfg(target_os = "linux")]
    watch: Option<Watched>,
    /// When setting the watches last failed: tried again after `RESCAN_EVERY`.
    watch_failed: Option<Instant>,
}

/// The watch the snapshot is valid for.
#[cfg(target_os = "linux")]
struct Watched {
    watch: super::watch::TreeWatch,
    /// When the tree was last scanned in full.
    scanned: Instant,
    /// The notes that are symlinks: a change of their target is reported on the
    /// target's name, so they are compared on each list.
    links: Vec<(NotePath, Option<FileId>)>,
}

/// The note files found by a walk, and the folders it went through.
struct Walked {
    files: Vec<NoteFile>,
    /// The notes that are symlinks, with the identity of their file.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    links: Vec<(NotePath, Option<FileId>)>,
    #[cfg(target_os = "linux")]
    watch: Option<std::io::Result<super::watch::TreeWatch>>,
}

/// Whether a warning about the watch was logged (once per process).
static WATCH_WARNED: AtomicBool = AtomicBool::new(false);

impl Notebook {
    /// Every `.md` file of the tree, dot-files and dot-folders skipped, sorted by path.
    pub(crate) fn list(&self) -> Result<Arc<NoteList>> {
        Ok(self.list_snapshot()?.list)
    }

    /// From now on, keep the list valid by watching the notes folder rather than
    /// walking it on every list (`serve`). Has no effect where there is no watch.
    pub(crate) fn watch_list(&self) {
        let mut state = self
            .cache
            .list
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        state.watching = cfg!(target_os = "linux");
    }

    /// The list, shared by every call made while no note file changed.
    pub(crate) fn list_snapshot(&self) -> Result<ListSnapshot> {
        let watching = {
            let state = self
                .cache
                .list
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            state.watching
                && state
                    .watch_failed
                    .is_none_or(|failed| failed.elapsed() >= RESCAN_EVERY)
        };
        #[cfg(target_os = "linux")]
        if watching {
            return self.watched_snapshot();
        }
        let _ = watching;
        self.fingerprinted_snapshot()
    }

    /// The list kept valid by comparing the fingerprint of the files: a `stat` per
    /// note on every call, and a rebuild when anything changed.
    fn fingerprinted_snapshot(&self) -> Result<ListSnapshot> {
        // Taken before the files are read: a change made during the build gives the
        // next call another fingerprint, never this list.
        let fingerprint = fingerprint(self.notes_dir())?;
        let mut state = self
            .cache
            .list
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(snapshot) = &state.snapshot
            && state.fingerprint == Some(fingerprint)
        {
            return Ok(snapshot.clone());
        }
        let walked = self.walk(false)?;
        let (snapshot, settled) = self.scan(walked.files, state.snapshot.as_ref());
        let snapshot = snapshot.with_linked(linked_paths(&walked.links));
        // A list made while a file is unsettled could outlive a change the
        // fingerprint does not show.
        state.fingerprint = settled.then_some(fingerprint);
        state.snapshot = Some(snapshot.clone());
        Ok(snapshot)
    }

    /// The list kept valid by the watch: the events queued since the last call name
    /// the notes to read again, or ask for a re-scan.
    #[cfg(target_os = "linux")]
    fn watched_snapshot(&self) -> Result<ListSnapshot> {
        use super::watch::Drained;
        let mut state = self
            .cache
            .list
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let state = &mut *state;
        let drained = match (&mut state.watch, &state.snapshot) {
            (Some(watched), Some(_)) if watched.scanned.elapsed() < RESCAN_EVERY => {
                watched.watch.drain(self.notes_dir())
            }
            _ => Drained::Everything,
        };
        let changed = match drained {
            Drained::Everything => return self.rescan(state),
            Drained::Lost => {
                crate::log::info(
                    "list: the watch of the notes folder lost events (too many at once); \
                     scanning the folder again",
                );
                return self.rescan(state);
            }
            Drained::Notes(changed) => changed,
        };
        // An attachment came or went: the files links may name are listed again.
        if let Some(watched) = &mut state.watch
            && watched.watch.take_files_changed()
        {
            state.snapshot = state.snapshot.take().map(ListSnapshot::with_files_changed);
        }
        let (Some(watched), Some(snapshot)) = (&mut state.watch, &state.snapshot) else {
            return self.rescan(state);
        };
        let mut paths: Vec<NotePath> = changed
            .iter()
            .filter_map(|p| NotePath::parse(p).ok())
            .collect();
        // A symlinked note whose file changed, under whatever name it was reported.
        for (path, id) in &watched.links {
            let now = note_file(self.notes_dir(), path).map(|(f, _)| f.id);
            if now.is_none() || now != *id {
                paths.push(path.clone());
            }
        }
        if paths.is_empty() {
            return Ok(snapshot.clone());
        }
        paths.sort();
        paths.dedup();
        let mut updates = Vec::with_capacity(paths.len());
        let mut linked: Vec<String> = snapshot.linked().to_vec();
        for path in paths {
            let file = note_file(self.notes_dir(), &path);
            linked.retain(|p| p != path.as_str());
            if file.as_ref().is_some_and(|(_, is_link)| *is_link) {
                linked.push(path.to_string());
            }
            let now = file.and_then(|(file, _)| self.entry_of(&file, None));
            if let Some(link) = watched.links.iter_mut().find(|(p, _)| *p == path) {
                link.1 = now.as_ref().and_then(|(_, id)| *id);
            }
            updates.push((path.to_string(), now));
        }
        let snapshot = state
            .snapshot
            .take()
            .map(|s| s.patched(updates).with_linked(linked));
        state.snapshot = snapshot.clone();
        snapshot.ok_or_else(|| Error::ListFailed(std::io::Error::other("no list")))
    }

    /// A full scan that also sets the watches anew.
    #[cfg(target_os = "linux")]
    fn rescan(&self, state: &mut ListState) -> Result<ListSnapshot> {
        state.watch = None;
        let walked = self.walk(true)?;
        let links = walked.links;
        let (snapshot, _) = self.scan(walked.files, state.snapshot.as_ref());
        let snapshot = snapshot.with_linked(linked_paths(&links));
        match walked.watch {
            Some(Ok(watch)) => {
                state.watch = Some(Watched {
                    watch,
                    scanned: Instant::now(),
                    links,
                });
                state.watch_failed = None;
            }
            Some(Err(e)) => {
                state.watch_failed = Some(Instant::now());
                if !WATCH_WARNED.swap(true, Ordering::Relaxed) {
                    crate::log::warn(&format!(
                        "list: cannot watch {} ({e}); every list walks the folder",
                        self.notes_dir().display()
                    ));
                }
            }
            None => {}
        }
        state.fingerprint = None;
        state.snapshot = Some(snapshot.clone());
        Ok(snapshot)
    }

    /// The note files of the tree, sorted by path; with `watch`, a watch of every
    /// folder walked, set before the folder is read.
    fn walk(&self, watch: bool) -> Result<Walked> {
        let root = self.notes_dir();
        #[cfg(target_os = "linux")]
        let mut watcher = watch.then(|| super::watch::TreeWatch::new(root));
        #[cfg(not(target_os = "linux"))]
        let _ = watch;
        let mut files = Vec::new();
        let mut links = Vec::new();
        visit_tree(root, |entry| {
            #[cfg(target_os = "linux")]
            if let Tree::Folder(full, rel) = &entry
                && let Some(Ok(w)) = &mut watcher
                && let Err(e) = w.add(full, rel)
            {
                watcher = Some(Err(e));
            }
            if let Tree::Note(file, linked) = entry {
                if linked {
                    links.push((file.path.clone(), Some(file.id)));
                }
                files.push(file);
            }
        })?;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Walked {
            files,
            links,
            #[cfg(target_os = "linux")]
            watch: watcher,
        })
    }

    /// The list of `files` (sorted), each entry taken from `old` when its file has the
    /// same identity, else read; and whether every file had settled.
    fn scan(&self, files: Vec<NoteFile>, old: Option<&ListSnapshot>) -> (ListSnapshot, bool) {
        let mut notes = Vec::with_capacity(files.len());
        let mut ids = Vec::with_capacity(files.len());
        let mut settled = true;
        for file in files {
            settled &= file.id.settled();
            // What is not a regular note any more is left out.
            if let Some((entry, id)) = self.entry_of(&file, old) {
                notes.push(entry);
                ids.push(id);
            }
        }
        let list = NoteList {
            total: notes.len(),
            notes,
        };
        (ListSnapshot::new(list, ids), settled)
    }

    /// The entry of a note file: `old`'s when the file has the identity it was read
    /// with, else read from the file, with its identity when it had settled.
    fn entry_of(&self, file: &NoteFile, old: Option<&ListSnapshot>) -> Option<Listed> {
        let id = file.id;
        if let Some(entry) = old.and_then(|old| old.entry(file.path.as_str(), id)) {
            return Some((entry.clone(), Some(id)));
        }
        // Read through the checked open: the walk found the name by its path, which
        // may lead elsewhere by now.
        let (text, id) = self.read_listed(&file.path).ok()?;
        let mut entry = metadata_of(&file.path, &text_of(&text), text.len() as u64);
        entry.modified = id.modified().map_or(0, |at| at.timestamp());
        Some((entry, id.settled().then_some(id)))
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
/// are walked in: equal while no such file was added, removed or changed, nor any
/// attachment added, removed or renamed. Cheaper than
/// `visit_note_files`: every `.md` name outside dot-folders counts, without validating
/// its path or allocating for it (a file the list then leaves out only costs a rebuild
/// when it changes).
fn fingerprint(root: &Path) -> Result<u64> {
    let (mut sum, mut count) = (0u64, 0u64);
    for entry in tree_entries(root)? {
        if !entry.file_name().as_encoded_bytes().ends_with(b".md") {
            // An attachment counts by its name alone: links resolve against the names.
            if !entry.file_type().is_dir() {
                let name = entry.path().as_os_str().as_encoded_bytes();
                sum = sum.wrapping_add(crate::ops::ids::hash_of((name, 1u8)));
            }
            continue;
        }
        let meta = if entry.path_is_symlink() {
            fs::metadata(entry.path()).ok()
        } else {
            entry.metadata().ok()
        };
        let Some(meta) = meta.filter(fs::Metadata::is_file) else {
            continue;
        };
        let id = FileId::of(&meta);
        let hash = crate::ops::ids::hash_of((entry.path().as_os_str().as_encoded_bytes(), id));
        sum = sum.wrapping_add(hash);
        count += 1;
    }
    Ok(sum ^ count.rotate_left(32))
}

/// A note file found on disk: its path and the identity of the version found (kept
/// small: a pass over the folder holds one per note).
pub struct NoteFile {
    pub(crate) path: NotePath,
    pub(crate) id: FileId,
}

impl NoteFile {
    /// The note's path, relative to the notes dir.
    pub fn path(&self) -> &str {
        self.path.as_str()
    }
}

/// Every note file under `root` with the listing's rules: dot-files and dot-folders
/// skipped, only valid `.md` paths inside the root, regular files only. Unsorted.
pub fn note_files(root: &Path) -> Result<Vec<NoteFile>> {
    let mut files = Vec::new();
    visit_note_files(root, |file| files.push(file))?;
    Ok(files)
}

/// The entries under `root`, dot-files and dot-folders skipped, in the walk's order
/// (a folder before what it holds). A folder that cannot be read is left out rather
/// than failing the list; a root that cannot be read fails it.
fn tree_entries(root: &Path) -> Result<impl Iterator<Item = walkdir::DirEntry>> {
    fs::read_dir(root).map_err(Error::ListFailed)?;
    Ok(walk_from(root))
}

fn walk_from(start: &Path) -> impl Iterator<Item = walkdir::DirEntry> {
    WalkDir::new(start)
        .min_depth(1)
        .into_iter()
        .filter_entry(|e| !e.file_name().as_encoded_bytes().starts_with(b"."))
        .flatten()
}

/// The folder `folder` (relative to `root`) when it and every folder above it is a
/// folder, not a symlink: what the walk of the whole tree enters.
pub(crate) fn folder_beneath(root: &Path, folder: &str) -> Option<std::path::PathBuf> {
    let mut at = root.to_path_buf();
    for part in folder.split('/') {
        at.push(part);
        if !fs::symlink_metadata(&at).ok()?.is_dir() {
            return None;
        }
    }
    Some(at)
}

/// The note files `note_files` finds under the folder `folder` (relative to `root`):
/// none when it is gone, or when it or a folder above it is a symlink (the walk of
/// the whole tree does not enter those).
pub(crate) fn note_files_under(root: &Path, folder: &str) -> Vec<NoteFile> {
    let mut files = Vec::new();
    if let Some(at) = folder_beneath(root, folder) {
        visit_entries(root, walk_from(&at), |entry| {
            if let Tree::Note(file, _) = entry {
                files.push(file);
            }
        });
    }
    files
}

/// What a walk of the tree meets.
enum Tree {
    /// A folder (not a symlink), full path and path relative to the root.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Folder(std::path::PathBuf, String),
    /// A note file, and whether its name is a symlink.
    Note(NoteFile, bool),
}

/// Calls `visit` with every note file under `root` (the rules of `note_files`), in
/// the walk's order, without keeping them.
pub(crate) fn visit_note_files(root: &Path, mut visit: impl FnMut(NoteFile)) -> Result<()> {
    visit_tree(root, |entry| {
        if let Tree::Note(file, _) = entry {
            visit(file);
        }
    })
}

/// Calls `visit` with every folder and note file under `root`, in the walk's order.
fn visit_tree(root: &Path, visit: impl FnMut(Tree)) -> Result<()> {
    visit_entries(root, tree_entries(root)?, visit);
    Ok(())
}

/// Calls `visit` with each folder and note file of `entries` (a walk beneath `root`).
fn visit_entries(
    root: &Path,
    entries: impl Iterator<Item = walkdir::DirEntry>,
    mut visit: impl FnMut(Tree),
) {
    for entry in entries {
        if entry.file_type().is_dir() {
            if let Some(rel) = relative(root, entry.path()) {
                visit(Tree::Folder(entry.path().to_path_buf(), rel));
            }
            continue;
        }
        if !entry.file_name().as_encoded_bytes().ends_with(b".md") {
            continue;
        }
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        let Ok(path) = NotePath::parse(&rel) else {
            continue;
        };
        let linked = entry.path_is_symlink();
        if let Some(file) = found(root, path, linked) {
            visit(Tree::Note(file, linked));
        }
    }
}

/// The note file at `path` when it is one the list shows (a regular file, or a
/// symlink to one inside the root), found by its name; and whether that name is a
/// symlink.
#[cfg(target_os = "linux")]
fn note_file(root: &Path, path: &NotePath) -> Option<(NoteFile, bool)> {
    let linked = fs::symlink_metadata(root.join(path.as_str()))
        .ok()?
        .file_type()
        .is_symlink();
    Some((found(root, path.clone(), linked)?, linked))
}

/// The paths of the symlinked notes a walk found.
fn linked_paths(links: &[(NotePath, Option<FileId>)]) -> Vec<String> {
    links.iter().map(|(path, _)| path.to_string()).collect()
}

fn found(root: &Path, path: NotePath, linked: bool) -> Option<NoteFile> {
    // The walk does not follow links, so only a symlink can lead outside.
    let full = if linked {
        crate::ops::root::resolve(root, &path).ok()?
    } else {
        root.join(path.as_str())
    };
    let meta = fs::metadata(&full).ok()?;
    if !meta.is_file() {
        return None;
    }
    Some(NoteFile {
        path,
        id: FileId::of(&meta),
    })
}
