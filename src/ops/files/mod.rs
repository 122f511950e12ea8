//! Attachments: the regular, non-hidden files of the notes folder that are not notes.
//! What one is (`FilePath`), its media type, reading one (`open_file`, small ones kept
//! in memory by `cache`) and listing them under a folder (`list_files`); writing and
//! deleting are in `write`, the files a note references in `referenced`, attaching files
//! to a note in `attach`. What links resolve against (`link_targets`) lists them here.

mod attach;
pub(crate) mod cache;
mod referenced;
#[cfg(target_os = "linux")]
pub(crate) mod sealed;
#[cfg(not(target_os = "linux"))]
pub(crate) mod sealed {
    //! No sealed memory files on this system: every kept version is in ordinary memory.

    /// Never made here.
    #[derive(Debug)]
    pub(crate) enum Sealed {}

    impl Sealed {
        pub(crate) fn of(_: &[u8]) -> Option<std::sync::Arc<Sealed>> {
            None
        }

        pub(crate) fn written(
            _: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
        ) -> Option<std::sync::Arc<Sealed>> {
            None
        }

        pub(crate) fn bytes(&self) -> &bytes::Bytes {
            match *self {}
        }
    }
}
mod write;

pub(crate) use attach::Source;

use std::fs;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;

use serde::Serialize;
use walkdir::WalkDir;

use self::cache::{FileCache, Kept};
use self::sealed::Sealed;
use crate::error::{Error, Result};
use crate::ops::ids::FileId;
use crate::ops::links::LinkTargets;
use crate::ops::store::relative;
use crate::ops::{FilePath, Notebook, clock};

pub(crate) use referenced::{Found, Referenced};
pub(crate) use write::FilePut;

/// One attachment as the API lists and describes it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct FileInfo {
    pub(crate) path: String,
    pub(crate) size: u64,
    /// When the file was last modified, ISO 8601 UTC (`2026-11-21T09:05:00Z`).
    #[serde(rename = "lastModified")]
    pub(crate) last_modified: String,
    #[serde(rename = "contentType")]
    pub(crate) content_type: String,
}

/// The attachments under a folder, sorted by path.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FileList {
    pub(crate) files: Vec<FileInfo>,
}

/// An attachment opened for reading: where its bytes are, what it is, and its
/// entity tag.
pub(crate) struct OpenFile {
    pub(crate) body: FileBody,
    pub(crate) info: FileInfo,
    pub(crate) etag: String,
    pub(crate) modified: Option<chrono::DateTime<chrono::Utc>>,
    /// A kept version's bytes in a sealed memory file, which the server can send from
    /// without copying them (`FileBody::Kept` holds the same bytes, mapped from it).
    pub(crate) sealed: Option<Arc<Sealed>>,
}

/// Where the bytes of an opened attachment are.
pub(crate) enum FileBody {
    /// In memory: the version kept of this very file, shared without a copy.
    Kept(Bytes),
    /// On disk, in the file opened.
    Disk(DiskFile),
}

/// An attachment's file opened for reading, its version not in memory.
pub(crate) struct DiskFile {
    file: fs::File,
    id: FileId,
    info: FileInfo,
    etag: String,
}

impl DiskFile {
    /// Whether `Notebook::read_whole` keeps this version: a small, settled file.
    pub(crate) fn keepable(&self) -> bool {
        FileCache::keeps(&self.id)
    }

    /// The open file, to read a part of it or stream it.
    pub(crate) fn into_file(self) -> fs::File {
        self.file
    }
}

/// The media type of a file, from its extension by `mime_guess`'s table;
/// `application/octet-stream` when the extension says nothing.
pub(crate) fn content_type(path: &str) -> String {
    mime_guess::from_path(path)
        .first_or_octet_stream()
        .essence_str()
        .to_string()
}

/// Whether a file of media type `media` is passive: a browser only shows it (an image
/// other than SVG, PDF, audio, video, plain text, CSV, JSON) and never runs it as a page
/// of the origin serving it. Every other type (SVG, XML and its kin such as RSS, Atom,
/// MathML or XUL, HTML, and whatever comes next) is served under a `sandbox` policy:
/// an allow-list, so a type nobody thought of is sandboxed too.
pub(crate) fn is_passive(media: &str) -> bool {
    let essence = media
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match essence.split_once('/') {
        Some(("image", "svg+xml")) => false,
        Some(("image" | "audio" | "video", _)) => true,
        _ => matches!(
            essence.as_str(),
            "application/pdf" | "text/plain" | "text/csv" | "application/json"
        ),
    }
}

