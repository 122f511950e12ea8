//! Request bodies, read only by the handlers that need them, capped at `--max-body`
//! whether the client sent a Content-Length or a chunked stream, and bounded in time.

use std::pin::Pin;

use bytes::{Buf, Bytes, BytesMut};
use futures_util::{Stream, StreamExt, TryStreamExt};
use warp::Filter;

use super::reject::HttpError;

/// A request body not read yet.
pub type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, warp::Error>> + Send>>;

/// Extracts the body as an unread stream.
pub fn stream() -> impl Filter<Extract = (BodyStream,), Error = warp::Rejection> + Clone {
    warp::body::stream().map(boxed)
}

fn boxed<S, B>(stream: S) -> BodyStream
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf,
{
    Box::pin(stream.map_ok(|mut buf| buf.copy_to_bytes(buf.remaining())))
}

/// A whole body must arrive within this many idle timeouts: a client sending a byte now
/// and then never stalls long enough to trip the idle timeout, yet would hold its
/// connection forever.
const WHOLE_BODY_IDLE_TIMEOUTS: u32 = 5;

/// Reads the whole body, refusing it once it passes `limit` bytes, when no part of it
/// comes for `idle`, or when it is not complete within 5 × `idle`.
pub async fn read(
    mut body: BodyStream,
    declared: Option<u64>,
    limit: u64,
    idle: std::time::Duration,
) -> Result<Bytes, HttpError> {
    if declared.is_some_and(|len| len > limit) {
        return Err(HttpError::PayloadTooLarge(limit));
    }
    let deadline = tokio::time::Instant::now() + idle * WHOLE_BODY_IDLE_TIMEOUTS;
    let mut out = BytesMut::with_capacity(declared.unwrap_or(0).min(limit) as usize);
    loop {
        let wait_until = (tokio::time::Instant::now() + idle).min(deadline);
        let next = tokio::time::timeout_at(wait_until, body.next())
            .await
            .map_err(|_| HttpError::RequestTimeout)?;
        let Some(chunk) = next else { break };
        let chunk = chunk.map_err(|_| HttpError::BodyUnreadable)?;
        if (out.len() + chunk.len()) as u64 > limit {
            return Err(HttpError::PayloadTooLarge(limit));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out.freeze())
}
