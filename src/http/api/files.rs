//! Attachments over the API: read (whole, a byte range, or only the head), create or
//! replace from a raw body, delete, and the list under a folder. Each handler converts
//! the request, makes one `ops` call and answers; content that is not passive (SVG,
//! HTML, XML, …) is sent sandboxed so it never runs as a page of this origin. Small
//! files are answered from the versions `ops` keeps in memory, their bytes shared by
//! every answer.

use std::ops::Bound;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use futures_util::Stream;
use headers::HeaderMapExt;
use warp::Filter;
use warp::Reply;
use warp::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use warp::path::Tail;
use warp::reject::Rejection;
use warp::reply::Response;

use super::notes::{precondition, with_etag};
use crate::error::{Error, Result};
use crate::http::State;
use crate::http::server::SendFrom;
use crate::http::support::reject::HttpError;
use crate::http::support::{blocking, header_str, is_read, method_is, reply, url, with_state};
use crate::ops::FilePath;
use crate::ops::files::{FileBody, OpenFile};
use crate::ops::tokens::Scope;

/// The attachment path after `/api/v1/files/`, checked (400 when it is not one). An
/// empty one names the list, which is another route: not found here.
pub(super) fn path() -> impl Filter<Extract = (FilePath,), Error = Rejection> + Clone {
    warp::path::tail().and_then(|tail: Tail| {
        std::future::ready(match tail.as_str() {
            "" => Err(warp::reject::not_found()),
            encoded => url::file_path(encoded).map_err(Rejection::from),
        })
    })
}

/// `GET` or `HEAD /file/{path}`: the same answer as the API's, at the address note pages
/// give the browser for an attachment (an image shown in a note).
pub(crate) fn for_browser(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    reads(warp::path("file"), state)
}

/// `GET` or `HEAD` of the attachment whose path follows `prefix`.
pub(super) fn reads(
    prefix: impl Filter<Extract = (), Error = Rejection> + Clone,
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    prefix
        .and(method_is(is_read))
        .and(path())
        .and(warp::method())
        .and(warp::header::headers_cloned())
        .and(with_state(state))
        .and_then(read)
}

/// Files are read on the blocking pool (reads on the event loop bought nothing,
/// bench/SERVER.md): one small enough to be kept in memory (`ops::files::cache`) is
/// read whole and served from memory while it stays the same; others are streamed in
/// chunks of `CHUNK` bytes past `WHOLE`, so a large file never sits whole in memory.
const WHOLE: u64 = 256 << 10;

/// The size of one streamed chunk.
const CHUNK: u64 = 64 << 10;

/// The policy of an answer whose content could run as a page (SVG, HTML, XML, any type
/// not known to be passive): a sandbox of its own, no script, no form, no access to
/// this origin.
const SANDBOX: &str = "sandbox";

/// `GET` or `HEAD /api/v1/files/{path}`: the bytes as stored (or a range of them),
/// with their media type and entity tag; `304` when `If-None-Match` names the tag.
pub(super) async fn read(
    path: FilePath,
    method: Method,
    headers: HeaderMap,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let opened = state.notebook.open_file(&path)?;
    if not_modified(&headers, &opened.etag) {
        return Ok(with_etag(empty(StatusCode::NOT_MODIFIED), &opened.etag));
    }
    let len = opened.info.size;
    let range = match headers.typed_get::<headers::Range>() {
        Some(range) => {
            match byte_ranges(&range, header_str(&headers, header::RANGE), len)[..] {
                [] => return Err(HttpError::RangeNotSatisfiable(len).into()),
                [one] => Some(one),
                // Several parts: the whole file (a server may ignore `Range`, RFC 9110
                // 14.2), never only the first part.
                _ => None,
            }
        }
        None => None,
    };
    let (status, (start, end)) = match range {
        Some(bounds) => (StatusCode::PARTIAL_CONTENT, bounds),
        None => (StatusCode::OK, (0, len)),
    };
    let OpenFile {
        body,
        info,
        etag,
        modified,
        sealed,
    } = opened;
    let mut response = if method == Method::HEAD {
        empty(status)
    } else {
        match body {
            FileBody::Kept(bytes) => {
                let mut response = in_memory(&bytes, start, end);
                // The body is a part of the sealed file's mapped bytes: the server
                // sends it from the file, without a copy.
                if let Some(sealed) = sealed {
                    SendFrom::mark(&mut response, sealed, end - start);
                }
                response
            }
            FileBody::Disk(disk) if disk.keepable() => {
                let bytes = blocking(&state, move |s| s.notebook.read_whole(disk)).await?;
                in_memory(&bytes, start, end)
            }
            FileBody::Disk(disk) => {
                blocking(&state, move |_| body_of(disk.into_file(), start, end)).await?
            }
        }
    };
    *response.status_mut() = status;
    describe(&mut response, &info.content_type, end - start, modified);
    let mut response = with_etag(response, &etag);
    if status == StatusCode::PARTIAL_CONTENT
        && let Some(value) = reply::header_value(format!("bytes {start}-{}/{len}", end - 1))
    {
        response.headers_mut().insert(header::CONTENT_RANGE, value);
    }
    Ok(response)
}

