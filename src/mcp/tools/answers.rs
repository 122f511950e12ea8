//! What the tools give back: one type per answer, whose JSON schema is the tool's
//! `outputSchema` and whose serialisation is its `structuredContent`, so the two cannot
//! differ. The domain's values are copied into these types: a field the domain adds
//! reaches MCP clients only once it is added here, schema and all.

use std::sync::Arc;

use rmcp::handler::server::tool::schema_for_output;
use rmcp::model::JsonObject;
use rmcp::schemars::{self, JsonSchema};
use serde::Serialize;
use serde_json::Value;

use crate::ops::model::NoteMeta;
use crate::ops::moves::Moved;
use crate::ops::publish::Visibility;
use crate::ops::search::backlinks::{Incoming, Outgoing};
use crate::ops::search::{FILE_KIND, SearchHit};
use crate::ops::sections::{Outline, OutlineHeading};
use crate::ops::tags::TagCount;

/// The `outputSchema` of a tool answering `T`: a JSON Schema object (root type
/// `object`, as MCP requires), without the Rust-only `format` names (`uint32`, …) that
/// strict validators refuse as unknown.
pub(crate) fn output_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let mut schema = Value::Object(schema_for_output::<T>().as_ref().clone());
    drop_formats(&mut schema);
    let Value::Object(mut object) = schema else {
        unreachable!("a schema object stays an object")
    };
    object
        .entry("type")
        .or_insert_with(|| Value::String("object".into()));
    Arc::new(object)
}

/// Removes every `format` keyword whose value is a name (not a property named `format`).
fn drop_formats(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if object.get("format").is_some_and(Value::is_string) {
                object.remove("format");
            }
            for (key, value) in object.iter_mut() {
                if key == "properties" || key == "$defs" {
                    // Maps of names to schemas: each value is a schema.
                    if let Value::Object(named) = value {
                        named.values_mut().for_each(drop_formats);
                    }
                } else {
                    drop_formats(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(drop_formats),
        _ => {}
    }
}

/// One note of a list.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct NoteEntry {
    pub(crate) path: String,
    pub(crate) title: String,
    /// The front matter's tags.
    pub(crate) tags: Vec<String>,
    /// The front matter's last_modified (`DD-MM-YYYY:HH:MM`), empty when absent.
    pub(crate) last_modified: String,
    /// The front matter's date (`DD-MM-YYYY`), empty when absent.
    pub(crate) date: String,
    /// The file's size in bytes.
    pub(crate) size: u64,
}

impl From<&NoteMeta> for NoteEntry {
    fn from(meta: &NoteMeta) -> Self {
        NoteEntry {
            path: meta.path.to_string(),
            title: meta.title.to_string(),
            tags: meta.tags.iter().map(ToString::to_string).collect(),
            last_modified: meta.last_modified.to_string(),
            date: meta.date.to_string(),
            size: meta.size,
        }
    }
}

/// `list_notes`: one page of the notes of a folder.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct NotesPage {
    /// The folder listed (empty: the whole notes folder).
    pub(crate) folder: String,
    pub(crate) notes: Vec<NoteEntry>,
    /// Notes in the folder, all pages together.
    pub(crate) total: usize,
    /// Pass it back as cursor for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub(crate) next_cursor: Option<String>,
}

/// `read_note`: the note's text, its outline, or one section, by the mode asked for.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum ReadAnswer {
    Whole(NoteText),
    Outline(OutlineAnswer),
    Section(SectionText),
}

/// `read_note`, mode `whole`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct NoteText {
    pub(crate) path: String,
    pub(crate) title: String,
    /// Pass it to update_note or delete_note: they refuse if the note changed since.
    pub(crate) version: String,
    pub(crate) last_modified: String,
    /// The whole note's size in bytes.
    pub(crate) size: u64,
    /// The note's Markdown (front matter included), or the piece of it asked for.
    pub(crate) content: String,
    /// Where this piece starts, in bytes.
    pub(crate) offset: usize,
    /// Whether more follows: then call again with offset set to nextOffset.
    pub(crate) truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub(crate) next_offset: Option<usize>,
}

/// `read_note`, mode `section`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct SectionText {
    pub(crate) path: String,
    pub(crate) heading: Vec<String>,
    /// 1-based lines of the note (front matter included) the section spans.
    pub(crate) line_start: usize,
    pub(crate) line_end: usize,
    /// The heading line, what is under it and its subsections (or the piece asked for).
    pub(crate) text: String,
    pub(crate) offset: usize,
    pub(crate) truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub(crate) next_offset: Option<usize>,
}

/// `read_note`, mode `outline`: the heading tree.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct OutlineAnswer {
    pub(crate) path: String,
    pub(crate) headings: Vec<Heading>,
}

/// One heading: its section runs from lineStart (the heading) to lineEnd, 1-based
/// lines of the whole note (front matter included), both inclusive.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct Heading {
    pub(crate) level: u8,
    pub(crate) text: String,
    pub(crate) line_start: usize,
    pub(crate) line_end: usize,
    pub(crate) children: Vec<Heading>,
}

impl From<Outline> for OutlineAnswer {
    fn from(outline: Outline) -> Self {
        OutlineAnswer {
            path: outline.path,
            headings: outline.headings.into_iter().map(Heading::from).collect(),
        }
    }
}

