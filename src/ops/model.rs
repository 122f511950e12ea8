//! The shapes operations return, with the spec's JSON field names, shared by the HTTP
//! API and the CLI's `--json` output.

use compact_str::CompactString;
use serde::Serialize;

use super::front_matter::FrontMatter;

/// NoteResponse: a note as read or as just written.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Note {
    pub(crate) path: String,
    pub(crate) title: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(crate) content: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(crate) body: String,
    #[serde(rename = "frontMatter", skip_serializing_if = "Option::is_none")]
    pub(crate) front_matter: Option<FrontMatter>,
    #[serde(rename = "lastModified")]
    pub(crate) last_modified: String,
    pub(crate) size: u64,
    /// Entity tag of the exact bytes (sent as the `ETag` header, never in the body).
    #[serde(skip)]
    pub(crate) etag: String,
}

/// NoteMetadata: one element of the list.
#[derive(Debug, Clone, Serialize, PartialEq)]
///
/// One per note in the list, which the server keeps: the strings are `CompactString`,
/// held inline up to 24 bytes (the dates, most tags and titles) rather than each in an
/// allocation of its own (at 100k notes, 12 MB less).
pub(crate) struct NoteMeta {
    pub(crate) path: CompactString,
    pub(crate) title: CompactString,
    pub(crate) tags: Vec<CompactString>,
    #[serde(rename = "lastModified")]
    pub(crate) last_modified: CompactString,
    pub(crate) date: CompactString,
    pub(crate) size: u64,
    /// When the file last changed, in seconds since the epoch (0: unknown): the time
    /// the web list shows and orders by when the front matter has none. Not in the
    /// API's JSON, which the spec fixes.
    #[serde(skip)]
    pub(crate) modified: i64,
    /// The `#tags` of the body (Obsidian's), for the web list's tag filter; not in the
    /// API's JSON, whose `tags` are the front matter's.
    #[serde(skip)]
    pub(crate) body_tags: Box<[CompactString]>,
    /// The front matter's `aliases:`: names links may use (`ops::links`). Not in the
    /// API's JSON.
    #[serde(skip)]
    pub(crate) aliases: Vec<CompactString>,
}

impl NoteMeta {
    /// Every tag the note is filed under, each once, into `filed` (cleared first): its
    /// front matter's and its body's as Obsidian reads them (`a, b` is two tags), and
    /// the parents of nested ones (`a/b` is filed under `a` too).
    pub(crate) fn filed_tags<'a>(&'a self, filed: &mut Vec<&'a str>) {
        use super::front_matter::tags::{front_tags, with_parents};
        filed.clear();
        let body = self.body_tags.iter().map(|tag| tag.as_str());
        for tag in front_tags(&self.tags).chain(body) {
            for tag in with_parents(tag) {
                if !filed.contains(&tag) {
                    filed.push(tag);
                }
            }
        }
    }

    /// The note's last change in local time: its front matter's `last_modified`, else
    /// the file's modification time.
    pub(crate) fn changed_at(&self) -> Option<chrono::NaiveDateTime> {
        chrono::NaiveDateTime::parse_from_str(&self.last_modified, "%d-%m-%Y:%H:%M")
            .ok()
            .or_else(|| {
                (self.modified != 0)
                    .then(|| chrono::DateTime::from_timestamp(self.modified, 0))
                    .flatten()
                    .map(|t| t.with_timezone(&chrono::Local).naive_local())
            })
    }
}

/// ListNotesResponse.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct NoteList {
    pub(crate) notes: Vec<NoteMeta>,
    pub(crate) total: usize,
}

/// The delete confirmation.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DeleteConfirmation {
    pub(crate) message: &'static str,
    pub(crate) path: String,
}

/// The result of a create-or-replace: the note, and whether it was new.
#[derive(Debug, Clone)]
pub(crate) struct PutOutcome {
    pub(crate) note: Note,
    pub(crate) created: bool,
}

