//! Publishing: toggling a note public or private, the record of public notes, and the
//! static files of the public dir (pages, index, feed, stylesheet) kept in step with it.
//!
//! Every change runs under one lock (the record's), reads the record, writes the files
//! and the record, and rebuilds the index and the feed, so concurrent toggles never lose
//! an entry and the public dir always matches the record.

pub mod feed;
pub mod record;
pub mod site;

use std::io;
use std::path::PathBuf;

use chrono::Utc;
use serde::Serialize;

use self::record::{Entry, Record};
use super::fsutil;
use super::{NotePath, Notebook};
use crate::error::{Error, Result};

/// The lock key of the record (never a note path: those end in `.md`).
const RECORD_LOCK: &str = record::FILE;

/// Public or private, as the toggle reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Public,
    Private,
}

/// The public toggle result: `{"status", "path"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToggleResult {
    pub status: Visibility,
    pub path: String,
}

/// What happened to the page file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageEffect {
    /// The page was written.
    Written,
    /// The page was removed.
    Removed,
    /// Another public note uses the same page name; the page now shows that note.
    HandedTo(String),
}

/// A publication change: the toggle result, the page file concerned and its fate.
#[derive(Debug, Clone)]
pub struct Publication {
    pub result: ToggleResult,
    pub page: PathBuf,
    pub effect: PageEffect,
}

/// A public note entry: `{"path", "title", "published_at"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PublicNote {
    pub path: String,
    pub title: String,
    pub published_at: String,
}

/// The public list: `{"notes": [...]}`, newest first.
#[derive(Debug, Clone, Serialize)]
pub struct PublicList {
    pub notes: Vec<PublicNote>,
}

/// A public note as the command line shows it: the entry and its page file.
#[derive(Debug, Clone)]
pub struct PublicPage {
    pub note: PublicNote,
    pub page: PathBuf,
}

fn failed(e: io::Error) -> Error {
    Error::PublishFailed(e.to_string())
}

impl Notebook {
    /// `POST /api/public/toggle`: a private note becomes public, a public one private.
    /// The note must exist either way.
    /// Holds the note's lock (then the record's, the order delete takes them in), so a
    /// delete racing with a toggle cannot leave a public entry for a deleted note.
    pub fn toggle_public(&self, path: &NotePath) -> Result<Publication> {
        self.note_locks.with(path.as_str(), || {
            self.with_record(|record| {
                self.read(path)?;
                if record.get(path.as_str()).is_some() {
                    self.take_down(record, path)
                } else {
                    self.put_up(record, path)
                }
            })
        })
    }

    /// Makes a note public, or regenerates its page when it already is.
    pub fn publish(&self, path: &NotePath) -> Result<Publication> {
        self.note_locks.with(path.as_str(), || {
            self.with_record(|record| self.put_up(record, path))
        })
    }

    /// Makes a public note private. Works when the note file is gone too, so that an
    /// entry whose note was removed outside the service can still be cleared.
    pub fn unpublish(&self, path: &NotePath) -> Result<Publication> {
        self.with_record(|record| {
            if record.get(path.as_str()).is_none() {
                return Err(Error::NotPublic(path.to_string()));
            }
            self.take_down(record, path)
        })
    }

    /// Unpublishes a note about to be deleted; nothing happens when it is not public.
    pub(crate) fn unpublish_deleted(&self, path: &NotePath) -> Result<()> {
        self.with_record(|record| {
            if record.get(path.as_str()).is_some() {
                self.take_down(record, path)?;
            }
            Ok(())
        })
    }

    /// `GET /api/public/list`: the public notes, newest first.
    pub fn public_list(&self) -> Result<PublicList> {
        let pages = self.public_pages()?.unwrap_or_default();
        Ok(PublicList {
            notes: pages.into_iter().map(|p| p.note).collect(),
        })
    }

    /// The public notes with their page files, newest first; `None` when no record
    /// exists (nothing was ever published). Fails when the notes dir does not exist.
    pub fn public_pages(&self) -> Result<Option<Vec<PublicPage>>> {
        if !self.notes_dir().is_dir() {
            return Err(Error::NotesDirMissing(self.notes_dir().to_path_buf()));
        }
        let Some(record) = Record::load(&Record::path(self.notes_dir()))? else {
            return Ok(None);
        };
        let pages = record
            .newest_first()
            .into_iter()
            .map(|e| PublicPage {
                note: PublicNote {
                    path: e.path.clone(),
                    title: e.title.clone(),
                    published_at: super::clock::iso_utc(e.published_at),
                },
                page: self.public_dir().join(&e.file),
            })
            .collect();
        Ok(Some(pages))
    }

    /// Runs `f` on the record while holding its lock. A missing record starts empty and
    /// is only created by a change.
    fn with_record<T>(&self, f: impl FnOnce(&mut Record) -> Result<T>) -> Result<T> {
        self.note_locks.with(RECORD_LOCK, || {
            let mut record = Record::load(&Record::path(self.notes_dir()))?.unwrap_or_default();
            f(&mut record)
        })
    }

