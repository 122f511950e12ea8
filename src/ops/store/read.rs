//! Reading a note: one checked open gives the file's identity; a kept version of that
//! identity saves the read, else the bytes are read (on the caller's choice of thread:
//! `open_note`, then `finish_read`). `read` is the plain whole operation.

use std::fs;
use std::sync::Arc;

use super::cache::{Head, Version};
use super::{note_of, text_of};
use crate::error::{Error, Result};
use crate::ops::ids::FileId;
use crate::ops::model::Note;
use crate::ops::{NotePath, Notebook};

/// A note's text as stored, before it becomes a `Note`.
pub(crate) struct RawNote {
    pub(crate) path: NotePath,
    pub(crate) version: Arc<Version>,
}

impl RawNote {
    pub(crate) fn bytes(&self) -> &bytes::Bytes {
        &self.version.bytes
    }

    pub(crate) fn etag(&self) -> &str {
        std::str::from_utf8(&self.version.etag).unwrap_or_default()
    }

    /// The entity tag as shared bytes.
    pub(crate) fn etag_bytes(&self) -> bytes::Bytes {
        self.version.etag.clone()
    }

    /// When the file of this version was last modified.
    pub(crate) fn modified(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        self.version.id.modified()
    }

    /// Where a caller keeps what it made of this version (the API keeps its JSON), for
    /// as long as the version is kept.
    pub(crate) fn rendered(&self) -> &std::sync::OnceLock<bytes::Bytes> {
        &self.version.rendered
    }
}

/// A note file opened for reading whose version is not in memory yet.
pub(crate) struct OpenNote {
    path: NotePath,
    file: fs::File,
    id: FileId,
    len: u64,
}

/// A note opened for reading: either its version is in memory, or its bytes are to
/// be read (`Notebook::finish_read`).
pub(crate) enum Opened {
    Ready(RawNote),
    Unread(OpenNote),
}

impl Notebook {
    /// Opens a note: the one open file gives the identity, and a kept version of that
    /// identity saves the read. The file is reached by the checked open even when a
    /// version is kept, so a path that now leads outside the notes dir, or to something
    /// that is not a note, is refused rather than answered from memory.
    pub(crate) fn open_note(&self, path: &NotePath) -> Result<Opened> {
        let kept = self.cache.version(path.as_str());
        // With a version kept, the file's identity alone says whether it still holds.
        #[cfg(target_os = "linux")]
        if let Some(version) = &kept
            && FileId::of_stat(&self.root.stat_note(path)?) == version.id
        {
            return Ok(Opened::Ready(RawNote {
                path: path.clone(),
                version: version.clone(),
            }));
        }
        let (file, meta) = self.root.open_note(path)?;
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
    pub(crate) fn finish_read(&self, open: OpenNote) -> Result<RawNote> {
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
        self.cache.put_version(path.as_str(), &version);
        Ok(RawNote { path, version })
    }

    /// The raw bytes of a note.
    pub(crate) fn read_raw(&self, path: &NotePath) -> Result<RawNote> {
        match self.open_note(path)? {
            Opened::Ready(raw) => Ok(raw),
            Opened::Unread(open) => self.finish_read(open),
        }
    }

    /// A note with its front matter read.
    pub(crate) fn read(&self, path: &NotePath) -> Result<Note> {
        Ok(self.note_of_raw(&self.read_raw(path)?))
    }

    /// The NoteResponse of a version read. The parse of a file version is kept, so
    /// reading an unchanged note again skips the YAML.
    pub(crate) fn note_of_raw(&self, raw: &RawNote) -> Note {
        let RawNote { path, version } = raw;
        let size = version.bytes.len() as u64;
        let text = text_of(&version.bytes);
        let cached = match &text {
            std::borrow::Cow::Borrowed(text) => self
                .cache
                .head(path.as_str(), version.id)
                .and_then(|head| head.note(path, text, size)),
            std::borrow::Cow::Owned(_) => None,
        };
        let mut note = match cached {
            Some(note) => note,
            None => {
                let note = note_of(path, &text, size);
                if let std::borrow::Cow::Borrowed(text) = &text {
                    self.cache
                        .put_head(path.as_str(), version.id, Head::of(&note, text));
                }
                note
            }
        };
        note.etag = raw.etag().to_string();
        note
    }
}
