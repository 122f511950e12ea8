//! How tool results are given back: a JSON value (shown as text too), or a tool error
//! whose text is the domain's message; versions as plain tags; long texts and lists
//! cut into bounded pieces, the cut always marked.

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

use crate::error::Error;

/// A tool call that failed: the sentence the caller reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolError(String);

impl ToolError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ToolError(message.into())
    }

    /// A domain error about one note: `path: message`, with what to do next where the
    /// domain's words speak of HTTP headers.
    pub(crate) fn at(path: &str, err: Error) -> Self {
        let message = match err {
            Error::AlreadyExists => {
                "a note already exists here: read it with read_note, then change it with \
                 update_note and the version it returns"
                    .to_string()
            }
            Error::PreconditionFailed => {
                "the note has changed since that version was read (or no longer exists): \
                 read it again and retry with the new version"
                    .to_string()
            }
            Error::HeadingNotFound { ref candidates, .. }
            | Error::HeadingAmbiguous { ref candidates, .. } => {
                format!("{err}; the headings there are: {}", headings(candidates))
            }
            err => err.detailed(),
        };
        ToolError(format!("{path}: {message}"))
    }

    pub(crate) fn message(&self) -> &str {
        &self.0
    }
}

/// Heading paths as a tool names them: `["Top", "Sub"], ["Other"]` (none: `none`).
fn headings(candidates: &[Vec<String>]) -> String {
    if candidates.is_empty() {
        return "none".to_string();
    }
    candidates
        .iter()
        .map(|path| serde_json::to_string(path).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(", ")
}

impl From<Error> for ToolError {
    fn from(err: Error) -> Self {
        ToolError(err.detailed())
    }
}

/// The answer of a tool: its value as structured content (and as JSON text, for the
/// clients that show text only), or its error as a tool error.
pub(crate) fn answer<T: Serialize>(result: Result<T, ToolError>) -> CallToolResult {
    match result.and_then(|value| {
        serde_json::to_value(value).map_err(|e| ToolError::new(format!("cannot encode: {e}")))
    }) {
        Ok(value) => CallToolResult::structured(value),
        Err(err) => CallToolResult::error(vec![ContentBlock::text(err.0)]),
    }
}

/// A note's entity tag (`"0123…"`) as the version a tool shows: without the quotes.
pub(crate) fn version_of(etag: &str) -> String {
    etag.trim_matches('"').to_string()
}

/// A version given to a tool, as the entity tag the domain compares (quotes optional).
pub(crate) fn etag_of(version: &str) -> String {
    format!("\"{}\"", version.trim().trim_matches('"'))
}

/// A piece of a long text: at most `max` bytes from byte `offset`, both moved back to
/// a character boundary; `next` is where the following piece starts, `None` at the end.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Window<'a> {
    pub(crate) text: &'a str,
    pub(crate) offset: usize,
    pub(crate) next: Option<usize>,
}

