//! A kept attachment version (or the JSON of a large note list) in a sealed memory file
//! (a Linux `memfd` sealed against writes, growth and shrinking): its bytes can never
//! change, so the kernel can send them to a socket from the file's own pages
//! (`sendfile`) instead of copying them out of user memory on every answer, as nginx
//! does with the page cache. The `Bytes` are a read-only mapping of the same file: no
//! second copy in memory.
//!
//! Each one holds a file descriptor, so at most `MAX_SEALED` exist at once; a version
//! past that (or smaller than `MIN_SEALED`, where the copy costs less than the extra
//! system call) is kept in ordinary memory.

use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use rustix::fs::{MemfdFlags, SealFlags};

/// Versions smaller than this are kept in ordinary memory.
pub(crate) const MIN_SEALED: usize = 16 << 10;
/// Sealed versions alive at once (each holds a descriptor), kept or still being sent.
pub(crate) const MAX_SEALED: usize = 64;

/// Sealed versions alive in this process.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// The bytes of one version, in a sealed memory file and mapped from it.
pub(crate) struct Sealed {
    fd: OwnedFd,
    bytes: Bytes,
    _slot: Slot,
}

impl std::fmt::Debug for Sealed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealed")
            .field("fd", &self.fd)
            .field("len", &self.bytes.len())
            .finish()
    }
}

impl Sealed {
    /// A sealed copy of `bytes`, when it is worth one and there is room for it; `None`
    /// otherwise, or when the system refuses (the version is then kept in memory).
    pub(crate) fn of(bytes: &[u8]) -> Option<Arc<Sealed>> {
        if bytes.len() < MIN_SEALED {
            return None;
        }
        Sealed::written(|file| file.write_all(bytes))
    }

    /// A sealed file of what `write` writes into it, a piece at a time (a large body is
    /// never whole in ordinary memory); `None` when there is no room for one, or when
    /// the system or `write` fails.
    pub(crate) fn written(
        write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> Option<Arc<Sealed>> {
        let slot = Slot::take()?;
        let fd = sealed_file(write).ok()?;
        let file = std::fs::File::from(fd);
        // SAFETY: the file is sealed against writes, growth and shrinking (checked by
        // `sealed_file`), so the mapped bytes can neither change nor vanish while the
        // mapping lives: the conditions `Mmap::map` asks of its caller.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        Some(Arc::new(Sealed {
            fd: file.into(),
            bytes: Bytes::from_owner(map),
            _slot: slot,
        }))
    }

    /// The whole version, mapped from the sealed file.
    pub(crate) fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The sealed file, to send from.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Where `part` starts in the file, when it lies wholly within this version's
    /// mapped bytes: then the file holds exactly `part` from that offset on.
    pub(crate) fn offset_of(&self, part: &[u8]) -> Option<u64> {
        let base = self.bytes.as_ptr() as usize;
        let start = part.as_ptr() as usize;
        let offset = start.checked_sub(base)?;
        (offset.checked_add(part.len())? <= self.bytes.len()).then_some(offset as u64)
    }
}

/// A memory file holding what `write` wrote, sealed so that nothing can change it any
/// more.
fn sealed_file(
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<OwnedFd> {
    let fd = rustix::fs::memfd_create(
        "notes-kept",
        MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
    )?;
    let mut file = std::fs::File::from(fd);
    write(&mut file)?;
    rustix::fs::fcntl_add_seals(
        &file,
        SealFlags::WRITE | SealFlags::GROW | SealFlags::SHRINK | SealFlags::SEAL,
    )?;
    let seals = rustix::fs::fcntl_get_seals(&file)?;
    if !seals.contains(SealFlags::WRITE | SealFlags::GROW | SealFlags::SHRINK) {
        return Err(std::io::Error::other("memory file not sealed"));
    }
    Ok(file.into())
}

/// One of the `MAX_SEALED` places, given back when dropped.
struct Slot;

impl Slot {
    fn take() -> Option<Slot> {
        LIVE.fetch_update(Ordering::AcqRel, Ordering::Acquire, |live| {
            (live < MAX_SEALED).then_some(live + 1)
        })
        .ok()
        .map(|_| Slot)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_version_holds_the_bytes_and_cannot_change() {
        let bytes: Vec<u8> = (0..MIN_SEALED * 2).map(|n| (n % 251) as u8).collect();
        let sealed = Sealed::of(&bytes).expect("sealed");
        assert!(
            sealed.bytes()[..] == bytes[..],
            "the mapping holds the bytes"
        );
        let mut file = std::fs::File::from(sealed.fd().try_clone_to_owned().unwrap());
        assert!(file.write_all(b"changed").is_err(), "writes are sealed");
        assert!(file.set_len(1).is_err(), "shrinking is sealed");
        let mut read = vec![0u8; bytes.len()];
        std::os::unix::fs::FileExt::read_exact_at(&file, &mut read, 0).unwrap();
        assert!(read == bytes, "the file holds the bytes");
    }

    #[test]
    fn parts_are_found_by_address() {
        let bytes = vec![7u8; MIN_SEALED];
        let sealed = Sealed::of(&bytes).expect("sealed");
        let all = sealed.bytes().clone();
        assert_eq!(sealed.offset_of(&all), Some(0));
        assert_eq!(sealed.offset_of(&all.slice(100..200)), Some(100));
        assert_eq!(
            sealed.offset_of(&all.slice(MIN_SEALED - 1..)),
            Some(MIN_SEALED as u64 - 1)
        );
        // Equal bytes elsewhere in memory are not the sealed ones.
        assert_eq!(sealed.offset_of(&bytes), None);
        assert_eq!(sealed.offset_of(&bytes[..10]), None);
    }

    #[test]
    fn small_versions_stay_in_memory() {
        assert!(Sealed::of(&[1u8; MIN_SEALED - 1]).is_none());
    }
}
