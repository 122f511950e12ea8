//! The process's open-file limit: read by the connection cap, raised at start.
//!
//! The search index holds descriptors per segment (`ops::search::directory` reads
//! postings, positions and stored texts with `pread`, three files a segment), and a
//! first start's pass leaves its segments unmerged until its end: about 500 of them at
//! 1M notes, 1,500 descriptors, past the usual soft limit of 1,024 (systemd's default
//! for services, and most shells'). The soft limit is raised towards the hard one at
//! start, as Go's runtime does for every program since 1.19; only up to `WANTED`, since
//! the default connection cap is half of what is left (`http::default_max_connections`)
//! and a hard limit of a million would let idle connections hold gigabytes.

/// The soft limit asked for at start when the hard limit allows it.
const WANTED: u64 = 16_384;

/// The usual default soft limit, assumed where it cannot be read.
#[cfg(not(target_os = "linux"))]
const FALLBACK: usize = 1024;

/// Raises the soft open-file limit to `WANTED`, or to the hard limit when that is
/// lower; never lowers it. Returns the soft limit in force afterwards.
#[cfg(target_os = "linux")]
pub(crate) fn raise_open_files() -> usize {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let soft = limit.current.unwrap_or(u64::MAX);
    let target = limit.maximum.map_or(WANTED, |hard| hard.min(WANTED));
    if soft < target {
        let raised = Rlimit {
            current: Some(target),
            maximum: limit.maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            return to_usize(target);
        }
    }
    to_usize(soft)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn raise_open_files() -> usize {
    open_files()
}

/// The soft open-file limit in force.
#[cfg(target_os = "linux")]
pub(crate) fn open_files() -> usize {
    rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .map_or(usize::MAX, to_usize)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn open_files() -> usize {
    FALLBACK
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_soft_limit_is_raised_within_the_hard_one_and_never_lowered() {
        use rustix::process::{Resource, getrlimit};
        let before = getrlimit(Resource::Nofile);
        let after = raise_open_files();
        let now = getrlimit(Resource::Nofile);
        assert_eq!(Some(after as u64), now.current);
        assert_eq!(
            before.maximum, now.maximum,
            "the hard limit is left as it is"
        );
        let soft = before.current.unwrap_or(u64::MAX);
        let hard = before.maximum.unwrap_or(u64::MAX);
        assert_eq!(after as u64, soft.max(hard.min(WANTED)));
        assert_eq!(open_files(), after);
    }
}
