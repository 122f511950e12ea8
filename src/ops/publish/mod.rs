//! Publishing: toggling a note public or private, the record of public notes, and the
//! static files of the public dir (pages, index, feed, stylesheet) kept in step with it.
//!
//! Every change runs under one lock (the record's), reads the record, writes the files
//! and the record, and rebuilds the index and the feed, so concurrent toggles never lose
//! an entry. The record is the truth: a change that fails puts every file back as it
//! was, and the order of the steps is chosen so that a crash can only leave what the
//! repair (`repair_public`, run when the server starts) recognises and undoes: a page
//! no entry names, a stale index or feed, a shared page marked as in progress, a media
//! file no page names.

pub(crate) mod feed;
mod files;
mod freshness;
mod linked;
pub(crate) mod media;
mod moved;
pub(crate) mod record;
mod repair;
pub(crate) mod site;
mod toggles;

use std::io;
use std::path::{Path, PathBuf};

use chrono::Utc;
use serde::Serialize;

pub(crate) use self::files::PublicFile;
pub(crate) use self::freshness::PublicState;
use self::linked::{LinksOut, PublicPlaces};
use self::media::Media;
use self::record::{Entry, Record};
pub(crate) use self::repair::RepairReport;
pub(crate) use self::toggles::Toggles;
use super::fsutil;
use super::links::LinkTargets;
use super::tokens::Scope;
use super::{NotePath, Notebook};
use crate::error::{Cause, Error, Result};

/// The lock key of the record (never a note path: those end in `.md`).
const RECORD_LOCK: &str = record::FILE;

/// Public or private, as the toggle reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Visibility {
    Public,
    Private,
}

/// The public toggle result: `{"status", "path"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ToggleResult {
    pub(crate) status: Visibility,
    pub(crate) path: String,
}

/// What happened to the page file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PageEffect {
    /// The page was written.
    Written,
    /// The page was removed.
    Removed,
    /// Another public note uses the same page name; the page now shows that note.
    HandedTo(String),
}

/// A publication change: the toggle result, the page file concerned and its fate.
#[derive(Debug, Clone)]
pub(crate) struct Publication {
    pub(crate) result: ToggleResult,
    pub(crate) page: PathBuf,
    pub(crate) effect: PageEffect,
}

/// A public note entry: `{"path", "title", "published_at"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PublicNote {
    pub(crate) path: String,
    pub(crate) title: String,
    pub(crate) published_at: String,
}

/// The public list: `{"notes": [...]}`, newest first.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PublicList {
    pub(crate) notes: Vec<PublicNote>,
}

/// A public note as the command line shows it: the entry and its page file.
#[derive(Debug, Clone)]
pub(crate) struct PublicPage {
    pub(crate) note: PublicNote,
    pub(crate) page: PathBuf,
}

/// A publication change worked out against a record, before any file is written.
struct Planned<'a> {
    publication: Publication,
    /// The record with the change made.
    after: Record,
    /// The page's new text; `None`: the page goes.
    page_text: Option<String>,
    /// The pages of the public notes that link to the note, rendered anew.
    linking: Vec<(String, String)>,
    /// The pages marked as in progress while the change is written.
    pending: Vec<String>,
    /// Every file the change may rewrite (put back if it fails).
    touched: Vec<PathBuf>,
    /// The attachments the rendered pages copy.
    media: Media<'a>,
}

fn owned(names: Vec<&str>) -> Vec<String> {
    names.into_iter().map(str::to_string).collect()
}

fn failed(e: io::Error) -> Error {
    Error::PublishFailed(Cause::of(e))
}

impl Notebook {
    /// `POST /api/public/toggle`: a private note becomes public, a public one private.
    /// The note must exist either way, and `scope` (the caller's) must reach it; the
    /// pages copy only the attachments `scope` may read (`media.rs`).
    /// Holds the note's lock (then the record's, the order delete takes them in), so a
    /// delete racing with a toggle cannot leave a public entry for a deleted note.
    pub(crate) fn toggle_public(&self, path: &NotePath, scope: &Scope) -> Result<Publication> {
        self.check_write(scope, path)?;
        self.toggles.run(
            (path.clone(), scope.clone()),
            |batch| self.toggle_batch(batch),
            || Err(Error::PublishFailed("the toggle's batch stopped".into())),
        )
    }

