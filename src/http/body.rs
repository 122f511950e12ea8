//! Request bodies, read only by the handlers that need them and capped at `--max-body`,
//! whether the client sent a Content-Length or a chunked stream.

use std::pin::Pin;

use bytes::{Buf, Bytes, BytesMut};
use futures_util::{Stream, StreamExt, TryStreamExt};
use warp::Filter;

use crate::error::Error;

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

/// Reads the whole body, refusing it once it passes `limit` bytes.
pub async fn read(
    mut body: BodyStream,
    declared: Option<u64>,
    limit: u64,
    idle: std::time::Duration,
) -> Result<Bytes, Error> {
    if declared.is_some_and(|len| len > limit) {
        return Err(Error::PayloadTooLarge(limit));
    }
    let mut out = BytesMut::with_capacity(declared.unwrap_or(0).min(limit) as usize);
    loop {
        let next = tokio::time::timeout(idle, body.next())
            .await
            .map_err(|_| Error::RequestTimeout)?;
        let Some(chunk) = next else { break };
        let chunk = chunk.map_err(|_| Error::BodyUnreadable)?;
        if (out.len() + chunk.len()) as u64 > limit {
            return Err(Error::PayloadTooLarge(limit));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out.freeze())
}
