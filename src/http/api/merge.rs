//! Edits made offline, sent when the network is back: `POST /api/v1/merge/{path}`
//! with the text the edit started from, merged into the note as it is now
//! (`Notebook::merge_edit`); and `GET /api/v1/conflicts`, the notes a merge left
//! with both versions marked.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use warp::http::{HeaderMap, StatusCode};
use warp::reject::Rejection;
use warp::reply::Response;

use super::note_request::object;
use super::notes::{json_only, with_etag, written_status};
use crate::http::State;
use crate::http::support::reject::HttpError;
use crate::http::support::{blocking, reply};
use crate::ops::NotePath;
use crate::ops::merge::{Edited, Landed};
use crate::ops::model::NoteEdit;
use crate::ops::tokens::Scope;

#[derive(Serialize)]
struct MergeAnswer<'a> {
    path: &'a str,
    outcome: Landed,
    etag: &'a str,
}

/// `POST /api/v1/merge/{path}`: `{"base": text | null, "text": text}`, or the web
/// editor's fields `{"base": …, "title": …, "tags": [...], "body": …}`.
pub(super) async fn post(
    path: NotePath,
    headers: HeaderMap,
    body: super::Body,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    json_only(&headers)?;
    let bytes = body.read().await?;
    let (outcome, landed) = blocking(&state, move |s| {
        path.check_writable()?;
        let (base, edited) = edit_of(&bytes)?;
        Ok::<_, HttpError>(s.notebook.merge_edit(&path, base, edited)?)
    })
    .await?;
    let status = written_status(&outcome);
    let answer = MergeAnswer {
        path: &outcome.note.path,
        outcome: landed,
        etag: &outcome.note.etag,
    };
    Ok(with_etag(reply::json(status, &answer), &outcome.note.etag))
}

fn edit_of(body: &[u8]) -> Result<(Option<String>, Edited), HttpError> {
    let mut fields = object(body)?;
    let base = match fields.remove("base") {
        None | Some(Value::Null) => None,
        Some(Value::String(base)) => Some(base),
        Some(_) => return Err(invalid("\"base\" must be a string or null")),
    };
    let mut string = |key: &str| match fields.remove(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(invalid(&format!("\"{key}\" must be a string"))),
    };
    let text = string("text")?;
    let body = string("body")?;
    let title = string("title")?.unwrap_or_default();
    let tags = match fields.remove("tags") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|item| match item {
                Value::String(tag) => Ok(tag),
                _ => Err(invalid("\"tags\" must be a list of strings")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(invalid("\"tags\" must be a list of strings")),
    };
    if let Some(text) = text {
        return Ok((base, Edited::Text(text)));
    }
    let Some(body) = body else {
        return Err(invalid(
            "give \"text\", or the fields \"title\", \"tags\" and \"body\"",
        ));
    };
    let body = body.replace("\r\n", "\n");
    Ok((base, Edited::Fields(NoteEdit { title, tags, body })))
}

fn invalid(why: &str) -> HttpError {
    HttpError::InvalidJson(why.to_string())
}

#[derive(Serialize)]
struct Conflicted {
    path: String,
    title: String,
}

#[derive(Serialize)]
struct ConflictList {
    conflicts: Vec<Conflicted>,
}

/// `GET /api/v1/conflicts`: the conflicted notes the caller may read, in path order.
pub(super) async fn list(scope: Option<Scope>, state: Arc<State>) -> Result<Response, Rejection> {
    let list = blocking(&state, move |s| {
        let mut conflicts = Vec::new();
        for path in s.notebook.conflicted()? {
            if scope
                .as_ref()
                .is_some_and(|sc| !s.notebook.may_read(sc, &path))
            {
                continue;
            }
            let title = s
                .notebook
                .read(&path)
                .map(|note| note.title)
                .unwrap_or_default();
            conflicts.push(Conflicted {
                path: path.to_string(),
                title,
            });
        }
        Ok::<_, HttpError>(ConflictList { conflicts })
    })
    .await?;
    Ok(reply::json(StatusCode::OK, &list))
}
