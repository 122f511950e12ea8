//! Pages sent while they are rendered. A note's rendered text can weigh many times the
//! note (a short link becomes a long anchor), so it is never held whole: the renderer
//! runs on the blocking pool and hands its HTML over in chunks, waiting while the
//! client reads; a client gone stops it.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::Stream;
use tokio::sync::mpsc;
use warp::Reply;
use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::Response;

/// Bytes handed over at once.
const CHUNK: usize = 64 * 1024;
/// Chunks made ahead of the client.
const AHEAD: usize = 4;

/// A `200` HTML page of the interface: `head`, what `render` writes, then `tail`.
pub(super) fn page(
    head: String,
    tail: String,
    render: impl FnOnce(&mut dyn fmt::Write) -> fmt::Result + Send + 'static,
) -> Response {
    let (sender, receiver) = mpsc::channel(AHEAD);
    tokio::task::spawn_blocking(move || {
        let mut out = Chunks {
            sender,
            chunk: String::with_capacity(CHUNK),
        };
        // An error is the client gone: nothing is left to do.
        let _ = fmt::Write::write_str(&mut out, &head)
            .and_then(|()| render(&mut out))
            .and_then(|()| fmt::Write::write_str(&mut out, &tail))
            .and_then(|()| out.flush());
    });
    let mut response = warp::reply::stream(Received(receiver)).into_response();
    *response.status_mut() = StatusCode::OK;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    super::secure(response.headers_mut());
    response
}

/// What the renderer writes, sent a chunk at a time.
struct Chunks {
    sender: mpsc::Sender<Bytes>,
    chunk: String,
}

impl Chunks {
    fn flush(&mut self) -> fmt::Result {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.chunk, String::with_capacity(CHUNK));
        self.sender
            .blocking_send(Bytes::from(chunk))
            .map_err(|_| fmt::Error)
    }
}

impl fmt::Write for Chunks {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.chunk.push_str(s);
        if self.chunk.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }
}

/// The chunks as the response's body.
struct Received(mpsc::Receiver<Bytes>);

impl Stream for Received {
    type Item = Result<Bytes, std::convert::Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx).map(|chunk| chunk.map(Ok))
    }
}
