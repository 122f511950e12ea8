//! The spec's time formats, and a cheap clock for freshness checks. Dates are in the
//! service's local time (`TZ` honoured); publication stamps are UTC.

use chrono::{DateTime, Local, Utc};

/// `DD-MM-YYYY`, local time.
pub(crate) fn date(at: DateTime<Local>) -> String {
    at.format("%d-%m-%Y").to_string()
}

/// `DD-MM-YYYY:HH:MM`, 24-hour clock, local time.
pub(crate) fn stamp(at: DateTime<Local>) -> String {
    at.format("%d-%m-%Y:%H:%M").to_string()
}

/// ISO 8601 UTC with a `Z` suffix, to the second: `2026-11-21T09:05:00Z`.
pub(crate) fn iso_utc(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Milliseconds of a monotonic clock that ticks every few milliseconds, read without a
/// system call or a time-stamp counter: for work done on every request (how long a
/// cache may be trusted, since when a connection is idle), where a few milliseconds
/// do not matter. Only differences of two readings mean anything.
#[cfg(target_os = "linux")]
pub(crate) fn coarse_millis() -> u64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::MonotonicCoarse);
    let secs = u64::try_from(now.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(now.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1000).saturating_add(nanos / 1_000_000)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn coarse_millis() -> u64 {
    fallback_millis()
}

/// Milliseconds since the first reading, from the standard clock.
#[cfg(not(target_os = "linux"))]
fn fallback_millis() -> u64 {
    static START: std::sync::LazyLock<std::time::Instant> =
        std::sync::LazyLock::new(std::time::Instant::now);
    u64::try_from(START.elapsed().as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_coarse_clock_moves_forward_in_milliseconds() {
        let before = coarse_millis();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let waited = coarse_millis() - before;
        assert!((40..5_000).contains(&waited), "{waited}");
    }

    #[test]
    fn formats() {
        let utc = Utc.with_ymd_and_hms(2026, 3, 4, 5, 6, 7).unwrap();
        assert_eq!(iso_utc(utc), "2026-03-04T05:06:07Z");
        let local = utc.with_timezone(&Local);
        assert_eq!(date(local), local.format("%d-%m-%Y").to_string());
        assert_eq!(stamp(local).len(), "04-03-2026:05:06".len());
    }
}