/// The entity tag of an attachment's version: its identity (inode, size, modification
/// time), as static file servers make theirs, so a large file is not read to answer a
/// conditional request. Every write is a new file renamed in, so it changes the tag.
fn etag_of(meta: &fs::Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        format!(
            "\"{:x}-{:x}-{:x}.{:x}\"",
            meta.ino(),
            meta.size(),
            meta.mtime(),
            meta.mtime_nsec()
        )
    }
    #[cfg(not(unix))]
    {
        let nanos = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        format!("\"{:x}-{nanos:x}\"", meta.len())
    }
}

fn modified_of(meta: &fs::Metadata) -> Option<chrono::DateTime<chrono::Utc>> {
    meta.modified().ok().map(chrono::DateTime::from)
}

fn info_of(path: &str, meta: &fs::Metadata) -> FileInfo {
    FileInfo {
        path: path.to_string(),
        size: meta.len(),
        last_modified: modified_of(meta).map(clock::iso_utc).unwrap_or_default(),
        content_type: content_type(path),
    }
}

/// The answer of a version kept in memory.
fn open_kept(version: &Kept) -> OpenFile {
    OpenFile {
        body: FileBody::Kept(version.bytes.clone()),
        info: version.info.clone(),
        etag: version.etag.clone(),
        modified: version.id.modified(),
        sealed: version.sealed.clone(),
    }
}

/// A failure to open a note, as the failure to open an attachment.
fn as_file_error(err: Error) -> Error {
    match err {
        Error::NotFound => Error::FileNotFound,
        Error::AccessFailed(e) | Error::ReadFailed(e) => Error::FileReadFailed(e),
        Error::WriteFailed(e) | Error::CreateDirFailed(e) => Error::FileWriteFailed(e),
        Error::DeleteFailed(e) => Error::FileDeleteFailed(e),
        other => other,
    }
}

/// An attachment found on disk and its metadata (of the file a symlink leads to).
pub(crate) struct AttachmentFile {
    pub(crate) path: FilePath,
    pub(crate) meta: fs::Metadata,
}

/// The attachments under `start` (the notes dir `root` or a folder in it), dot-files
/// and dot-folders skipped, in the walk's order. A folder that cannot be read is left
/// out; a symlink is followed only when it leads to a regular file beneath `root`.
pub(crate) fn attachment_files(root: &Path, start: &Path) -> Vec<AttachmentFile> {
    let mut files = Vec::new();
    let walk = WalkDir::new(start)
        .min_depth(1)
        .into_iter()
        .filter_entry(|e| !e.file_name().as_encoded_bytes().starts_with(b"."))
        .flatten();
    for entry in walk {
        if entry.file_type().is_dir() || entry.file_name().as_encoded_bytes().ends_with(b".md") {
            continue;
        }
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        // Names no attachment may have are left out.
        let Ok(path) = FilePath::parse(&rel) else {
            continue;
        };
        // The walk does not follow links, so only a symlink can lead outside.
        let full = if entry.path_is_symlink() {
            match crate::ops::root::resolve_rel(root, path.as_str()) {
                Ok(full) => full,
                Err(_) => continue,
            }
        } else {
            entry.path().to_path_buf()
        };
        match fs::metadata(&full) {
            Ok(meta) if meta.is_file() => files.push(AttachmentFile { path, meta }),
            _ => continue,
        }
    }
    files
}

impl Notebook {
    /// What links resolve against now. The resolver is built once per list snapshot
    /// (the list is shared while no note file changes), so pages rendered between two
    /// changes share it.
    pub(crate) fn link_targets(&self) -> Result<LinkTargets> {
        let snapshot = self.list_snapshot()?;
        Ok(LinkTargets::with_cache(
            snapshot.list,
            &snapshot.links,
            || self.list_attachments(),
        ))
    }

    /// The attachments of the folder, as links resolve against them (listed once per
    /// change of the attachments' names).
    pub(crate) fn attachment_list(&self) -> Result<Arc<Vec<FilePath>>> {
        let snapshot = self.list_snapshot()?;
        Ok(snapshot.links.files(|| self.list_attachments()).clone())
    }

    fn list_attachments(&self) -> Vec<FilePath> {
        let root = self.notes_dir();
        attachment_files(root, root)
            .into_iter()
            .map(|f| f.path)
            .collect()
    }
}

