//! `GET /api/v1/links/{path}`: a note's links to other notes, resolved, and the links of
//! other notes to it (backlinks). 404 when the note does not exist, 400 for a path
//! that is not a note's. A token limited to a folder sees only the backlinks of notes
//! in it, and the targets out of it as written.

use std::sync::Arc;

use warp::http::StatusCode;
use warp::reject::Rejection;
use warp::reply::Response;

use crate::http::State;
use crate::http::support::{blocking, reply};
use crate::ops::NotePath;
use crate::ops::tokens::Scope;

/// `GET /api/v1/links/{path}`.
pub(super) async fn links(
    path: NotePath,
    scope: Option<Scope>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let scope = scope.unwrap_or_default();
    let links = blocking(&state, move |s| s.notebook.links(&path, &scope)).await?;
    Ok(reply::json(StatusCode::OK, &links))
}
