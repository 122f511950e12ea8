//! The sync routes: its status (`GET /api/v1/sync`) and a sync now
//! (`POST /api/v1/sync`), both for a full token only when tokens exist.

use std::sync::Arc;

use warp::http::StatusCode;
use warp::reject::Rejection;
use warp::reply::Response;

use crate::http::State;
use crate::http::support::reject::HttpError;
use crate::http::support::{blocking, reply};
use crate::ops::tokens::Scope;

const FULL_ONLY: &str = "Sync needs a full token (not read-only, not limited to a folder)";

fn full(scope: Option<&Scope>) -> Result<(), HttpError> {
    match scope {
        Some(scope) if !scope.is_full() => Err(HttpError::Forbidden(FULL_ONLY)),
        _ => Ok(()),
    }
}

/// `GET /api/v1/sync`.
pub(super) async fn status(scope: Option<Scope>, state: Arc<State>) -> Result<Response, Rejection> {
    full(scope.as_ref())?;
    let status = blocking(&state, |s| s.notebook.sync_status()).await?;
    Ok(reply::json(StatusCode::OK, &status))
}

/// `POST /api/v1/sync`.
pub(super) async fn sync(scope: Option<Scope>, state: Arc<State>) -> Result<Response, Rejection> {
    full(scope.as_ref())?;
    let status = blocking(&state, |s| s.notebook.sync()).await?;
    Ok(reply::json(StatusCode::OK, &status))
}
