//! Writing and deleting an attachment: under the path's lock, beneath the notes dir,
//! atomic and durable like a note (`Notebook::store_named`), with the caller's
//! precondition checked against the file's entity tag under that lock.

use serde::Serialize;

use super::{FileInfo, as_file_error, etag_of, info_of};
use crate::error::{Error, Result};
use crate::ops::ids::Op;
use crate::ops::model::Precondition;
use crate::ops::{FilePath, Notebook, fsutil};

/// The result of a create-or-replace: the file as written, its tag, whether it is new.
#[derive(Debug, Clone)]
pub(crate) struct FilePut {
    pub(crate) info: FileInfo,
    pub(crate) etag: String,
    pub(crate) created: bool,
}

/// The confirmation of a delete.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FileDeleted {
    pub(crate) deleted: String,
}

/// The precondition's failure for an attachment.
fn refused(cond: &Precondition) -> Error {
    match cond {
        Precondition::IfNoneMatchAny => Error::FileExists,
        _ => Error::FileChanged,
    }
}

impl Notebook {
    /// Creates or replaces an attachment with `bytes`, when `cond` holds of the file as
    /// it is. Writers of one path take turns (its lock); the new bytes appear at once,
    /// whole, or not at all.
    pub(crate) fn put_file(
        &self,
        path: &FilePath,
        bytes: &[u8],
        cond: &Precondition,
    ) -> Result<FilePut> {
        self.put_file_as(path, bytes, cond, Op::Put)
    }

    /// `put_file`, the new version recorded in the history as made by `op` (before
    /// the file is written: a store that cannot record leaves the file as it was).
    pub(crate) fn put_file_as(
        &self,
        path: &FilePath,
        bytes: &[u8],
        cond: &Precondition,
        op: Op,
    ) -> Result<FilePut> {
        let put = self.note_locks.with(path.as_str(), || {
            let current = match self.root.open_attachment(path) {
                Ok((_, meta)) => Some(meta),
                Err(Error::NotFound) => None,
                Err(err) => return Err(as_file_error(err)),
            };
            if !cond.holds_for(current.as_ref().map(etag_of).as_deref()) {
                return Err(refused(cond));
            }
            let created = current.is_none();
            let mode = current
                .as_ref()
                .map_or(fsutil::NEW_FILE_MODE, fsutil::mode_of);
            // The name is taken by what is not an attachment (a folder), or a folder
            // on the way is a file.
            let taken = |err| match err {
                Error::WriteFailed(e) | Error::CreateDirFailed(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::AlreadyExists
                            | std::io::ErrorKind::NotADirectory
                            | std::io::ErrorKind::IsADirectory
                    ) =>
                {
                    Error::InvalidPath
                }
                other => as_file_error(other),
            };
            self.make_folders(path.parent()).map_err(taken)?;
            self.record_file(path, bytes, op)?;
            self.store_named(path.parent(), path.file_name(), bytes, mode, created)
                .map_err(taken)?;
            // The new file has a new identity: the kept version would only miss.
            self.files.forget(path.as_str());
            let (_, meta) = self.root.open_attachment(path).map_err(as_file_error)?;
            Ok(FilePut {
                info: info_of(path.as_str(), &meta),
                etag: etag_of(&meta),
                created,
            })
        })?;
        self.file_changed(path);
        Ok(put)
    }

    /// Deletes an attachment, when `cond` holds of it; its folder goes when this left it
    /// empty (`remove_emptied`).
    pub(crate) fn delete_file(&self, path: &FilePath, cond: &Precondition) -> Result<FileDeleted> {
        self.note_locks
            .with(path.as_str(), || self.delete_file_locked(path, cond))?;
        self.root.remove_emptied(path.parent());
        self.file_changed(path);
        self.files.forget(path.as_str());
        Ok(FileDeleted {
            deleted: path.to_string(),
        })
    }

    /// Deletes an attachment, holding its lock, relative to its folder opened beneath
    /// the notes dir: the entry is looked at without following it and unlinked by name,
    /// and the folder synced. A symlink is removed itself, and only when it leads to a
    /// regular file inside the notes dir.
    #[cfg(target_os = "linux")]
    fn delete_file_locked(&self, path: &FilePath, cond: &Precondition) -> Result<()> {
        use rustix::fs::{AtFlags, FileType, OFlags};
        let dir = self
            .root
            .open_beneath(path.parent(), OFlags::RDONLY | OFlags::DIRECTORY, false)
            .map_err(|e| {
                as_file_error(crate::ops::root::open_error(e.into(), Error::DeleteFailed))
            })?;
        let name = path.file_name();
        let stat = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW).map_err(|e| {
            as_file_error(crate::ops::root::open_error(e.into(), Error::DeleteFailed))
        })?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile | FileType::Symlink => {}
            _ => return Err(Error::FileNotFound),
        }
        let meta = match self.root.open_attachment(path) {
            Ok((_, meta)) => meta,
            // A symlink leading outside, or nowhere, is not an attachment of this dir.
            Err(Error::InvalidPath | Error::NotFound) => return Err(Error::InvalidPath),
            Err(err) => return Err(as_file_error(err)),
        };
        if !cond.holds_for(Some(&etag_of(&meta))) {
            return Err(refused(cond));
        }
        self.record_file_delete(path)?;
        rustix::fs::unlinkat(&dir, name, AtFlags::empty()).map_err(|e| {
            as_file_error(crate::ops::root::open_error(e.into(), Error::DeleteFailed))
        })?;
        rustix::fs::fsync(&dir).map_err(|e| Error::FileDeleteFailed(e.into()))
    }

    /// Deletes an attachment, holding its lock.
    #[cfg(not(target_os = "linux"))]
    fn delete_file_locked(&self, path: &FilePath, cond: &Precondition) -> Result<()> {
        let full = crate::ops::root::resolve_rel(self.notes_dir(), path.as_str())?;
        let (_, meta) = self.root.open_attachment(path).map_err(as_file_error)?;
        if !cond.holds_for(Some(&etag_of(&meta))) {
            return Err(refused(cond));
        }
        self.record_file_delete(path)?;
        fsutil::remove_durable(&full)
            .map_err(|e| as_file_error(crate::ops::root::open_error(e, Error::DeleteFailed)))
    }
}
