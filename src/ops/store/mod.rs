//! The v1 note operations on disk: list (`list`), read (`read`), create-or-replace and
//! delete (`write`), with the spec's defaults and its lenient reading of broken notes;
//! the caches that make the warm paths cheap are in `cache`, behind a plain API; the
//! list kept between requests is a `snapshot`, kept valid by a `watch` of the folder.

pub(crate) mod cache;
mod list;
mod read;
mod saves;
mod snapshot;
#[cfg(target_os = "linux")]
mod watch;
mod write;

pub use list::{NoteFile, note_files};
pub(crate) use list::{folder_beneath, note_files_under, relative, visit_note_files};
pub(crate) use read::{Opened, RawNote};
pub(crate) use saves::{edit as apply_edit, verbatim};
pub(crate) use snapshot::ListSnapshot;

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
    let (title, fields, body) = index_fields_of(path, text);
    NoteMeta {
        path: path.as_str().into(),
        title: title.into(),
        tags: fields.tags.into_iter().map(Into::into).collect(),
        last_modified: fields.last_modified.into(),
        date: fields.date.into(),
        size,
        modified: 0,
        body_tags: front_matter::tags::tags_of_body(&text[body..])
            .into_iter()
            .map(Into::into)
            .collect(),
        aliases: fields.aliases.into_iter().map(Into::into).collect(),
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

/// What the search index and the list read of a note's text, as `note_of` reads it:
/// the title shown, the front matter (empty when there is none) and where the body
/// starts (0 when the front matter does not parse: the body is then the whole text).
/// Without the copies and the entity tag of `note_of`.
pub(crate) fn index_fields_of(path: &NotePath, text: &str) -> (String, FrontMatter, usize) {
    let (fields, body) = front_matter::parse_fields(text).unzip();
    let title = display_title(path, fields.as_ref());
    (title, fields.unwrap_or_default(), body.unwrap_or(0))
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

    /// The index reads a note as `note_of` does: the same title, front matter and body.
    fn same_as_note_of(text: &str) {
        let p = NotePath::parse("a/b-c.md").unwrap();
        let note = note_of(&p, text, text.len() as u64);
        let (title, front, body) = index_fields_of(&p, text);
        assert_eq!(title, note.title, "{text:?}");
        assert_eq!(front, note.front_matter.unwrap_or_default(), "{text:?}");
        assert_eq!(&text[body..], note.body, "{text:?}");
    }

    #[test]
    fn the_index_reads_a_note_as_note_of_does() {
        for text in [
            "just text",
            "",
            "---\ntitle: T\ntags: [a, 1, true]\n---\n\n# T\nbody",
            "---\r\ntitle: T\r\n---\r\nbody",
            "---\ntitle: [x\n---\nbody",
            "---\n---\nbody",
            "---\ntitle: ''\ntags: one\n---\nno blank line",
            "---\nnot closed",
            "---\n- a list\n---\nbody",
        ] {
            same_as_note_of(text);
        }
    }

    proptest::proptest! {
        #[test]
        fn the_index_reads_any_note_as_note_of_does(
            yaml in "(title: [a-z\\[]{0,5}\n|tags: \\[[a-z, ]{0,6}\\]\n|date: [0-9-]{0,4}\n|[a-z]{1,3}: [a-z:]{0,3}\n){0,4}",
            blank in proptest::bool::ANY,
            body in "[a-z#\n\\[\\]-]{0,20}",
        ) {
            let text = format!("---\n{yaml}---\n{}{body}", if blank { "\n" } else { "" });
            same_as_note_of(&text);
            same_as_note_of(&body);
        }
    }
}
