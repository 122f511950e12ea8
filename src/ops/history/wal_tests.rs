//! The log's records: round trips, torn tails, emptying, the older format, and a
//! record left to the next sync.

use super::*;

fn object(kind: u8, bytes: &[u8]) -> Object {
    Object {
        kind,
        bytes: bytes.to_vec(),
    }
}

/// An emptied log is written again over the older epoch's records: zeros after its
/// last record end the reading there. Without them, the reading took the older bytes
/// for the head of a record still coming and read on to the length they named, at
/// every append (a PUT stalled for seconds once a start's pass had left records of
/// megabytes behind).
#[test]
fn zeros_follow_the_last_record_over_an_emptied_logs_older_records() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = Log::open(dir.path()).unwrap();
    let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8 + 1).collect();
    log.append(&[object(b'b', &big)], Sync::Now).unwrap();
    clear(dir.path()).unwrap();
    let file = File::open(dir.path().join(FILE)).unwrap();
    let mut after_header = [0xffu8; END_MARK as usize];
    file.read_exact_at(&mut after_header, HEADER).unwrap();
    assert_eq!(after_header, [0; END_MARK as usize]);
    let (end, _) = log.append(&[object(b'c', b"small")], Sync::Now).unwrap();
    let mut after = [0xffu8; END_MARK as usize];
    file.read_exact_at(&mut after, end).unwrap();
    assert_eq!(after, [0; END_MARK as usize]);
    // The bytes past the zeros are still the older record's.
    let mut older = [0u8; 4];
    file.read_exact_at(&mut older, end + END_MARK).unwrap();
    assert_ne!(older, [0; 4]);
    let read = records(dir.path()).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0][0].bytes, b"small");
}

#[test]
fn records_round_trip_a_torn_tail_is_dropped_and_a_cleared_log_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = Log::open(dir.path()).unwrap();
    log.append(&[object(b'b', b"hello")], Sync::Now).unwrap();
    let (end, pending) = log
        .append(
            &[object(b't', &[1, 2, 3]), object(b'c', b"commit")],
            Sync::Now,
        )
        .unwrap();
    assert!(pending.is_none());
    let read = records(dir.path()).unwrap();
    assert_eq!(read.len(), 2);
    assert_eq!(read[1][1].bytes, b"commit");
    // Written in place, ahead of its records.
    assert!(std::fs::metadata(dir.path().join(FILE)).unwrap().len() >= GROW_BYTES);
    // A crash in the middle of the second record's write.
    let file = OpenOptions::new()
        .write(true)
        .open(dir.path().join(FILE))
        .unwrap();
    file.write_all_at(&[0xff; 3], end - 3).unwrap();
    assert_eq!(records(dir.path()).unwrap().len(), 1);

    // Emptied: the old records stay in the file but are not read; a handle that
    // knew the old epoch writes at the start again.
    clear(dir.path()).unwrap();
    assert!(records(dir.path()).unwrap().is_empty());
    log.append(&[object(b'c', b"after")], Sync::Now).unwrap();
    let read = records(dir.path()).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0][0].bytes, b"after");
    // Another handle appends after this one's records.
    let mut other = Log::open(dir.path()).unwrap();
    other.append(&[object(b'c', b"other")], Sync::Now).unwrap();
    log.append(&[object(b'c', b"third")], Sync::Now).unwrap();
    let read = records(dir.path()).unwrap();
    let last: Vec<&[u8]> = read.iter().map(|r| r[0].bytes.as_slice()).collect();
    assert_eq!(last, [&b"after"[..], b"other", b"third"]);

    // Removed: the next record goes to a new log, not to the unlinked file; a
    // folder in its place fails the record.
    std::fs::remove_file(dir.path().join(FILE)).unwrap();
    log.append(&[object(b'c', b"fourth")], Sync::Now).unwrap();
    assert_eq!(records(dir.path()).unwrap()[0][0].bytes, b"fourth");
    std::fs::remove_file(dir.path().join(FILE)).unwrap();
    std::fs::create_dir(dir.path().join(FILE)).unwrap();
    assert!(log.append(&[object(b'c', b"fifth")], Sync::Now).is_err());
}

