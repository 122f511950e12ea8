//! The history routes: a note's or an attachment's versions
//! (`GET /api/v1/history/{path}`), one version's text (`?version=ID`, Markdown or
//! NoteResponse by `Accept`, like the notes route; an attachment's bytes as stored),
//! the restore of a version (`POST /api/v1/restore`) and the deleted notes and files
//! (`GET /api/v1/trash`).

use std::sync::Arc;

use serde::Deserialize;
use warp::http::{HeaderMap, StatusCode};
use warp::reject::Rejection;
use warp::reply::Response;

use super::notes::{wants_text, with_etag, written};
use crate::http::State;
use crate::http::support::reject::HttpError;
use crate::http::support::{blocking, reply, url};
use crate::ops::history::{History, Trash};
use crate::ops::{FilePath, NotePath};

/// The path of a history route or a restore: a note (`.md`), else an attachment.
#[derive(Debug, Clone)]
pub(super) enum Target {
    Note(NotePath),
    File(FilePath),
}

impl Target {
    /// A note's path, or an attachment's when it is not a note's (the note's error
    /// when it is neither).
    fn parse(
        raw: &str,
        note: impl Fn(&str) -> crate::error::Result<NotePath>,
    ) -> crate::error::Result<Target> {
        match note(raw) {
            Ok(path) => Ok(Target::Note(path)),
            Err(crate::error::Error::NotMarkdown) => {
                let file = if raw.contains('%') {
                    url::file_path(raw)
                } else {
                    FilePath::parse(raw)
                };
                file.map(Target::File)
            }
            Err(e) => Err(e),
        }
    }
}

/// The note or attachment path after `/api/v1/history/`, checked.
pub(super) fn target() -> impl warp::Filter<Extract = (Target,), Error = Rejection> + Clone {
    use warp::Filter;
    warp::path::tail().and_then(|tail: warp::path::Tail| {
        std::future::ready(match tail.as_str() {
            "" => Err(warp::reject::not_found()),
            encoded => Target::parse(encoded, url::note_path).map_err(Rejection::from),
        })
    })
}

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
    target: Target,
    query: String,
    headers: HeaderMap,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    // Parameters other than `version` are ignored, as on the other read routes.
    let query: HistoryQuery = serde_urlencoded::from_str(&query).unwrap_or_default();
    let path = match target {
        Target::Note(path) => path,
        Target::File(path) => return file_history(path, query, state).await,
    };
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
    let (target, version) = restore_request(&bytes)?;
    let path = match target {
        Target::Note(path) => path,
        Target::File(path) => {
            crate::http::auth::may_write(&state.notebook, &scope, &path)?;
            let put = blocking(&state, move |s| s.notebook.restore_file(&path, &version)).await?;
            let status = if put.created {
                StatusCode::CREATED
            } else {
                StatusCode::OK
            };
            return Ok(with_etag(reply::json(status, &put.info), &put.etag));
        }
    };
    crate::http::auth::may_write(&state.notebook, &scope, &path)?;
    let outcome = blocking(&state, move |s| s.notebook.restore(&path, &version)).await?;
    Ok(written(&outcome))
}

/// `GET /api/v1/history/{file}[?version=ID]`: an attachment's versions, or one
/// version's bytes, sent as the files route sends them (active types sandboxed).
async fn file_history(
    path: FilePath,
    query: HistoryQuery,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let Some(version) = query.version else {
        let versions = blocking(&state, {
            let path = path.clone();
            move |s| s.notebook.file_history(&path)
        })
        .await?;
        let history = History {
            path: path.to_string(),
            versions,
        };
        return Ok(reply::json(StatusCode::OK, &history));
    };
    let media = crate::ops::files::content_type(path.as_str());
    let bytes = blocking(&state, move |s| {
        s.notebook.file_version(&path, &version, false)
    })
    .await?;
    let (content_type, active) = super::files::served_type(&media);
    let mut response = reply::with_type(StatusCode::OK, bytes, "application/octet-stream");
    if let Some(value) = reply::header_value(content_type) {
        response
            .headers_mut()
            .insert(warp::http::header::CONTENT_TYPE, value);
    }
    if active {
        response.headers_mut().insert(
            warp::http::header::CONTENT_SECURITY_POLICY,
            warp::http::HeaderValue::from_static("sandbox"),
        );
    }
    Ok(response)
}

/// `GET /api/v1/trash`.
pub(super) async fn trash(state: Arc<State>) -> Result<Response, Rejection> {
    let notes = blocking(&state, |s| s.notebook.trash()).await?;
    Ok(reply::json(StatusCode::OK, &Trash { notes }))
}

/// The note path and version of a restore's body, both required.
fn restore_request(bytes: &[u8]) -> Result<(Target, String), HttpError> {
    let request: RestoreRequest =
        serde_json::from_slice(bytes).map_err(|e| HttpError::InvalidJson(e.to_string()))?;
    if request.path.trim().is_empty() {
        return Err(HttpError::PathRequired);
    }
    let path = Target::parse(&request.path, NotePath::parse)?;
    Ok((path, request.version.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn restore_bodies_are_checked() {
        let (path, version) = restore_request(br#"{"path": "a.md", "version": " ab12 "}"#).unwrap();
        assert!(matches!(path, Target::Note(p) if p.as_str() == "a.md"));
        assert_eq!(version, "ab12");
        let (path, _) = restore_request(br#"{"path": "img/a.png", "version": "ab12"}"#).unwrap();
        assert!(matches!(path, Target::File(p) if p.as_str() == "img/a.png"));
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
