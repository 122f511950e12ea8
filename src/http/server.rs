//! The connection loop: HTTP/1.1 over a bound listener, with a deadline for request
//! heads (slow clients cannot hold a connection forever) and a graceful shutdown that
//! lets requests in flight finish.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;

use super::State;

/// How long open requests get to finish after a shutdown signal.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves on `listener` until `shutdown` resolves, then lets open requests finish.
pub async fn serve(
    state: Arc<State>,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let header_timeout = state.request_timeout;
    let service = warp::service(super::routes(state));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: back off, keep serving.
                    crate::log::error(&format!("accept failed: {e}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(header_timeout)
            .serve_connection(
                TokioIo::new(stream),
                TowerToHyperService::new(service.clone()),
            );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // Errors here are clients going away mid-request; nothing to report.
            let _ = connection.await;
        });
    }
    if tokio::time::timeout(DRAIN_TIMEOUT, graceful.shutdown())
        .await
        .is_err()
    {
        crate::log::warn("requests still open after the drain timeout were dropped");
    }
}
