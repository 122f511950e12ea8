//! The store's write-ahead log, `wal` inside the bare repository: each change (its
//! time, message, and every note's path and new text) written as one record and synced
//! once, so a change is durable before it is acknowledged, with no git work on the way;
//! the committer (`commit`) makes the commits from the records. Once the log is large
//! and every record committed, everything is synced and the log emptied.
//!
//! The file is written in place: it is zero-filled ahead of the records (and that
//! growth synced, once per `GROW_BYTES`), so a record's `fdatasync` writes data blocks
//! only and needs no journal commit of the file system's metadata, which would queue
//! behind the note's own sync. Emptying the log bumps the epoch in its header: records
//! are checksummed with their epoch, and zeros follow the last record, so the older
//! records still in the file are never read as records.
//!
//! A note's write needs no sync of its own for its record (`Sync::WithNext`): the
//! record is written to the disk and waited for, without flushing the disk's cache,
//! and the note's folder sync that follows (a cache flush of the same disk) makes both
//! durable at once. Concurrent records share that write-out (`group`), done after the
//! append lock is let go. On another disk, or off Linux, the record is synced after
//! all (`Pending::settle`).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use super::group::Group;
pub(crate) use super::group::Unsynced;

/// The log's file name inside the repository.
pub(crate) const FILE: &str = "wal";
/// The size past which the next change checkpoints the log.
pub(crate) const CHECKPOINT_BYTES: u64 = 16 << 20;
/// The start of the file: the magic, then the epoch (u64, little-endian).
const MAGIC: &[u8; 8] = b"NOTESWAL";
const HEADER: u64 = 16;
/// How much zero-filled room the log gains at once.
const GROW_BYTES: u64 = 1 << 20;
/// The zeros written after the last record (a record's head is 12 bytes: length and
/// checksum).
const END_MARK: u64 = 12;

/// How a record is made durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sync {
    /// Synced before `append` returns.
    Now,
    /// Written to the disk before `append` returns, its cache not flushed: the next
    /// sync of a file on the same disk makes it durable, or `Pending::settle`.
    WithNext,
}

/// A record written with `Sync::WithNext`, not yet known to be durable: its log file,
/// its number among the records of the handle's `group`.
pub(crate) struct Pending<'a> {
    log: Unsynced,
    number: u64,
    group: &'a Group,
}

impl<'a> Pending<'a> {
    /// Record `number` of `log` (`Group::written`), left to `settle`.
    pub(crate) fn new(group: &'a Group, log: Unsynced, number: u64) -> Pending<'a> {
        Pending { log, number, group }
    }

    /// Makes the record durable: written out to the disk, shared with concurrent
    /// records (where the write-out fails, the log is synced instead); then nothing
    /// more when `synced` is the device of a file synced after this (its cache flush
    /// covers the record), otherwise a sync of the log.
    pub(crate) fn settle(self, synced: Option<u64>) -> io::Result<()> {
        let written = self.group.write_out(&self.log, self.number, write_out);
        if written.is_ok() && synced == Some(self.log.identity.0) {
            return Ok(());
        }
        self.log.file.sync_data()
    }
}

fn older_format() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "the log is in an older format")
}

/// One object of a change: its kind (`b`lob, `t`ree, `c`ommit) and raw bytes.
pub(crate) struct Object {
    pub(crate) kind: u8,
    pub(crate) bytes: Vec<u8>,
}

/// The open log of one store handle: where its records end, as far as this handle
/// knows (another process may have appended or emptied it since: looked at again
/// before each record, under the store's lock).
pub(crate) struct Log {
    file: File,
    /// The log's path, and the file it named when opened (device, inode): a log
    /// removed or replaced since is opened again, so a record is never synced into a
    /// file the store no longer has.
    path: PathBuf,
    identity: (u64, u64),
    epoch: u64,
    end: u64,
    size: u64,
}

