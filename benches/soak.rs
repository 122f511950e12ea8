//! Soak run (`just soak`): a bounded mixed workload against the release `notes serve`
//! on loopback — reads, writes, deletes, publication toggles and searches from many
//! threads for a fixed time — then checks that every acknowledged write is on disk
//! byte for byte, that no request got a 5xx, and that memory stayed flat. Writes the
//! figures to bench/SOAK.md.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const THREADS: usize = 16;
const PATHS_PER_THREAD: usize = 40;
/// Upper bound on requests per thread, whatever the duration.
const MAX_REQUESTS_PER_THREAD: usize = 200_000;

#[derive(Default)]
struct Tally {
    by_status: Mutex<HashMap<u16, u64>>,
    transport_errors: AtomicU64,
    requests: AtomicU64,
}

impl Tally {
    fn record(&self, status: Option<u16>) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        match status {
            Some(code) => *self.by_status.lock().unwrap().entry(code).or_default() += 1,
            None => {
                self.transport_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// A `/proc/PID/status` figure in KiB: `VmRSS` (all resident memory, including the
/// search index's memory-mapped files) or `RssAnon` (the heap and stacks alone).
fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn seed_notes(dir: &Path) {
    for i in 0..200 {
        let folder = dir.join(format!("seed{:02}", i % 10));
        std::fs::create_dir_all(&folder).unwrap();
        let words = [
            "garden", "river", "mountain", "letter", "autumn", "été", "forêt",
        ];
        let body: Vec<&str> = (0..300).map(|j| words[(i * 7 + j) % words.len()]).collect();
        std::fs::write(
            folder.join(format!("n{i:03}.md")),
            format!(
                "---\ntitle: Seed {i}\ndate: 01-01-2025\nlast_modified: 01-01-2025:10:00\ntags: [soak]\n---\n\n{}\n",
                body.join(" ")
            ),
        )
        .unwrap();
    }
}

fn main() {
    let seconds: u64 = std::env::var("SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60)
        // Shorter runs are all warm-up: the flatness check needs quarters of steady load.
        .clamp(30, 1800);
    let work = tempfile::tempdir().unwrap();
    let notes_dir = work.path().join("notes");
    seed_notes(&notes_dir);
    let log = std::fs::File::create(work.path().join("server.log")).unwrap();
    let (mut server, base) =
        common::start_server(&notes_dir, &work.path().join("public"), log.into());
    let pid = server.id();

    let tally = Arc::new(Tally::default());
    let acknowledged = Arc::new(Mutex::new(HashMap::<String, Option<String>>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let client = reqwest::blocking::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();

    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (client, base, tally, acknowledged, stop) = (
                client.clone(),
                base.clone(),
                tally.clone(),
                acknowledged.clone(),
                stop.clone(),
            );
            std::thread::spawn(move || {
                for i in 0..MAX_REQUESTS_PER_THREAD {
                    if stop.load(Ordering::Relaxed) || Instant::now() > deadline {
                        break;
                    }
                    let own = format!("soak/t{t:02}/n{:02}.md", i % PATHS_PER_THREAD);
                    let n = (i * 13 + t) % 200;
                    let seed = format!("seed{:02}/n{n:03}.md", n % 10);
                    let (request, write) = match i % 10 {
                        0..=3 => (
                            client.get(format!("{base}/api/v1/notes/{seed}")).header(
                                "Accept",
                                if i % 2 == 0 {
                                    "text/markdown"
                                } else {
                                    "application/json"
                                },
                            ),
                            None,
                        ),
                        4 | 5 => {
                            let content = format!(
                                "---\ntitle: t{t} i{i}\n---\n{}\n",
                                format!("t{t}-i{i} ").repeat(100 + i % 400)
                            );
                            (
                                client
                                    .put(format!("{base}/api/v1/notes/{own}"))
                                    .header("Content-Type", "application/json")
                                    .body(serde_json::json!({ "content": content }).to_string()),
                                Some((own.clone(), Some(content))),
                            )
                        }
                        6 => (
                            client.delete(format!("{base}/api/v1/notes/{own}")),
                            Some((own.clone(), None)),
                        ),
                        7 => (
                            client
                                .post(format!("{base}/api/public/toggle"))
                                .header("Content-Type", "application/x-www-form-urlencoded")
                                .body(format!("path={seed}")),
                            None,
                        ),
                        8 => (
                            client.get(format!("{base}/api/v1/search?q=garden&limit=10")),
                            None,
                        ),
                        _ => (client.get(format!("{base}/api/v1/notes")), None),
                    };
                    let status = request.send().ok().map(|r| {
                        let code = r.status().as_u16();
                        let _ = r.bytes();
                        code
                    });
                    tally.record(status);
                    // An acknowledged write or delete decides what must be on disk; a
                    // delete of a note that was not there (404) leaves it absent too.
                    if let (Some((path, content)), Some(code)) = (write, status)
                        && ((200..300).contains(&code) || (content.is_none() && code == 404))
                    {
                        acknowledged.lock().unwrap().insert(path, content);
                    }
                }
            })
        })
        .collect();

    let mut samples = Vec::new();
    let started = Instant::now();
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_secs(1));
        samples.push((status_kib(pid, "VmRSS"), status_kib(pid, "RssAnon")));
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    let elapsed = started.elapsed();
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let _ = server.wait();

    // Every acknowledged write is on disk, byte for byte; every acknowledged delete is gone.
    let acknowledged = acknowledged.lock().unwrap();
    let mut lost = 0;
    for (path, content) in acknowledged.iter() {
        let on_disk = std::fs::read_to_string(notes_dir.join(path)).ok();
        if on_disk != *content {
            lost += 1;
            eprintln!("MISMATCH {path}");
        }
    }
    let statuses = tally.by_status.lock().unwrap().clone();
    let server_errors: u64 = statuses
        .iter()
        .filter(|(c, _)| **c >= 500)
        .map(|(_, n)| n)
        .sum();
    let requests = tally.requests.load(Ordering::Relaxed);
    let transport = tally.transport_errors.load(Ordering::Relaxed);
    let quarter = samples.len() / 4;
    let avg = |s: &[(u64, u64)], anon: bool| {
        s.iter()
            .map(|&(rss, a)| if anon { a } else { rss })
            .sum::<u64>() as f64
            / s.len().max(1) as f64
    };
    let (second, last) = (
        &samples[quarter..quarter * 2],
        &samples[samples.len() - quarter..],
    );
    let early = avg(second, false);
    let late = avg(last, false);
    let early_anon = avg(second, true);
    let late_anon = avg(last, true);
    let peak = samples.iter().map(|s| s.0).max().unwrap_or(0);
    let growth = late_anon / early_anon.max(1.0);
    let mut codes: Vec<_> = statuses.into_iter().collect();
    codes.sort();

    let report = format!(
        "# Soak run\n\n`just soak`: {THREADS} threads, {secs:.0} s of mixed requests (40% GET, 20% PUT, \
         10% DELETE, 10% toggle, 10% search, 10% list) on loopback against the release binary.\n\n\
         | figure | value |\n|---|---:|\n\
         | requests | {requests} |\n| requests/s | {rps:.0} |\n| status counts | {codes} |\n\
         | transport errors | {transport} |\n| 5xx responses | {server_errors} |\n\
         | acknowledged writes/deletes checked on disk | {checked} |\n| lost or torn | {lost} |\n\
         | RSS, second quarter avg | {early:.1} MiB |\n| RSS, last quarter avg | {late:.1} MiB |\n\
         | RSS peak | {peak:.1} MiB |\n\
         | heap (RssAnon), second quarter avg | {early_anon:.1} MiB |\n\
         | heap (RssAnon), last quarter avg | {late_anon:.1} MiB |\n\
         | heap growth (last / second quarter) | {growth:.2}x |\n\n\
         RSS also counts the search index's memory-mapped segment files, which grow with the \
         index between merges; the flatness check is on the heap.\n",
        secs = elapsed.as_secs_f64(),
        rps = requests as f64 / elapsed.as_secs_f64(),
        codes = codes
            .iter()
            .map(|(c, n)| format!("{c}: {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        checked = acknowledged.len(),
        early = early / 1024.0,
        late = late / 1024.0,
        peak = peak as f64 / 1024.0,
        early_anon = early_anon / 1024.0,
        late_anon = late_anon / 1024.0,
    );
    println!("{report}");
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/SOAK.md");
    std::fs::write(&out, &report).unwrap();
    let mut failed = Vec::new();
    if lost > 0 {
        failed.push(format!("{lost} acknowledged writes not on disk"));
    }
    if server_errors > 0 {
        failed.push(format!("{server_errors} responses were 5xx"));
    }
    if transport > 0 {
        failed.push(format!("{transport} requests failed in transport"));
    }
    if growth > 1.25 {
        failed.push(format!("heap grew {growth:.2}x"));
    }
    if !failed.is_empty() {
        eprintln!("SOAK FAILED: {}", failed.join("; "));
        std::process::exit(1);
    }
    println!("soak passed");
}
