//! Writing a note: create-or-replace from text or fields (the spec's defaults), and
//! delete; each under the note's lock, atomic on disk, and told to the change listener.

use std::fs;
use std::io;

use chrono::Local;

use super::note_of;
use super::saves;
use super::title_from_stem;
use crate::error::{Error, Result};
use crate::ops::front_matter::{self, Change, Document, FrontMatter};
use crate::ops::ids::Op;
use crate::ops::model::{DeleteConfirmation, NoteFields, NoteInput, Precondition, PutOutcome};
use crate::ops::root::{again_if_folder_gone, open_error, path_error};
use crate::ops::{NotePath, Notebook, clock, fsutil};

/// The placeholder sentence of an empty body.
pub(crate) const PLACEHOLDER: &str = "Votre contenu ici...";
/// The constant message of a delete confirmation.
pub(crate) const DELETED: &str = "Note deleted successfully";

impl Notebook {
    /// Creates or replaces a note: from its text, or from fields with the spec's
    /// defaults; when `cond` holds of the note as it is.
    pub(crate) fn put(
        &self,
        path: &NotePath,
        input: NoteInput,
        cond: Precondition,
    ) -> Result<PutOutcome> {
        path.check_writable()?;
        self.write_recorded(path, &cond, Op::Put, |existing| match input {
            NoteInput::Markdown(text) => build_from_markdown(path, text),
            NoteInput::Fields(fields) => build_from_fields(path, fields, existing),
            NoteInput::Verbatim(text) => {
                saves::verbatim(text, existing, &clock::stamp(Local::now()))
            }
            NoteInput::Edit(edit) => saves::edit(path, edit, existing, &clock::stamp(Local::now())),
        })
    }

    /// Appends `lines` to an existing note, after a blank line; the front matter keeps
    /// its text, but for `last_modified`, set when the note has one. A note that does
    /// not exist is not created.
    pub(crate) fn append_to_note(&self, path: &NotePath, lines: &str) -> Result<PutOutcome> {
        self.write_recorded(path, &Precondition::None, Op::Put, |existing| {
            let mut text = existing.ok_or(Error::NotFound)?.to_string();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            if !text.is_empty() && !text.ends_with("\n\n") {
                text.push('\n');
            }
            text.push_str(lines);
            text.push('\n');
            front_matter::check(&text)?;
            front_matter::touch(text, &clock::stamp(Local::now()))
        })
    }