/// The satisfiable ranges of a `Range` header, each as `[start, end)` within a file of
/// `len` bytes; empty when none is.
fn byte_ranges(range: &headers::Range, header: &str, len: u64) -> Vec<(u64, u64)> {
    let mut ranges: Vec<(u64, u64)> = range
        .satisfiable_ranges(len)
        .filter_map(|bounds| bounded(bounds, len))
        .collect();
    if ranges.is_empty() {
        ranges.extend(whole_for_long_suffix(header, len));
    }
    ranges
}

/// One range as `[start, end)`; `None` when it starts past the end.
fn bounded((start, end): (Bound<u64>, Bound<u64>), len: u64) -> Option<(u64, u64)> {
    let start = match start {
        Bound::Unbounded => 0,
        Bound::Included(s) => s,
        Bound::Excluded(s) => s.checked_add(1)?,
    };
    let end = match end {
        Bound::Unbounded => len,
        Bound::Included(e) => e.saturating_add(1).min(len),
        Bound::Excluded(e) => e.min(len),
    };
    (start < end).then_some((start, end))
}

/// `bytes=-N` asks for the last N bytes; when N is past the file's length it means the
/// whole file (RFC 9110, 14.1.2), a case the `headers` crate reports as unsatisfiable.
fn whole_for_long_suffix(header: &str, len: u64) -> Option<(u64, u64)> {
    let specs = header.trim().strip_prefix("bytes=")?;
    let long_suffix = specs.split(',').any(|spec| {
        spec.trim()
            .strip_prefix('-')
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n > 0)
    });
    (long_suffix && len > 0).then_some((0, len))
}

/// Whether `If-None-Match` names the current tag (or `*`).
fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    header_str(headers, header::IF_NONE_MATCH)
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag)
}

fn empty(status: StatusCode) -> Response {
    let mut response = Response::new(Bytes::new().into());
    *response.status_mut() = status;
    response
}

/// The bytes `[start, end)` of a version in memory, shared, not copied. A version
/// read short (the file shrank meanwhile) gives what it has.
fn in_memory(bytes: &Bytes, start: u64, end: u64) -> Response {
    let end = usize::try_from(end).map_or(bytes.len(), |end| end.min(bytes.len()));
    let start = usize::try_from(start).map_or(end, |start| start.min(end));
    Response::new(bytes.slice(start..end).into())
}

/// The bytes `[start, end)` of the file: read at once when small, else streamed.
fn body_of(file: std::fs::File, start: u64, end: u64) -> Result<Response, HttpError> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = file;
    if start > 0 {
        file.seek(SeekFrom::Start(start))
            .map_err(|e| HttpError::from(Error::FileReadFailed(e)))?;
    }
    let len = end - start;
    if len <= WHOLE {
        let mut bytes = Vec::with_capacity(len as usize);
        file.take(len)
            .read_to_end(&mut bytes)
            .map_err(|e| HttpError::from(Error::FileReadFailed(e)))?;
        return Ok(Response::new(Bytes::from(bytes).into()));
    }
    Ok(warp::reply::stream(chunks(tokio::fs::File::from_std(file), len)).into_response())
}

/// The next `len` bytes of `file`, a chunk at a time: a large file never sits whole
/// in memory.
fn chunks(
    file: tokio::fs::File,
    len: u64,
) -> impl Stream<Item = std::io::Result<Bytes>> + Send + Sync + 'static {
    futures_util::stream::unfold((file, len), |(mut file, left)| async move {
        use tokio::io::AsyncReadExt;
        if left == 0 {
            return None;
        }
        let mut buf = BytesMut::with_capacity(left.min(CHUNK) as usize);
        match file.read_buf(&mut buf).await {
            // The file shrank while it was sent: the answer ends short, and the client
            // sees fewer bytes than Content-Length promised.
            Ok(0) => None,
            Ok(_) => {
                buf.truncate(left.min(buf.len() as u64) as usize);
                let left = left - buf.len() as u64;
                Some((Ok(buf.freeze()), (file, left)))
            }
            Err(e) => Some((Err(e), (file, 0))),
        }
    })
}

/// The headers of a file answer: media type (active content sandboxed, HTML as
/// text), length, date, and that ranges are taken.
fn describe(
    response: &mut Response,
    media: &str,
    len: u64,
    modified: Option<chrono::DateTime<chrono::Utc>>,
) {
    let headers = response.headers_mut();
    let (content_type, active) = served_type(media);
    if let Some(value) = reply::header_value(content_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    if active {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(SANDBOX),
        );
    }
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    if let Some(modified) = modified
        && let Some(value) =
            reply::header_value(modified.format("%a, %d %b %Y %H:%M:%S GMT").to_string())
    {
        headers.insert(header::LAST_MODIFIED, value);
    }
}

