//! Attachments on public pages: each attachment a public page shows or links to is
//! copied into `media/` of the public dir under a content-addressed name
//! (`<hash>-<name>.<ext>`, the hash a SHA-256 of its bytes), and the page links to it
//! by a relative URL, so the public folder works from `file://` and from any static host.
//!
//! Which media are in use is read from the pages themselves, never counted: a media
//! file stays while some page of the public dir names it. Media are written (synced)
//! before the page naming them, and removed only after the pages that named them
//! changed, so a crash leaves at worst a media file no page names, which the next
//! change or the repair removes; never a page whose media is missing.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::files;
use crate::ops::root::RootDir;
use crate::ops::tokens::{Scope, readable};
use crate::ops::{FilePath, NotePath, Notebook};

/// The public dir's sub-folder of media.
pub(crate) const MEDIA_DIR: &str = "media";

/// Hex digits of the hash in a media name: 128 bits, so no two different files meet.
const HASH_HEX: usize = 32;
/// The longest part of a media name kept from the attachment's own name.
const NAME_CHARS: usize = 48;
/// The longest extension kept.
const EXT_CHARS: usize = 10;

/// The attachments of the pages rendered by one change: each read once, copied into
/// `media/` when no file of that name is there yet, and named for the pages.
///
/// The change is made for a caller whose `scope` may not reach every attachment: one
/// it may not read is never copied. On the page of the note it publishes (`own`) such
/// an attachment is its link's text, as a missing one is; on the other pages the change
/// renders again (those linking to the note) it keeps a copy already public, and only
/// that, so a page someone else published loses nothing.
pub(crate) struct Media<'a> {
    notes: &'a RootDir,
    public: &'a RootDir,
    scope: &'a Scope,
    own: Option<&'a NotePath>,
    /// The media name of each attachment asked for; `None` when it cannot be read
    /// (missing, not a regular file, outside the notes dir).
    named: RefCell<HashMap<String, Option<String>>>,
    /// The attachments out of the caller's reach, and those of them already public.
    refused: RefCell<HashSet<String>>,
    kept: RefCell<HashMap<String, Option<String>>>,
    /// Media files this change wrote: removed again when no page ends up naming them.
    created: RefCell<BTreeSet<String>>,
    /// The first failure to write a media file: the change fails with it.
    failure: RefCell<Option<io::Error>>,
}

impl<'a> Media<'a> {
    pub(crate) fn new(
        notes: &'a RootDir,
        public: &'a RootDir,
        scope: &'a Scope,
        own: Option<&'a NotePath>,
    ) -> Self {
        Media {
            notes,
            public,
            scope,
            own,
            named: RefCell::default(),
            refused: RefCell::default(),
            kept: RefCell::default(),
            created: RefCell::default(),
            failure: RefCell::default(),
        }
    }

    /// The relative URL of attachment `path` on the page of note `page` in the public
    /// dir (`media/<hash>-<name>.<ext>`), the file copied there first; `None` when the
    /// attachment cannot be read or copied, or the caller may not read it (the page
    /// shows the link's text).
    pub(crate) fn href(&self, path: &FilePath, page: &NotePath) -> Option<String> {
        if !self.reaches(path) {
            if self.own == Some(page) {
                return None;
            }
            return self.kept(path).map(|name| format!("{MEDIA_DIR}/{name}"));
        }
        if let Some(known) = self.named.borrow().get(path.as_str()) {
            return known.as_ref().map(|name| format!("{MEDIA_DIR}/{name}"));
        }
        let name = self.copy(path);
        self.named
            .borrow_mut()
            .insert(path.as_str().to_string(), name.clone());
        name.map(|name| format!("{MEDIA_DIR}/{name}"))
    }

    /// Whether the caller may read attachment `path` (asked once per path).
    fn reaches(&self, path: &FilePath) -> bool {
        if self.refused.borrow().contains(path.as_str()) {
            return false;
        }
        if self.named.borrow().contains_key(path.as_str()) {
            return true;
        }
        let reaches = readable(self.notes, self.scope, path.as_str());
        if !reaches {
            self.refused.borrow_mut().insert(path.as_str().to_string());
        }
        reaches
    }

    /// The name of the public copy of an attachment the caller may not read, when
    /// that copy is there already; nothing is written.
    fn kept(&self, path: &FilePath) -> Option<String> {
        if let Some(known) = self.kept.borrow().get(path.as_str()) {
            return known.clone();
        }
        let name = self.read(path).and_then(|(name, bytes)| {
            media_present(self.public, &name, bytes.len()).then_some(name)
        });
        self.kept
            .borrow_mut()
            .insert(path.as_str().to_string(), name.clone());
        name
    }

    /// The attachment's bytes, read beneath the notes dir, and its media name.
    fn read(&self, path: &FilePath) -> Option<(String, Vec<u8>)> {
        let (mut file, meta) = self.notes.open_attachment(path).ok()?;
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.read_to_end(&mut bytes).ok()?;
        Some((media_name(path.file_name(), &bytes), bytes))
    }