impl Notebook {
    /// Opens an attachment for reading, beneath the notes dir; only a regular file is
    /// one (a folder, a FIFO or a device is not found).
    /// A kept version of the file answers when the file's identity still matches it
    /// (on Linux one `stat` beneath the notes dir, no open); a file changed in any way
    /// since is opened and read again, one now missing or leading outside is refused.
    pub(crate) fn open_file(&self, path: &FilePath) -> Result<OpenFile> {
        let kept = self.files.get(path.as_str());
        #[cfg(target_os = "linux")]
        if let Some(version) = &kept {
            match self.root.stat_attachment(path) {
                Ok(stat) if FileId::of_stat(&stat) == version.id => {
                    return Ok(open_kept(version));
                }
                // Changed: read again below. Gone, or not an attachment now: the
                // open below answers why.
                _ => self.files.forget(path.as_str()),
            }
        }
        let (file, meta) = match self.root.open_attachment(path) {
            Ok(opened) => opened,
            Err(err) => {
                self.files.forget(path.as_str());
                return Err(as_file_error(err));
            }
        };
        let id = FileId::of(&meta);
        if let Some(version) = kept.filter(|version| version.id == id) {
            return Ok(open_kept(&version));
        }
        let info = info_of(path.as_str(), &meta);
        let etag = etag_of(&meta);
        Ok(OpenFile {
            info: info.clone(),
            etag: etag.clone(),
            modified: modified_of(&meta),
            sealed: None,
            body: FileBody::Disk(DiskFile {
                file,
                id,
                info,
                etag,
            }),
        })
    }

    /// Reads the whole of an opened attachment (one `keepable`, so at most
    /// `cache::MAX_KEPT` bytes) and keeps it for the next reads. A file that shrank
    /// while it was read gives fewer bytes, not kept; one that grew, its first bytes.
    pub(crate) fn read_whole(&self, disk: DiskFile) -> Result<Bytes> {
        use std::io::Read;
        let DiskFile {
            file,
            id,
            info,
            etag,
        } = disk;
        let len = id.size().min(cache::MAX_KEPT);
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        file.take(len)
            .read_to_end(&mut bytes)
            .map_err(Error::FileReadFailed)?;
        // Only a version the cache will keep (read whole, at its identity's size) is
        // worth a sealed copy.
        let sealed = (bytes.len() as u64 == id.size())
            .then(|| Sealed::of(&bytes))
            .flatten();
        let bytes = match &sealed {
            Some(sealed) => sealed.bytes().clone(),
            None => bytes.into(),
        };
        let version = Arc::new(Kept {
            id,
            bytes,
            info,
            etag,
            sealed,
        });
        self.files.put(&version);
        Ok(version.bytes.clone())
    }

    /// The attachments under `folder` (a folder path from `FilePath::parse_folder`, `.`
    /// for all), dot-files and dot-folders skipped, sorted by path. A folder that does
    /// not exist holds none; one that leads outside the notes dir is refused.
    pub(crate) fn list_files(&self, folder: &str) -> Result<FileList> {
        if !self.folder_is_beneath(folder)? {
            return Ok(FileList { files: Vec::new() });
        }
        let root = self.notes_dir();
        let start = if folder == "." {
            root.to_path_buf()
        } else {
            root.join(folder)
        };
        let mut files: Vec<FileInfo> = attachment_files(root, &start)
            .iter()
            .map(|f| info_of(f.path.as_str(), &f.meta))
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(FileList { files })
    }

    /// Whether `folder` is a folder beneath the notes dir (`false`: it does not exist);
    /// refused when it leads outside or names a file.
    #[cfg(target_os = "linux")]
    fn folder_is_beneath(&self, folder: &str) -> Result<bool> {
        use rustix::fs::OFlags;
        use rustix::io::Errno;
        match self
            .root
            .open_beneath(folder, OFlags::PATH | OFlags::DIRECTORY, false)
        {
            Ok(_) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(Errno::NOTDIR) => Err(Error::InvalidPath),
            Err(e) => Err(crate::ops::root::path_error(e.into(), Error::ListFailed)),
        }
    }

    /// Whether `folder` is a folder beneath the notes dir (`false`: it does not exist).
    #[cfg(not(target_os = "linux"))]
    fn folder_is_beneath(&self, folder: &str) -> Result<bool> {
        let full = crate::ops::root::resolve_rel(self.notes_dir(), folder)?;
        match fs::metadata(&full) {
            Ok(meta) if meta.is_dir() => Ok(true),
            Ok(_) => Err(Error::InvalidPath),
            Err(_) => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests;
