//! Attachments copied in, changed or removed outside the service (by hand, by another
//! app writing into the folder), recorded as notes edited outside it are (`record`):
//! the watcher names the files it saw change; the start's pass looks at every file and
//! reads only those whose size or time differs from their latest version.

use std::io::Read;
use std::time::UNIX_EPOCH;

use git2::{ObjectType, Oid};

use super::files::kind_of;
use super::{Op, failed};
use crate::error::{Error, Result};
use crate::ops::{FilePath, Notebook};

/// The largest file recorded (the default upload limit): each is read whole, and a
/// video dropped into the folder is left out of the history rather than read.
const LARGEST: u64 = 64 << 20;

impl Notebook {
    /// Records the attachments of `paths` whose bytes on disk are not their latest
    /// recorded version, and those recorded whose file is gone. How many it recorded.
    pub(crate) fn record_outside_files(&self, paths: &[FilePath]) -> Result<usize> {
        self.record_files_checked(paths, false)
    }

    /// `record_outside_files` over every attachment on disk and every one the history
    /// holds; a file of its latest version's size, last changed before that version
    /// was recorded, is not read.
    pub(crate) fn record_every_outside_file(&self) -> Result<usize> {
        if !self.history_on() {
            return Ok(0);
        }
        let mut paths: Vec<FilePath> = self.attachment_list()?.to_vec();
        let recorded = self
            .history_store()?
            .with_index(|index| {
                index
                    .notes
                    .iter()
                    .filter(|(path, entries)| {
                        kind_of(path) == "file" && entries.last().is_some_and(|e| e.blob.is_some())
                    })
                    .filter_map(|(path, _)| FilePath::parse(path).ok())
                    .collect::<Vec<_>>()
            })
            .map_err(failed)?;
        paths.extend(recorded);
        paths.sort_unstable();
        paths.dedup();
        self.record_files_checked(&paths, true)
    }

    /// Each file under its lock (the one the service's writes of it hold, so a write
    /// recorded but not yet on disk is never taken for an outside change).
    fn record_files_checked(&self, paths: &[FilePath], by_time: bool) -> Result<usize> {
        if !self.history_on() || paths.is_empty() {
            return Ok(0);
        }
        let store = self.history_store()?;
        let mut recorded = 0;
        for path in paths {
            recorded += self.note_locks.with(path.as_str(), || {
                let latest = store
                    .with_index(|index| index.latest(path.as_str()).cloned())
                    .map_err(failed)?;
                let latest_blob = latest.as_ref().and_then(|e| e.blob);
                let (mut file, meta) = match self.root.open_attachment(path) {
                    Ok(found) => found,
                    Err(Error::NotFound | Error::FileNotFound) => {
                        if latest_blob.is_none() {
                            return Ok(0);
                        }
                        self.record_file_delete(path)?;
                        return Ok(1);
                    }
                    Err(e) => return Err(e),
                };
                if meta.len() > LARGEST {
                    return Ok(0);
                }
                let changed_at = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(i64::MAX, |d| d.as_secs() as i64);
                if by_time
                    && let Some(entry) = &latest
                    && entry.blob.is_some()
                    && entry.size == meta.len()
                    && changed_at < entry.at
                {
                    return Ok(0);
                }
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes)
                    .map_err(Error::FileReadFailed)?;
                let hash = Oid::hash_object(ObjectType::Blob, &bytes).ok();
                if hash.is_some() && hash == latest_blob {
                    return Ok(0);
                }
                self.record_file(path, &bytes, Op::OutsideEdit)?;
                Ok(1)
            })?;
        }
        Ok(recorded)
    }
}
