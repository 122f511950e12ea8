//! The notes: the list, and read / write / delete of one note. Each handler takes the
//! extracted request parts, makes one `ops` call (off the async threads when it may
//! block), and answers; a failure is a rejection, answered by the one `recover`.

use std::io;
use std::sync::Arc;

use warp::Filter;
use warp::http::{HeaderMap, HeaderValue, StatusCode, header};
use warp::path::Tail;
use warp::reject::Rejection;
use warp::reply::Response;

use super::note_request;
use crate::error::{Error, Result};
use crate::http::State;
use crate::http::support::reject::HttpError;
use crate::http::support::{blocking, header_str, reply, url};
use crate::ops::NotePath;
use crate::ops::model::{Precondition, PutOutcome};
use crate::ops::store::{Opened, RawNote};

/// The note path after `/api/v1/notes/`, checked (400 when it is not a note path). An
/// empty one names the list, which is another route: not found here.
pub(super) fn path() -> impl Filter<Extract = (NotePath,), Error = Rejection> + Clone {
    warp::path::tail().and_then(|tail: Tail| {
        std::future::ready(match tail.as_str() {
            "" => Err(warp::reject::not_found()),
            encoded => url::note_path(encoded).map_err(Rejection::from),
        })
    })
}

/// `DELETE /api/v1/notes/{path}`.
pub(super) async fn delete(
    path: NotePath,
    headers: HeaderMap,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let cond = precondition(&headers);
    let deleted = blocking(&state, move |s| s.notebook.delete(&path, &cond)).await?;
    Ok(reply::json(StatusCode::OK, &deleted))
}

/// The NoteResponse of a version as the indented JSON the API sends, made once per
/// kept version.
fn note_json(state: &State, raw: &RawNote) -> Result<bytes::Bytes> {
    if let Some(json) = raw.rendered().get() {
        return Ok(json.clone());
    }
    let json = json_bytes(&state.notebook.note_of_raw(raw))
        .map_err(|e| Error::ReadFailed(io::Error::other(e)))?;
    Ok(raw.rendered().get_or_init(|| json).clone())
}

fn json_bytes<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<bytes::Bytes> {
    let mut text = serde_json::to_vec_pretty(value)?;
    text.push(b'\n');
    Ok(text.into())
}

/// Opens a note and reads it, unless its version is in memory already.
async fn read_version(path: &NotePath, state: &Arc<State>) -> Result<RawNote, HttpError> {
    match state.notebook.open_note(path)? {
        Opened::Ready(raw) => Ok(raw),
        // On the blocking pool: reads on the event loop bought nothing (bench/SERVER.md).
        Opened::Unread(open) => blocking(state, move |s| s.notebook.finish_read(open)).await,
    }
}

/// `GET /api/v1/notes/{path}`: the text as stored, or its NoteResponse.
pub(super) async fn read(
    path: NotePath,
    headers: HeaderMap,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let raw = read_version(&path, &state).await?;
    if wants_text(&headers) {
        return Ok(markdown(&path, &raw));
    }
    let etag = raw.etag_bytes();
    // Made once per kept version, on the blocking pool; then served from memory.
    let json = match raw.rendered().get() {
        Some(json) => json.clone(),
        None => blocking(&state, move |s| note_json(s, &raw)).await?,
    };
    Ok(with_etag_bytes(
        reply::with_type(StatusCode::OK, json, reply::JSON_TYPE),
        etag,
    ))
}

/// The note's text as stored, named by its file name.
fn markdown(path: &NotePath, raw: &RawNote) -> Response {
    let mut response = reply::with_type(
        StatusCode::OK,
        raw.bytes().clone(),
        "text/markdown; charset=utf-8",
    );
    let name = path.file_name();
    let disposition = if name.contains(['\\', '"']) {
        let escaped = name.replace('\\', "\\\\").replace('"', "\\\"");
        format!("inline; filename=\"{escaped}\"")
    } else {
        format!("inline; filename=\"{name}\"")
    };
    if let Some(value) = reply::header_value(disposition) {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, value);
    }
    with_etag_bytes(response, raw.etag_bytes())
}

/// Whether a read's `Accept` asks for the note's text rather than its NoteResponse.
pub(super) fn wants_text(headers: &HeaderMap) -> bool {
    let accept = header_str(headers, header::ACCEPT);
    names_media(accept, "text/markdown") || names_media(accept, "text/plain")
}

/// Whether a header value (`Accept`, `Content-Type`) names a media type anywhere in
/// it; media types compare without regard to case.
pub(super) fn names_media(value: &str, media: &str) -> bool {
    let (value, media) = (value.as_bytes(), media.as_bytes());
    // Most clients send the one type they want: a prefix check settles it.
    value
        .get(..media.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(media))
        || value
            .windows(media.len())
            .any(|window| window.eq_ignore_ascii_case(media))
}

pub(super) fn with_etag(response: Response, etag: &str) -> Response {
    with_etag_bytes(response, bytes::Bytes::copy_from_slice(etag.as_bytes()))
}

/// Adds the `ETag` header, sharing the tag's bytes.
fn with_etag_bytes(mut response: Response, etag: bytes::Bytes) -> Response {
    if let Ok(value) = HeaderValue::from_maybe_shared(etag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response
}

/// The write condition of `If-Match` / `If-None-Match: *`; none without those headers.
pub(super) fn precondition(headers: &HeaderMap) -> Precondition {
    let if_match = header_str(headers, header::IF_MATCH).trim();
    if !if_match.is_empty() {
        return Precondition::IfMatch(if_match.split(',').map(|t| t.trim().to_string()).collect());
    }
    if header_str(headers, header::IF_NONE_MATCH).trim() == "*" {
        return Precondition::IfNoneMatchAny;
    }
    Precondition::None
}

/// `PUT /api/v1/notes/{path}`: create or replace, from JSON fields or Markdown text.
pub(super) async fn put(
    path: NotePath,
    headers: HeaderMap,
    body: super::Body,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let content_type = header_str(&headers, header::CONTENT_TYPE);
    let json = names_media(content_type, "application/json");
    if !json
        && !names_media(content_type, "text/markdown")
        && !names_media(content_type, "text/plain")
    {
        return Err(HttpError::UnsupportedContentType.into());
    }
    let bytes = body.read().await?;
    let cond = precondition(&headers);
    let outcome = blocking(&state, move |s| {
        path.check_writable()?;
        let input = note_request::input(json, bytes)?;
        Ok::<_, HttpError>(s.notebook.put(&path, input, cond)?)
    })
    .await?;
    Ok(written(&outcome))
}

/// The answer to a write of a whole note: 201 when it created the note, else 200, with
/// the NoteResponse and its tag.
pub(super) fn written(outcome: &PutOutcome) -> Response {
    with_etag(
        reply::json(written_status(outcome), &outcome.note),
        &outcome.note.etag,
    )
}

/// 201 when a write created the note, else 200.
pub(super) fn written_status(outcome: &PutOutcome) -> StatusCode {
    if outcome.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    }
}

/// Refuses a body sent as another type than JSON. Curl-style clients may send no
/// Content-Type; one that names another type is not taken for JSON.
pub(super) fn json_only(headers: &HeaderMap) -> Result<(), HttpError> {
    let content_type = header_str(headers, header::CONTENT_TYPE);
    if !content_type.is_empty() && !names_media(content_type, "application/json") {
        return Err(HttpError::JsonContentTypeRequired);
    }
    Ok(())
}
