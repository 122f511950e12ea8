//! What the tools take and give: their arguments (with the JSON schema clients see)
//! and the shapes of their answers.

use rmcp::schemars;
use serde::{Deserialize, Deserializer, Serialize};

use crate::ops::model::NoteMeta;
use crate::ops::search::SearchHit;
use crate::ops::tags::TagCount;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListNotesArgs {
    /// Folder to list, relative to the notes folder (every note when left out)
    pub(crate) folder: Option<String>,
    /// Most notes to return (1 to 500; 100 when left out)
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "u32")]
    pub(crate) limit: Option<u32>,
    /// The `nextCursor` of the previous page, to get the page after it
    pub(crate) cursor: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NotesPage {
    pub(crate) folder: String,
    pub(crate) notes: Vec<NoteMeta>,
    /// Notes in the folder, all pages together.
    pub(crate) total: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next_cursor: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReadNoteArgs {
    /// Note path, relative to the notes folder (e.g. ideas/hi.md)
    pub(crate) path: String,
    /// `whole` (the default): the note's text; `outline`: its heading tree with line
    /// ranges; `section`: the text of the one section `heading` names
    pub(crate) mode: Option<ReadMode>,
    /// For `section`: the heading's path from the top, e.g. ["Projects", "Ideas"],
    /// matched exactly
    pub(crate) heading: Option<Vec<String>>,
    /// Where to start, in bytes: the `nextOffset` of the previous piece (0 when left out)
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "u64")]
    pub(crate) offset: Option<usize>,
    /// Most bytes of text to return (1 to 262144; 32768 when left out)
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "u32")]
    pub(crate) max_bytes: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ReadMode {
    Whole,
    Outline,
    Section,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
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
    pub(crate) next_offset: Option<usize>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
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
    pub(crate) offset: usize,
    pub(crate) truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next_offset: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SearchNotesArgs {
    /// Words to find; "exact phrases", tag:NAME, -excluded; the last word also matches
    /// as a prefix
    pub(crate) query: String,
    /// Most results to return (1 to 50; 10 when left out)
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "u32")]
    pub(crate) limit: Option<u32>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Found {
    pub(crate) query: String,
    /// Best first; in each snippet the matches are between ⟦ and ⟧.
    pub(crate) results: Vec<SearchHit>,
    /// Matching notes, shown or not.
    pub(crate) total: usize,
    pub(crate) truncated: bool,
    /// No note has every word: these are the closest matches (present only then).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) partial: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateNoteArgs {
    /// Path of the new note, relative to the notes folder, ending in .md (folders are
    /// made as needed)
    pub(crate) path: String,
    /// The note's whole Markdown text; a front matter (title, tags) is added when it
    /// has none
    pub(crate) content: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UpdateNoteArgs {
    /// Note path, relative to the notes folder
    pub(crate) path: String,
    /// The note's new whole Markdown text
    pub(crate) content: String,
    /// The version read_note returned: the update is refused if the note changed since
    pub(crate) version: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Written {
    pub(crate) path: String,
    pub(crate) title: String,
    /// The note's new version.
    pub(crate) version: String,
    pub(crate) size: u64,
    pub(crate) created: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AppendArgs {
    /// Note path, relative to the notes folder; the note must exist
    pub(crate) path: String,
    /// Markdown to add at the end of the note, after a blank line
    pub(crate) text: String,
    /// Add it at the end of this section instead (the heading's path from the top,
    /// e.g. ["Journal", "2026"], matched exactly)
    pub(crate) heading: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SectionOp {
    Append,
    Prepend,
    Replace,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EditSectionArgs {
    /// Note path, relative to the notes folder
    pub(crate) path: String,
    /// `append` (at the end of the section, after its subsections), `prepend` (right
    /// after its heading line) or `replace` (everything under the heading, subsections
    /// included)
    pub(crate) op: SectionOp,
    /// The heading's path from the top, e.g. ["Projects", "Ideas"], matched exactly
    /// (case included); a missing or ambiguous heading fails with the candidates
    pub(crate) heading: Vec<String>,
    /// The Markdown to add, or to put under the heading
    pub(crate) text: String,
    /// The version read_note returned: when given, the edit is refused if the note
    /// changed since
    pub(crate) version: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MoveNoteArgs {
    /// The note to move, relative to the notes folder
    pub(crate) from: String,
    /// Its new path; no note may be there yet
    pub(crate) to: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DeleteNoteArgs {
    /// Note path, relative to the notes folder
    pub(crate) path: String,
    /// The version read_note returned: when given, the delete is refused if the note
    /// changed since
    pub(crate) version: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Deleted {
    pub(crate) path: String,
    /// Whether the note's history keeps it (in the trash, restorable).
    pub(crate) in_trash: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListTagsArgs {
    /// Most tags to return (1 to 1000; 200 when left out)
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "u32")]
    pub(crate) limit: Option<u32>,
    /// The `nextCursor` of the previous page
    pub(crate) cursor: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TagsPage {
    /// By name; `count` is how many notes carry the tag.
    pub(crate) tags: Vec<TagCount>,
    pub(crate) total: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next_cursor: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NotePathArgs {
    /// Note path, relative to the notes folder
    pub(crate) path: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NoteLinksArgs {
    /// Note path, relative to the notes folder
    pub(crate) path: String,
    /// Most links to return each way (1 to 500; 100 when left out)
    #[serde(default, deserialize_with = "whole")]
    #[schemars(with = "u32")]
    pub(crate) limit: Option<u32>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Publicity {
    pub(crate) path: String,
    /// `public` or `private`.
    pub(crate) status: crate::ops::publish::Visibility,
    /// The page's file name in the public folder.
    pub(crate) page: String,
}

/// An optional whole number, given as a JSON number or as text (`"2"`: some clients
/// send every argument as a string). Its schema says `integer`, never `null`.
fn whole<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64> + std::str::FromStr,
{
    use serde::de::Error;
    use serde_json::Value;
    let not_whole = |shown: &dyn std::fmt::Display| {
        D::Error::custom(format!("{shown} is not a whole number in range"))
    };
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|n| T::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| not_whole(&n)),
        Some(Value::String(text)) => text
            .trim()
            .parse::<T>()
            .map(Some)
            .map_err(|_| not_whole(&format_args!("{text:?}"))),
        Some(other) => Err(not_whole(&other)),
    }
}
