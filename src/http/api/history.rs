//! The history routes: a note's versions (`GET /api/v1/history/{path}`), one version's
//! text (`?version=ID`, Markdown or NoteResponse by `Accept`, like the notes route),
//! the restore of a version (`POST /api/v1/restore`) and the deleted notes
//! (`GET /api/v1/trash`).

use std::sync::Arc;

use serde::Deserialize;
use warp::http::{HeaderMap, StatusCode};
use warp::reject::Rejection;
use warp::reply::Response;

use super::notes::{wants_text, with_etag, written};
use crate::http::State;
use crate::http::support::reject::HttpError;
use crate::http::support::{blocking, reply};
use crate::ops::NotePath;
use crate::ops::history::{History, Trash};

/// The query of the history route: `version=ID` asks for one version's text.
#[derive(Debug, Default, Deserialize)]
struct HistoryQuery {
    version: Option<String>,
}

/// The body of a restore: `{"path": "a.md", "version": "ID"}`.
#[derive(Debug, Deserialize)]
struct RestoreRequest {
    path: String,
    version: String,
}

/// `GET /api/v1/history/{path}[?version=ID]`.
pub(super) async fn get(
    path: NotePath,
    query: String,
    headers: HeaderMap,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    // Parameters other than `version` are ignored, as on the other read routes.
    let query: HistoryQuery = serde_urlencoded::from_str(&query).unwrap_or_default();
    let Some(version) = query.version else {
        let versions = blocking(&state, {
            let path = path.clone();
            move |s| s.notebook.history(&path)
        })
        .await?;
        let history = History {
            path: path.to_string(),
            versions,
        };
        return Ok(reply::json(StatusCode::OK, &history));
    };
    let note = blocking(&state, move |s| s.notebook.version_note(&path, &version)).await?;
    if wants_text(&headers) {
        let response = reply::with_type(
            StatusCode::OK,
            note.content.clone(),
            "text/markdown; charset=utf-8",
        );
        return Ok(with_etag(response, &note.etag));
    }
    Ok(with_etag(reply::json(StatusCode::OK, &note), &note.etag))
}

/// `POST /api/v1/restore`: 201 when the note had been deleted, 200 otherwise, with the
/// restored note.
pub(super) async fn restore(
    body: super::Body,
    scope: Option<crate::ops::tokens::Scope>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let bytes = body.read().await?;
    let (path, version) = restore_request(&bytes)?;
    crate::http::auth::may_write(&state.notebook, &scope, &path)?;
    let outcome = blocking(&state, move |s| s.notebook.restore(&path, &version)).await?;
    Ok(written(&outcome))
}

/// `GET /api/v1/trash`.
pub(super) async fn trash(state: Arc<State>) -> Result<Response, Rejection> {
    let notes = blocking(&state, |s| s.notebook.trash()).await?;
    Ok(reply::json(StatusCode::OK, &Trash { notes }))
}

/// The note path and version of a restore's body, both required.
fn restore_request(bytes: &[u8]) -> Result<(NotePath, String), HttpError> {
    let request: RestoreRequest =
        serde_json::from_slice(bytes).map_err(|e| HttpError::InvalidJson(e.to_string()))?;
    if request.path.trim().is_empty() {
        return Err(HttpError::PathRequired);
    }
    let path = NotePath::parse(&request.path)?;
    Ok((path, request.version.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn restore_bodies_are_checked() {
        let (path, version) = restore_request(br#"{"path": "a.md", "version": " ab12 "}"#).unwrap();
        assert_eq!((path.as_str(), version.as_str()), ("a.md", "ab12"));
        assert!(matches!(
            restore_request(b"[]"),
            Err(HttpError::InvalidJson(_))
        ));
        assert!(matches!(
            restore_request(br#"{"path": "", "version": "x"}"#),
            Err(HttpError::PathRequired)
        ));
        assert!(matches!(
            restore_request(br#"{"path": "../a.md", "version": "x"}"#),
            Err(HttpError::Domain(Error::InvalidPath))
        ));
    }
}
