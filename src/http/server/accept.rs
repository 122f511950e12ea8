//! Failed accepts: which ones only concern one client, which mean the process is out of
//! file descriptors, how long to back off, and a log that says so without flooding.

use std::collections::HashMap;
use std::io;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The first pause after a failed accept, doubled while accepts keep failing.
pub(crate) const MIN_BACKOFF: Duration = Duration::from_millis(10);
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(1);

/// At most one log line per kind of failure in this long.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// A client that went away between connecting and being accepted: nothing to do.
pub(crate) fn is_connection_error(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
    )
}

/// The process or the system is out of file descriptors (EMFILE, ENFILE): closing a
/// connection frees one.
pub(crate) fn is_out_of_files(err: &io::Error) -> bool {
    // ENFILE and EMFILE, the same numbers on every Unix; the standard library has no
    // kind for them.
    cfg!(unix) && matches!(err.raw_os_error(), Some(23 | 24))
}

/// The pause before the next accept after `current` failed in a row.
pub(crate) fn next_backoff(current: Duration) -> Duration {
    (current * 2).min(MAX_BACKOFF)
}

/// Rate-limits the accept failure lines of every event loop, per kind of failure.
#[derive(Default)]
pub(crate) struct ErrorLog {
    kinds: Mutex<HashMap<(Option<i32>, io::ErrorKind), Reported>>,
}

struct Reported {
    at: Instant,
    suppressed: u64,
}

impl ErrorLog {
    /// The line to log for this failure, or `None` when one of its kind was logged less
    /// than `LOG_EVERY` ago (it is then counted into the next line).
    pub(crate) fn line(&self, err: &io::Error, now: Instant) -> Option<String> {
        let mut kinds = self
            .kinds
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = (err.raw_os_error(), err.kind());
        match kinds.get_mut(&key) {
            Some(last) if now.saturating_duration_since(last.at) < LOG_EVERY => {
                last.suppressed += 1;
                None
            }
            Some(last) => {
                let line = match last.suppressed {
                    0 => format!("accept failed: {err}"),
                    n => format!(
                        "accept failed: {err} ({n} more since the last report {} s ago)",
                        now.saturating_duration_since(last.at).as_secs()
                    ),
                };
                *last = Reported {
                    at: now,
                    suppressed: 0,
                };
                Some(line)
            }
            None => {
                kinds.insert(
                    key,
                    Reported {
                        at: now,
                        suppressed: 0,
                    },
                );
                Some(format!(
                    "accept failed: {err}; backing off, and at most one such line every {} s",
                    LOG_EVERY.as_secs()
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_kind_per_period_with_the_count_of_the_rest() {
        let log = ErrorLog::default();
        let emfile = io::Error::from_raw_os_error(24);
        let enfile = io::Error::from_raw_os_error(23);
        let start = Instant::now();
        assert!(log.line(&emfile, start).is_some());
        assert!(
            log.line(&enfile, start).is_some(),
            "another kind has its own line"
        );
        for ms in 1..500 {
            assert_eq!(log.line(&emfile, start + Duration::from_millis(ms)), None);
        }
        let next = log
            .line(&emfile, start + LOG_EVERY)
            .expect("a line after the period");
        assert!(next.contains("499 more"), "{next}");
        let quiet = log.line(&emfile, start + LOG_EVERY * 2).expect("a line");
        assert!(!quiet.contains("more"), "{quiet}");
    }

    #[test]
    fn backoff_doubles_up_to_a_second() {
        let mut pause = MIN_BACKOFF;
        let mut pauses = Vec::new();
        for _ in 0..10 {
            pauses.push(pause.as_millis());
            pause = next_backoff(pause);
        }
        assert_eq!(pauses, [10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000]);
    }

    #[test]
    fn fd_exhaustion_is_told_apart() {
        assert!(is_out_of_files(&io::Error::from_raw_os_error(24)));
        assert!(is_out_of_files(&io::Error::from_raw_os_error(23)));
        assert!(!is_out_of_files(&io::Error::from(
            io::ErrorKind::ConnectionAborted
        )));
        assert!(is_connection_error(&io::Error::from(
            io::ErrorKind::ConnectionAborted
        )));
    }
}
