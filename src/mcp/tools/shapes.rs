//! What the tools take: their arguments, with the JSON schema clients see (the
//! shapes of their answers are in `answers`).

use rmcp::schemars;
use serde::{Deserialize, Deserializer};

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
