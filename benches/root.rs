//! Beneath-the-root opens (`just bench-root`): opening and reading a note beneath the
//! notes dir 10k times through a hand-written fast path (one `openat2` with
//! `RESOLVE_BENEATH` from the `Dir`'s handle, then `fstat` and a read; cap-std only where
//! that call cannot answer) against cap-std's `Dir::open_with` alone (which tries the
//! same `openat2` first, and is how `ops::root` opens a note), with its metadata and a
//! read, in the same run: rounds taken in turns, the median round reported. The fast
//! path would be kept in `ops::root` only at 15 % or more. The table is printed and
//! written to `bench/ROOT.md`.

use std::fmt::Write as _;
use std::io::Read;
use std::time::{Duration, Instant};

/// Opens and reads per round.
const OPENS: usize = 10_000;
/// Rounds of each way, in turns.
const ROUNDS: usize = 5;

/// The fast path measured: `openat2(RESOLVE_BENEATH)` from the `Dir`'s handle, cap-std
/// when the kernel has no `openat2` or asks for a walk.
#[cfg(target_os = "linux")]
fn fast_way(root: &cap_std::fs::Dir, rel: &str, buf: &mut Vec<u8>) -> usize {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    use rustix::io::Errno;
    let flags = OFlags::RDONLY | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    let mut file = match rustix::fs::openat2(root, rel, flags, Mode::empty(), resolve) {
        Ok(fd) => std::fs::File::from(fd),
        Err(Errno::NOSYS | Errno::AGAIN | Errno::XDEV) => return cap_std_way(root, rel, buf),
        Err(e) => panic!("openat2: {e}"),
    };
    assert!(file.metadata().expect("fstat").is_file());
    buf.clear();
    file.read_to_end(buf).expect("read")
}

/// cap-std's open beneath the `Dir`, alone.
fn cap_std_way(root: &cap_std::fs::Dir, rel: &str, buf: &mut Vec<u8>) -> usize {
    use cap_fs_ext::OpenOptionsSyncExt;
    let mut options = cap_std::fs::OpenOptions::new();
    options.read(true).nonblock(true);
    #[cfg(target_os = "linux")]
    cap_std::fs::OpenOptionsExt::custom_flags(
        &mut options,
        rustix::fs::OFlags::NOCTTY.bits() as i32,
    );
    let mut file = root.open_with(rel, &options).expect("open_with").into_std();
    assert!(file.metadata().expect("fstat").is_file());
    buf.clear();
    file.read_to_end(buf).expect("read")
}

/// One round: `OPENS` opens and reads of `rel` the given way.
fn round(mut open: impl FnMut(&mut Vec<u8>) -> usize) -> Duration {
    let mut buf = Vec::with_capacity(4096);
    let start = Instant::now();
    let mut bytes = 0;
    for _ in 0..OPENS {
        bytes += open(&mut buf);
    }
    let took = start.elapsed();
    assert!(bytes > 0);
    took
}

fn median(mut rounds: Vec<Duration>) -> Duration {
    rounds.sort();
    rounds[rounds.len() / 2]
}

#[cfg(target_os = "linux")]
fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let note = "# A note\n\nSome text of a usual note, a few lines long.\n".repeat(20);
    std::fs::create_dir_all(dir.path().join("work/projects/2026")).expect("folders");
    std::fs::write(dir.path().join("n.md"), &note).expect("note");
    std::fs::write(dir.path().join("work/projects/2026/n.md"), &note).expect("note");
    let cap = cap_std::fs::Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority())
        .expect("open dir");
    let mut table = String::from(
        "| Note | fast path (openat2 by hand) | cap-std alone | cap-std / fast path |\n|---|---|---|---|\n",
    );
    for rel in ["n.md", "work/projects/2026/n.md"] {
        let (mut fast, mut cap_std) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            fast.push(round(|buf| fast_way(&cap, rel, buf)));
            cap_std.push(round(|buf| cap_std_way(&cap, rel, buf)));
        }
        let (fast, cap_std) = (median(fast), median(cap_std));
        let per = |d: Duration| format!("{:.2} µs", d.as_secs_f64() * 1e6 / OPENS as f64);
        writeln!(
            table,
            "| `{rel}` | {} | {} | {:.2}x |",
            per(fast),
            per(cap_std),
            cap_std.as_secs_f64() / fast.as_secs_f64()
        )
        .expect("write to a string");
    }
    let report = format!(
        "# Opening a note beneath the notes dir\n\n`just bench-root` (`cargo bench --bench root`): \
         {OPENS} opens, `fstat`s and reads of a 1.1 KB note per round, {ROUNDS} rounds of each \
         way in turns, the median round per open. Fast path: one `openat2(RESOLVE_BENEATH)` \
         by hand, cap-std where it cannot answer; cap-std alone: `Dir::open_with`, as \
         `ops::root` opens a note.\n\n{table}"
    );
    print!("{report}");
    std::fs::write("bench/ROOT.md", report).expect("write bench/ROOT.md");
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("the fast path (openat2) exists on Linux only");
}
