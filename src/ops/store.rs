//! The v1 note operations on disk: list, read, create-or-replace (JSON or Markdown)
//! and delete, with the spec's defaults and its lenient reading of broken notes.

use std::fs;
use std::io;
use std::path::Path;
use std::sync::Arc;

use chrono::Local;
use walkdir::WalkDir;

use super::clock;
use super::front_matter::{self, Document, FrontMatter};
use super::fsutil;
use super::meta_cache::{FileId, Head, ListSnapshot, Version};
use super::model::{
    DeleteConfirmation, Note, NoteFields, NoteInput, NoteList, NoteMeta, Precondition, PutOutcome,
    etag,
};
use super::path::{open_error, path_error};
use super::{NotePath, Notebook};
use crate::error::{Error, Result};

/// The placeholder sentence of an empty body.
pub const PLACEHOLDER: &str = "Votre contenu ici...";
/// The constant message of a delete confirmation.
pub const DELETED: &str = "Note deleted successfully";

/// A note's text as stored, before it becomes a `Note`.
pub struct RawNote {
    pub path: NotePath,
    pub version: Arc<Version>,
}

impl RawNote {
    pub fn bytes(&self) -> &bytes::Bytes {
        &self.version.bytes
    }

    pub fn etag(&self) -> &str {
        std::str::from_utf8(&self.version.etag).unwrap_or_default()
    }

    /// The entity tag as shared bytes.
    pub fn etag_bytes(&self) -> bytes::Bytes {
        self.version.etag.clone()
    }

    /// Where a caller keeps what it made of this version (the API keeps its JSON), for
    /// as long as the version is kept.
    pub fn rendered(&self) -> &std::sync::OnceLock<bytes::Bytes> {
        &self.version.rendered
    }
}

/// A note file opened for reading whose version is not in memory yet.
pub struct OpenNote {
    path: NotePath,
    file: fs::File,
    id: FileId,
    len: u64,
}

impl OpenNote {
    /// The file's size when it was opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A note opened for reading: either its version is in memory, or its bytes are to
/// be read (`Notebook::finish_read`).
pub enum Opened {
    Ready(RawNote),
    Unread(OpenNote),
}

impl Notebook {
    /// Every `.md` file of the tree, dot-files and dot-folders skipped, sorted by path.
    pub fn list(&self) -> Result<Arc<NoteList>> {
        Ok(self.list_snapshot()?.list)
    }