    fn save_record(&self, record: &Record) -> Result<()> {
        record
            .save(&Record::path(self.notes_dir()))
            .map_err(|e| Error::PublishFailed(format!("cannot write the public record: {e}")))
    }

    /// Publishes (or republishes) `path`: page, record, index and feed.
    fn put_up(&self, record: &mut Record, path: &NotePath) -> Result<Publication> {
        let note = self.read(path)?;
        let file = site::page_name(path);
        let entry = Entry {
            path: path.to_string(),
            title: note.title.clone(),
            tags: note
                .front_matter
                .as_ref()
                .map(|f| f.tags.clone())
                .unwrap_or_default(),
            summary: crate::render::summary(&note.body, site::SUMMARY_CHARS),
            published_at: record.next_stamp(Utc::now()),
            file: file.clone(),
        };
        let page = self.public_dir().join(&file);
        site::write_assets(self.public_dir()).map_err(failed)?;
        fsutil::write_atomic(
            &page,
            site::page(&note, &entry, self.config().base_url.as_deref()).as_bytes(),
        )
        .map_err(failed)?;
        record.insert(entry);
        self.save_record(record)?;
        self.rebuild_public(record)?;
        Ok(Publication {
            result: ToggleResult {
                status: Visibility::Public,
                path: path.to_string(),
            },
            page,
            effect: PageEffect::Written,
        })
    }

    /// Unpublishes `path`. A page name shared with another public note goes back to the
    /// latest other publication of that name (re-rendered from its note); otherwise the
    /// page is removed.
    fn take_down(&self, record: &mut Record, path: &NotePath) -> Result<Publication> {
        let at = record.next_stamp(Utc::now());
        let Some(entry) = record.remove(path.as_str(), at) else {
            return Err(Error::NotPublic(path.to_string()));
        };
        self.save_record(record)?;
        let page = self.public_dir().join(&entry.file);
        let owner = record.owner_of(&entry.file).cloned();
        let effect = match owner.and_then(|o| self.render_page(&o).ok().map(|html| (o, html))) {
            Some((owner, html)) => {
                fsutil::write_atomic(&page, html.as_bytes()).map_err(failed)?;
                PageEffect::HandedTo(owner.path)
            }
            None => {
                match fsutil::remove_durable(&page) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(failed(e)),
                }
                PageEffect::Removed
            }
        };
        self.rebuild_public(record)?;
        Ok(Publication {
            result: ToggleResult {
                status: Visibility::Private,
                path: path.to_string(),
            },
            page,
            effect,
        })
    }

    fn render_page(&self, entry: &Entry) -> Result<String> {
        let path = NotePath::parse(&entry.path)?;
        let note = self.read(&path)?;
        Ok(site::page(&note, entry, self.config().base_url.as_deref()))
    }

    /// Rewrites the stylesheet (when changed), the index and the feed from the record.
    fn rebuild_public(&self, record: &Record) -> Result<()> {
        let dir = self.public_dir();
        site::write_assets(dir).map_err(failed)?;
        fsutil::write_atomic(&dir.join(site::INDEX_FILE), site::index(record).as_bytes())
            .map_err(failed)?;
        let feed = feed::feed(record, self.config().base_url.as_deref());
        fsutil::write_atomic(&dir.join(feed::FILE), feed.as_bytes()).map_err(failed)
    }
}

/// A file of the public dir, as read for serving.
#[derive(Debug, Clone)]
pub struct PublicFile {
    /// The file name, for its content type.
    pub name: String,
    pub bytes: Vec<u8>,
}

impl Notebook {
    /// The file at `encoded` (a percent-encoded URL path relative to the public dir;
    /// empty means the index). Only regular files inside the public dir are served:
    /// `..`, hidden names, backslashes and symlinks leading out are all "not found".
    pub fn public_file(&self, encoded: &str) -> Result<PublicFile> {
        let decoded = percent_encoding::percent_decode_str(encoded)
            .decode_utf8()
            .map_err(|_| Error::RouteNotFound)?;
        let rel = if decoded.is_empty() {
            site::INDEX_FILE
        } else {
            &decoded
        };
        let segments: Vec<&str> = rel.split('/').collect();
        let refused = |s: &&str| s.is_empty() || s.starts_with('.') || s.contains(['\\', '\0']);
        if segments.iter().any(refused) {
            return Err(Error::RouteNotFound);
        }
        let root = self
            .public_dir()
            .canonicalize()
            .map_err(|_| Error::RouteNotFound)?;
        let full = root
            .join(segments.join(std::path::MAIN_SEPARATOR_STR))
            .canonicalize()
            .map_err(|_| Error::RouteNotFound)?;
        if !full.starts_with(&root) || !full.is_file() {
            return Err(Error::RouteNotFound);
        }
        let bytes = std::fs::read(&full).map_err(|_| Error::RouteNotFound)?;
        let name = segments.last().copied().unwrap_or_default().to_string();
        Ok(PublicFile { name, bytes })
    }
}

#[cfg(test)]
mod tests;
