//! The connection loop: HTTP/1.1 over a bound listener, with a deadline for request
//! heads (slow clients cannot hold a connection forever), one cap on open connections
//! that closes idle ones first, accept failures that back off instead of spinning, and a
//! shutdown that stops accepting at once and gives open requests a bounded drain.

mod accept;
mod connections;
mod runtime;
mod zero_copy;

pub use connections::Connections;
pub(crate) use connections::default_max_connections;
pub use runtime::{Settings, run};
pub(crate) use zero_copy::SendFrom;

/// Whether kept attachments leave with `sendfile` from their sealed memory file: yes
/// unless `NOTES_SERVER_RUNTIME=library` (read once), hyper's own writes, the way
/// `just bench-server` compares it with.
pub(crate) fn sends_from_files() -> bool {
    static OWN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OWN.get_or_init(|| std::env::var("NOTES_SERVER_RUNTIME").as_deref() != Ok("library"))
}

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use hyper::body::Incoming;
use hyper::header::{CONNECTION, HeaderValue, X_CONTENT_TYPE_OPTIONS};
use hyper::server::conn::http1;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;

use self::connections::{Busy, Close, Conn};
use self::zero_copy::Sending;
use super::support::reply;
use super::{State, guard};

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
    let service = warp::service(super::routes(state.clone()));
    let mcp = super::mcp::Endpoint::new(state.clone());
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
        // it waits, unserved, until a request ends (the loop accepts no other meanwhile).
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
        let sending = Arc::new(Sending::default());
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(header_timeout)
            .serve_connection(
                TokioIo::new(zero_copy::Stream::new(stream, sending.clone())),
                Door {
                    routes: TowerToHyperService::new(service.clone()),
                    mcp: mcp.clone(),
                    state: state.clone(),
                    conn: lease.conn.clone(),
                    host_seen: guard::HostMemo::default(),
                    sending,
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
    // The port refuses connections once the listening socket is closed, which happens
    // here, before the drain.
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

/// The one door of every request on a connection: the Host and cross-site checks of
/// [`guard`] on the request's own headers before any route runs (a refusal is a 403
/// ErrorResponse), then the token of [`auth`](super::auth) when tokens exist (401,
/// 403, or the way to the login page); the connection marked busy while the request is
/// in progress, so that the cap closes idle connections first; `nosniff` on every
/// answer; an answer marked [`SendFrom`] handed to the connection's stream, which sends
/// its body from the sealed file (`zero_copy`). Requests for `/mcp` go to the MCP
/// endpoint instead of the routes, and get the cross-site check whatever their method
/// (MCP requires every `Origin` checked).
struct Door<S> {
    routes: S,
    mcp: super::mcp::Endpoint,
    state: Arc<State>,
    conn: Arc<Conn>,
    host_seen: guard::HostMemo,
    sending: Arc<Sending>,
}

impl<S> hyper::service::Service<Request<Incoming>> for Door<S>
where
    S: hyper::service::Service<Request<Incoming>, Response = warp::reply::Response>,
{
    type Response = warp::reply::Response;
    type Error = S::Error;
    type Future = Answer<S::Future>;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        let mcp = request.uri().path() == super::mcp::PATH;
        let admitted = guard::admit(
            &self.state.hosts,
            &self.host_seen,
            if mcp { &Method::POST } else { request.method() },
            request.headers(),
        );
        let busy = Busy::begin(&self.conn);
        let refused = match admitted {
            Err(refused) => reply::error_message(StatusCode::FORBIDDEN, &refused.message()),
            // Then the token, when tokens exist (`auth`).
            Ok(()) => match self.state.auth.admit(&self.state.notebook, &mut request) {
                Ok(()) if mcp => {
                    return Answer::Mcp {
                        answered: self.mcp.answer(request),
                        busy,
                    };
                }
                Ok(()) => {
                    return Answer::Routed {
                        routed: self.routes.call(request),
                        busy,
                        sending: self.sending.clone(),
                    };
                }
                Err(denied) => {
                    denied.response(request.uri().path_and_query().map_or("/", |p| p.as_str()))
                }
            },
        };
        Answer::Refused {
            response: Some(refused),
            busy,
        }
    }
}

pin_project_lite::pin_project! {
    /// The answer to one request: the routes' response, or the door's refusal. The
    /// connection stays busy until it is dropped.
    #[project = AnswerProj]
    enum Answer<F> {
        Routed { #[pin] routed: F, busy: Busy, sending: Arc<Sending> },
        Mcp { answered: Pin<Box<dyn Future<Output = warp::reply::Response> + Send>>, busy: Busy },
        Refused { response: Option<warp::reply::Response>, busy: Busy },
    }
}

impl<F, E> Future for Answer<F>
where
    F: Future<Output = Result<warp::reply::Response, E>>,
{
    type Output = Result<warp::reply::Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut response = match self.project() {
            AnswerProj::Routed {
                routed, sending, ..
            } => match routed.poll(cx) {
                Poll::Ready(Ok(mut response)) => {
                    let sealed = response.extensions_mut().remove::<SendFrom>();
                    sending.set(sealed.map(|SendFrom(sealed)| sealed));
                    response
                }
                other => return other,
            },
            AnswerProj::Mcp { answered, .. } => match answered.as_mut().poll(cx) {
                Poll::Ready(response) => response,
                Poll::Pending => return Poll::Pending,
            },
            AnswerProj::Refused { response, .. } => response
                .take()
                .expect("an answer polled after it was given"),
        };
        let timed_out = response.status() == StatusCode::REQUEST_TIMEOUT;
        let headers = response.headers_mut();
        headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        // A body cut off by its deadline leaves the rest of it on the wire, where it
        // would be read as the next request: the connection ends with this answer.
        if timed_out {
            headers.insert(CONNECTION, HeaderValue::from_static("close"));
        }
        Poll::Ready(Ok(response))
    }
}