    /// Reads the attachment beneath the notes dir and writes its copy; the copy's name.
    fn copy(&self, path: &FilePath) -> Option<String> {
        let (name, bytes) = self.read(path)?;
        match write_media(self.public, &name, &bytes) {
            Ok(true) => {
                self.created.borrow_mut().insert(name.clone());
                Some(name)
            }
            Ok(false) => Some(name),
            Err(e) => {
                self.failure.borrow_mut().get_or_insert(e);
                None
            }
        }
    }

    /// The first failure to write a media file, if any: a page rendered meanwhile
    /// would show a link's text where its attachment should be.
    pub(crate) fn take_failure(&self) -> io::Result<()> {
        match self.failure.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The media files this change wrote.
    pub(crate) fn created(&self) -> BTreeSet<String> {
        self.created.borrow().clone()
    }
}

/// `<hash>-<name>.<ext>` of an attachment named `file_name` holding `bytes`: the hash
/// makes the name change with the content and lets identical files share one copy; the
/// name and extension are kept to safe ASCII, so the URL needs no encoding and a static
/// host picks the media type from the extension.
pub(crate) fn media_name(file_name: &str, bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hash: String = digest
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        .chars()
        .take(HASH_HEX)
        .collect();
    let (stem, ext) = match file_name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, Some(ext)),
        _ => (file_name, None),
    };
    let mut name = String::new();
    for c in stem.chars() {
        let keep = if c.is_ascii_alphanumeric() || c == '_' {
            c
        } else {
            '-'
        };
        if keep == '-' && (name.is_empty() || name.ends_with('-')) {
            continue;
        }
        if name.len() == NAME_CHARS {
            break;
        }
        name.push(keep);
    }
    let name = name.trim_end_matches('-');
    let name = if name.is_empty() { "file" } else { name };
    match ext.filter(|e| e.len() <= EXT_CHARS && e.chars().all(|c| c.is_ascii_alphanumeric())) {
        Some(ext) => format!("{hash}-{name}.{}", ext.to_ascii_lowercase()),
        None => format!("{hash}-{name}"),
    }
}

/// Every media name the HTML of a page refers to (`"media/NAME"` in an attribute; text
/// on a page has its quotes escaped, so only our own links match).
pub(crate) fn names_in(html: &str) -> BTreeSet<String> {
    let needle = format!("\"{MEDIA_DIR}/");
    html.match_indices(&needle)
        .filter_map(|(at, _)| {
            let rest = &html[at + needle.len()..];
            let name = &rest[..rest.find('"')?];
            is_media_name(name).then(|| name.to_string())
        })
        .collect()
}

/// Whether `name` is one `media_name` could make (no folder, nothing hidden).
fn is_media_name(name: &str) -> bool {
    name.len() > HASH_HEX + 1
        && name.as_bytes()[..HASH_HEX]
            .iter()
            .all(u8::is_ascii_hexdigit)
        && name.as_bytes()[HASH_HEX] == b'-'
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The media names the pages at `pages` (files of the public dir) refer to; a page
/// that cannot be read refers to none.
pub(crate) fn names_in_pages(public_dir: &Path, pages: &[String]) -> BTreeSet<String> {
    pages
        .iter()
        .filter_map(|page| files::read_beneath(public_dir, page).ok())
        .flat_map(|bytes| names_in(&String::from_utf8_lossy(&bytes)))
        .collect()
}

/// The page files of the public dir (every `.html` at its top, generated or not).
fn all_pages(public_dir: &Path) -> io::Result<Vec<String>> {
    let mut pages = Vec::new();
    let items = match std::fs::read_dir(public_dir) {
        Ok(items) => items,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(pages),
        Err(e) => return Err(e),
    };
    for item in items {
        if let Ok(name) = item?.file_name().into_string()
            && name.ends_with(".html")
            && !name.starts_with('.')
        {
            pages.push(name);
        }
    }
    Ok(pages)
}

/// The media files of the public dir.
pub(crate) fn all_media(public_dir: &Path) -> io::Result<BTreeSet<String>> {
    let mut media = BTreeSet::new();
    let items = match std::fs::read_dir(public_dir.join(MEDIA_DIR)) {
        Ok(items) => items,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(media),
        Err(e) => return Err(e),
    };
    for item in items {
        if let Ok(name) = item?.file_name().into_string()
            && is_media_name(&name)
        {
            media.insert(name);
        }
    }
    Ok(media)
}

impl Notebook {
    /// Removes those of the media files `candidates` that no page of the public dir
    /// names any more; returns the names removed. Called after the pages changed, so
    /// every page that still needs a file names it. The pages `first` (those the change
    /// wrote, the likeliest to name them still) are read before the others, and the
    /// reading stops once every candidate is found named.
    pub(crate) fn remove_unused_media(
        &self,
        mut candidates: BTreeSet<String>,
        first: &[String],
    ) -> io::Result<Vec<String>> {
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        let dir = self.public_dir();
        for name in names_in_pages(dir, first) {
            candidates.remove(&name);
        }
        let others = all_pages(dir)?
            .into_iter()
            .filter(|page| !first.contains(page));
        for page in others {
            if candidates.is_empty() {
                break;
            }
            for name in names_in_pages(dir, &[page]) {
                candidates.remove(&name);
            }
        }
        let mut removed = Vec::new();
        for name in candidates {
            if remove_media(&self.public_root, &name)? {
                removed.push(name);
            }
        }
        Ok(removed)
    }
}

/// Whether `media/NAME` beneath the public dir is a regular file of `len` bytes: a
/// copy of that content (the name is its hash).
#[cfg(target_os = "linux")]
fn media_present(public: &RootDir, name: &str, len: usize) -> bool {
    use rustix::fs::OFlags;
    public
        .open_beneath(MEDIA_DIR, OFlags::PATH | OFlags::DIRECTORY, false)
        .is_ok_and(|dir| present_at(&dir, name, len))
}

/// Whether `NAME` in the folder `dir` is a regular file of `len` bytes.
#[cfg(target_os = "linux")]
fn present_at(dir: &std::os::fd::OwnedFd, name: &str, len: usize) -> bool {
    use rustix::fs::{AtFlags, FileType};
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|stat| {
        FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile
            && u64::try_from(stat.st_size).ok() == u64::try_from(len).ok()
    })
}