impl Log {
    /// Opens the log (made in the current format when missing or empty).
    pub(crate) fn open(repo: &Path) -> io::Result<Log> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(repo.join(FILE))?;
        let meta = file.metadata()?;
        if meta.len() == 0 {
            start(&file, first_epoch())?;
            File::open(repo)?.sync_all()?;
        }
        let log = Log {
            file,
            path: repo.join(FILE),
            identity: (meta.dev(), meta.ino()),
            epoch: 0,
            end: HEADER,
            size: 0,
        };
        // A log of the older format is refused here, before any record is written.
        epoch_of(&log.file)?.ok_or_else(older_format)?;
        Ok(log)
    }

    /// Finds where the records end now (another handle, in this process or another,
    /// may have appended or emptied the log since this one looked). A record still
    /// being written ends the reading (its checksum does not match yet), and the epoch
    /// read again after the records tells that no emptying raced it (an emptied log is
    /// written again from its start, over records of the old epoch).
    fn read_new(&mut self) -> io::Result<()> {
        let same = std::fs::metadata(&self.path)
            .is_ok_and(|named| (named.dev(), named.ino()) == self.identity);
        if !same {
            let repo = self
                .path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            *self = Log::open(&repo)?;
        }
        loop {
            let size = self.file.metadata()?.len();
            let epoch = epoch_of(&self.file)?.ok_or_else(older_format)?;
            let mut end = if epoch != self.epoch {
                HEADER
            } else {
                self.end
            };
            if let Some((_, last)) = read_records(&self.file, end, size, epoch)?.last() {
                end = *last;
            }
            if epoch_of(&self.file)? != Some(epoch) {
                continue;
            }
            self.epoch = epoch;
            self.end = end;
            self.size = size;
            return Ok(());
        }
    }

    /// Writes one record (the change's objects, the commit last): synced before this
    /// returns when `sync` is `Now`; otherwise the log's file to write it out from
    /// (`write_out`, after the append lock is let go, shared with concurrent records).
    /// The log's length after it.
    pub(crate) fn append(
        &mut self,
        objects: &[Object],
        sync: Sync,
    ) -> io::Result<(u64, Option<Unsynced>)> {
        // Appended after every record there is (the append lock is held: no other
        // writer can append meanwhile).
        self.read_new()?;
        let mut payload = Vec::with_capacity(objects.iter().map(|o| o.bytes.len() + 5).sum());
        for object in objects {
            payload.push(object.kind);
            let len = u32::try_from(object.bytes.len()).map_err(io::Error::other)?;
            payload.extend_from_slice(&len.to_le_bytes());
            payload.extend_from_slice(&object.bytes);
        }
        let len = u32::try_from(payload.len()).map_err(io::Error::other)?;
        let mut record = Vec::with_capacity(payload.len() + 12);
        record.extend_from_slice(&len.to_le_bytes());
        record.extend_from_slice(&xxh3_64_with_seed(&payload, self.epoch).to_le_bytes());
        record.extend_from_slice(&payload);
        let written = record.len() as u64;
        // Room for this record and the zeros that end the reading after it.
        let need = self.end + written + END_MARK;
        // Written with it: after an emptying, the file past the records holds the older
        // epoch's bytes, and a reader took any of them for the head of a record still
        // coming (a length up to the whole file, read again at every append).
        record.extend_from_slice(&[0; END_MARK as usize]);
        if need > self.size {
            let size = need.div_ceil(GROW_BYTES) * GROW_BYTES;
            zero(&self.file, self.size, size)?;
            self.file.sync_all()?;
            self.size = size;
        }
        self.file.write_all_at(&record, self.end)?;
        let unsynced = match sync {
            Sync::WithNext if cfg!(target_os = "linux") => Some(Unsynced {
                file: self.file.try_clone()?,
                identity: self.identity,
            }),
            _ => {
                self.file.sync_data()?;
                None
            }
        };
        self.end += written;
        Ok((self.end, unsynced))
    }
}

/// Writes every record in `file`'s page cache to the disk and waits for them, without
/// a cache flush or any metadata (the log's blocks are allocated and synced ahead of its
/// records). Kept for speed: a PUT's record then costs no `fdatasync` (a disk cache
/// flush) of its own, the note's folder sync covers it; rustix has no wrapper for the
/// call. Only this log's records are dirty in its file, so the whole file is asked.
#[cfg(target_os = "linux")]
fn write_out(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let flags = libc::SYNC_FILE_RANGE_WAIT_BEFORE
        | libc::SYNC_FILE_RANGE_WRITE
        | libc::SYNC_FILE_RANGE_WAIT_AFTER;
    // SAFETY: a plain system call on a file descriptor `file` keeps open; no memory
    // is passed. Offset 0 and length 0 mean the whole file.
    if unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, flags) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Off Linux there is no write without a flush: the record is synced.
#[cfg(not(target_os = "linux"))]
fn write_out(file: &File) -> io::Result<()> {
    file.sync_data()
}

/// The epoch of a new log: the clock's nanoseconds, so a log made again (removed by
/// hand) never reuses the epoch of the one a commit's position names.
fn first_epoch() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}

