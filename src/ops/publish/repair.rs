//! Reconciling the public dir with the record after a crash or a hand edit: pages no
//! entry names go, missing pages come back from their notes (and so do pages whose
//! media are missing), media no page names go, the index, the feed and the stylesheet
//! are rebuilt. The record is the truth and is never reset.

use std::collections::BTreeSet;
use std::fs;

use chrono::Utc;
use serde::Serialize;

use super::media::{self, Media};
use super::record::{self, Record};
use super::{RECORD_LOCK, failed, feed, files, note_is_gone, site};
use crate::error::Result;
use crate::ops::Notebook;
use crate::ops::tokens::Scope;

/// What a repair found out of step and put right; all empty when everything agreed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct RepairReport {
    /// Generated pages no public note names, removed.
    pub(crate) removed_pages: Vec<String>,
    /// Pages of public notes that were missing, or left half-changed, written again
    /// from their notes.
    pub(crate) regenerated_pages: Vec<String>,
    /// Public notes whose page was missing and whose note is gone, taken out of the
    /// record.
    pub(crate) dropped_entries: Vec<String>,
    /// `index.html` did not list exactly the public notes.
    pub(crate) index_rebuilt: bool,
    /// `feed.xml` did not hold exactly the public notes.
    pub(crate) feed_rebuilt: bool,
    /// The stylesheet was missing or altered.
    pub(crate) stylesheet_restored: bool,
    /// Media files a page names that were missing, copied again from the notes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) restored_media: Vec<String>,
    /// Files of `media/` no page names, removed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) removed_media: Vec<String>,
}

#[cfg(test)]
impl RepairReport {
    /// Whether nothing needed fixing.
    pub(crate) fn is_clean(&self) -> bool {
        *self == RepairReport::default()
    }
}

impl Notebook {
    /// Brings the public dir in line with the record and says what it changed. Without
    /// a record (nothing was ever published from this notes dir) the public dir is left
    /// alone: it may be another notebook's. An unreadable record is an error, not a
    /// reason to take every page down.
    pub(crate) fn repair_public(&self) -> Result<RepairReport> {
        self.note_locks.with(RECORD_LOCK, || {
            let mut report = RepairReport::default();
            let Some(mut record) = Record::load(&Record::path(self.notes_dir()))? else {
                return Ok(report);
            };
            let pending = record::load_pending(self.notes_dir(), &record)
                .map_err(failed)?
                .unwrap_or_default();
            let dir = self.public_dir();
            if record.is_empty() && !dir.exists() {
                record::clear_pending(self.notes_dir()).map_err(failed)?;
                return Ok(report);
            }
            // Each page name the record uses, and the page its owner should have there:
            // missing pages, those a crash left mid-change and those an older version
            // made are rendered again.
            let now = Utc::now();
            let targets = self.link_targets()?;
            // The owner's own repair: every attachment may be copied.
            let everything = Scope::full();
            let media = Media::new(&self.root, &self.public_root, &everything, None);
            let present = media::all_media(dir).map_err(failed)?;
            let names: BTreeSet<String> = record.entries().map(|e| e.file.clone()).collect();
            let mut pages = Vec::new();
            for name in names {
                // A page without this version's policy was made by an older version.
                let whole = files::carries_policy(&dir.join(&name))
                    && media::names_in_pages(dir, std::slice::from_ref(&name)).is_subset(&present);
                if whole && !pending.contains(&name) {
                    continue;
                }
                while let Some(owner) = record.owner_of(&name).cloned() {
                    match self.render_page(&owner, &record, &targets, &media) {
                        Ok(html) => {
                            pages.push((name, html));
                            break;
                        }
                        Err(e) if note_is_gone(&e) => {
                            let at = record.next_stamp(now);
                            record.remove(&owner.path, at);
                            report.dropped_entries.push(owner.path);
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
            media.take_failure().map_err(failed)?;
            report.restored_media = media.created().into_iter().collect();
            if !report.dropped_entries.is_empty() {
                self.save_record(&record)?;
            }
            let stylesheet = dir.join(site::STATIC_DIR).join(site::STYLESHEET_FILE);
            report.stylesheet_restored =
                fs::read(&stylesheet).ok().as_deref() != Some(site::STYLESHEET.as_bytes());
            site::write_assets(dir).map_err(failed)?;
            for (name, html) in pages {
                if files::write_if_changed(&dir.join(&name), html.as_bytes()).map_err(failed)? {
                    report.regenerated_pages.push(name);
                }
            }
            report.removed_pages = self.remove_unnamed_pages(&record)?;
            // Every page is as it should be now: what no page names is left over.
            let candidates = media::all_media(dir).map_err(failed)?;
            report.removed_media = self.remove_unused_media(candidates, &[]).map_err(failed)?;
            let index = site::index(&record);
            report.index_rebuilt =
                files::write_if_changed(&dir.join(site::INDEX_FILE), index.as_bytes())
                    .map_err(failed)?;
            let feed = feed::feed(&record, self.config().base_url.as_deref());
            report.feed_rebuilt =
                files::write_if_changed(&dir.join(feed::FILE), feed.as_bytes()).map_err(failed)?;
            record::clear_pending(self.notes_dir()).map_err(failed)?;
            report.dropped_entries.sort();
            report.regenerated_pages.sort();
            Ok(report)
        })
    }

    /// Removes the generated pages of the public dir that no entry names; pages written
    /// by hand (without the generator marker) stay. Returns the names removed, sorted.
    fn remove_unnamed_pages(&self, record: &Record) -> Result<Vec<String>> {
        let named: BTreeSet<&str> = record.entries().map(|e| e.file.as_str()).collect();
        let mut removed = Vec::new();
        for item in fs::read_dir(self.public_dir()).map_err(failed)? {
            let item = item.map_err(failed)?;
            let Ok(name) = item.file_name().into_string() else {
                continue;
            };
            let candidate = name.ends_with(".html")
                && name != site::INDEX_FILE
                && !named.contains(name.as_str());
            if candidate && files::is_generated(&item.path()) {
                files::remove_if_present(&item.path()).map_err(failed)?;
                removed.push(name);
            }
        }
        removed.sort();
        Ok(removed)
    }
}
