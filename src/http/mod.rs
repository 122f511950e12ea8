//! The HTTP server: the spec'd API and the additions, as warp filters over `ops`.

mod api;
pub(crate) mod auth;
pub mod guard;
mod mcp;
mod public;
pub mod server;
pub(crate) mod support;
mod web;

pub use server::Connections;
pub(crate) use server::default_max_connections;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use warp::Filter;
use warp::reject::Rejection;
use warp::reply::Response;

use crate::ops::Notebook;

/// What every request handler shares.
pub struct State {
    pub notebook: Notebook,
    /// Largest request body accepted, in bytes.
    pub max_body: u64,
    /// Largest attachment upload accepted, in bytes.
    pub max_upload: u64,
    /// How long a client may take to send a request's head, or between two parts of
    /// its body; a whole body gets five times as long.
    pub request_timeout: std::time::Duration,
    /// The host names served beyond IP literals and `localhost`.
    pub hosts: Arc<guard::AllowedHosts>,
    /// The tokens in force and the web sessions (`auth`).
    pub(crate) auth: auth::Auth,
    /// The JSON of the last large note list served, kept to be sent from a file.
    pub(crate) kept_list: api::KeptList,
}

/// Every route: the API first (its hot routes lead), then the public pages and the web
/// interface; every rejection is answered by [`recover`]. The server's door runs the Host
/// and cross-site checks before them and adds `nosniff` to every answer.
pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Infallible> + Clone {
    let served = api::routes(state.clone())
        .or(public::routes(state.clone()))
        .unify()
        .or(web::routes(state))
        .unify()
        .recover(recover)
        .unify();
    wants_page().and(served).map(page_for_browser)
}

/// Whether a failure is best answered with a page: a browser, outside the API.
fn wants_page() -> impl Filter<Extract = (bool,), Error = Infallible> + Clone {
    warp::path::full()
        .and(support::accepts_html())
        .map(|full: warp::path::FullPath, html: bool| {
            let path = full.as_str();
            html && path != "/api" && !path.starts_with("/api/")
        })
}

/// The one recover: every rejection becomes the answer its caller expects. The web
/// interface's failures are HTML pages, the public pages' keep their policy, and
/// everything else (the API, unknown routes, warp's own rejections) is an ErrorResponse.
async fn recover(rejection: Rejection) -> Result<Response, Infallible> {
    if let Some(page) = rejection.find::<web::PageError>() {
        return Ok(page.response());
    }
    if let Some(missing) = rejection.find::<public::Missing>() {
        return Ok(missing.response());
    }
    Ok(support::reject::response(&rejection))
}

/// A browser (`page`) asking outside the API for what is not there gets the interface's
/// 404 page instead of the ErrorResponse.
fn page_for_browser(page: bool, response: Response) -> Response {
    let json = || {
        response
            .headers()
            .get(warp::http::header::CONTENT_TYPE)
            .is_some_and(|t| t.as_bytes().starts_with(b"application/json"))
    };
    if page && response.status() == warp::http::StatusCode::NOT_FOUND && json() {
        return web::not_found();
    }
    response
}

/// Whether `addr` can only be reached from this machine. [`TEST_OFF_LOOPBACK`] makes
/// every address count as reachable from elsewhere.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback() && crate::test_hooks::var(TEST_OFF_LOOPBACK).is_none()
}

/// The environment variable that makes `serve` treat its loopback address as one other
/// machines reach, for the tests of the off-loopback rule (they may listen on loopback
/// only). It can only add refusals, never remove one.
pub const TEST_OFF_LOOPBACK: &str = "NOTES_TEST_OFF_LOOPBACK";
