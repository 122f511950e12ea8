//! Toggles written together: the toggles that arrive while one is being written wait,
//! then go as one batch (`ops/batch.rs`) that writes each page once, and the index, the
//! feed and the record once for all of them, every file synced side by side and each
//! folder once; the pages that go are removed after. The record is the truth: a crash
//! in between leaves pages the start's repair puts right (a page the record does not
//! name is removed, one it names is written), and every page the batch rewrites for
//! another note is marked as in progress. When the batch cannot be written, its files
//! are put back and each toggle is made on its own, so one failing toggle fails alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::linked::LinksOut;
use super::record::Record;
use super::{Planned, Publication, Visibility, failed, feed, files, site};
use crate::error::Result;
use crate::ops::batch::Batcher;
use crate::ops::fsutil;
use crate::ops::tokens::Scope;
use crate::ops::{NotePath, Notebook};

/// The queue of toggles of a notebook.
pub(crate) type Toggles = Batcher<(NotePath, Scope), Result<Publication>>;

/// A file's state at the end of a batch: its text (written only when it changed, for
/// a page rewritten because it links to a toggled note), or `None`: removed.
enum Last<'a> {
    Page(&'a str),
    Linking(&'a str),
    Gone,
}

impl Notebook {
    /// Makes the toggles of `batch`, answering each in its order.
    pub(super) fn toggle_batch(&self, batch: Vec<(NotePath, Scope)>) -> Vec<Result<Publication>> {
        if let [(path, scope)] = batch.as_slice() {
            return vec![self.toggle_one(path, scope)];
        }
        let keys: Vec<&str> = batch.iter().map(|(path, _)| path.as_str()).collect();
        let together = self.note_locks.with_all(&keys, || {
            self.with_record(|record| self.toggle_together(record, &batch))
        });
        match together {
            Ok(answers) => answers,
            Err(_) => batch
                .iter()
                .map(|(path, scope)| self.toggle_one(path, scope))
                .collect(),
        }
    }

    /// The toggles of `batch` worked out one after the other on `record`, then written
    /// at once. A toggle that cannot be worked out (its note is gone, …) gets its error
    /// and leaves the record as it was; `Err` when the writes fail (nothing changed).
    fn toggle_together(
        &self,
        record: &mut Record,
        batch: &[(NotePath, Scope)],
    ) -> Result<Vec<Result<Publication>>> {
        let mut current = record.clone();
        let mut answers: Vec<Option<Result<Publication>>> = Vec::with_capacity(batch.len());
        let mut plans: Vec<(usize, Planned<'_>)> = Vec::new();
        let links = LinksOut::default();
        for (n, (path, scope)) in batch.iter().enumerate() {
            let planned = self.read(path).and_then(|_| {
                if current.get(path.as_str()).is_some() {
                    self.plan_take_down(&current, path, scope, &links)
                } else {
                    self.plan_put_up(&current, path, scope, &links)
                }
            });
            match planned {
                Ok(mut plan) => {
                    current = std::mem::take(&mut plan.after);
                    plans.push((n, plan));
                    answers.push(None);
                }
                Err(e) => answers.push(Some(Err(e))),
            }
        }
        let dir = self.public_dir();
        let mut last: BTreeMap<PathBuf, Last<'_>> = BTreeMap::new();
        let mut touched: Vec<PathBuf> = Vec::new();
        let mut pending: Vec<&str> = Vec::new();
        for (_, plan) in &plans {
            let page = match &plan.page_text {
                Some(html) => Last::Page(html),
                None => Last::Gone,
            };
            last.insert(plan.publication.page.clone(), page);
            for (file, html) in &plan.linking {
                last.insert(dir.join(file), Last::Linking(html));
            }
            for path in &plan.touched {
                if !touched.contains(path) {
                    touched.push(path.clone());
                }
            }
            for name in &plan.pending {
                if !pending.contains(&name.as_str()) {
                    pending.push(name);
                }
            }
        }
        let media: Vec<_> = plans.iter().map(|(_, plan)| &plan.media).collect();
        let publishes = plans
            .iter()
            .any(|(_, plan)| plan.publication.result.status == Visibility::Public);
        let record_file = Record::path(self.notes_dir());
        self.change_with_media(&touched, &pending, &media, || {
            if publishes {
                if !files::is_regular(&record_file) {
                    self.save_record(record)?;
                }
                site::write_assets(dir).map_err(failed)?;
            }
            // Every file synced side by side, each folder once: whichever of them a
            // crash leaves out of step with the record, the repair puts right (a page
            // the record does not name goes, a page it names is written).
            let index = site::index(&current);
            let feed = feed::feed(&current, self.config().base_url.as_deref());
            let saved = current.to_bytes().map_err(failed)?;
            let mut writes: Vec<(&Path, &[u8])> = Vec::new();
            for (path, state) in &last {
                match state {
                    Last::Page(html) => writes.push((path, html.as_bytes())),
                    Last::Linking(html) if files::differs(path, html.as_bytes()) => {
                        writes.push((path, html.as_bytes()));
                    }
                    Last::Linking(_) | Last::Gone => {}
                }
            }
            let (index_file, feed_file) = (dir.join(site::INDEX_FILE), dir.join(feed::FILE));
            writes.push((&index_file, index.as_bytes()));
            writes.push((&feed_file, feed.as_bytes()));
            writes.push((&record_file, &saved));
            fsutil::write_atomic_many(&writes).map_err(failed)?;
            // Removed once the record no longer names them, the folder synced once.
            let mut removed = false;
            for (path, state) in &last {
                if let Last::Gone = state {
                    match std::fs::remove_file(path) {
                        Ok(()) => removed = true,
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => return Err(failed(e)),
                    }
                }
            }
            if removed {
                fsutil::sync_dir(dir).map_err(failed)?;
            }
            Ok(())
        })?;
        *record = current;
        for (n, plan) in plans {
            answers[n] = Some(Ok(plan.publication));
        }
        Ok(answers.into_iter().flatten().collect())
    }
}
