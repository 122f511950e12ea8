//! What every route shares, one floor below them: request bodies (`body`), responses
//! (`reply`), failures (`reject`), note paths in URLs (`url`), the filters every route
//! is built from, running domain work off the event loop, and header reading.

pub(crate) mod body;
pub(crate) mod reject;
pub(crate) mod reply;
pub(crate) mod url;

use std::convert::Infallible;
use std::sync::Arc;

use warp::Filter;
use warp::http::{HeaderMap, Method, header};

use super::State;
use reject::HttpError;

/// The shared state, handed to a handler.
pub(crate) fn with_state(
    state: Arc<State>,
) -> impl Filter<Extract = (Arc<State>,), Error = Infallible> + Clone {
    warp::any().map(move || state.clone())
}

/// The raw query string, empty when there is none.
pub(crate) fn raw_query() -> impl Filter<Extract = (String,), Error = Infallible> + Clone {
    warp::query::raw().or(warp::any().map(String::new)).unify()
}

/// Whether the client takes HTML (its `Accept` names `text/html`), as a browser does:
/// such clients get pages rather than ErrorResponses outside the API.
pub(crate) fn accepts_html() -> impl Filter<Extract = (bool,), Error = Infallible> + Clone {
    warp::header::optional::<String>("accept")
        .or(warp::any().map(|| None))
        .unify()
        .map(|accept: Option<String>| {
            accept.is_some_and(|a| a.to_ascii_lowercase().contains("text/html"))
        })
}

/// Requests whose method `accepts` takes. Any other falls through to the next route as
/// "not found", which allocates nothing (warp's `get()` and the like allocate a
/// rejection on every miss, a cost each request would pay on its way to a later route).
pub(crate) fn method_is(
    accepts: fn(&Method) -> bool,
) -> impl Filter<Extract = (), Error = warp::Rejection> + Clone {
    warp::method()
        .and_then(move |method: Method| {
            std::future::ready(if accepts(&method) {
                Ok(())
            } else {
                Err(warp::reject::not_found())
            })
        })
        .untuple_one()
}

pub(crate) fn is_post(method: &Method) -> bool {
    method == Method::POST
}

/// GET or HEAD: the methods of a page.
pub(crate) fn is_read(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD
}

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
