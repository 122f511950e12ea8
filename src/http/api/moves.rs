//! `POST /api/v1/move`: move or rename a note, rewriting the links to it.

use std::sync::Arc;

use serde::Deserialize;
use warp::http::{HeaderMap, StatusCode};
use warp::reject::Rejection;
use warp::reply::Response;

use super::notes::precondition;
use crate::http::State;
use crate::http::support::reject::HttpError;
use crate::http::support::{blocking, reply};
use crate::ops::NotePath;
use crate::ops::model::Precondition;

/// The body: `{"from": "a.md", "to": "dir/b.md"}`.
#[derive(Debug, Deserialize)]
struct MoveRequest {
    from: String,
    to: String,
}

/// `POST /api/v1/move`, with `If-Match` on the note moved.
pub(super) async fn post(
    headers: HeaderMap,
    body: super::Body,
    scope: Option<crate::ops::tokens::Scope>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let bytes = body.read().await?;
    let (from, to) = paths(&bytes)?;
    // Only `If-Match` means something here: the destination is new by definition.
    let cond = match precondition(&headers) {
        cond @ Precondition::IfMatch(_) => cond,
        _ => Precondition::None,
    };
    // The scope is checked by the move, on every note it would change.
    let scope = scope.unwrap_or_default();
    let moved = blocking(&state, move |s| {
        s.notebook.move_note(&from, &to, &cond, &scope)
    })
    .await?;
    Ok(reply::json(StatusCode::OK, &moved))
}

/// The two note paths of the body, each required and checked like any note path.
fn paths(bytes: &[u8]) -> Result<(NotePath, NotePath), HttpError> {
    let request: MoveRequest =
        serde_json::from_slice(bytes).map_err(|e| HttpError::InvalidJson(e.to_string()))?;
    let parse = |raw: &str| match raw.trim() {
        "" => Err(HttpError::PathRequired),
        _ => Ok(NotePath::parse(raw)?),
    };
    Ok((parse(&request.from)?, parse(&request.to)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn bodies_are_checked() {
        let (from, to) = paths(br#"{"from": "a.md", "to": "d/b.md"}"#).unwrap();
        assert_eq!((from.as_str(), to.as_str()), ("a.md", "d/b.md"));
        assert!(matches!(paths(b"{"), Err(HttpError::InvalidJson(_))));
        assert!(matches!(
            paths(br#"{"from": "a.md"}"#),
            Err(HttpError::InvalidJson(m)) if m.contains("missing field `to`")
        ));
        assert!(matches!(
            paths(br#"{"from": " ", "to": "b.md"}"#),
            Err(HttpError::PathRequired)
        ));
        assert!(matches!(
            paths(br#"{"from": "a.md", "to": "../b.md"}"#),
            Err(HttpError::Domain(Error::InvalidPath))
        ));
        assert!(matches!(
            paths(br#"{"from": "a.md", "to": "b.txt"}"#),
            Err(HttpError::Domain(Error::NotMarkdown))
        ));
    }
}