pub(crate) fn window(text: &str, offset: usize, max: usize) -> Window<'_> {
    let start = floor_boundary(text, offset.min(text.len()));
    let mut end = floor_boundary(text, start.saturating_add(max).min(text.len()));
    if end == start && start < text.len() {
        // A limit smaller than one character still moves forward by one.
        end = text[start..]
            .chars()
            .next()
            .map_or(text.len(), |c| start + c.len_utf8());
    }
    Window {
        text: &text[start..end],
        offset: start,
        next: (end < text.len()).then_some(end),
    }
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// One page of a sorted list: the items after `cursor` (the key `cursor_key` read from
/// the previous page's cursor), at most `limit`; the next cursor when more follow.
pub(crate) fn page<'a, T>(
    items: impl IntoIterator<Item = &'a T>,
    key: impl Fn(&T) -> &str,
    cursor: Option<&str>,
    limit: usize,
) -> (Vec<&'a T>, Option<String>)
where
    T: 'a,
{
    let mut rest = items
        .into_iter()
        .skip_while(|item| cursor.is_some_and(|after| key(item) <= after));
    let shown: Vec<&T> = rest.by_ref().take(limit).collect();
    let next = match (shown.last(), rest.next()) {
        (Some(last), Some(_)) => Some(cursor_after(key(last))),
        _ => None,
    };
    (shown, next)
}

/// The cursor of the page after `key`: the key in hexadecimal behind a short check, so
/// a cursor no page gave is told apart from one whose key is gone.
fn cursor_after(key: &str) -> String {
    let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{:08x}.{hex}", check_of(key))
}

fn check_of(key: &str) -> u32 {
    xxhash_rust::xxh3::xxh3_64(key.as_bytes()) as u32
}

/// The key a cursor given back names; an invalid-params error (-32602) for a cursor no
/// page gave.
pub(crate) fn cursor_key(cursor: Option<&str>) -> Result<Option<String>, ErrorData> {
    let Some(cursor) = cursor else {
        return Ok(None);
    };
    let invalid = || {
        ErrorData::invalid_params(
            "cursor is not one this server gave: pass nextCursor of the previous page as it is",
            None,
        )
    };
    let (check, hex) = cursor.split_once('.').ok_or_else(invalid)?;
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
        })
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(invalid)?;
    let key = String::from_utf8(bytes).map_err(|_| invalid())?;
    match u32::from_str_radix(check, 16) {
        Ok(check) if check == check_of(&key) => Ok(Some(key)),
        _ => Err(invalid()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_garbage_is_refused() {
        let items = ["a.md", "b c/é.md", "z.md"];
        let (shown, next) = page(&items, |s| s, None, 2);
        assert_eq!(shown, [&"a.md", &"b c/é.md"]);
        let after = cursor_key(next.as_deref()).unwrap().unwrap();
        assert_eq!(after, "b c/é.md");
        let (shown, next) = page(&items, |s| s, Some(&after), 2);
        assert_eq!((shown, next), (vec![&"z.md"], None));
        for garbage in ["zzz", "0.6162", "x.zz", "", "00000000.612e6d64"] {
            assert!(cursor_key(Some(garbage)).is_err(), "{garbage}");
        }
        assert_eq!(cursor_key(None).unwrap(), None);
    }

    #[test]
    fn versions_round_trip_with_or_without_quotes() {
        assert_eq!(version_of("\"00ff\""), "00ff");
        assert_eq!(etag_of("00ff"), "\"00ff\"");
        assert_eq!(etag_of(" \"00ff\" "), "\"00ff\"");
    }

    #[test]
    fn windows_cut_on_characters_and_say_where_to_go_on() {
        let text = "héllo wörld";
        let first = window(text, 0, 2);
        assert_eq!(first.text, "h");
        assert_eq!(first.next, Some(1));
        let second = window(text, 1, 2);
        assert_eq!(second.text, "é");
        assert_eq!(second.next, Some(3));
        assert_eq!(window(text, 2, 100).offset, 1);
        let whole = window(text, 0, 1000);
        assert_eq!((whole.text, whole.next), (text, None));
        assert_eq!(window(text, 999, 10).text, "");
        // A limit below one character still gives one.
        assert_eq!(window(text, 1, 1).text, "é");
    }

    #[test]
    fn pages_follow_their_cursor() {
        fn key<'a>(item: &'a &str) -> &'a str {
            item
        }
        let items = ["a", "b", "c", "d", "e"];
        let (first, next) = page(&items, key, None, 2);
        let after = cursor_key(next.as_deref()).unwrap();
        assert_eq!((first, after.as_deref()), (vec![&"a", &"b"], Some("b")));
        let (second, next) = page(&items, key, Some("b"), 2);
        let after = cursor_key(next.as_deref()).unwrap();
        assert_eq!((second, after.as_deref()), (vec![&"c", &"d"], Some("d")));
        let (last, next) = page(&items, key, Some("d"), 2);
        assert_eq!((last, next), (vec![&"e"], None));
        let (exact, next) = page(&items, key, Some("c"), 2);
        assert_eq!((exact, next), (vec![&"d", &"e"], None));
    }

    #[test]
    fn domain_errors_name_their_note() {
        assert_eq!(
            ToolError::at("a.md", Error::NotFound).message(),
            "a.md: Note not found"
        );
        assert!(
            ToolError::at("a.md", Error::AlreadyExists)
                .message()
                .contains("update_note")
        );
    }
}