    fn sorted_note_files(&self) -> Result<Vec<NoteFile>> {
        let mut files = note_files(self.notes_dir())?;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// The list, shared by every call made while no note file changed (same paths,
    /// same file identities), without building 10k entries again for each.
    pub fn list_snapshot(&self) -> Result<ListSnapshot> {
        // The first walk keeps nothing but a fingerprint, so concurrent warm lists
        // cost a stat per note and almost no memory.
        if let Some(snapshot) = self.meta_cache.snapshot(fingerprint(self.notes_dir())?) {
            return Ok(snapshot);
        }
        // One build at a time: concurrent requests that saw the same change wait for
        // it and share its result instead of each building their own.
        let _building = self.meta_cache.build_lock();
        // Taken before the files are read: a change made during the build gives the
        // next request another fingerprint, never this list.
        let fingerprint = fingerprint(self.notes_dir())?;
        if let Some(snapshot) = self.meta_cache.snapshot(fingerprint) {
            return Ok(snapshot);
        }
        let files = self.sorted_note_files()?;
        let snapshot = ListSnapshot::new(self.list_of(&files));
        // A list made while a file is unsettled could outlive a change the
        // fingerprint does not show.
        if files.iter().all(|file| FileId::of(&file.meta).settled()) {
            self.meta_cache.set_snapshot(fingerprint, snapshot.clone());
        }
        Ok(snapshot)
    }

    /// The list entries of `files` (sorted), parsed only for files not seen before.
    fn list_of(&self, files: &[NoteFile]) -> NoteList {
        let mut notes = Vec::with_capacity(files.len());
        for file in files {
            let id = FileId::of(&file.meta);
            if let Some(cached) = self.meta_cache.get(file.path.as_str(), id) {
                notes.push(cached);
                continue;
            }
            // Read through the checked open: the walk found the name by its path, which
            // may lead elsewhere by now. What is not a regular note any more is left out.
            let Ok((text, id)) = self.read_listed(&file.path) else {
                continue;
            };
            let entry = metadata_of(&file.path, &text_of(&text), text.len() as u64);
            self.meta_cache.put(id, entry.clone());
            notes.push(entry);
        }
        self.meta_cache.retain_listed(&notes);
        NoteList {
            total: notes.len(),
            notes,
        }
    }

    /// The bytes and identity of a note the list walk found.
    fn read_listed(&self, path: &NotePath) -> Result<(Vec<u8>, FileId)> {
        use std::io::Read;
        let (mut file, meta) = path.open(&self.root)?;
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.read_to_end(&mut bytes).map_err(Error::ReadFailed)?;
        Ok((bytes, FileId::of(&meta)))
    }

    /// Opens a note: the one open file gives the identity, and a kept version of that
    /// identity saves the read. The file is reached by the checked open even when a
    /// version is kept, so a path that now leads outside the notes dir, or to something
    /// that is not a note, is refused rather than answered from memory.
    pub fn open_note(&self, path: &NotePath) -> Result<Opened> {
        let kept = self.meta_cache.version(path.as_str());
        // With a version kept, the file's identity alone says whether it still holds.
        #[cfg(target_os = "linux")]
        if let Some(version) = &kept
            && FileId::of_stat(&path.stat(&self.root)?) == version.id
        {
            return Ok(Opened::Ready(RawNote {
                path: path.clone(),
                version: version.clone(),
            }));
        }
        let (file, meta) = path.open(&self.root)?;
        let id = FileId::of(&meta);
        Ok(match kept.filter(|version| version.id == id) {
            Some(version) => Opened::Ready(RawNote {
                path: path.clone(),
                version,
            }),
            None => Opened::Unread(OpenNote {
                path: path.clone(),
                file,
                id,
                len: meta.len(),
            }),
        })
    }

    /// Reads the bytes of an opened note, and keeps them for the next reads.
    pub fn finish_read(&self, open: OpenNote) -> Result<RawNote> {
        use std::io::Read;
        let OpenNote {
            path,
            mut file,
            id,
            len,
        } = open;
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        file.read_to_end(&mut bytes).map_err(Error::ReadFailed)?;
        let version = Arc::new(Version::new(id, bytes));
        self.meta_cache.put_version(path.as_str(), &version);
        Ok(RawNote { path, version })
    }

    /// The raw bytes of a note.
    pub fn read_raw(&self, path: &NotePath) -> Result<RawNote> {
        match self.open_note(path)? {
            Opened::Ready(raw) => Ok(raw),
            Opened::Unread(open) => self.finish_read(open),
        }
    }

    /// A note with its front matter read.
    pub fn read(&self, path: &NotePath) -> Result<Note> {
        Ok(self.note_of_raw(&self.read_raw(path)?))
    }

    /// The NoteResponse of a version read. The parse of a file version is kept, so
    /// reading an unchanged note again skips the YAML.
    pub fn note_of_raw(&self, raw: &RawNote) -> Note {
        let RawNote { path, version } = raw;
        let size = version.bytes.len() as u64;
        let text = text_of(&version.bytes);
        let cached = match &text {
            std::borrow::Cow::Borrowed(text) => self
                .meta_cache
                .head(path.as_str(), version.id)
                .and_then(|head| head.note(path, text, size)),
            std::borrow::Cow::Owned(_) => None,
        };
        let mut note = match cached {
            Some(note) => note,
            None => {
                let note = note_of(path, &text, size);
                if let std::borrow::Cow::Borrowed(text) = &text {
                    self.meta_cache
                        .put_head(path.as_str(), version.id, Head::of(&note, text));
                }
                note
            }
        };
        note.etag = raw.etag().to_string();
        note
    }

    /// Creates or replaces a note: from its text, or from fields with the spec's
    /// defaults; when `cond` holds of the note as it is.
    pub fn put(&self, path: &NotePath, input: NoteInput, cond: Precondition) -> Result<PutOutcome> {
        path.check_writable()?;
        self.write_with(path, &cond, |existing| match input {
            NoteInput::Markdown(text) => build_from_markdown(path, text),
            NoteInput::Fields(fields) => build_from_fields(path, fields, existing),
        })
    }

    /// Writes the text `build` makes (given the current text, when the note exists),
    /// holding the note's lock so writers to one note take turns.
    fn write_with(
        &self,
        path: &NotePath,
        cond: &Precondition,
        build: impl FnOnce(Option<&str>) -> Result<String>,
    ) -> Result<PutOutcome> {
        path.check_writable()?;
        let outcome = self.note_locks.with(path.as_str(), || {
            let current = self.current_for_write(path)?;
            cond.check(current.as_ref().map(|(bytes, _)| bytes.as_slice()))?;
            let created = current.is_none();
            let (text, mode) = match current {
                Some((bytes, mode)) => (Some(String::from_utf8_lossy(&bytes).into_owned()), mode),
                None => (None, fsutil::NEW_FILE_MODE),
            };
            let text = build(text.as_deref())?;
            self.store(path, text.as_bytes(), mode, created)?;
            Ok(PutOutcome {
                note: note_of(path, &text, text.len() as u64),
                created,
            })
        })?;
        self.changed(path);
        Ok(outcome)
    }

    /// The note's current bytes and permission bits; `None` when there is no note yet
    /// (or something that is not a note holds the name: the write then finds it taken).
    fn current_for_write(&self, path: &NotePath) -> Result<Option<(Vec<u8>, u32)>> {
        use std::io::Read;
        let (mut file, meta) = match path.open(&self.root) {
            Ok(opened) => opened,
            Err(Error::NotFound) => return Ok(None),
            Err(err) => return Err(err),
        };
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.read_to_end(&mut bytes).map_err(Error::AccessFailed)?;
        Ok(Some((bytes, fsutil::mode_of(&meta))))
    }

    /// Stores `bytes` as the note, durably. On Linux the write happens relative to the
    /// note's folder, opened from the notes dir's handle (missing folders made on the
    /// way), so neither the note nor its temp file can land outside.
    #[cfg(target_os = "linux")]
    fn store(&self, path: &NotePath, bytes: &[u8], mode: u32, create: bool) -> Result<()> {
        let dir = self
            .root
            .open_beneath(path.parent(), rustix::fs::OFlags::RDONLY, true)
            .map_err(|e| path_error(e.into(), Error::CreateDirFailed))?;
        let name = path.file_name();
        let written = fsutil::write_atomic_at(&dir, name, bytes, mode, create)
            .map_err(|e| path_error(e, Error::WriteFailed))?;
        match written {
            fsutil::WrittenAt::Done => Ok(()),
            // Taken since the note was read: a dangling symlink is a path that leads
            // nowhere; anything else (a FIFO, a folder, a file another program just
            // made) is not overwritten.
            fsutil::WrittenAt::NameTaken => {
                match rustix::fs::statat(&dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(stat)
                        if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                            == rustix::fs::FileType::Symlink =>
                    {
                        Err(Error::InvalidPath)
                    }
                    _ => Err(Error::WriteFailed(io::ErrorKind::AlreadyExists.into())),
                }
            }
        }
    }

    /// Stores `bytes` as the note, durably: folders made, then the path checked for
    /// symlinks leading outside and written.
    #[cfg(not(target_os = "linux"))]
    fn store(&self, path: &NotePath, bytes: &[u8], _mode: u32, _create: bool) -> Result<()> {
        let full = path.resolve(self.notes_dir())?;
        if let Some(parent) = full.parent() {
            fs::create_dir_all(parent).map_err(|e| path_error(e, Error::CreateDirFailed))?;
        }
        // The folders just created may hold a symlink race; check again.
        path.resolve(self.notes_dir())?;
        fsutil::write_atomic(&full, bytes).map_err(|e| path_error(e, Error::WriteFailed))
    }

    /// Deletes a note.
    pub fn delete(&self, path: &NotePath, cond: &Precondition) -> Result<DeleteConfirmation> {
        self.note_locks
            .with(path.as_str(), || self.delete_locked(path, cond))?;
        self.changed(path);
        Ok(DeleteConfirmation {
            message: DELETED,
            path: path.to_string(),
        })
    }

    /// Deletes a note, holding its lock. On Linux everything happens relative to the
    /// note's folder, opened from the notes dir's handle: the entry is looked at without
    /// following it, read (for `If-Match`) and unlinked by name in that folder, and the
    /// folder synced. A symlink is removed itself, and only when it leads to a note
    /// inside the notes dir.
    #[cfg(target_os = "linux")]
    fn delete_locked(&self, path: &NotePath, cond: &Precondition) -> Result<()> {
        use rustix::fs::{AtFlags, FileType, OFlags};
        use std::io::Read;
        let dir = self
            .root
            .open_beneath(path.parent(), OFlags::RDONLY | OFlags::DIRECTORY, false)
            .map_err(|e| open_error(e.into(), Error::DeleteFailed))?;
        let name = path.file_name();
        let stat = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| open_error(e.into(), Error::DeleteFailed))?;
        let mut file = match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => None,
            FileType::Symlink => match path.open(&self.root) {
                Ok((file, _)) => Some(file),
                // A symlink leading outside, or nowhere, is not a note of this dir.
                Err(Error::InvalidPath | Error::NotFound) => return Err(Error::InvalidPath),
                Err(err) => return Err(err),
            },
            _ => return Err(Error::NotFound),
        };
        if *cond != Precondition::None {
            let mut file = match file.take() {
                Some(file) => file,
                None => {
                    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK;
                    let fd = rustix::fs::openat(&dir, name, flags | OFlags::CLOEXEC, 0.into())
                        .map_err(|e| open_error(e.into(), Error::ReadFailed))?;
                    fs::File::from(fd)
                }
            };
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes).map_err(Error::ReadFailed)?;
            cond.check(Some(&bytes))?;
        }
        // A deleted note does not stay public: its page and entry go first, so a
        // record that cannot be updated leaves the note in place.
        self.unpublish_deleted(path)?;
        rustix::fs::unlinkat(&dir, name, AtFlags::empty())
            .map_err(|e| open_error(e.into(), Error::DeleteFailed))?;
        rustix::fs::fsync(&dir).map_err(|e| Error::DeleteFailed(e.into()))
    }

    /// Deletes a note, holding its lock.
    #[cfg(not(target_os = "linux"))]
    fn delete_locked(&self, path: &NotePath, cond: &Precondition) -> Result<()> {
        let full = path.resolve(self.notes_dir())?;
        match fs::symlink_metadata(&full) {
            Ok(meta) if meta.is_file() || meta.file_type().is_symlink() => {}
            Ok(_) => return Err(Error::NotFound),
            Err(e) => return Err(open_error(e, Error::DeleteFailed)),
        }
        if *cond != Precondition::None {
            cond.check(Some(&fs::read(&full).map_err(Error::ReadFailed)?))?;
        }
        self.unpublish_deleted(path)?;
        fsutil::remove_durable(&full).map_err(|e| open_error(e, Error::DeleteFailed))
    }
}