#[test]
fn a_log_of_the_older_format_is_read_then_started_again() {
    let dir = tempfile::tempdir().unwrap();
    let payload = [b'c', 2, 0, 0, 0, b'o', b'k'];
    let mut old = Vec::new();
    old.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    old.extend_from_slice(&xxh3_64(&payload).to_le_bytes());
    old.extend_from_slice(&payload);
    std::fs::write(dir.path().join(FILE), &old).unwrap();
    let read = records(dir.path()).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0][0].bytes, b"ok");
    assert!(Log::open(dir.path()).is_err());
    clear(dir.path()).unwrap();
    assert!(records(dir.path()).unwrap().is_empty());
    Log::open(dir.path())
        .unwrap()
        .append(&[object(b'c', b"new")], Sync::Now)
        .unwrap();
    assert_eq!(records(dir.path()).unwrap().len(), 1);
}

#[cfg(target_os = "linux")]
#[test]
fn a_record_left_to_the_next_sync_is_read_back_and_settles_on_its_own_disk_only() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let mut log = Log::open(dir.path()).unwrap();
    let group = super::Group::default();
    let (_, unsynced) = log
        .append(&[object(b'c', b"later")], Sync::WithNext)
        .unwrap();
    let unsynced = unsynced.expect("left to write out, not synced");
    let device = std::fs::metadata(dir.path()).unwrap().dev();
    assert_eq!(unsynced.identity.0, device);
    let number = group.written(unsynced.identity);
    let pending = super::Pending::new(&group, unsynced, number);
    assert_eq!(records(dir.path()).unwrap()[0][0].bytes, b"later");
    // Another handle appends after it: the record was written where the log ends.
    let mut other = Log::open(dir.path()).unwrap();
    other.append(&[object(b'c', b"next")], Sync::Now).unwrap();
    assert_eq!(records(dir.path()).unwrap().len(), 2);
    pending.settle(Some(device)).unwrap();
    let (_, unsynced) = log
        .append(&[object(b'c', b"apart")], Sync::WithNext)
        .unwrap();
    let unsynced = unsynced.unwrap();
    let number = group.written(unsynced.identity);
    super::Pending::new(&group, unsynced, number)
        .settle(Some(device.wrapping_add(1)))
        .unwrap();
    assert_eq!(records(dir.path()).unwrap().len(), 3);
}

#[test]
fn records_across_the_pieces_read_are_all_found_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = Log::open(dir.path()).unwrap();
    // Small records past the first 64 KiB piece, and one larger than a piece.
    for i in 0..2000u32 {
        log.append(&[object(b'b', &i.to_le_bytes().repeat(10))], Sync::Now)
            .unwrap();
    }
    let big = vec![7u8; 200 << 10];
    log.append(&[object(b'b', &big)], Sync::Now).unwrap();
    log.append(&[object(b'c', b"last")], Sync::Now).unwrap();
    let read = records(dir.path()).unwrap();
    assert_eq!(read.len(), 2002);
    assert_eq!(read[2000][0].bytes, big);
    assert_eq!(read[2001][0].bytes, b"last");
    let (after, _) = records_after(dir.path(), None).unwrap();
    assert_eq!(after.len(), 2002);
    let (tail, _) = records_after(dir.path(), Some(after[1999].0)).unwrap();
    assert_eq!(tail.len(), 2);
    // Another handle finds where the records end, and appends after them.
    let mut other = Log::open(dir.path()).unwrap();
    other.append(&[object(b'c', b"after")], Sync::Now).unwrap();
    assert_eq!(records(dir.path()).unwrap().len(), 2003);
}
