//! Notes as MCP resources: `note:///PATH` (each path segment percent-encoded), listed
//! by pages in path order and read whole as `text/markdown`.

use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use rmcp::ErrorData;
use rmcp::model::{
    ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};

use super::{Backend, McpAccess, render};
use crate::ops::NotePath;
use crate::ops::tags::is_under;

/// The scheme and empty authority of a note's URI.
const SCHEME: &str = "note:///";
const MARKDOWN: &str = "text/markdown";
/// Resources listed per page.
const PAGE: usize = 500;

/// What a URI path segment may not hold as it is (RFC 3986 `pchar` keeps the rest).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The URI of a note.
pub(crate) fn uri(path: &str) -> String {
    let segments: Vec<String> = path
        .split('/')
        .map(|s| utf8_percent_encode(s, SEGMENT).to_string())
        .collect();
    format!("{SCHEME}{}", segments.join("/"))
}

/// The note a URI names, or why it names none.
pub(crate) fn path_of(uri: &str) -> Result<NotePath, ErrorData> {
    let rest = uri.strip_prefix(SCHEME).ok_or_else(|| {
        ErrorData::invalid_params(format!("{uri}: not a note URI (note:///PATH)"), None)
    })?;
    let decoded = percent_decode_str(rest)
        .decode_utf8()
        .map_err(|_| ErrorData::invalid_params(format!("{uri}: not UTF-8 once decoded"), None))?;
    NotePath::parse(&decoded)
        .map_err(|e| ErrorData::invalid_params(format!("{uri}: {}", e.detailed()), None))
}

/// The template clients fill in to name a note.
pub(crate) fn template() -> ResourceTemplate {
    ResourceTemplate::new(format!("{SCHEME}{{path}}"), "note")
        .with_title("A note")
        .with_description("A Markdown note, by its path relative to the notes folder")
        .with_mime_type(MARKDOWN)
}

/// One page of the notes within reach, after `cursor` (the last path of the previous
/// page).
pub(crate) fn list(
    backend: &dyn Backend,
    access: &McpAccess,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, ErrorData> {
    let list = backend
        .notebook()
        .list()
        .map_err(|e| ErrorData::internal_error(e.detailed(), None))?;
    let folder = access.prefix().unwrap_or(".");
    let reader = backend
        .notebook()
        .reader(access.scope())
        .map_err(|e| ErrorData::internal_error(e.detailed(), None))?;
    let within = list
        .notes
        .iter()
        .filter(|n| is_under(&n.path, folder) && reader.holds(&n.path));
    let (shown, next) = render::page(within, |n| &n.path, cursor, PAGE);
    let mut result = ListResourcesResult::with_all_items(
        shown
            .into_iter()
            .map(|note| {
                Resource::new(uri(&note.path), note.path.clone())
                    .with_title(note.title.clone())
                    .with_mime_type(MARKDOWN)
                    .with_size(note.size)
            })
            .collect(),
    );
    result.next_cursor = next;
    Ok(result)
}

/// The whole text of the note a URI names.
pub(crate) fn read(
    backend: &dyn Backend,
    access: &McpAccess,
    uri: &str,
) -> Result<ReadResourceResult, ErrorData> {
    let path = path_of(uri)?;
    if let Err(refused) = access.check(backend.notebook(), &path) {
        return Err(ErrorData::invalid_params(
            refused.message().to_string(),
            None,
        ));
    }
    let note = backend.notebook().read(&path).map_err(|e| match e {
        crate::error::Error::NotFound => {
            ErrorData::resource_not_found(format!("{path}: {e}"), None)
        }
        e => ErrorData::internal_error(format!("{path}: {}", e.detailed()), None),
    })?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(note.content, uri).with_mime_type(MARKDOWN),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_every_path() {
        for path in ["a.md", "ideas/été 2026.md", "x/100% #1?.md", "a/[b].md"] {
            let uri = uri(path);
            assert!(!uri.contains(' '), "{uri}");
            assert_eq!(path_of(&uri).unwrap().as_str(), path, "{uri}");
        }
        assert_eq!(uri("ideas/hi.md"), "note:///ideas/hi.md");
    }

    #[test]
    fn other_uris_are_refused() {
        for bad in [
            "file:///etc/passwd",
            "note://host/a.md",
            "note:///../a.md",
            "note:///%2e%2e/a.md",
            "note:///a.txt",
        ] {
            assert!(path_of(bad).is_err(), "{bad}");
        }
    }
}
