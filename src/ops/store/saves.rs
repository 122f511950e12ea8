//! Writes outside the spec's PUT (MCP, the web editor's saves of an existing note):
//! only what changed is written; the front matter keeps its text byte for byte except
//! the keys that change, gets no key the note did not have, and `last_modified` is
//! refreshed only in a note that has one.

use serde_yaml::Mapping;

use super::{note_of, write};
use crate::error::{Error, Result};
use crate::ops::NotePath;
use crate::ops::front_matter::{self, Change, Document};
use crate::ops::model::{FrontMatterInput, NoteEdit, NoteFields};

/// A whole text given as is (MCP): stored as given; when it changes the note and keeps
/// the note's `last_modified` as it was, that key is set to `now`.
pub(crate) fn verbatim(text: String, existing: Option<&str>, now: &str) -> Result<String> {
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
pub(crate) fn edit(
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
    if one_line(title) != one_line(&shown.title) {
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

/// A title as a one-line form field holds it: line breaks dropped, trimmed.
fn one_line(title: &str) -> String {
    title.replace(['\r', '\n'], "").trim().to_string()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::front_matter::sample_note;
    use proptest::prelude::*;

    const NOW: &str = "06-12-2026:21:30";

    fn path() -> NotePath {
        NotePath::parse("dir/my-note.md").unwrap()
    }

    /// What the editor shows of `text`, sent back as a browser sends it.
    fn unchanged(text: &str) -> NoteEdit {
        let shown = note_of(&path(), text, 0);
        NoteEdit {
            title: shown.title,
            tags: shown.front_matter.map(|f| f.tags).unwrap_or_default(),
            body: shown.body.replace("\r\n", "\n"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn a_save_without_an_edit_is_the_identity(note in sample_note()) {
            let text = note.text();
            prop_assert_eq!(edit(&path(), unchanged(&text), Some(&text), NOW).unwrap(), text.clone());
            prop_assert_eq!(verbatim(text.clone(), Some(&text), NOW).unwrap(), text);
        }

        #[test]
        fn a_body_edit_changes_the_body_and_a_stamp_the_note_had(note in sample_note()) {
            let text = note.text();
            let mut asked = unchanged(&text);
            asked.body.push_str("more\n");
            let out = edit(&path(), asked, Some(&text), NOW).unwrap();
            let (old, new) = (front_matter::parse(&text).unwrap(), front_matter::parse(&out).unwrap());
            let mut expected = old.yaml.clone();
            if let Some(stamp) = expected.get_mut("last_modified") {
                *stamp = NOW.into();
            }
            prop_assert_eq!(&new.yaml, &expected);
            prop_assert_eq!(new.body.replace("\r\n", "\n"), format!("{}more\n", old.body.replace("\r\n", "\n")));
            if !old.yaml.contains_key("last_modified") {
                prop_assert!(out.starts_with(&text[..text.len() - old.body.len()]));
            }
        }
    }

    #[test]
    fn the_fixture_vault_saves_unchanged_and_a_title_edit_touches_its_line_only() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vault");
        let mut seen = 0;
        for entry in walkdir::WalkDir::new(&root) {
            let entry = entry.unwrap();
            if entry.path().extension().is_none_or(|e| e != "md") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            assert_eq!(
                edit(&path(), unchanged(&text), Some(&text), NOW).unwrap(),
                text
            );
            let mut renamed = unchanged(&text);
            renamed.title = "Renamed".into();
            let Ok(out) = edit(&path(), renamed, Some(&text), NOW) else {
                continue;
            };
            let others = |t: &str| -> Vec<String> {
                t.lines()
                    .filter(|l| !l.trim_start().starts_with("title:"))
                    .filter(|l| !l.trim_start().starts_with("last_modified:"))
                    .filter(|l| !l.is_empty() && *l != "---")
                    .map(str::to_string)
                    .collect()
            };
            assert_eq!(others(&out), others(&text), "{}", entry.path().display());
            seen += 1;
        }
        assert!(seen >= 15, "{seen} notes");
    }

    #[test]
    fn the_form_changes_only_its_keys() {
        let text = "---\ntags:\n  - a\ntitle: 'Old'  # mine\n---\nbody\n";
        let asked = |title: &str, tags: &[&str]| NoteEdit {
            title: title.into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            body: "body\n".into(),
        };
        let save = |e| edit(&path(), e, Some(text), NOW).unwrap();
        assert_eq!(
            save(asked("New", &["a"])),
            "---\ntags:\n  - a\ntitle: 'New'\n---\nbody\n"
        );
        assert_eq!(
            save(asked("Old", &["a", "b"])),
            "---\ntags:\n  - a\n  - b\ntitle: 'Old'  # mine\n---\nbody\n"
        );
        assert_eq!(save(asked("", &["a"])), "---\ntags:\n  - a\n---\nbody\n");
        // A note without front matter shows its file name; kept, nothing is added.
        let plain = "text";
        let shown = NoteEdit {
            title: "my-note".into(),
            tags: vec![],
            body: "text".into(),
        };
        assert_eq!(edit(&path(), shown, Some(plain), NOW).unwrap(), "text");
    }

    #[test]
    fn a_broken_front_matter_is_kept_unless_a_key_must_change() {
        let text = "---\n: [\n---\nbody";
        let mut asked = unchanged(text);
        asked.body = format!("{}!", asked.body);
        assert_eq!(
            edit(&path(), asked, Some(text), NOW).unwrap(),
            format!("{text}!")
        );
        let mut asked = unchanged(text);
        asked.title = "T".into();
        assert!(matches!(
            edit(&path(), asked, Some(text), NOW),
            Err(Error::FrontMatterUnreadable)
        ));
    }

    #[test]
    fn verbatim_text_keeps_a_stamp_it_sets_and_gets_none_it_lacks() {
        let old = "---\nlast_modified: 01-01-2020:10:00\n---\nold\n";
        let same_stamp = old.replace("old\n", "new\n");
        assert_eq!(
            verbatim(same_stamp.clone(), Some(old), NOW).unwrap(),
            same_stamp.replace("01-01-2020:10:00", NOW)
        );
        let own_stamp = old.replace("01-01-2020:10:00", "02-02-2022:22:22");
        assert_eq!(
            verbatim(own_stamp.clone(), Some(old), NOW).unwrap(),
            own_stamp
        );
        let none = "---\ntitle: T\n---\nx".to_string();
        assert_eq!(
            verbatim(none.clone(), Some("---\ntitle: T\n---\ny"), NOW).unwrap(),
            none
        );
        assert_eq!(verbatim("new".into(), None, NOW).unwrap(), "new");
    }
}