    /// One toggle on its own, under the note's lock and the record's.
    fn toggle_one(&self, path: &NotePath, scope: &Scope) -> Result<Publication> {
        self.note_locks.with(path.as_str(), || {
            self.with_record(|record| {
                self.read(path)?;
                if record.get(path.as_str()).is_some() {
                    self.take_down(record, path, scope)
                } else {
                    self.put_up(record, path, scope)
                }
            })
        })
    }

    /// Makes a note public, or regenerates its page when it already is, for a caller
    /// within `scope` (as `toggle_public`).
    pub(crate) fn publish(&self, path: &NotePath, scope: &Scope) -> Result<Publication> {
        self.check_write(scope, path)?;
        self.note_locks.with(path.as_str(), || {
            self.with_record(|record| self.put_up(record, path, scope))
        })
    }

    /// Makes a public note private, for a caller within `scope`. Works when the note
    /// file is gone too, so that an entry whose note was removed outside the service
    /// can still be cleared.
    pub(crate) fn unpublish(&self, path: &NotePath, scope: &Scope) -> Result<Publication> {
        self.check_write(scope, path)?;
        self.with_record(|record| {
            if record.get(path.as_str()).is_none() {
                return Err(Error::NotPublic(path.to_string()));
            }
            self.take_down(record, path, scope)
        })
    }

    /// Unpublishes a note about to be deleted; nothing happens when it is not public.
    /// Any failure, an unreadable record included (the note may be public), refuses the
    /// delete: the note, its page and its entry all stay.
    pub(crate) fn unpublish_deleted(&self, path: &NotePath) -> Result<()> {
        self.with_record(|record| {
            if record.get(path.as_str()).is_some() {
                self.take_down(record, path, &Scope::full())?;
            }
            Ok(())
        })
        .map_err(|e| Error::DeleteFailed(io::Error::other(e.detailed())))
    }

    /// `GET /api/public/list`: the public notes, newest first.
    pub(crate) fn public_list(&self) -> Result<PublicList> {
        let pages = self.public_pages()?.unwrap_or_default();
        Ok(PublicList {
            notes: pages.into_iter().map(|p| p.note).collect(),
        })
    }

    /// The public notes with their page files, newest first; `None` when no record
    /// exists (nothing was ever published). Fails when the notes dir does not exist.
    pub(crate) fn public_pages(&self) -> Result<Option<Vec<PublicPage>>> {
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
            .map_err(|e| Error::PublishFailed(Cause::new("cannot write the public record", e)))
    }

    /// The files a change may rewrite: the record, the page, the index, the feed and
    /// the pages of the public notes that link to the note (`linking`).
    fn touched_by_change(&self, page: &Path, linking: &[(String, String)]) -> Vec<PathBuf> {
        let dir = self.public_dir();
        let mut touched = vec![
            Record::path(self.notes_dir()),
            page.to_path_buf(),
            dir.join(site::INDEX_FILE),
            dir.join(feed::FILE),
        ];
        touched.extend(linking.iter().map(|(file, _)| dir.join(file)));
        touched
    }

    /// Runs the steps of a change to the public files. When a step fails, every file in
    /// `touched` is put back as it was, so the record, the pages, the index and the feed
    /// keep agreeing and the answer (a failure) claims nothing the files show.
    /// `pending` pages (a page whose name is also another note's, the pages of the notes
    /// that link to the note) are marked as in progress first: after a crash in the
    /// middle the repair rewrites each from its owner and the record.
    fn change(
        &self,
        touched: &[PathBuf],
        pending: &[&str],
        steps: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let mut undo = files::Undo::default();
        for path in touched {
            undo.save(path).map_err(failed)?;
        }
        if !pending.is_empty() {
            record::save_pending(self.notes_dir(), pending).map_err(failed)?;
        }
        let outcome = steps().map_err(|e| match e {
            Error::PublishFailed(_) => e,
            other => Error::PublishFailed(Cause::of(other)),
        });
        let outcome = match outcome {
            Ok(()) => Ok(()),
            Err(err) => match undo.restore() {
                Ok(()) => Err(err),
                // The marker stays: the next repair puts the page right.
                Err(undo) => {
                    return Err(Error::PublishFailed(
                        format!(
                            "{}; putting the files back failed too: {undo}",
                            err.detailed()
                        )
                        .into(),
                    ));
                }
            },
        };
        if !pending.is_empty() {
            // A marker left behind only costs the repair a page rewrite.
            let _ = record::clear_pending(self.notes_dir());
        }
        outcome
    }

