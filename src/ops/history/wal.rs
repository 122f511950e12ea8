//! The store's write-ahead log, `wal` inside the bare repository: every object of a
//! change (blob, trees, commit) appended in one record and synced once, so a change is
//! durable after one `fdatasync` while the repository's loose objects and ref are
//! written without syncs. At open, the records are replayed (an object that is missing
//! or unreadable is written again, the ref set to the last commit); once the log is
//! large, everything is synced and the log emptied (a checkpoint).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

/// The log's file name inside the repository.
pub(crate) const FILE: &str = "wal";
/// The size past which the next change checkpoints the log.
pub(crate) const CHECKPOINT_BYTES: u64 = 16 << 20;

/// One object of a change: its kind (`b`lob, `t`ree, `c`ommit) and raw bytes.
pub(crate) struct Object {
    pub(crate) kind: u8,
    pub(crate) bytes: Vec<u8>,
}

/// Appends one record (the change's objects, the commit last) and syncs it. The log is
/// opened for each record, so a log that cannot be written fails this change, now.
pub(crate) fn append(repo: &Path, objects: &[Object]) -> io::Result<u64> {
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
    record.extend_from_slice(&xxh3_64(&payload).to_le_bytes());
    record.extend_from_slice(&payload);
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(repo.join(FILE))?;
    file.write_all(&record)?;
    file.sync_data()?;
    Ok(file.metadata()?.len())
}

/// The records of the log, oldest first; a torn or damaged tail (a record whose sync
/// never finished, so never acknowledged) ends the list.
pub(crate) fn records(repo: &Path) -> io::Result<Vec<Vec<Object>>> {
    let mut bytes = Vec::new();
    match File::open(repo.join(FILE)) {
        Ok(mut file) => {
            file.read_to_end(&mut bytes)?;
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    }
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

/// Empties the log, durably (after a checkpoint synced what it held).
pub(crate) fn clear(repo: &Path) -> io::Result<()> {
    match OpenOptions::new().write(true).open(repo.join(FILE)) {
        Ok(file) => {
            file.set_len(0)?;
            file.sync_all()
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_a_torn_tail_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let one = [Object {
            kind: b'b',
            bytes: b"hello".to_vec(),
        }];
        let two = [
            Object {
                kind: b't',
                bytes: vec![1, 2, 3],
            },
            Object {
                kind: b'c',
                bytes: b"commit".to_vec(),
            },
        ];
        append(dir.path(), &one).unwrap();
        let len = append(dir.path(), &two).unwrap();
        let read = records(dir.path()).unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!(read[1][1].bytes, b"commit");
        // A crash in the middle of the second record's write.
        let file = OpenOptions::new()
            .write(true)
            .open(dir.path().join(FILE))
            .unwrap();
        file.set_len(len - 3).unwrap();
        assert_eq!(records(dir.path()).unwrap().len(), 1);
        clear(dir.path()).unwrap();
        assert!(records(dir.path()).unwrap().is_empty());
    }
}
