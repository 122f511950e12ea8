//! What the latency benchmarks report of their samples.

use std::time::Duration;

/// The `p` quantile (0–1) of `sorted` samples, the nearest rank.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// A duration in milliseconds, two decimals: `0.44 ms`.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}