/// The `Content-Type` a file of media type `media` is sent with, and whether it goes
/// under a sandbox: every type but the passive ones of `ops::files::is_passive` (SVG,
/// XML and its kin, anything unknown); HTML goes out as plain text besides.
pub(super) fn served_type(media: &str) -> (String, bool) {
    let sandboxed = !crate::ops::files::is_passive(media);
    match media {
        "text/html" | "application/xhtml+xml" => ("text/plain; charset=utf-8".to_string(), true),
        _ => (media.to_string(), sandboxed),
    }
}

/// `PUT /api/v1/files/{path}`: create or replace from the raw body, up to
/// `--max-upload` bytes; nothing is written unless the whole body arrived.
pub(super) async fn put(
    path: FilePath,
    headers: HeaderMap,
    body: super::Body,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let bytes = body.read().await?;
    let cond = precondition(&headers);
    let put = blocking(&state, move |s| s.notebook.put_file(&path, &bytes, &cond)).await?;
    let status = if put.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(with_etag(reply::json(status, &put.info), &put.etag))
}

/// `DELETE /api/v1/files/{path}`.
pub(super) async fn delete(
    path: FilePath,
    headers: HeaderMap,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let cond = precondition(&headers);
    let deleted = blocking(&state, move |s| s.notebook.delete_file(&path, &cond)).await?;
    Ok(reply::json(StatusCode::OK, &deleted))
}

/// The query of the list: the folder to look under (all attachments without it).
#[derive(serde::Deserialize)]
struct ListQuery {
    #[serde(default)]
    under: String,
}

/// `GET /api/v1/files?under=DIR`.
pub(super) async fn list(
    query: String,
    scope: Option<Scope>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let query: ListQuery = serde_urlencoded::from_str(&query).map_err(|_| Error::InvalidPath)?;
    let mut folder = FilePath::parse_folder(&query.under)?;
    if let Some(scope) = &scope {
        folder = crate::http::auth::lists::files_folder(folder, scope)
            .filter(|folder| state.notebook.may_read(scope, folder.as_str()))
            .ok_or(HttpError::Forbidden(crate::http::auth::OUTSIDE))?;
    }
    let list = blocking(&state, move |s| {
        let mut list = s.notebook.list_files(&folder)?;
        // A symlinked file of the folder leading out of it is not the token's.
        if let Some(scope) = scope.filter(|scope| scope.prefix().is_some()) {
            list.files
                .retain(|file| s.notebook.may_read(&scope, file.path.as_str()));
        }
        Ok::<_, Error>(list)
    })
    .await?;
    Ok(reply::json(StatusCode::OK, &list))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(text: &str) -> headers::Range {
        let mut map = HeaderMap::new();
        map.insert(header::RANGE, HeaderValue::from_str(text).unwrap());
        map.typed_get::<headers::Range>().unwrap()
    }

    fn ranges(text: &str, len: u64) -> Vec<(u64, u64)> {
        byte_ranges(&range(text), text, len)
    }

    #[test]
    fn ranges_within_the_file() {
        assert_eq!(ranges("bytes=0-9", 100), [(0, 10)]);
        assert_eq!(ranges("bytes=90-", 100), [(90, 100)]);
        assert_eq!(ranges("bytes=-10", 100), [(90, 100)]);
        assert_eq!(ranges("bytes=50-500", 100), [(50, 100)]);
        assert!(ranges("bytes=100-", 100).is_empty());
        assert!(ranges("bytes=200-300", 100).is_empty());
        assert!(ranges("bytes=-0", 100).is_empty());
    }

    #[test]
    fn every_satisfiable_part_is_kept() {
        assert_eq!(ranges("bytes=5000-,-2", 100), [(98, 100)]);
        assert_eq!(
            ranges("bytes=10-19,50-59,-2", 100),
            [(10, 20), (50, 60), (98, 100)]
        );
        assert!(ranges("bytes=500-600,700-", 100).is_empty());
    }

    #[test]
    fn a_suffix_past_the_start_is_the_whole_file() {
        assert_eq!(ranges("bytes=-500", 100), [(0, 100)]);
        assert_eq!(ranges("bytes=500-,-600", 100), [(0, 100)]);
        assert!(ranges("bytes=-5", 0).is_empty());
        assert_eq!(whole_for_long_suffix("bytes=-0", 100), None);
        assert_eq!(whole_for_long_suffix("bytes=200-300", 100), None);
    }

    #[test]
    fn active_content_is_sandboxed() {
        assert_eq!(
            served_type("text/html"),
            ("text/plain; charset=utf-8".to_string(), true)
        );
        assert!(served_type("image/svg+xml").1);
        assert!(served_type("application/rss+xml").1);
        assert!(served_type("application/octet-stream").1);
        assert_eq!(served_type("image/png"), ("image/png".to_string(), false));
        assert_eq!(
            served_type("application/pdf"),
            ("application/pdf".to_string(), false)
        );
    }
}
