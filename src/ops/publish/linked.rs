//! Links on public pages. A link to a public note goes to its page (`NAME.html`, the
//! heading kept); a link to a private or missing note is its text alone, so no private
//! path or title reaches a page; an attachment goes to its copy in `media/` (`media.rs`),
//! or is its text when it cannot be read. When a note is published or unpublished, the
//! pages of the public notes that link to it are rendered again.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::media::Media;
use super::record::{Entry, Record};
use super::{failed, files, site};
use crate::error::Result;
use crate::ops::links::{Destination, LinkTargets, for_each_link, fragment};
use crate::ops::store::text_of;
use crate::ops::{NotePath, Notebook};
use crate::render::{LinkForm, LinkPlaces, Place, card_title};

/// Where the links of one public page go, with the record as it will be.
pub(crate) struct PublicPlaces<'a> {
    targets: &'a LinkTargets,
    record: &'a Record,
    from: &'a NotePath,
    media: &'a Media<'a>,
}

impl<'a> PublicPlaces<'a> {
    pub(crate) fn new(
        targets: &'a LinkTargets,
        record: &'a Record,
        from: &'a NotePath,
        media: &'a Media<'a>,
    ) -> Self {
        PublicPlaces {
            targets,
            record,
            from,
            media,
        }
    }
}

impl LinkPlaces for PublicPlaces<'_> {
    fn place(&self, form: LinkForm, dest: &str) -> Place {
        match self.targets.destination(self.from, form, dest) {
            Destination::Note { path, heading } => match page_of(self.record, &path) {
                Some(entry) => Place::Note {
                    href: format!(
                        "{}{}",
                        crate::render::url_segment(&entry.file),
                        fragment(heading.as_deref())
                    ),
                    // Only an embed's card shows it, cut.
                    title: if matches!(form, LinkForm::Embed | LinkForm::Image) {
                        card_title(&entry.title).into_owned()
                    } else {
                        String::new()
                    },
                },
                None => Place::Missing { href: None },
            },
            Destination::Missing { .. } => Place::Missing { href: None },
            // An attachment is copied beside the pages; one that cannot be read (or a
            // path leading outside the notes dir) is the link's text.
            Destination::File {
                path: Some(path), ..
            } => match self.media.href(&path, self.from) {
                Some(href) => Place::File { href },
                None => Place::Missing { href: None },
            },
            Destination::File { path: None, .. } => Place::Missing { href: None },
            Destination::Elsewhere => Place::AsWritten,
        }
    }
}

/// The entry of note `path` when it is public and its page shows it (a page name two
/// public notes share shows the latest publication only).
fn page_of<'r>(record: &'r Record, path: &NotePath) -> Option<&'r Entry> {
    let entry = record.get(path.as_str())?;
    let owner = record.owner_of(&entry.file)?;
    (owner.path == entry.path).then_some(entry)
}

/// The notes whose public pages may change when `path` is published or unpublished:
/// the note, and every note published under the same page name (the page passes from
/// one to another).
pub(super) fn affected(record: &Record, path: &NotePath) -> Vec<String> {
    let file = site::page_name(path);
    let mut notes: Vec<String> = record
        .entries()
        .filter(|e| e.file == file)
        .map(|e| e.path.clone())
        .collect();
    if !notes.iter().any(|p| p == path.as_str()) {
        notes.push(path.to_string());
    }
    notes
}

/// The notes each public note links to, read once for all the toggles of a batch
/// (`None`: the note cannot be read).
#[derive(Default)]
pub(super) struct LinksOut(RefCell<HashMap<String, Option<Rc<[String]>>>>);

impl LinksOut {
    fn of(
        &self,
        from: &NotePath,
        read: impl FnOnce() -> Option<Vec<String>>,
    ) -> Option<Rc<[String]>> {
        if let Some(known) = self.0.borrow().get(from.as_str()) {
            return known.clone();
        }
        let out: Option<Rc<[String]>> = read().map(Rc::from);
        self.0.borrow_mut().insert(from.to_string(), out.clone());
        out
    }
}

impl Notebook {
    /// The pages of the public notes of `record` that link to one of the notes `to`,
    /// rendered again with `record`: each page's file name and HTML. The page of
    /// `except` (written by the caller) is left out, and so is a note that cannot be
    /// read any more (the repair deals with it).
    pub(super) fn linking_pages(
        &self,
        record: &Record,
        targets: &LinkTargets,
        to: &[String],
        except: &NotePath,
        media: &Media,
        links: &LinksOut,
    ) -> Vec<(String, String)> {
        let mut pages = Vec::new();
        for entry in record.entries() {
            let Ok(from) = NotePath::parse(&entry.path) else {
                continue;
            };
            if from == *except {
                continue;
            }
            // The note read for its links is the one rendered; a memo answered: read now.
            let mut read = None;
            let links_here = links.of(&from, || {
                let raw = self.read_raw(&from).ok()?;
                let mut out = Vec::new();
                for_each_link(&text_of(raw.bytes()), &mut |link| {
                    if let Some(target) = targets.resolver().resolve(&from, &link) {
                        out.push(target.to_string());
                    }
                });
                read = Some(raw);
                Some(out)
            });
            if !links_here.is_some_and(|out| out.iter().any(|t| to.contains(t)))
                || page_of(record, &from).is_none()
            {
                continue;
            }
            let Some(raw) = read.or_else(|| self.read_raw(&from).ok()) else {
                continue;
            };
            let note = self.note_of_raw(&raw);
            let places = PublicPlaces::new(targets, record, &from, media);
            let html = site::page(&note, entry, self.config().base_url.as_deref(), &places);
            pages.push((entry.file.clone(), html));
        }
        pages
    }

    /// Writes the pages of the public notes that link to a note just published or
    /// unpublished; a page whose HTML is the same is not written again.
    pub(super) fn write_linking(&self, linking: &[(String, String)]) -> Result<()> {
        for (file, html) in linking {
            files::write_if_changed(&self.public_dir().join(file), html.as_bytes())
                .map_err(failed)?;
        }
        Ok(())
    }
}

/// The page names a change marks as in progress: a shared page, and the pages of the
/// notes linking to the note.
pub(super) fn pending_pages<'a>(
    shared: Option<&'a str>,
    linking: &'a [(String, String)],
) -> Vec<&'a str> {
    shared
        .into_iter()
        .chain(linking.iter().map(|(file, _)| file.as_str()))
        .collect()
}