/// A condition on the note's current state that a write or delete requires, checked
/// under the note's lock (HTTP `If-Match` / `If-None-Match: *`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Precondition {
    /// No condition.
    #[default]
    None,
    /// The note exists and its entity tag is one of these (`*` matches any).
    IfMatch(Vec<String>),
    /// The note does not exist yet.
    IfNoneMatchAny,
}

impl Precondition {
    /// Checks the condition against the current bytes of the note (`None`: absent).
    pub(crate) fn check(&self, current: Option<&[u8]>) -> crate::error::Result<()> {
        use crate::error::Error;
        match (self, current) {
            (Precondition::None, _) => Ok(()),
            (Precondition::IfNoneMatchAny, None) => Ok(()),
            (Precondition::IfNoneMatchAny, Some(_)) => Err(Error::AlreadyExists),
            (Precondition::IfMatch(_), None) => Err(Error::PreconditionFailed),
            (Precondition::IfMatch(_), Some(bytes)) => {
                if self.holds_for(Some(&etag(bytes))) {
                    Ok(())
                } else {
                    Err(Error::PreconditionFailed)
                }
            }
        }
    }

    /// Whether the condition holds of a thing whose current entity tag is `current`
    /// (`None`: it does not exist).
    pub(crate) fn holds_for(&self, current: Option<&str>) -> bool {
        match (self, current) {
            (Precondition::None, _) | (Precondition::IfNoneMatchAny, None) => true,
            (Precondition::IfNoneMatchAny, Some(_)) | (Precondition::IfMatch(_), None) => false,
            (Precondition::IfMatch(tags), Some(current)) => tags
                .iter()
                .any(|t| t == "*" || t.trim_start_matches("W/") == current),
        }
    }
}

/// The strong entity tag of a note's bytes: a quoted 64-bit XXH3 digest.
pub(crate) fn etag(bytes: &[u8]) -> String {
    format!("\"{:016x}\"", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// What a create-or-replace writes.
#[derive(Debug)]
pub(crate) enum NoteInput {
    /// A note's whole text as given (a `text/markdown` PUT, `notes put`): a front
    /// matter is made when it has none, and its last_modified refreshed when it has one.
    Markdown(String),
    /// A note made from fields (a JSON NoteRequest, a new note of the web editor), with
    /// the spec's defaults for what is left out.
    Fields(NoteFields),
    /// A note's whole text, stored as given (MCP): only its `last_modified` is
    /// refreshed, when it has one the change left alone.
    Verbatim(String),
    /// A save of the web editor: only what differs from the note is written.
    Edit(NoteEdit),
}

/// What the web editor sends for an existing note: the title and tags as shown (a title
/// left as shown, or tags left as they were, change nothing) and the body.
#[derive(Debug, Default)]
pub(crate) struct NoteEdit {
    pub(crate) title: String,
    pub(crate) tags: Vec<String>,
    pub(crate) body: String,
}

/// The fields of a NoteRequest. Every one is optional.
#[derive(Debug, Default)]
pub(crate) struct NoteFields {
    /// The complete text; when not empty it is stored exactly as given.
    pub(crate) content: Option<String>,
    pub(crate) body: Option<String>,
    pub(crate) front_matter: Option<FrontMatterInput>,
}

/// A supplied front matter: the four spec'd fields, and any other keys, which are
/// stored in the YAML after them, in their order.
#[derive(Debug, Default)]
pub(crate) struct FrontMatterInput {
    pub(crate) title: Option<String>,
    pub(crate) date: Option<String>,
    /// Accepted and ignored: a write always sets the current time.
    #[expect(
        dead_code,
        reason = "filled in by the request parser in http; nothing reads it"
    )]
    pub(crate) last_modified: Option<String>,
    pub(crate) tags: Option<Vec<String>>,
    pub(crate) extra: serde_yaml::Mapping,
}