/// Where a record ends: the log's epoch and the byte after the record. A commit's
/// message names the position of the record it was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) epoch: u64,
    pub(crate) end: u64,
}

/// A record and where it ends.
pub(crate) type Positioned = (Position, Vec<Object>);

/// The records after `after` (all of them when it is `None` or of another epoch:
/// the log was emptied since, once everything it held was committed), each with its
/// position; and the log's length.
pub(crate) fn records_after(
    repo: &Path,
    after: Option<Position>,
) -> io::Result<(Vec<Positioned>, u64)> {
    let file = match File::open(repo.join(FILE)) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(e),
    };
    let size = file.metadata()?.len();
    let Some(epoch) = epoch_of(&file)? else {
        return Ok((Vec::new(), size));
    };
    let mut at = match after {
        Some(pos) if pos.epoch == epoch => pos.end,
        _ => HEADER,
    };
    let records: Vec<Positioned> = read_records(&file, at, size, epoch)?
        .into_iter()
        .map(|(objects, next)| (Position { epoch, end: next }, objects))
        .collect();
    if let Some((pos, _)) = records.last() {
        at = pos.end;
    }
    Ok((records, at))
}

/// Writes the header of an empty log at `epoch`, and the zeros that end its records,
/// durably.
fn start(file: &File, epoch: u64) -> io::Result<()> {
    let mut header = [0u8; (HEADER + END_MARK) as usize];
    header[..8].copy_from_slice(MAGIC);
    header[8..HEADER as usize].copy_from_slice(&epoch.to_le_bytes());
    file.write_all_at(&header, 0)?;
    file.sync_data()
}

/// The epoch in the header; `None` for a log of the older format (appended records
/// from the first byte, emptied by truncation).
fn epoch_of(file: &File) -> io::Result<Option<u64>> {
    let mut header = [0u8; HEADER as usize];
    match file.read_exact_at(&mut header, 0) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    if &header[..8] != MAGIC {
        return Ok(None);
    }
    Ok(Some(u64::from_le_bytes(
        header[8..].try_into().unwrap_or_default(),
    )))
}

/// Fills `from..to` with zeros.
fn zero(file: &File, from: u64, to: u64) -> io::Result<()> {
    let zeros = vec![0u8; 64 << 10];
    let mut at = from;
    while at < to {
        let n = (to - at).min(zeros.len() as u64) as usize;
        file.write_all_at(&zeros[..n], at)?;
        at += n as u64;
    }
    Ok(())
}

/// The log's bytes from `from` to `size` (fewer when the file is shorter now), read
/// at once: the records are then walked in memory, not two reads each.
fn read_from(file: &File, from: u64, size: u64) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0u8; usize::try_from(size.saturating_sub(from)).unwrap_or(0)];
    let mut filled = 0;
    while filled < bytes.len() {
        match file.read_at(&mut bytes[filled..], from + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(filled);
    Ok(bytes)
}

/// The records from `from` on (up to `size`), each with where the next one starts,
/// read a piece at a time: the file is zero-filled, or holds an emptied log's older
/// records, well past its records (`GROW_BYTES`), so reading to its end would read up to
/// a MiB at each append, and many after a first start. A piece twice the last (up to
/// `PIECE_MOST`) is read while the records go on past it, or the whole of a record cut
/// short, when larger: a batch of large records holds each once and little else.
fn read_records(
    file: &File,
    from: u64,
    size: u64,
    epoch: u64,
) -> io::Result<Vec<(Vec<Object>, u64)>> {
    const PIECE_LEAST: u64 = 64 << 10;
    const PIECE_MOST: u64 = 1 << 20;
    let mut records = Vec::new();
    let mut at = from;
    let mut piece = PIECE_LEAST;
    loop {
        let to = at.saturating_add(piece).min(size);
        let bytes = read_from(file, at, to)?;
        let start = at;
        for (objects, next) in records_in(&bytes, start, epoch, start) {
            at = next;
            records.push((objects, next));
        }
        if to >= size {
            return Ok(records);
        }
        // Read on only when the piece cut a record (or its head) short.
        let rest = &bytes[usize::try_from(at - start).unwrap_or(bytes.len())..];
        let cut = match rest.get(..4) {
            None => Some(0),
            Some(head) => {
                let len = u64::from(u32::from_le_bytes(head.try_into().unwrap_or_default()));
                // A length past the file's end is no record in the making.
                (len != 0 && 12 + len > rest.len() as u64 && at + 12 + len <= size)
                    .then_some(12 + len + END_MARK)
            }
        };
        let Some(whole) = cut else {
            return Ok(records);
        };
        piece = piece
            .saturating_mul(2)
            .clamp(PIECE_LEAST, PIECE_MOST)
            .max(whole);
    }
}

/// The records of `bytes` (the log read from `from`), from `at` on: each with where
/// the next one starts. The walk ends at zeros, a torn record whose sync never
/// finished, or a record of an older epoch.
fn records_in(
    bytes: &[u8],
    from: u64,
    epoch: u64,
    mut at: u64,
) -> impl Iterator<Item = (Vec<Object>, u64)> + '_ {
    std::iter::from_fn(move || {
        let i = usize::try_from(at.checked_sub(from)?).ok()?;
        let head = bytes.get(i..i.checked_add(12)?)?;
        let len = u32::from_le_bytes(head[..4].try_into().ok()?) as usize;
        let sum = u64::from_le_bytes(head[4..].try_into().ok()?);
        if len == 0 {
            return None;
        }
        let payload = bytes.get(i + 12..(i + 12).checked_add(len)?)?;
        if xxh3_64_with_seed(payload, epoch) != sum {
            return None;
        }
        let objects = objects_of(payload)?;
        at += 12 + len as u64;
        Some((objects, at))
    })
}

