//! The public export's API: the toggle and the list of public notes.

use std::sync::Arc;

use warp::http::{HeaderMap, StatusCode};
use warp::reject::Rejection;
use warp::reply::Response;

use super::note_request;
use crate::http::State;
use crate::http::support::reject::HttpError;
use crate::http::support::{blocking, reply};
use crate::ops::NotePath;

/// `POST /api/public/toggle` with the form field `path` (or a JSON object body with
/// a `path` string). The query string is not read: the spec names the body's field.
pub(super) async fn toggle(
    headers: HeaderMap,
    body: super::Body,
    scope: Option<crate::ops::tokens::Scope>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let bytes = body.read().await?;
    let path = form_path(&headers, &bytes)?;
    // The note and the attachments its page would copy are checked by the toggle.
    let scope = scope.unwrap_or_default();
    let toggled = blocking(&state, move |s| s.notebook.toggle_public(&path, &scope)).await?;
    Ok(reply::json(StatusCode::OK, &toggled.result))
}

/// `GET /api/public/list`.
pub(super) async fn list(state: Arc<State>) -> Result<Response, Rejection> {
    let list = blocking(&state, |s| s.notebook.public_list()).await?;
    Ok(reply::json(StatusCode::OK, &list))
}

/// The `path` field of the body (form, or a JSON object): required, then checked like
/// any note path.
fn form_path(headers: &HeaderMap, body: &[u8]) -> Result<NotePath, HttpError> {
    let is_json = headers
        .get(warp::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.to_ascii_lowercase().contains("application/json"));
    let from_body = if is_json {
        json_path(body)?
    } else {
        field(body, "path")
    };
    let raw = from_body
        .filter(|value| !value.is_empty())
        .ok_or(HttpError::PathRequired)?;
    Ok(NotePath::parse(&raw)?)
}

/// The `path` of a JSON body. An empty body names no note (400 `Path is required`);
/// anything else must be what the OpenAPI document allows, an object whose `path`, if
/// present, is a string, so `true` or `{"path": 1}` is a 400 `Invalid JSON: …`.
fn json_path(body: &[u8]) -> Result<Option<String>, HttpError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    match note_request::object(body)?.remove("path") {
        None => Ok(None),
        Some(serde_json::Value::String(path)) => Ok(Some(path)),
        Some(_) => Err(HttpError::InvalidJson("path must be a string".to_string())),
    }
}

/// A field of a URL-encoded form.
fn field(encoded: &[u8], name: &str) -> Option<String> {
    serde_urlencoded::from_bytes::<Vec<(String, String)>>(encoded)
        .ok()?
        .into_iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value)
}