/// Whether `media/NAME` in the public dir is a regular file of `len` bytes.
#[cfg(not(target_os = "linux"))]
fn media_present(public: &RootDir, name: &str, len: usize) -> bool {
    std::fs::symlink_metadata(public.path().join(MEDIA_DIR).join(name))
        .is_ok_and(|m| m.is_file() && m.len() == len as u64)
}

/// Writes `bytes` as `media/NAME` beneath the public dir (the folder made when
/// missing), atomically and durably; says whether it wrote. A regular file of that
/// name and length is the same content (the name is its hash) and stays as it is.
#[cfg(target_os = "linux")]
fn write_media(public: &RootDir, name: &str, bytes: &[u8]) -> io::Result<bool> {
    use crate::ops::fsutil::{self, WrittenAt};
    use rustix::fs::OFlags;
    let dir = public.open_beneath(MEDIA_DIR, OFlags::RDONLY, true)?;
    let present = |dir: &std::os::fd::OwnedFd| present_at(dir, name, bytes.len());
    if present(&dir) {
        return Ok(false);
    }
    match fsutil::write_atomic_at(&dir, name, bytes, fsutil::NEW_FILE_MODE, true)? {
        WrittenAt::Done => Ok(true),
        // Written by now by another hand, or something else holds the name (a cut
        // copy, a link): replaced by the whole file.
        WrittenAt::NameTaken if present(&dir) => Ok(false),
        WrittenAt::NameTaken => {
            fsutil::write_atomic_at(&dir, name, bytes, fsutil::NEW_FILE_MODE, false)?;
            Ok(true)
        }
    }
}

/// Writes `bytes` as `media/NAME` in the public dir unless a file of that length is
/// there.
#[cfg(not(target_os = "linux"))]
fn write_media(public: &RootDir, name: &str, bytes: &[u8]) -> io::Result<bool> {
    let dir = public.path().join(MEDIA_DIR);
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(name);
    if media_present(public, name, bytes.len()) {
        return Ok(false);
    }
    crate::ops::fsutil::write_atomic(&file, bytes)?;
    Ok(true)
}

/// Removes the regular file `media/NAME` beneath the public dir; says whether it did.
#[cfg(target_os = "linux")]
fn remove_media(public: &RootDir, name: &str) -> io::Result<bool> {
    use rustix::fs::{AtFlags, FileType, OFlags};
    use rustix::io::Errno;
    let dir = match public.open_beneath(MEDIA_DIR, OFlags::RDONLY | OFlags::DIRECTORY, false) {
        Ok(dir) => dir,
        Err(Errno::NOENT) => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {}
        Ok(_) | Err(Errno::NOENT) => return Ok(false),
        Err(e) => return Err(e.into()),
    }
    match rustix::fs::unlinkat(&dir, name, AtFlags::empty()) {
        Ok(()) => {}
        Err(Errno::NOENT) => return Ok(false),
        Err(e) => return Err(e.into()),
    }
    rustix::fs::fsync(&dir)?;
    Ok(true)
}

/// Removes the regular file `media/NAME` in the public dir; says whether it did.
#[cfg(not(target_os = "linux"))]
fn remove_media(public: &RootDir, name: &str) -> io::Result<bool> {
    let file = public.path().join(MEDIA_DIR).join(name);
    if !files::is_regular(&file) {
        return Ok(false);
    }
    files::remove_if_present(&file)?;
    Ok(true)
}

#[cfg(test)]
mod tests;