    /// Writes the text `build` makes (given the current text, when the note exists),
    /// holding the note's lock so writers to one note take turns, and records it in the
    /// history as `op` before the write is done.
    pub(crate) fn write_recorded(
        &self,
        path: &NotePath,
        cond: &Precondition,
        op: Op,
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
            self.store_recorded(path, text.as_bytes(), mode, created, op)?;
            Ok(PutOutcome {
                note: note_of(path, &text, text.len() as u64),
                created,
            })
        })?;
        self.changed(path);
        Ok(outcome)
    }

    /// Makes the folders of a path about to be written (`parent`), before its history
    /// is recorded: a write the disk refuses (a file where a folder must be) is refused
    /// before the history holds a version that never was.
    pub(crate) fn make_folders(&self, parent: &str) -> Result<()> {
        if parent.is_empty() {
            return Ok(());
        }
        self.root
            .open_folder(parent, true)
            .map(drop)
            .map_err(|e| path_error(e, Error::CreateDirFailed))
    }

    /// The note's current bytes and permission bits; `None` when there is no note yet
    /// (or something that is not a note holds the name: the write then finds it taken).
    pub(crate) fn current_for_write(&self, path: &NotePath) -> Result<Option<(Vec<u8>, u32)>> {
        use std::io::Read;
        let (mut file, meta) = match self.root.open_note(path) {
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
    pub(crate) fn store(
        &self,
        path: &NotePath,
        bytes: &[u8],
        mode: u32,
        create: bool,
    ) -> Result<()> {
        self.store_named(path.parent(), path.file_name(), bytes, mode, create)
    }

    /// Stores `bytes` as the file `name` of the folder `parent` (a checked path,
    /// relative to the notes dir), durably; notes and attachments are written alike.
    pub(crate) fn store_named(
        &self,
        parent: &str,
        name: &str,
        bytes: &[u8],
        mode: u32,
        create: bool,
    ) -> Result<()> {
        self.store_gated(parent, name, bytes, mode, create, &mut |_| Ok(()))
    }

    /// `store_named`, with `gate` called once the bytes are synced, before the name
    /// appears, given the device whose sync follows, when known
    /// (`fsutil::write_atomic_gated`). A folder removed under the write for being empty
    /// (a delete of the last note in it, `RootDir::remove_emptied`) is made again and
    /// the write done there: a writer never fails for another request's cleanup. The
    /// gate answers once; called again, it lets the write through.
    pub(crate) fn store_gated(
        &self,
        parent: &str,
        name: &str,
        bytes: &[u8],
        mode: u32,
        create: bool,
        gate: &mut dyn FnMut(Option<u64>) -> io::Result<()>,
    ) -> Result<()> {
        again_if_folder_gone(
            || self.store_gated_once(parent, name, bytes, mode, create, gate),
            |e| {
                matches!(e, Error::CreateDirFailed(e) | Error::WriteFailed(e)
                    if e.kind() == io::ErrorKind::NotFound)
            },
        )
    }

    /// One try of `store_gated`.
    #[cfg(target_os = "linux")]
    fn store_gated_once(
        &self,
        parent: &str,
        name: &str,
        bytes: &[u8],
        mode: u32,
        create: bool,
        gate: &mut dyn FnMut(Option<u64>) -> io::Result<()>,
    ) -> Result<()> {
        let dir = self
            .root
            .open_beneath(parent, rustix::fs::OFlags::RDONLY, true)
            .map_err(|e| path_error(e.into(), Error::CreateDirFailed))?;
        let written = fsutil::write_atomic_gated(&dir, name, bytes, mode, create, gate)
            .map_err(|e| path_error(e, Error::WriteFailed))?;
        match written {
            fsutil::WrittenAt::Done => Ok(()),
            // Taken since the file was looked at: a dangling symlink is a path that
            // leads nowhere; anything else (a FIFO, a folder, a file another program
            // just made) is not overwritten.
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

    /// One try of `store_gated`, with `gate` called before the file is written.
    #[cfg(not(target_os = "linux"))]
    fn store_gated_once(
        &self,
        parent: &str,
        name: &str,
        bytes: &[u8],
        _mode: u32,
        _create: bool,
        gate: &mut dyn FnMut(Option<u64>) -> io::Result<()>,
    ) -> Result<()> {
        gate(None).map_err(Error::WriteFailed)?;
        let rel = if parent == "." {
            name.to_string()
        } else {
            format!("{parent}/{name}")
        };
        let full = crate::ops::root::resolve_rel(self.notes_dir(), &rel)?;
        if let Some(parent) = full.parent() {
            fs::create_dir_all(parent).map_err(|e| path_error(e, Error::CreateDirFailed))?;
        }
        // The folders just created may hold a symlink race; check again.
        crate::ops::root::resolve_rel(self.notes_dir(), &rel)?;
        fsutil::write_atomic(&full, bytes).map_err(|e| path_error(e, Error::WriteFailed))
    }

    /// Deletes a note; its folder goes when this left it empty (`remove_emptied`).
    pub(crate) fn delete(
        &self,
        path: &NotePath,
        cond: &Precondition,
    ) -> Result<DeleteConfirmation> {
        self.note_locks
            .with(path.as_str(), || self.delete_locked(path, cond))?;
        self.root.remove_emptied(path.parent());
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
            FileType::Symlink => match self.root.open_note(path) {
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
        self.record_delete(path)?;
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
        let full = crate::ops::root::resolve(self.notes_dir(), path)?;
        match fs::symlink_metadata(&full) {
            Ok(meta) if meta.is_file() || meta.file_type().is_symlink() => {}
            Ok(_) => return Err(Error::NotFound),
            Err(e) => return Err(open_error(e, Error::DeleteFailed)),
        }
        if *cond != Precondition::None {
            cond.check(Some(&fs::read(&full).map_err(Error::ReadFailed)?))?;
        }
        self.record_delete(path)?;
        self.unpublish_deleted(path)?;
        fsutil::remove_durable(&full).map_err(|e| open_error(e, Error::DeleteFailed))
    }
}

pub(super) fn build_from_fields(
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
        aliases: Vec::new(),
    };
    let body = request
        .body
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| format!("# {title}\n\n{PLACEHOLDER}\n"));
    // A note with a front matter keeps its text (keys beyond the four spec'd ones,
    // comments, layout): only the keys the request sets change.
    if let Some((previous, doc)) = existing.and_then(|e| Some((e, front_matter::parse(e)?))) {
        let head = &previous[..previous.len() - doc.body.len()];
        let mut changes = vec![
            Change::text("title", fields.title),
            Change::text("date", fields.date),
            Change::text("last_modified", fields.last_modified),
            Change::list("tags", &fields.tags),
        ];
        changes.extend(
            supplied
                .extra
                .into_iter()
                .filter_map(|(key, value)| Some(Change::Set(key.as_str()?.to_string(), value))),
        );
        let text = front_matter::edit(&format!("{head}{body}"), &changes)?;
        front_matter::check(&text)?;
        return Ok(text);
    }
    let mut doc = Document::new(&fields, body);
    doc.extend(supplied.extra);
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
            aliases: Vec::new(),
        };
        return Document::new(&fields, text)
            .emit()
            .map_err(|e| Error::FrontMatterFailed(e.to_string()));
    }
    // Only last_modified changes (or is added); the rest of the YAML keeps its text.
    match front_matter::edit(&text, &[Change::text("last_modified", clock::stamp(now))]) {
        Ok(edited) => {
            front_matter::check(&edited)?;
            Ok(edited)
        }
        Err(Error::FrontMatterUnreadable) => Ok(text),
        Err(err) => Err(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::model::FrontMatterInput;

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
        // The note's keys stay where they were; new ones go after their spec'd
        // neighbour, others last.
        assert_eq!(
            keys,
            ["title", "date", "last_modified", "tags", "author", "mood"]
        );
        assert_eq!(doc.fields().date, "01-01-2020");
        assert_eq!(doc.body, "new");
    }
}