/// The records of the log, oldest first; a torn or damaged tail (a record whose sync
/// never finished, so never acknowledged) ends the list.
pub(crate) fn records(repo: &Path) -> io::Result<Vec<Vec<Object>>> {
    let file = match File::open(repo.join(FILE)) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let size = file.metadata()?.len();
    let Some(epoch) = epoch_of(&file)? else {
        return older_records(&file, size);
    };
    Ok(read_records(&file, HEADER, size, epoch)?
        .into_iter()
        .map(|(objects, _)| objects)
        .collect())
}

/// The log's first record, if it has one (of the current format).
pub(crate) fn first_record(repo: &Path) -> io::Result<Option<Vec<Object>>> {
    let file = match File::open(repo.join(FILE)) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let Some(epoch) = epoch_of(&file)? else {
        return Ok(None);
    };
    let mut head = [0u8; 4];
    match file.read_exact_at(&mut head, HEADER) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let end = (HEADER + 12 + u64::from(u32::from_le_bytes(head))).min(file.metadata()?.len());
    let bytes = read_from(&file, HEADER, end)?;
    Ok(records_in(&bytes, HEADER, epoch, HEADER)
        .next()
        .map(|(objects, _)| objects))
}

/// The records of a log of the older format: `u32 length, u64 xxh3, payload` from the
/// first byte.
fn older_records(file: &File, size: u64) -> io::Result<Vec<Vec<Object>>> {
    let mut bytes = vec![0u8; size as usize];
    file.read_exact_at(&mut bytes, 0)?;
    let mut records = Vec::new();
    let mut rest = bytes.as_slice();
    while rest.len() >= 12 {
        let len = u32::from_le_bytes(rest[..4].try_into().unwrap_or_default()) as usize;
        let sum = u64::from_le_bytes(rest[4..12].try_into().unwrap_or_default());
        let Some(payload) = rest.get(12..12 + len) else {
            break;
        };
        if xxh3_64(payload) != sum {
            break;
        }
        match objects_of(payload) {
            Some(objects) => records.push(objects),
            None => break,
        }
        rest = &rest[12 + len..];
    }
    Ok(records)
}

fn objects_of(mut payload: &[u8]) -> Option<Vec<Object>> {
    let mut objects = Vec::new();
    while !payload.is_empty() {
        let kind = *payload.first()?;
        let len = u32::from_le_bytes(payload.get(1..5)?.try_into().ok()?) as usize;
        let bytes = payload.get(5..5 + len)?.to_vec();
        objects.push(Object { kind, bytes });
        payload = &payload[5 + len..];
    }
    Some(objects)
}

/// Empties the log, durably (after a checkpoint synced what it held): the next epoch
/// in the header, the file left in place (a log of the older format is started again
/// in the current one).
pub(crate) fn clear(repo: &Path) -> io::Result<()> {
    let file = match OpenOptions::new()
        .read(true)
        .write(true)
        .open(repo.join(FILE))
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    match epoch_of(&file)? {
        Some(epoch) => start(&file, epoch.wrapping_add(1)),
        None => {
            file.set_len(0)?;
            start(&file, first_epoch())?;
            file.sync_all()
        }
    }
}

#[cfg(test)]
#[path = "wal_tests.rs"]
mod tests;