    /// `change`, for pages rendered with `media`: a media file that could not be written
    /// fails the change before any step; after it (done or undone), the media files the
    /// touched pages named before and those written for it are removed unless a page of
    /// the public dir still names them.
    fn change_with_media(
        &self,
        touched: &[PathBuf],
        pending: &[&str],
        media: &[&Media],
        steps: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let dir = self.public_dir();
        let pages: Vec<String> = touched
            .iter()
            .filter_map(|path| path.strip_prefix(dir).ok()?.to_str())
            .filter(|rel| rel.ends_with(".html"))
            .map(str::to_string)
            .collect();
        let mut candidates = media::names_in_pages(dir, &pages);
        for media in media {
            candidates.extend(media.created());
        }
        let outcome = media
            .iter()
            .try_for_each(|media| media.take_failure())
            .map_err(failed)
            .and_then(|()| self.change(touched, pending, steps));
        // A file left behind (a failure to remove it) only waits for the next change or
        // the repair: it is never named by a page.
        let _ = self.remove_unused_media(candidates, &pages);
        outcome
    }

    /// Publishes (or republishes) `path` for a caller within `scope`. The page is
    /// written before the record names it, so a crash in between leaves a page no entry
    /// names, which the repair removes.
    fn put_up(&self, record: &mut Record, path: &NotePath, scope: &Scope) -> Result<Publication> {
        let plan = self.plan_put_up(record, path, scope, &LinksOut::default())?;
        let record_file = Record::path(self.notes_dir());
        let pending: Vec<&str> = plan.pending.iter().map(String::as_str).collect();
        self.change_with_media(&plan.touched, &pending, &[&plan.media], || {
            // The record exists before any page does, so that the repair knows the
            // public dir is this notebook's from the first publication on.
            if !files::is_regular(&record_file) {
                self.save_record(record)?;
            }
            site::write_assets(self.public_dir()).map_err(failed)?;
            let html = plan.page_text.as_deref().unwrap_or_default();
            fsutil::write_atomic(&plan.publication.page, html.as_bytes()).map_err(failed)?;
            self.write_listing(&plan.after)?;
            self.save_record(&plan.after)?;
            self.write_linking(&plan.linking)
        })?;
        *record = plan.after;
        Ok(plan.publication)
    }

