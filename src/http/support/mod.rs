//! What every handler shares, one floor below them: request bodies (`body`), responses
//! (`reply`), running domain work off the event loop, and header reading.

pub(crate) mod body;
pub(crate) mod reply;

use std::sync::Arc;

use warp::http::{HeaderMap, header};

use super::State;
use super::reject::HttpError;

/// Runs a blocking domain call on the blocking pool.
pub(crate) async fn blocking<T: Send + 'static, E: Into<HttpError> + Send + 'static>(
    state: &Arc<State>,
    f: impl FnOnce(&State) -> Result<T, E> + Send + 'static,
) -> Result<T, HttpError> {
    let state = state.clone();
    match tokio::task::spawn_blocking(move || f(&state)).await {
        Ok(result) => result.map_err(Into::into),
        Err(e) => Err(HttpError::WorkerFailed(format!("worker failed: {e}"))),
    }
}

pub(crate) fn header_str(headers: &HeaderMap, name: header::HeaderName) -> &str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

pub(crate) fn content_length(headers: &HeaderMap) -> Option<u64> {
    header_str(headers, header::CONTENT_LENGTH).parse().ok()
}
