//! The v1 note operations on disk: list (`list`), read (`read`), create-or-replace and
//! delete (`write`), with the spec's defaults and its lenient reading of broken notes;
//! the caches that make the warm paths cheap are in `cache`, behind a plain API; the
//! list kept between requests is a `snapshot`, kept valid by a `watch` of the folder.

pub(crate) mod cache;
mod list;
mod read;
mod snapshot;
#[cfg(target_os = "linux")]
mod watch;
mod write;

pub use list::{NoteFile, note_files};
pub(crate) use list::{relative, visit_note_files};
pub(crate) use read::{Opened, RawNote};

use super::NotePath;
use super::front_matter::{self, FrontMatter};
use super::model::{Note, NoteMeta, etag};

/// A note's bytes as text: borrowed when they are UTF-8 (checked with the standard
/// library's fast validation), with replacement characters otherwise.
pub(crate) fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The title shown for a note: its front matter title, or the file name without `.md`.
fn display_title(path: &NotePath, fields: Option<&FrontMatter>) -> String {
    match fields {
        Some(f) if !f.title.is_empty() => f.title.clone(),
        _ => path.stem().to_string(),
    }
}

/// The list entry of a note's text.
pub(crate) fn metadata_of(path: &NotePath, text: &str, size: u64) -> NoteMeta {
    let fields = front_matter::parse(text).map(|doc| doc.fields());
    let title = display_title(path, fields.as_ref());
    let fields = fields.unwrap_or_default();
    NoteMeta {
        path: path.as_str().into(),
        title: title.into(),
        tags: fields.tags.into_iter().map(Into::into).collect(),
        last_modified: fields.last_modified.into(),
        date: fields.date.into(),
        size,
    }
}

/// The NoteResponse of a note's text. A text that does not start with `---` has no
/// front matter (omitted); one whose front matter does not parse gets an empty one and
/// the whole text as body.
pub(crate) fn note_of(path: &NotePath, text: &str, size: u64) -> Note {
    let (front_matter, body) = match front_matter::parse(text) {
        Some(doc) => (Some(doc.fields()), doc.body),
        None if text.starts_with("---") => (Some(FrontMatter::default()), text.to_string()),
        None => (None, text.to_string()),
    };
    Note {
        path: path.to_string(),
        title: display_title(path, front_matter.as_ref()),
        content: text.to_string(),
        body,
        last_modified: front_matter
            .as_ref()
            .map(|f| f.last_modified.clone())
            .unwrap_or_default(),
        front_matter,
        size,
        etag: etag(text.as_bytes()),
    }
}

/// `my-first-note` → `My First Note`.
pub(crate) fn title_from_stem(stem: &str) -> String {
    stem.replace('-', " ")
        .split(' ')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_from_file_names() {
        assert_eq!(title_from_stem("my-first-note"), "My First Note");
        assert_eq!(title_from_stem("été-à-paris"), "Été À Paris");
        assert_eq!(title_from_stem("x"), "X");
    }

    #[test]
    fn reading_broken_and_missing_front_matter() {
        let p = NotePath::parse("a/b-c.md").unwrap();
        let plain = note_of(&p, "just text", 9);
        assert_eq!(plain.front_matter, None);
        assert_eq!(plain.title, "b-c");
        assert_eq!(plain.body, "just text");
        let broken = note_of(&p, "---\ntitle: [x\n---\nbody", 20);
        assert_eq!(broken.front_matter, Some(FrontMatter::default()));
        assert_eq!(broken.body, "---\ntitle: [x\n---\nbody");
        let meta = metadata_of(&p, "---\ntitle: [x\n---\nbody", 20);
        assert_eq!((meta.title.as_str(), meta.date.as_str()), ("b-c", ""));
    }
}
