//! The spec's time formats. Dates are in the service's local time (`TZ` honoured);
//! publication stamps are UTC.

use chrono::{DateTime, Local, Utc};

/// `DD-MM-YYYY`, local time.
pub fn date(at: DateTime<Local>) -> String {
    at.format("%d-%m-%Y").to_string()
}

/// `DD-MM-YYYY:HH:MM`, 24-hour clock, local time.
pub fn stamp(at: DateTime<Local>) -> String {
    at.format("%d-%m-%Y:%H:%M").to_string()
}

/// ISO 8601 UTC with a `Z` suffix, to the second: `2026-11-21T09:05:00Z`.
pub fn iso_utc(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn formats() {
        let utc = Utc.with_ymd_and_hms(2026, 3, 4, 5, 6, 7).unwrap();
        assert_eq!(iso_utc(utc), "2026-03-04T05:06:07Z");
        let local = utc.with_timezone(&Local);
        assert_eq!(date(local), local.format("%d-%m-%Y").to_string());
        assert_eq!(stamp(local).len(), "04-03-2026:05:06".len());
    }
}