impl From<OutlineHeading> for Heading {
    fn from(h: OutlineHeading) -> Self {
        Heading {
            level: h.level,
            text: h.text,
            line_start: h.line_start,
            line_end: h.line_end,
            children: h.children.into_iter().map(Heading::from).collect(),
        }
    }
}

/// `search_notes`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct Found {
    pub(crate) query: String,
    /// Best first; in each snippet the matches are between ⟦ and ⟧.
    pub(crate) results: Vec<Hit>,
    /// Matching notes, shown or not.
    pub(crate) total: usize,
    pub(crate) truncated: bool,
    /// No note has every word: these are the closest matches (present only then).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) partial: bool,
}

/// One search result.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct Hit {
    pub(crate) path: String,
    pub(crate) title: String,
    pub(crate) tags: Vec<String>,
    pub(crate) score: f32,
    /// Plain text around the best match, each match between ⟦ and ⟧.
    pub(crate) snippet: String,
    /// The title with its matches between ⟦ and ⟧.
    pub(crate) highlighted_title: String,
    /// Present for an attachment (a `file:` query), absent for a note.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "HitKind")]
    pub(crate) kind: Option<HitKind>,
}

/// What a result is when it is not a note.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum HitKind {
    File,
}

impl From<SearchHit> for Hit {
    fn from(hit: SearchHit) -> Self {
        Hit {
            path: hit.path,
            title: hit.title,
            tags: hit.tags,
            score: hit.score,
            snippet: hit.snippet,
            highlighted_title: hit.highlighted_title,
            kind: (hit.kind == Some(FILE_KIND)).then_some(HitKind::File),
        }
    }
}

/// `create_note`, `update_note`, `append_to_note`, `edit_section`: what was written.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct Written {
    pub(crate) path: String,
    pub(crate) title: String,
    /// The note's new version.
    pub(crate) version: String,
    pub(crate) size: u64,
    /// Whether the note did not exist before.
    pub(crate) created: bool,
}

/// `move_note`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct MoveAnswer {
    pub(crate) from: String,
    pub(crate) to: String,
    /// The notes whose links were rewritten to lead to the new path.
    pub(crate) rewritten: Vec<String>,
}

impl From<Moved> for MoveAnswer {
    fn from(moved: Moved) -> Self {
        MoveAnswer {
            from: moved.from,
            to: moved.to,
            rewritten: moved.rewritten,
        }
    }
}

/// `delete_note`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct Deleted {
    pub(crate) path: String,
    /// Whether the note's history keeps it (in the trash, restorable).
    pub(crate) in_trash: bool,
}

/// `list_tags`: one page of the tags in use.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct TagsPage {
    /// By name.
    pub(crate) tags: Vec<Tag>,
    pub(crate) total: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub(crate) next_cursor: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct Tag {
    pub(crate) name: String,
    /// How many notes carry the tag.
    pub(crate) count: usize,
}

impl From<&TagCount> for Tag {
    fn from(tag: &TagCount) -> Self {
        Tag {
            name: tag.name.clone(),
            count: tag.count,
        }
    }
}

/// `note_links`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct Links {
    pub(crate) path: String,
    /// The note's links to notes, in the order of its text.
    pub(crate) outgoing: Vec<LinkOut>,
    /// The links of other notes to it, by path then line.
    pub(crate) incoming: Vec<LinkIn>,
    pub(crate) outgoing_total: usize,
    pub(crate) incoming_total: usize,
    /// Whether either list was cut to the limit.
    pub(crate) truncated: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct LinkOut {
    /// The link as written.
    pub(crate) target: String,
    /// The note it leads to; null for a broken link.
    pub(crate) path: Option<String>,
    pub(crate) line: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct LinkIn {
    /// The linking note.
    pub(crate) path: String,
    pub(crate) title: String,
    /// 1-based line of the link in the linking note, front matter included.
    pub(crate) line: u32,
}

impl From<Outgoing> for LinkOut {
    fn from(link: Outgoing) -> Self {
        LinkOut {
            target: link.target,
            path: link.path,
            line: link.line,
        }
    }
}

impl From<Incoming> for LinkIn {
    fn from(link: Incoming) -> Self {
        LinkIn {
            path: link.path,
            title: link.title,
            line: link.line,
        }
    }
}

/// `publish_note`, `unpublish_note`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub(crate) struct Publicity {
    pub(crate) path: String,
    pub(crate) status: Status,
    /// The page's file name in the public folder.
    pub(crate) page: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Public,
    Private,
}

impl From<Visibility> for Status {
    fn from(visibility: Visibility) -> Self {
        match visibility {
            Visibility::Public => Status::Public,
            Visibility::Private => Status::Private,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_objects_without_rust_formats() {
        let read = output_schema::<ReadAnswer>();
        assert_eq!(read["type"], "object");
        assert!(read.get("anyOf").is_some(), "{read:?}");
        let page = output_schema::<NotesPage>();
        let text = serde_json::to_string(page.as_ref()).unwrap();
        assert!(!text.contains("\"format\""), "{text}");
        assert!(text.contains("\"minimum\":0"), "{text}");
        // Left out when absent, never null.
        let required = page["required"].as_array().unwrap();
        assert!(!required.contains(&Value::from("nextCursor")), "{page:?}");
        assert_eq!(page["properties"]["nextCursor"]["type"], "string");
    }
}
