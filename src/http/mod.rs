//! The HTTP server: the spec'd API and the additions, as warp filters over `ops`.

mod filters;
pub mod guard;
mod handlers;
mod note_request;
mod public;
pub(crate) mod reject;
mod search;
pub mod server;
pub(crate) mod support;
pub(crate) mod url;
mod web;

pub(crate) use server::default_max_connections;
pub use server::{Connections, serve};

use std::net::SocketAddr;
use std::sync::Arc;

use warp::Filter;

use crate::ops::Notebook;
use crate::ops::search::indexer::SharedIndex;

/// What every request handler shares.
pub struct State {
    pub notebook: Notebook,
    /// Largest request body accepted, in bytes.
    pub max_body: u64,
    /// How long a client may take to send a request's head, or between two parts of
    /// its body; a whole body gets five times as long.
    pub request_timeout: std::time::Duration,
    /// The search index, kept up to date by the background indexer.
    pub search: SharedIndex,
    /// The host names served beyond IP literals and `localhost`.
    pub hosts: Arc<guard::AllowedHosts>,
}

/// Every route, with every rejection turned into an ErrorResponse. The server's door
/// runs the Host and cross-site checks before them and adds `nosniff` to every answer.
pub fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (warp::reply::Response,), Error = std::convert::Infallible> + Clone {
    filters::notes(state.clone())
        .or(filters::openapi())
        .unify()
        .or(search::filter(state.clone()))
        .unify()
        .or(filters::public_toggle(state.clone()))
        .unify()
        .or(filters::public_list(state.clone()))
        .unify()
        .or(filters::public_files(state.clone()))
        .unify()
        .or(web::routes(state))
        .unify()
        .recover(reject::handle)
        .unify()
}

/// Whether `addr` can only be reached from this machine.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}
