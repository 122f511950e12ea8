//! One filter per endpoint: path, method and extraction, then its handler.

use std::sync::Arc;

use warp::Filter;

use super::support::body;
use super::{State, handlers, public};

/// The raw query string, empty when there is none.
fn raw_query() -> impl Filter<Extract = (String,), Error = std::convert::Infallible> + Clone {
    warp::query::raw().or(warp::any().map(String::new)).unify()
}

fn with_state(
    state: Arc<State>,
) -> impl Filter<Extract = (Arc<State>,), Error = std::convert::Infallible> + Clone {
    warp::any().map(move || state.clone())
}

/// `/api/v1/notes` and everything below it; the handler applies the spec's checks in
/// order, so the method is matched there, after the path.
pub fn notes(
    state: Arc<State>,
) -> impl Filter<Extract = (warp::reply::Response,), Error = warp::Rejection> + Clone {
    warp::path!("api" / "v1" / "notes" / ..)
        .and(warp::path::full())
        .and(warp::method())
        .and(warp::header::headers_cloned())
        .and(body::stream())
        .and(with_state(state))
        .and_then(handlers::notes)
}

/// `GET /api/v1/openapi.json`: the OpenAPI 3.1 document of the whole API.
pub fn openapi() -> impl Filter<Extract = (warp::reply::Response,), Error = warp::Rejection> + Clone
{
    warp::path!("api" / "v1" / "openapi.json")
        .and(warp::method())
        .and_then(handlers::openapi)
}

/// `/api/public/toggle`; the handler answers 405 to anything but POST.
pub fn public_toggle(
    state: Arc<State>,
) -> impl Filter<Extract = (warp::reply::Response,), Error = warp::Rejection> + Clone {
    warp::path!("api" / "public" / "toggle")
        .and(warp::method())
        .and(warp::header::headers_cloned())
        .and(raw_query())
        .and(body::stream())
        .and(with_state(state))
        .and_then(public::toggle)
}

/// `/api/public/list`; the handler answers 405 to anything but GET.
pub fn public_list(
    state: Arc<State>,
) -> impl Filter<Extract = (warp::reply::Response,), Error = warp::Rejection> + Clone {
    warp::path!("api" / "public" / "list")
        .and(warp::method())
        .and(with_state(state))
        .and_then(public::list)
}

/// `/public` and every file below it.
pub fn public_files(
    state: Arc<State>,
) -> impl Filter<Extract = (warp::reply::Response,), Error = warp::Rejection> + Clone {
    warp::path("public")
        .and(warp::path::full())
        .and(warp::method())
        .and(with_state(state))
        .and_then(public::file)
}
