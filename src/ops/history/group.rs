//! Group commit for the log: records appended by concurrent changes share one
//! write-out to the disk, as databases share a log flush. Each record takes a number
//! while the append lock is held (after its bytes are in the file); its writer then
//! waits, without the lock, until a write-out that started after its number was given
//! has finished. One writer at a time writes out every record written so far; the
//! others wait for it, and the next one to go covers all that came meanwhile.

use std::fs::File;
use std::io;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// The log file a record went into: its handle and (device, inode).
pub(crate) struct Unsynced {
    pub(crate) file: File,
    pub(crate) identity: (u64, u64),
}

/// The write-outs of one store handle's log.
#[derive(Default)]
pub(crate) struct Group {
    turns: Mutex<Turns>,
    done: Condvar,
}

#[derive(Default)]
struct Turns {
    /// The log file the numbers count records of (a log replaced by hand starts over).
    identity: (u64, u64),
    /// Records written to the file, and how many of them are known written out.
    written: u64,
    out: u64,
    /// Whether a write-out is under way.
    busy: bool,
}

impl Group {
    fn turns(&self) -> MutexGuard<'_, Turns> {
        self.turns.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Numbers a record whose bytes are in `identity`'s file; called with the append
    /// lock held, so numbers follow the order of the records.
    pub(crate) fn written(&self, identity: (u64, u64)) -> u64 {
        let mut turns = self.turns();
        if turns.identity != identity {
            turns.identity = identity;
            turns.written = 0;
            turns.out = 0;
        }
        turns.written += 1;
        turns.written
    }

    /// Returns once record `number` of `log` is on the disk (its cache not flushed):
    /// written out by this call, or by another that covered it.
    pub(crate) fn write_out(
        &self,
        log: &Unsynced,
        number: u64,
        out: impl Fn(&File) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut turns = self.turns();
        loop {
            if turns.identity != log.identity {
                // The log was replaced since: this record's file is written out alone.
                drop(turns);
                return out(&log.file);
            }
            if turns.out >= number {
                return Ok(());
            }
            if !turns.busy {
                break;
            }
            turns = self
                .done
                .wait(turns)
                .unwrap_or_else(PoisonError::into_inner);
        }
        turns.busy = true;
        let target = turns.written;
        drop(turns);
        let result = out(&log.file);
        let mut turns = self.turns();
        turns.busy = false;
        if result.is_ok() && turns.identity == log.identity {
            turns.out = turns.out.max(target);
        }
        self.done.notify_all();
        result
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn unsynced(identity: (u64, u64)) -> Unsynced {
        Unsynced {
            file: tempfile::tempfile().unwrap(),
            identity,
        }
    }

    #[test]
    fn a_write_out_covers_every_record_numbered_before_it() {
        let group = Group::default();
        let log = unsynced((1, 1));
        let first = group.written(log.identity);
        let second = group.written(log.identity);
        let calls = AtomicUsize::new(0);
        let count = |_: &File| {
            calls.fetch_add(1, Ordering::SeqCst);
            Ok(())
        };
        group.write_out(&log, second, count).unwrap();
        group.write_out(&log, first, count).unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        let third = group.written(log.identity);
        group.write_out(&log, third, count).unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_failed_write_out_covers_nothing() {
        let group = Group::default();
        let log = unsynced((1, 1));
        let number = group.written(log.identity);
        let failed = group.write_out(&log, number, |_| Err(io::Error::other("disk")));
        assert!(failed.is_err());
        let calls = AtomicUsize::new(0);
        group
            .write_out(&log, number, |_| {
                calls.fetch_add(1, Ordering::SeqCst);
                Ok(())
            })
            .unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_replaced_log_starts_the_count_again() {
        let group = Group::default();
        let old = unsynced((1, 1));
        let new = unsynced((1, 2));
        let before = group.written(old.identity);
        let after = group.written(new.identity);
        assert_eq!(after, 1);
        let calls = AtomicUsize::new(0);
        let count = |_: &File| {
            calls.fetch_add(1, Ordering::SeqCst);
            Ok(())
        };
        group.write_out(&new, after, count).unwrap();
        // The old file's record is not covered by the new file's write-out.
        group.write_out(&old, before, count).unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn concurrent_writers_share_write_outs() {
        let group = Arc::new(Group::default());
        let calls = Arc::new(AtomicUsize::new(0));
        let identity = (7, 7);
        let threads: Vec<_> = (0..16)
            .map(|_| {
                let (group, calls) = (group.clone(), calls.clone());
                std::thread::spawn(move || {
                    let log = unsynced(identity);
                    for _ in 0..20 {
                        let number = group.written(identity);
                        group
                            .write_out(&log, number, |_| {
                                calls.fetch_add(1, Ordering::SeqCst);
                                std::thread::sleep(std::time::Duration::from_millis(2));
                                Ok(())
                            })
                            .unwrap();
                        let turns = group.turns();
                        assert!(turns.out >= number);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let calls = calls.load(Ordering::SeqCst);
        assert!(calls < 320, "{calls} write-outs for 320 records");
    }
}
