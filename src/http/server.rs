//! The connection loop: HTTP/1.1 over a bound listener, with a deadline for request
//! heads (slow clients cannot hold a connection forever), one cap on open connections
//! shared by every event loop, accept failures that back off instead of spinning, and a
//! shutdown that stops accepting at once and gives open requests a bounded drain.

mod accept;
mod connections;
mod runtime;

pub use connections::Connections;
pub(crate) use connections::default_max_connections;
pub use runtime::{Settings, run};

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::time::Instant;

use hyper::body::Incoming;
use hyper::header::{CONNECTION, HeaderValue};
use hyper::server::conn::http1;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;

use self::connections::{Busy, Close, Conn};
use super::State;

/// Serves on `listener` until `shutdown` resolves with the drain deadline; then stops
/// accepting (the listener is closed before the drain, so new clients are refused at
/// once), lets open requests finish until that deadline, and returns.
pub async fn serve(
    state: Arc<State>,
    listener: tokio::net::TcpListener,
    connections: Arc<Connections>,
    shutdown: impl Future<Output = Instant> + Send + 'static,
) {
    let header_timeout = state.request_timeout;
    let service = warp::service(super::routes(state));
    let mut shutdown = pin!(shutdown);
    // Every connection task holds a sender: the channel closes when the last one ends.
    let (open, mut drained) = tokio::sync::mpsc::channel::<()>(1);
    let mut backoff = accept::MIN_BACKOFF;
    let deadline = 'accepting: loop {
        // At the cap with every connection busy, the next client waits in the listen
        // queue (holding no file descriptor) until a request ends.
        if !connections.has_room() {
            tokio::select! {
                () = connections.wait_for_room() => {}
                deadline = &mut shutdown => break deadline,
            }
        }
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            deadline = &mut shutdown => break deadline,
        };
        let stream = match accepted {
            Ok((stream, _)) => {
                backoff = accept::MIN_BACKOFF;
                stream
            }
            Err(e) if accept::is_connection_error(&e) => continue,
            Err(e) => {
                if accept::is_out_of_files(&e) {
                    // An idle keep-alive connection is the cheapest descriptor to give up.
                    connections.evict_one();
                }
                if let Some(line) = connections.accept_errors.line(&e, Instant::now()) {
                    crate::log::error(&line);
                }
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    deadline = &mut shutdown => break deadline,
                }
                backoff = accept::next_backoff(backoff);
                continue;
            }
        };
        // Admitted at once under the cap or when an idle connection can make room; else
        // it waits, unserved, until a request ends (one such client per event loop: the
        // loop accepts no other meanwhile).
        let lease = loop {
            if let Some(lease) = connections.admit() {
                break lease;
            }
            tokio::select! {
                () = connections.wait_for_room() => {}
                deadline = &mut shutdown => break 'accepting deadline,
            }
        };
        let _ = stream.set_nodelay(true);
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(header_timeout)
            .serve_connection(
                TokioIo::new(stream),
                Tracked {
                    inner: TowerToHyperService::new(service.clone()),
                    conn: lease.conn.clone(),
                },
            );
        let open = open.clone();
        tokio::spawn(async move {
            let _open = open;
            let mut connection = pin!(connection);
            // Errors here are clients going away mid-request; nothing to report.
            tokio::select! {
                _ = connection.as_mut() => return,
                how = lease.conn.close_requested() => {
                    if how == Close::IfSilent && lease.conn.is_silent() {
                        return;
                    }
                    // Closes an idle connection at once; a busy one after its answer.
                    connection.as_mut().graceful_shutdown();
                }
            }
            let _ = connection.await;
            drop(lease);
        });
    };
    // Every loop holds a copy of the listening socket; the port refuses connections
    // once all are closed, which happens here, before the drain.
    drop(listener);
    connections.close_all();
    drop(open);
    let deadline = tokio::time::Instant::from_std(deadline);
    if tokio::time::timeout_at(deadline, drained.recv())
        .await
        .is_err()
    {
        crate::log::warn("requests still open after the shutdown timeout were dropped");
    }
}

/// The routes of one connection, marking the connection busy while a request is in
/// progress so that the cap closes idle connections first.
struct Tracked<S> {
    inner: S,
    conn: Arc<Conn>,
}

impl<S, B> hyper::service::Service<Request<Incoming>> for Tracked<S>
where
    S: hyper::service::Service<Request<Incoming>, Response = Response<B>>,
    S::Future: Send + 'static,
    S::Error: 'static,
    B: 'static,
{
    type Response = Response<B>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<B>, S::Error>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let busy = Busy::begin(&self.conn);
        let response = self.inner.call(request);
        Box::pin(async move {
            let mut response = response.await;
            drop(busy);
            // A body cut off by its deadline leaves the rest of it on the wire, where it
            // would be read as the next request: the connection ends with this answer.
            if let Ok(response) = &mut response
                && response.status() == StatusCode::REQUEST_TIMEOUT
            {
                response
                    .headers_mut()
                    .insert(CONNECTION, HeaderValue::from_static("close"));
            }
            response
        })
    }
}
