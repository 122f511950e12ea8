//! One section of a note, by its heading: the heading tree with line ranges
//! (`Notebook::outline`), and edits of one section or of the front matter
//! (`Notebook::edit_section`), written like every note write (history, lock, atomic,
//! `If-Match`). A heading path that names no section, or more than one, is an error
//! carrying the note's heading paths: an edit never lands under a new or a wrong heading.
//!
//! Where text goes: `Append` at the end of the whole section, its subsections included
//! (what "append to a section" means in Obsidian's Local REST API), before the blank
//! lines that separate it from the next heading; `Prepend` right after the heading
//! line; `Replace` swaps everything under the heading (subsections included) for the
//! text, keeping the heading line and the blank lines around the old content.

mod edit;
mod parse;

use chrono::Local;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::ops::ids::Op;
use crate::ops::model::{Precondition, PutOutcome};
use crate::ops::store::text_of;
use crate::ops::{NotePath, Notebook, clock, front_matter};

/// A heading path: the texts of a heading's ancestors, then its own (`["Top", "Sub"]`).
pub(crate) type HeadingPath = Vec<String>;

/// A change to one part of a note.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Edit {
    /// Adds `text` at the end of the section (after its subsections).
    Append { heading: HeadingPath, text: String },
    /// Adds `text` right after the section's heading line.
    Prepend { heading: HeadingPath, text: String },
    /// Replaces what is under the heading (subsections included) with `text`.
    Replace { heading: HeadingPath, text: String },
    /// Merges keys into the front matter (a `null` value removes the key); the other
    /// keys stay, in their order. A note without front matter gets one.
    SetFrontMatter { map: serde_yaml::Mapping },
}

/// A note's heading tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Outline {
    pub(crate) path: String,
    pub(crate) headings: Vec<OutlineHeading>,
    /// Entity tag of the note's bytes the tree was read from (for a later `If-Match`).
    #[serde(skip)]
    pub(crate) etag: String,
}

/// One heading of the tree: its section runs from `lineStart` (the heading) to
/// `lineEnd`, 1-based lines of the whole note (front matter included), both inclusive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct OutlineHeading {
    pub(crate) level: u8,
    pub(crate) text: String,
    #[serde(rename = "lineStart")]
    pub(crate) line_start: usize,
    #[serde(rename = "lineEnd")]
    pub(crate) line_end: usize,
    pub(crate) children: Vec<OutlineHeading>,
}

/// One section as read: the heading line, everything under it, its subsections.
#[allow(
    dead_code,
    reason = "for the clients that read one section (the MCP server's read_note)"
)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Section {
    pub(crate) path: String,
    pub(crate) heading: HeadingPath,
    #[serde(rename = "lineStart")]
    pub(crate) line_start: usize,
    #[serde(rename = "lineEnd")]
    pub(crate) line_end: usize,
    pub(crate) text: String,
}

impl Notebook {
    /// The heading tree of a note.
    pub(crate) fn outline(&self, path: &NotePath) -> Result<Outline> {
        let raw = self.read_raw(path)?;
        let text = text_of(raw.bytes());
        Ok(Outline {
            path: path.to_string(),
            headings: outline_of(&text),
            etag: raw.etag().to_string(),
        })
    }

    /// The one section `heading` names (errors as for an edit: missing, ambiguous).
    #[allow(
        dead_code,
        reason = "for the clients that read one section (the MCP server's read_note)"
    )]
    pub(crate) fn read_section(&self, path: &NotePath, heading: &HeadingPath) -> Result<Section> {
        let raw = self.read_raw(path)?;
        let text = text_of(raw.bytes());
        let found = edit::find(&text, heading)?;
        Ok(Section {
            path: path.to_string(),
            heading: found.path,
            line_start: found.line_start,
            line_end: found.line_end,
            text: text[found.section].to_string(),
        })
    }

    /// Applies `edit` to an existing note when `cond` holds of it, as one recorded
    /// write; the note as written.
    pub(crate) fn edit_section(
        &self,
        path: &NotePath,
        edit: Edit,
        cond: Precondition,
    ) -> Result<PutOutcome> {
        self.write_recorded(path, &cond, Op::Put, |current| {
            let text = current.ok_or(Error::NotFound)?;
            edit::apply(text, &edit, &clock::stamp(Local::now()))
        })
    }
}

/// The tree of the headings of `text`.
pub(crate) fn outline_of(text: &str) -> Vec<OutlineHeading> {
    let flat = parse::headings(text, front_matter::body_offset(text));
    let mut nodes: Vec<Option<OutlineHeading>> = flat
        .iter()
        .map(|h| {
            Some(OutlineHeading {
                level: h.level,
                text: h.text.clone(),
                line_start: h.line_start,
                line_end: h.line_end,
                children: Vec::new(),
            })
        })
        .collect();
    let mut roots = Vec::new();
    // A heading's descendants come after it: walking backwards, each node is complete
    // when it is reached (its children gathered in reverse).
    for (i, heading) in flat.iter().enumerate().rev() {
        let Some(mut node) = nodes[i].take() else {
            continue;
        };
        node.children.reverse();
        match heading.parent.and_then(|p| nodes[p].as_mut()) {
            Some(parent) => parent.children.push(node),
            None => roots.push(node),
        }
    }
    roots.reverse();
    roots
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::model::NoteInput;

    fn shape(nodes: &[OutlineHeading]) -> String {
        nodes
            .iter()
            .map(|n| {
                format!(
                    "{}{}:{}-{}[{}]",
                    n.level,
                    n.text,
                    n.line_start,
                    n.line_end,
                    shape(&n.children)
                )
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    #[test]
    fn the_outline_is_a_tree_with_line_ranges() {
        let text = "---\ntitle: T\n---\n# A\nx\n## B\n### C\n## D\n# E\ny\n";
        assert_eq!(
            shape(&outline_of(text)),
            "1A:4-8[2B:6-7[3C:7-7[]],2D:8-8[]],1E:9-10[]"
        );
        assert_eq!(shape(&outline_of("no headings")), "");
    }

    #[test]
    fn edits_are_recorded_writes_with_their_precondition() {
        let (_dir, notebook) = crate::ops::temp_notebook();
        let path = NotePath::parse("n.md").unwrap();
        let missing = notebook.edit_section(
            &path,
            Edit::Append {
                heading: vec!["A".into()],
                text: "x".into(),
            },
            Precondition::None,
        );
        assert!(matches!(missing, Err(Error::NotFound)));
        let put = notebook
            .put(
                &path,
                NoteInput::Markdown("# A\nold\n".into()),
                Precondition::None,
            )
            .unwrap();
        let stale = notebook.edit_section(
            &path,
            Edit::Replace {
                heading: vec!["A".into()],
                text: "new".into(),
            },
            Precondition::IfMatch(vec!["\"0\"".into()]),
        );
        assert!(matches!(stale, Err(Error::PreconditionFailed)));
        let done = notebook
            .edit_section(
                &path,
                Edit::Replace {
                    heading: vec!["A".into()],
                    text: "new".into(),
                },
                Precondition::IfMatch(vec![put.note.etag.clone()]),
            )
            .unwrap();
        assert!(!done.created);
        assert!(done.note.body.ends_with("# A\nnew\n"), "{}", done.note.body);
        assert_eq!(notebook.read(&path).unwrap().content, done.note.content);
        assert_eq!(notebook.outline(&path).unwrap().headings.len(), 1);
        let section = notebook.read_section(&path, &vec!["A".into()]).unwrap();
        assert_eq!(section.text, "# A\nnew\n");
        assert_eq!(section.line_start + 1, section.line_end);
    }
}
