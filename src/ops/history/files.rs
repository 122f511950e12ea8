//! Attachments in the history: a replace, delete or restore of a file is a change like a
//! note's, on the same branch and log, but its bytes never go through the log. They are
//! written once as a git blob (synced) before the record, which names the blob by id
//! (`o`); git keeps one object per distinct content, so a folder of images costs the
//! store about the images' own size. The blob write and its record are made under the
//! commit lock, so a full pack (which removes loose objects) never runs between them,
//! and a full pack keeps the blobs of records not yet committed (`pending_blobs`).

use std::fs::File;
use std::path::Path;

use git2::{ObjectType, Oid, Repository};

use super::change::{Body, Change, decode, encode, stored};
use super::commit::position;
use super::error::{HResult, err, io_err};
use super::repo::{COMMIT_LOCK, lock_file, write_readable};
use super::store::Store;
use super::{Op, Version, failed, listed, rfc3339, wal};
use crate::error::{Error, Result};
use crate::ops::files::FilePut;
use crate::ops::model::Precondition;
use crate::ops::{FilePath, Notebook};

/// What a path of the history names: `"note"` (`.md`) or `"file"` (an attachment).
pub(super) fn kind_of(path: &str) -> &'static str {
    if path.ends_with(".md") {
        "note"
    } else {
        "file"
    }
}

impl Notebook {
    /// Records a new version of an attachment (`bytes`) made by `op`, durably, before
    /// the file is written; nothing when the history is off.
    pub(crate) fn record_file(&self, path: &FilePath, bytes: &[u8], op: Op) -> Result<()> {
        if !self.history_on() {
            return Ok(());
        }
        let message = format!("{} {path}", op.as_str());
        self.history_store()?
            .record_file(&message, path.as_str(), Some(bytes))
            .map_err(failed)
    }

    /// Records the removal of an attachment, before it is removed.
    pub(crate) fn record_file_delete(&self, path: &FilePath) -> Result<()> {
        if !self.history_on() {
            return Ok(());
        }
        let message = format!("{} {path}", Op::Delete.as_str());
        self.history_store()?
            .record_file(&message, path.as_str(), None)
            .map_err(failed)
    }

    /// The versions of an attachment, newest first; `FileNotFound` when it has none.
    pub(crate) fn file_history(&self, path: &FilePath) -> Result<Vec<Version>> {
        let versions = self.history_store()?.with_index(|index| {
            index.notes.get(path.as_str()).map(|entries| {
                entries
                    .iter()
                    .rev()
                    .map(|e| Version {
                        id: e.commit.to_string(),
                        at: rfc3339(e.at),
                        operation: e.op.to_string(),
                        size: e.size,
                        path: None,
                    })
                    .collect::<Vec<_>>()
            })
        });
        versions.map_err(failed)?.ok_or(Error::FileNotFound)
    }

    /// The bytes of version `id` of an attachment (or a prefix of at least 4 hex
    /// digits); when that version removed it and `before_removal`, the bytes it had
    /// just before. `VersionNotFound` otherwise. At most the upload limit: only the
    /// service's writes, bounded by it, are recorded.
    pub(crate) fn file_version(
        &self,
        path: &FilePath,
        id: &str,
        before_removal: bool,
    ) -> Result<Vec<u8>> {
        let store = self.history_store()?;
        let blob = store
            .with_index(|index| {
                let entries = index.notes.get(path.as_str())?;
                let at = listed(entries.iter(), id)?;
                if before_removal {
                    entries[..=at].iter().rev().find_map(|e| e.blob)
                } else {
                    entries[at].blob
                }
            })
            .map_err(failed)?
            .ok_or(Error::VersionNotFound)?;
        store.blob(blob).map_err(failed)
    }

    /// Writes version `id` of an attachment back as a new change, byte for byte;
    /// `created` when the file had been deleted. A version that removed the file
    /// brings back the bytes it had before.
    pub(crate) fn restore_file(&self, path: &FilePath, id: &str) -> Result<FilePut> {
        let bytes = self.file_version(path, id, true)?;
        self.put_file_as(path, &bytes, &Precondition::None, Op::Restore)
    }

    /// The version `notes restore FILE` brings back by default: the one before the
    /// last change, or for a deleted file the delete (its bytes before it).
    pub(crate) fn previous_file_version(&self, path: &FilePath) -> Result<String> {
        self.previous_of(path.as_str(), true)
    }
}

