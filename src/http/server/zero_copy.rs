//! Kept for its figure: 1.24x req/s (1 connection), 1.19x (16) on a 100 KiB attachment
//! against hyper writing the body itself (bench/SERVER.md).
//!
//! Sending a kept attachment without copying it: a route marks its answer with
//! [`SendFrom`] (the sealed memory file whose mapped bytes are the body); the door
//! hands that file to the connection's [`Stream`]; when hyper then writes a part of
//! those very bytes, the stream sends the answer's head with `sendmsg(MSG_MORE)` and
//! the part with `sendfile` from the sealed file, so the kernel takes the file's pages
//! instead of copying the bytes out of user memory (what nginx does with the page
//! cache). Everything else about the answer (status, headers, the door's checks) is
//! hyper's, as for any other answer.
//!
//! The swap is exact by construction: a part is sent from the file only when its
//! address lies within the file's own mapping, and a sealed file's bytes never change,
//! so the bytes on the wire are the ones hyper was given. Any other write, and every
//! write on systems without sealed files, goes to the socket as it is.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::ops::files::sealed::Sealed;

/// The mark of an answer whose body lies in a sealed file (a response extension).
#[derive(Clone)]
pub(crate) struct SendFrom(pub(super) Arc<Sealed>);

impl SendFrom {
    /// Marks `response`, whose body of `len` bytes is a part of `sealed`'s mapped bytes,
    /// to be sent from the file; a body too small to gain from it stays unmarked.
    pub(crate) fn mark(response: &mut warp::reply::Response, sealed: Arc<Sealed>, len: u64) {
        if len >= MIN_PART as u64 {
            response.extensions_mut().insert(SendFrom(sealed));
        }
    }
}

/// The sealed file of the answer a connection is sending, set by the door.
#[derive(Default)]
pub(super) struct Sending {
    current: Mutex<Option<Arc<Sealed>>>,
}

impl Sending {
    /// The answer being sent now has its body in `sealed` (or in memory: `None`).
    pub(super) fn set(&self, sealed: Option<Arc<Sealed>>) {
        let sealed = sealed.filter(|_| super::sends_from_files());
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = sealed;
    }

    #[cfg(target_os = "linux")]
    fn current(&self) -> Option<Arc<Sealed>> {
        self.current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The body in `sealed` has gone out: the connection lets go of the file (one of a
    /// bounded number), so an idle keep-alive connection holds none.
    #[cfg(target_os = "linux")]
    fn sent(&self, sealed: &Arc<Sealed>) {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if current.as_ref().is_some_and(|now| Arc::ptr_eq(now, sealed)) {
            *current = None;
        }
    }
}

/// Bodies smaller than this are written as they are: with the head, one `writev`
/// costs less than the extra system call. (What is left of a marked body after a
/// partial send goes from the file whatever its size: it is one call either way.)
const MIN_PART: usize = 8 << 10;

/// A connection's socket, sending marked bodies from their sealed file.
pub(super) struct Stream {
    socket: TcpStream,
    sending: Arc<Sending>,
}

impl Stream {
    pub(super) fn new(socket: TcpStream, sending: Arc<Sending>) -> Self {
        Stream { socket, sending }
    }

    /// Sends `head` (the slices before the body part) and then `part` from `sealed`
    /// (where it starts at `offset`); the count is of bytes taken from `head` and then
    /// `part`, as a `writev` of them would report.
    #[cfg(target_os = "linux")]
    fn poll_send_from(
        &self,
        cx: &mut Context<'_>,
        head: &[io::IoSlice<'_>],
        part: usize,
        sealed: &Sealed,
        offset: u64,
    ) -> Poll<io::Result<usize>> {
        use rustix::net::{SendAncillaryBuffer, SendFlags};
        let head_len: usize = head.iter().map(|slice| slice.len()).sum();
        let send = || -> io::Result<usize> {
            let mut sent = 0;
            if head_len > 0 {
                // MSG_MORE: the head waits for the body and leaves in its first segment.
                sent = rustix::net::sendmsg(
                    &self.socket,
                    head,
                    &mut SendAncillaryBuffer::default(),
                    SendFlags::MORE | SendFlags::NOSIGNAL,
                )?;
                if sent < head_len {
                    return Ok(sent);
                }
            }
            let mut at = offset;
            match rustix::fs::sendfile(&self.socket, sealed.fd(), Some(&mut at), part) {
                Ok(n) => Ok(sent + n),
                // The head went out: that is the count; the failure, if it lasts, is
                // met again by the next write.
                Err(_) if sent > 0 => Ok(sent),
                Err(e) => Err(e.into()),
            }
        };
        loop {
            std::task::ready!(self.socket.poll_write_ready(cx))?;
            match self.socket.try_io(tokio::io::Interest::WRITABLE, send) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                done => return Poll::Ready(done),
            }
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.socket).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        #[cfg(target_os = "linux")]
        if let Some(sealed) = self.sending.current() {
            let found = bufs.iter().enumerate().find_map(|(n, slice)| {
                let offset = sealed.offset_of(slice)?;
                (n == 0 || slice.len() >= MIN_PART).then_some((n, offset))
            });
            if let Some((n, offset)) = found {
                let head: usize = bufs[..n].iter().map(|slice| slice.len()).sum();
                let sent = self.poll_send_from(cx, &bufs[..n], bufs[n].len(), &sealed, offset);
                // An answer's body is one slice of the mapping: once all of it is out,
                // so is the answer.
                if let Poll::Ready(Ok(count)) = sent
                    && count == head + bufs[n].len()
                {
                    self.sending.sent(&sealed);
                }
                return sent;
            }
        }
        Pin::new(&mut self.socket).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        // hyper then queues a body's bytes beside the head instead of copying them
        // into its own buffer: the parts this stream looks for.
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_shutdown(cx)
    }
}
