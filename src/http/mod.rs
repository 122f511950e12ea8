//! The HTTP server: the spec'd API and the additions, as warp filters over `ops`.

mod body;
mod filters;
mod handlers;
mod public;
mod reject;
pub mod reply;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use warp::Filter;

use crate::ops::Notebook;

/// What every request handler shares.
pub struct State {
    pub notebook: Notebook,
    /// Largest request body accepted, in bytes.
    pub max_body: u64,
}

/// Every route, with every rejection turned into an ErrorResponse.
pub fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (warp::reply::Response,), Error = std::convert::Infallible> + Clone {
    filters::notes(state.clone())
        .or(filters::public_toggle(state.clone()))
        .unify()
        .or(filters::public_list(state.clone()))
        .unify()
        .or(filters::public_files(state))
        .unify()
        .recover(reject::handle)
        .unify()
}

/// Serves on `listener` until `shutdown` resolves, then lets open requests finish.
pub async fn serve(
    state: Arc<State>,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    warp::serve(routes(state))
        .incoming(listener)
        .graceful(shutdown)
        .run()
        .await;
}

/// Whether `addr` can only be reached from this machine.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}