/// `path` relative to `root` with `/` separators.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?.to_str()?;
    Some(if std::path::MAIN_SEPARATOR == '/' {
        rel.to_string()
    } else {
        rel.replace(std::path::MAIN_SEPARATOR, "/")
    })
}

/// A note's bytes as text: borrowed when they are UTF-8 (checked with the standard
/// library's fast validation), with replacement characters otherwise.
pub fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
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
    pub path: NotePath,
    pub full: std::path::PathBuf,
    pub meta: fs::Metadata,
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
pub fn visit_note_files(root: &Path, mut visit: impl FnMut(NoteFile)) -> Result<()> {
    for entry in markdown_entries(root)? {
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        let Ok(path) = NotePath::parse(&rel) else {
            continue;
        };
        // The walk does not follow links, so only a symlink can lead outside.
        let full = if entry.path_is_symlink() {
            match path.resolve(root) {
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

/// The title shown for a note: its front matter title, or the file name without `.md`.
fn display_title(path: &NotePath, fields: Option<&FrontMatter>) -> String {
    match fields {
        Some(f) if !f.title.is_empty() => f.title.clone(),
        _ => path.stem().to_string(),
    }
}

/// The list entry of a note's text.
pub fn metadata_of(path: &NotePath, text: &str, size: u64) -> NoteMeta {
    let fields = front_matter::parse(text).map(|doc| doc.fields());
    let title = display_title(path, fields.as_ref());
    let fields = fields.unwrap_or_default();
    NoteMeta {
        path: path.to_string(),
        title,
        tags: fields.tags,
        last_modified: fields.last_modified,
        date: fields.date,
        size,
    }
}

/// The NoteResponse of a note's text. A text that does not start with `---` has no
/// front matter (omitted); one whose front matter does not parse gets an empty one and
/// the whole text as body.
pub fn note_of(path: &NotePath, text: &str, size: u64) -> Note {
    let (front_matter, body) = match front_matter::parse(text) {
        Some(doc) => (Some(doc.fields()), doc.body),
        None if text.starts_with("---") => (Some(FrontMatter::default()), text.to_string()),
        None => (None, text.to_string()),
    };
    Note {
        path: path.to_string(),
        title: display_title(path, front_matter.as_ref()),
        content: text.to_string(),
        body,
        last_modified: front_matter
            .as_ref()
            .map(|f| f.last_modified.clone())
            .unwrap_or_default(),
        front_matter,
        size,
        etag: etag(text.as_bytes()),
    }
}

/// `my-first-note` → `My First Note`.
pub fn title_from_stem(stem: &str) -> String {
    stem.replace('-', " ")
        .split(' ')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

fn build_from_fields(
    path: &NotePath,
    request: NoteFields,
    existing: Option<&str>,
) -> Result<String> {
    if let Some(content) = request.content.filter(|c| !c.is_empty()) {
        front_matter::check(&content)?;
        return Ok(content);
    }
    let now = Local::now();
    let supplied = request.front_matter.unwrap_or_default();
    let title = supplied
        .title
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| title_from_stem(path.stem()));
    let date = match supplied.date.filter(|d| !d.is_empty()) {
        Some(date) if existing.is_some() => date,
        _ => clock::date(now),
    };
    let fields = FrontMatter {
        title: title.clone(),
        date,
        last_modified: clock::stamp(now),
        tags: supplied.tags.unwrap_or_default(),
    };
    let body = request
        .body
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| format!("# {title}\n\n{PLACEHOLDER}\n"));
    let mut doc = Document::new(&fields, body);
    doc.extend(supplied.extra);
    // Keys the note had beyond the four spec'd ones are never lost by a JSON write.
    if let Some(previous) = existing.and_then(front_matter::parse) {
        doc.extend(previous.yaml);
    }
    let text = doc
        .emit()
        .map_err(|e| Error::FrontMatterFailed(e.to_string()))?;
    front_matter::check(&text)?;
    Ok(text)
}

fn build_from_markdown(path: &NotePath, text: String) -> Result<String> {
    front_matter::check(&text)?;
    let now = Local::now();
    if !text.starts_with("---") {
        let fields = FrontMatter {
            title: path.stem().to_string(),
            date: clock::date(now),
            last_modified: clock::stamp(now),
            tags: Vec::new(),
        };
        return Document::new(&fields, text)
            .emit()
            .map_err(|e| Error::FrontMatterFailed(e.to_string()));
    }
    match front_matter::parse(&text) {
        Some(mut doc) => {
            doc.set_last_modified(clock::stamp(now));
            // Aliases are written out expanded: the result must be within bounds too.
            let text = doc
                .emit()
                .map_err(|e| Error::FrontMatterFailed(e.to_string()))?;
            front_matter::check(&text)?;
            Ok(text)
        }
        None => Ok(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::model::FrontMatterInput;

    #[test]
    fn titles_from_file_names() {
        assert_eq!(title_from_stem("my-first-note"), "My First Note");
        assert_eq!(title_from_stem("été-à-paris"), "Été À Paris");
        assert_eq!(title_from_stem("x"), "X");
    }

    #[test]
    fn reading_broken_and_missing_front_matter() {
        let p = NotePath::parse("a/b-c.md").unwrap();
        let plain = note_of(&p, "just text", 9);
        assert_eq!(plain.front_matter, None);
        assert_eq!(plain.title, "b-c");
        assert_eq!(plain.body, "just text");
        let broken = note_of(&p, "---\ntitle: [x\n---\nbody", 20);
        assert_eq!(broken.front_matter, Some(FrontMatter::default()));
        assert_eq!(broken.body, "---\ntitle: [x\n---\nbody");
        let meta = metadata_of(&p, "---\ntitle: [x\n---\nbody", 20);
        assert_eq!((meta.title.as_str(), meta.date.as_str()), ("b-c", ""));
    }

    #[test]
    fn json_defaults() {
        let p = NotePath::parse("my-first-note.md").unwrap();
        let text = build_from_fields(&p, NoteFields::default(), None).unwrap();
        let doc = front_matter::parse(&text).unwrap();
        let f = doc.fields();
        assert_eq!(f.title, "My First Note");
        assert_eq!(f.date, clock::date(Local::now()));
        assert!(f.tags.is_empty());
        assert_eq!(doc.body, "# My First Note\n\nVotre contenu ici...\n");
    }

    #[test]
    fn json_keeps_unknown_keys_of_the_existing_note() {
        let p = NotePath::parse("n.md").unwrap();
        let existing = "---\ntitle: Old\nauthor: Ann\n---\nold";
        let mut extra = serde_yaml::Mapping::new();
        extra.insert("mood".into(), "ok".into());
        let request = NoteFields {
            body: Some("new".into()),
            front_matter: Some(FrontMatterInput {
                title: Some("T".into()),
                date: Some("01-01-2020".into()),
                extra,
                ..FrontMatterInput::default()
            }),
            ..NoteFields::default()
        };
        let text = build_from_fields(&p, request, Some(existing)).unwrap();
        let doc = front_matter::parse(&text).unwrap();
        let keys: Vec<_> = doc.yaml.keys().filter_map(|k| k.as_str()).collect();
        assert_eq!(
            keys,
            ["title", "date", "last_modified", "tags", "mood", "author"]
        );
        assert_eq!(doc.fields().date, "01-01-2020");
        assert_eq!(doc.body, "new");
    }
}