    /// The change `put_up` makes, worked out against `record`; nothing written.
    fn plan_put_up<'a>(
        &'a self,
        record: &Record,
        path: &'a NotePath,
        scope: &'a Scope,
        links: &LinksOut,
    ) -> Result<Planned<'a>> {
        let note = self.read(path)?;
        let entry = site::entry_of(path, &note, record.next_stamp(Utc::now()));
        let file = entry.file.clone();
        let mut after = record.clone();
        after.insert(entry.clone());
        let targets = self.link_targets()?;
        let media = Media::new(&self.root, &self.public_root, scope, Some(path));
        let places = PublicPlaces::new(&targets, &after, path, &media);
        let html = site::page(&note, &entry, self.config().base_url.as_deref(), &places);
        let affected = linked::affected(record, path);
        let linking = self.linking_pages(&after, &targets, &affected, path, &media, links);
        let page = self.public_dir().join(&file);
        let shared = record.shares_page(&file, path.as_str());
        let pending = owned(linked::pending_pages(
            shared.then_some(file.as_str()),
            &linking,
        ));
        let touched = self.touched_by_change(&page, &linking);
        Ok(Planned {
            publication: Publication {
                result: ToggleResult {
                    status: Visibility::Public,
                    path: path.to_string(),
                },
                page,
                effect: PageEffect::Written,
            },
            after,
            page_text: Some(html),
            linking,
            pending,
            touched,
            media,
        })
    }

    /// Unpublishes `path`. A page name shared with another public note goes back to the
    /// latest other publication of that name (re-rendered from its note); otherwise the
    /// page is removed. The entry leaves the record before the page goes, so a crash in
    /// between leaves a page no entry names (removed by the repair), never an entry the
    /// repair would publish again.
    fn take_down(
        &self,
        record: &mut Record,
        path: &NotePath,
        scope: &Scope,
    ) -> Result<Publication> {
        let plan = self.plan_take_down(record, path, scope, &LinksOut::default())?;
        let pending: Vec<&str> = plan.pending.iter().map(String::as_str).collect();
        let page = &plan.publication.page;
        self.change_with_media(&plan.touched, &pending, &[&plan.media], || {
            self.write_listing(&plan.after)?;
            self.save_record(&plan.after)?;
            match &plan.page_text {
                Some(html) => fsutil::write_atomic(page, html.as_bytes()),
                None => files::remove_if_present(page),
            }
            .map_err(failed)?;
            self.write_linking(&plan.linking)
        })?;
        *record = plan.after;
        Ok(plan.publication)
    }

    /// The change `take_down` makes, worked out against `record`; nothing written.
    fn plan_take_down<'a>(
        &'a self,
        record: &Record,
        path: &'a NotePath,
        scope: &'a Scope,
        links: &LinksOut,
    ) -> Result<Planned<'a>> {
        let mut after = record.clone();
        let at = after.next_stamp(Utc::now());
        let Some(entry) = after.remove(path.as_str(), at) else {
            return Err(Error::NotPublic(path.to_string()));
        };
        let page = self.public_dir().join(&entry.file);
        let targets = self.link_targets()?;
        let media = Media::new(&self.root, &self.public_root, scope, None);
        let successor = self.successor(&mut after, &entry.file, at, &targets, &media)?;
        let affected = linked::affected(record, path);
        let linking = self.linking_pages(&after, &targets, &affected, path, &media, links);
        let pending = owned(linked::pending_pages(
            successor.as_ref().map(|_| entry.file.as_str()),
            &linking,
        ));
        let touched = self.touched_by_change(&page, &linking);
        let (effect, page_text) = match successor {
            Some((owner, html)) => (PageEffect::HandedTo(owner), Some(html)),
            None => (PageEffect::Removed, None),
        };
        Ok(Planned {
            publication: Publication {
                result: ToggleResult {
                    status: Visibility::Private,
                    path: path.to_string(),
                },
                page,
                effect,
            },
            after,
            page_text,
            linking,
            pending,
            touched,
            media,
        })
    }

    /// The note that takes page `file` over, with its page: the latest publication of
    /// that name left in `record` whose note can still be shown. Entries whose note is
    /// gone are dropped on the way, as the repair would drop them.
    fn successor(
        &self,
        record: &mut Record,
        file: &str,
        at: chrono::DateTime<Utc>,
        targets: &LinkTargets,
        media: &Media,
    ) -> Result<Option<(String, String)>> {
        while let Some(owner) = record.owner_of(file).cloned() {
            match self.render_page(&owner, record, targets, media) {
                Ok(html) => return Ok(Some((owner.path, html))),
                Err(e) if note_is_gone(&e) => {
                    record.remove(&owner.path, at);
                }
                Err(e) => return Err(Error::PublishFailed(Cause::of(e))),
            }
        }
        Ok(None)
    }

    /// The page of a public note, its links as `record` makes them, its attachments
    /// copied by `media`.
    fn render_page(
        &self,
        entry: &Entry,
        record: &Record,
        targets: &LinkTargets,
        media: &Media,
    ) -> Result<String> {
        let path = NotePath::parse(&entry.path)?;
        let note = self.read(&path)?;
        let places = PublicPlaces::new(targets, record, &path, media);
        Ok(site::page(
            &note,
            entry,
            self.config().base_url.as_deref(),
            &places,
        ))
    }

    /// Rewrites the index and the feed from the record.
    fn write_listing(&self, record: &Record) -> Result<()> {
        let dir = self.public_dir();
        fsutil::write_atomic(&dir.join(site::INDEX_FILE), site::index(record).as_bytes())
            .map_err(failed)?;
        let feed = feed::feed(record, self.config().base_url.as_deref());
        fsutil::write_atomic(&dir.join(feed::FILE), feed.as_bytes()).map_err(failed)
    }
}

/// Whether a failure to read an entry's note means the note can no longer be shown.
fn note_is_gone(err: &Error) -> bool {
    matches!(
        err,
        Error::NotFound | Error::InvalidPath | Error::NotMarkdown
    )
}

#[cfg(test)]
mod tests;
