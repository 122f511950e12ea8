//! A public note that moved: its entry and its page follow it to the new path (its
//! attachments, read from where the moved note now points, copied as on publishing).

use chrono::Utc;

use super::linked::LinksOut;
use super::linked::{self, PublicPlaces};
use super::media::Media;
use super::{failed, files, site};
use crate::error::Result;
use crate::ops::tokens::Scope;
use crate::ops::{NotePath, Notebook, fsutil};

impl Notebook {
    /// After note `from` became `to`: when `from` is public, its entry now names `to`
    /// (its publication time kept), its page is written under the page name of `to`
    /// from the note as it now is, and the old page goes (or goes back to another note
    /// published under that name); the index and the feed are rebuilt, and so are the
    /// pages of the public notes that link to it, which now lead to its new page. A private note
    /// changes nothing, and so does a second call: a move a crash interrupted calls it
    /// again. Returns whether the note was public.
    ///
    /// The pages copy only the attachments `scope` (the mover's) may read.
    ///
    /// The page is written before the record names it and the old page removed after,
    /// so a crash in between leaves a page no entry names, which the repair removes.
    pub(crate) fn moved_public(
        &self,
        from: &NotePath,
        to: &NotePath,
        scope: &Scope,
    ) -> Result<bool> {
        self.with_record(|record| {
            let Some(old) = record.get(from.as_str()).cloned() else {
                return Ok(false);
            };
            let note = self.read(to)?;
            let entry = site::entry_of(to, &note, old.published_at);
            let file = entry.file.clone();
            let mut after = record.clone();
            let at = after.next_stamp(Utc::now());
            after.moved(from.as_str(), entry.clone(), at);
            let dir = self.public_dir();
            let page = dir.join(&file);
            let old_page = dir.join(&old.file);
            // Links are resolved against the notes as they are now: the move has
            // renamed the note and rewritten the links to it already.
            let targets = self.link_targets()?;
            // A note published later under the same name keeps the page.
            let owns_page = after.owner_of(&file).is_some_and(|e| e.path == entry.path);
            let media = Media::new(&self.root, &self.public_root, scope, Some(to));
            let places = PublicPlaces::new(&targets, &after, to, &media);
            let html = owns_page
                .then(|| site::page(&note, &entry, self.config().base_url.as_deref(), &places));
            let renamed_page = old.file != file;
            let successor = if renamed_page {
                self.successor(&mut after, &old.file, at, &targets, &media)?
            } else {
                None
            };
            // The public pages that link to the note (or to a note whose page name it
            // took or left) now lead to its new page.
            let mut linked_to = linked::affected(&after, to);
            linked_to.extend(linked::affected(record, from));
            let linking = self.linking_pages(
                &after,
                &targets,
                &linked_to,
                to,
                &media,
                &LinksOut::default(),
            );
            // Pages whose name other notes share are marked while they change, so the
            // repair can rewrite them from their owners after a crash.
            let mut pending: Vec<&str> = Vec::new();
            if after.shares_page(&file, to.as_str()) {
                pending.push(&file);
            }
            if successor.is_some() {
                pending.push(&old.file);
            }
            pending.extend(linking.iter().map(|(file, _)| file.as_str()));
            let mut touched = self.touched_by_change(&page, &linking);
            touched.push(old_page.clone());
            self.change_with_media(&touched, &pending, &[&media], || {
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
                self.write_linking(&linking)
            })?;
            *record = after;
            Ok(true)
        })
    }
}
