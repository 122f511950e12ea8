//! Writes outside the spec's PUT (MCP, the web editor's saves of an existing note):
//! only what changed is written; the front matter keeps its text byte for byte except
//! the keys that change, gets no key the note did not have, and `last_modified` is
//! refreshed only in a note that has one.

use serde_yaml::Mapping;

use super::{note_of, write};
use crate::error::{Error, Result};
use crate::ops::front_matter::{self, Change, Document};
use crate::ops::model::{FrontMatterInput, NoteEdit, NoteFields};
use crate::ops::NotePath;

/// A whole text given as is (MCP): stored as given; when it changes the note and keeps
/// the note's `last_modified` as it was, that key is set to `now`.
pub(super) fn verbatim(text: String, existing: Option<&str>, now: &str) -> Result<String> {
    front_matter::check(&text)?;
    let Some(before) = existing.filter(|before| *before != text) else {
        return Ok(text);
    };
    let stamp = |t: &str| front_matter::parse(t).and_then(|d| d.yaml.get("last_modified").cloned());
    match (stamp(&text), stamp(before)) {
        (Some(new), Some(old)) if new == old => checked(front_matter::touch(text, now)?),
        _ => Ok(text),
    }
}

/// A save of the web editor. A title left as shown, tags left as they were and an
/// unchanged body leave the note byte for byte as it is; a change writes that key (a
/// cleared title removes the key) or the body, and refreshes `last_modified` when the
/// note has one. A note gone since the editor opened is made again from the fields.
pub(super) fn edit(
    path: &NotePath,
    edit: NoteEdit,
    existing: Option<&str>,
    now: &str,
) -> Result<String> {
    let Some(before) = existing else {
        let fields = NoteFields {
            body: Some(edit.body),
            front_matter: Some(FrontMatterInput {
                title: Some(edit.title),
                tags: Some(edit.tags),
                ..FrontMatterInput::default()
            }),
            ..NoteFields::default()
        };
        return write::build_from_fields(path, fields, None);
    };
    let shown = note_of(path, before, 0);
    let fields = shown.front_matter.clone().unwrap_or_default();
    let title = edit.title.trim();
    let mut changes = Vec::new();
    if title != shown.title {
        changes.push(match title {
            "" => Change::Remove("title".into()),
            title => Change::text("title", title),
        });
    }
    if tag_set(&edit.tags) != tag_set(&fields.tags) {
        changes.push(Change::list("tags", &edit.tags));
    }
    let doc = front_matter::parse(before);
    let old_body = doc.as_ref().map_or(before, |d| d.body.as_str());
    let body = if old_body.contains("\r\n") {
        edit.body.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        edit.body
    };
    if changes.is_empty() && body == old_body {
        return Ok(before.to_string());
    }
    let Some(doc) = doc else {
        if changes.is_empty() {
            return checked(body);
        }
        if before.starts_with("---") {
            // A front matter that does not parse is not rewritten behind the reader.
            return Err(Error::FrontMatterUnreadable);
        }
        return new_front_matter(&changes, body);
    };
    let head = &before[..before.len() - doc.body.len()];
    if doc.yaml.contains_key("last_modified") {
        changes.push(Change::text("last_modified", now));
    }
    checked(front_matter::edit(&format!("{head}{body}"), &changes)?)
}

/// A front matter holding only the keys `changes` set, before `body` (a note that had
/// none gets one only for a title or tags given in the editor).
fn new_front_matter(changes: &[Change], body: String) -> Result<String> {
    let mut yaml = Mapping::new();
    for change in changes {
        if let Change::Set(key, value) = change {
            yaml.insert(key.as_str().into(), value.clone());
        }
    }
    if yaml.is_empty() {
        return checked(body);
    }
    let newline = if body.contains("\r\n") { "\r\n" } else { "\n" };
    let doc = Document {
        yaml,
        body,
        blank_line: true,
        newline,
    };
    checked(
        doc.emit()
            .map_err(|e| Error::FrontMatterFailed(e.to_string()))?,
    )
}

/// Tags as the editor compares them: trimmed, without a leading `#`, each once, in order.
fn tag_set(tags: &[String]) -> Vec<&str> {
    let mut set: Vec<&str> = Vec::new();
    for tag in tags {
        let tag = tag.trim().trim_start_matches('#').trim();
        if !tag.is_empty() && !set.contains(&tag) {
            set.push(tag);
        }
    }
    set
}

/// The text, within the bounds every written front matter keeps.
fn checked(text: String) -> Result<String> {
    front_matter::check(&text)?;
    Ok(text)
}
