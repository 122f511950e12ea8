//! A public note that moved: its entry and its page follow it to the new path.

use chrono::Utc;

use super::record::{self, Entry};
use super::{failed, files, site};
use crate::error::Result;
use crate::ops::{NotePath, Notebook, fsutil};

impl Notebook {
    /// After note `from` became `to`: when `from` is public, its entry now names `to`
    /// (its publication time kept), its page is written under the page name of `to`
    /// from the note as it now is, and the old page goes (or goes back to another note
    /// published under that name); the index and the feed are rebuilt. A private note
    /// changes nothing, and so does a second call: a move a crash interrupted calls it
    /// again. Returns whether the note was public.
    ///
    /// The page is written before the record names it and the old page removed after,
    /// so a crash in between leaves a page no entry names, which the repair removes.
    pub(crate) fn moved_public(&self, from: &NotePath, to: &NotePath) -> Result<bool> {
        self.with_record(|record| {
            let Some(old) = record.get(from.as_str()).cloned() else {
                return Ok(false);
            };
            let note = self.read(to)?;
            let file = site::page_name(to);
            let entry = Entry {
                path: to.to_string(),
                title: note.title.clone(),
                tags: note
                    .front_matter
                    .as_ref()
                    .map(|f| f.tags.clone())
                    .unwrap_or_default(),
                summary: crate::render::summary(&note.body, site::SUMMARY_CHARS),
                published_at: old.published_at,
                file: file.clone(),
            };
            let mut after = record.clone();
            let at = after.next_stamp(Utc::now());
            after.moved(from.as_str(), entry.clone(), at);
            let dir = self.public_dir();
            let page = dir.join(&file);
            let old_page = dir.join(&old.file);
            // A note published later under the same name keeps the page.
            let owns_page = after.owner_of(&file).is_some_and(|e| e.path == entry.path);
            let html =
                owns_page.then(|| site::page(&note, &entry, self.config().base_url.as_deref()));
            let renamed_page = old.file != file;
            let successor = if renamed_page {
                self.successor(&mut after, &old.file, at)?
            } else {
                None
            };
            // Pages whose name other notes share are marked while they change, so the
            // repair can rewrite them from their owners after a crash.
            let mut shared: Vec<&str> = Vec::new();
            if after.shares_page(&file, to.as_str()) {
                shared.push(&file);
            }
            if successor.is_some() {
                shared.push(&old.file);
            }
            let mut touched = self.touched_by_change(&page).to_vec();
            touched.push(old_page.clone());
            self.change(&touched, shared.first().copied(), || {
                if shared.len() > 1 {
                    record::save_pending(self.notes_dir(), &shared).map_err(failed)?;
                }
                site::write_assets(dir).map_err(failed)?;
                if let Some(html) = &html {
                    fsutil::write_atomic(&page, html.as_bytes()).map_err(failed)?;
                }
                self.write_listing(&after)?;
                self.save_record(&after)?;
                if renamed_page {
                    match &successor {
                        Some((_, html)) => fsutil::write_atomic(&old_page, html.as_bytes()),
                        None => files::remove_if_present(&old_page),
                    }
                    .map_err(failed)?;
                }
                Ok(())
            })?;
            *record = after;
            Ok(true)
        })
    }
}