impl Store {
    /// Writes an attachment's bytes as a blob, synced, and appends the record naming it
    /// (or its removal), synced; then commits it, so git reads it at once.
    pub(super) fn record_file(
        &self,
        message: &str,
        path: &str,
        bytes: Option<&[u8]>,
    ) -> HResult<()> {
        {
            let _turn = lock_file(&self.dir, COMMIT_LOCK)?;
            let removal = [Change {
                path: path.to_string(),
                text: None,
            }];
            let mut objects = encode(super::now(), message, &removal);
            if let Some(bytes) = bytes {
                let id = write_blob(&self.dir, bytes)?;
                objects.push(stored(id, bytes.len() as u64));
            }
            self.append(&objects, wal::Sync::Now)?;
        }
        // The lock released first: the committer takes it.
        self.committer.flush().map(drop)
    }
}

/// Writes `bytes` as a blob, durably: libgit2 writes a loose object (a temp file
/// renamed) without syncing it, so the file and its folders are synced here. Bytes
/// the store already holds write nothing (git finds the object by its id).
fn write_blob(dir: &Path, bytes: &[u8]) -> HResult<Oid> {
    let repo = Repository::open_bare(dir).map_err(err("cannot open the store"))?;
    let odb = repo.odb().map_err(err("cannot open the objects"))?;
    let id = write_readable(dir, &odb, ObjectType::Blob, bytes)?;
    let hex = id.to_string();
    let objects = dir.join("objects");
    let folder = objects.join(&hex[..2]);
    match File::open(folder.join(&hex[2..])) {
        Ok(file) => {
            let sync = |file: &File| file.sync_all().map_err(io_err("cannot sync a version"));
            sync(&file)?;
            sync(&File::open(&folder).map_err(io_err("cannot sync a version"))?)?;
            sync(&File::open(&objects).map_err(io_err("cannot sync a version"))?)?;
        }
        // In a pack already (packs are synced when written).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err("cannot sync a version")(e)),
    }
    Ok(id)
}

/// The attachments' blobs named by the log's records after the commit `tip` was made
/// from: a full pack keeps them (they are in no commit yet, and may be loose).
pub(super) fn pending_blobs(dir: &Path, repo: &Repository, tip: Oid) -> HResult<Vec<Oid>> {
    let after = position(repo, Some(tip))?;
    let (records, _) = wal::records_after(dir, after).map_err(io_err("cannot read the log"))?;
    Ok(records
        .into_iter()
        .filter_map(|(_, objects)| decode(objects))
        .flat_map(|record| record.changes)
        .filter_map(|(_, body)| match body {
            Some(Body::Stored(id, _)) => Some(id),
            _ => None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::temp_notebook;

    fn loose_objects(dir: &Path) -> usize {
        std::fs::read_dir(dir.join("objects"))
            .unwrap()
            .flatten()
            .filter(|f| f.file_name().len() == 2)
            .map(|f| std::fs::read_dir(f.path()).unwrap().count())
            .sum()
    }

    #[test]
    fn a_full_pack_keeps_every_blob_once_even_one_not_yet_committed() {
        let (_dir, nb) = temp_notebook();
        let a = FilePath::parse("img/a.bin").unwrap();
        let b = FilePath::parse("img/b.bin").unwrap();
        let bytes: Vec<u8> = (0..50_000u32).map(|i| (i * 7919 % 251) as u8).collect();
        nb.put_file(&a, &bytes, &Precondition::None).unwrap();
        // The same bytes at another path: the blob is there already.
        nb.put_file(&b, &bytes, &Precondition::None).unwrap();
        let store = nb.history_store().unwrap();
        assert_eq!(loose_objects(&store.dir), 1);

        // A record whose commit is not made yet (the commit lock held, so the
        // committer waits), then a full pack: its blob stays.
        let pending = b"not committed yet".to_vec();
        let id = {
            let _turn = lock_file(&store.dir, COMMIT_LOCK).unwrap();
            let id = write_blob(&store.dir, &pending).unwrap();
            let mut objects = encode(
                1,
                "put img/c.bin",
                &[Change {
                    path: "img/c.bin".into(),
                    text: None,
                }],
            );
            objects.push(stored(id, pending.len() as u64));
            store.append(&objects, wal::Sync::Now).unwrap();
            assert!(super::super::pack::pack_all(&store.dir).unwrap());
            id
        };
        assert_eq!(loose_objects(&store.dir), 0);
        let repo = Repository::open_bare(&store.dir).unwrap();
        assert_eq!(repo.find_blob(id).unwrap().content(), pending);
        // Each version is read back after the pack.
        let c = FilePath::parse("img/c.bin").unwrap();
        let latest = nb.file_history(&c).unwrap()[0].id.clone();
        assert_eq!(nb.file_version(&c, &latest, false).unwrap(), pending);
        let latest = nb.file_history(&a).unwrap()[0].id.clone();
        assert_eq!(nb.file_version(&a, &latest, false).unwrap(), bytes);
    }
}
