//! Search benchmark (`just bench-search`): a generated, deterministic 10k-note corpus;
//! full reindex time, query latency, and PUT-to-searchable latency against a real
//! `notes serve` on loopback. Each figure comes with a reference measured in the same
//! run on the same machine, so the ratio means something on any hardware. The table is
//! printed and written to `bench/SEARCH.md`.

mod common;
#[path = "common/stats.rs"]
mod stats;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use notes::ops::search::updater::IndexUpdater;
use notes::ops::search::{Limit, NotesIndex, Query};
use notes::ops::store;
use stats::{ms, percentile};

const NOTES: usize = 10_000;
const QUERIES: usize = 300;
const PUTS: usize = 40;
/// Give up on one PUT-to-searchable measure after this long.
const PUT_TIMEOUT: Duration = Duration::from_secs(5);

/// A small deterministic generator (64-bit LCG), so every run indexes the same text.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SEEDS: &[&str] = &[
    "été", "café", "réunion", "projet", "rust", "tokio", "index", "musée", "paris", "lyon",
    "garden", "recipe", "budget", "voyage", "écrire", "lecture", "server", "release", "bug",
    "design", "notes", "markdown", "search", "phrase", "déjà", "naïve", "forêt", "château",
];

fn vocabulary(rng: &mut Rng) -> Vec<String> {
    let syllables = [
        "ka", "lo", "mi", "ré", "tu", "an", "po", "zé", "ri", "ve", "no", "sa", "qu", "è",
    ];
    let mut words: Vec<String> = SEEDS.iter().map(|s| s.to_string()).collect();
    while words.len() < 5_000 {
        let n = 2 + rng.below(3);
        words.push(
            (0..n)
                .map(|_| syllables[rng.below(syllables.len())])
                .collect(),
        );
    }
    words
}

fn generate(dir: &Path) -> Vec<String> {
    let mut rng = Rng(42);
    let words = vocabulary(&mut rng);
    // Zipf-like: low indexes are much more frequent.
    let word = |rng: &mut Rng| {
        let i = (rng.below(words.len()) * rng.below(words.len())) / words.len();
        words[i].clone()
    };
    let tags = [
        "work", "home", "idée", "rust", "voyage", "lecture", "draft", "todo",
    ];
    for i in 0..NOTES {
        let folder = format!("f{:02}", i % 50);
        std::fs::create_dir_all(dir.join(&folder)).unwrap();
        let title: Vec<String> = (0..3).map(|_| word(&mut rng)).collect();
        let note_tags: Vec<&str> = (0..rng.below(3))
            .map(|_| tags[rng.below(tags.len())])
            .collect();
        let mut body = String::new();
        for p in 0..(3 + rng.below(5)) {
            let len = 30 + rng.below(60);
            let sentence: Vec<String> = (0..len).map(|_| word(&mut rng)).collect();
            let _ = write!(
                body,
                "{}{}.\n\n",
                if p == 0 { "# " } else { "" },
                sentence.join(" ")
            );
        }
        let text = format!(
            "---\ntitle: {}\ndate: 01-01-2026\nlast_modified: 01-01-2026:10:00\ntags: [{}]\n---\n\n{body}",
            title.join(" "),
            note_tags.join(", ")
        );
        std::fs::write(dir.join(folder).join(format!("note-{i:05}.md")), text).unwrap();
    }
    words
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    eprintln!("generating {NOTES} notes in {}", dir.display());
    let words = generate(&dir);
    let mut rows: Vec<[String; 5]> = Vec::new();

    // 1. Full reindex, against walking and reading the same files.
    let walk = || {
        let t = Instant::now();
        let mut bytes = 0;
        for file in store::note_files(&dir).unwrap() {
            bytes += std::fs::read(dir.join(file.path())).unwrap().len();
        }
        assert!(bytes > 0);
        t.elapsed()
    };
    walk(); // warm the page cache, as it is for the reindex
    let walk_time = walk();
    let index = NotesIndex::open_or_create(&dir).unwrap();
    let mut updater = IndexUpdater::new(index.clone(), &dir).unwrap();
    let t = Instant::now();
    let count = updater.rebuild(&mut |_, _| {}).unwrap();
    let reindex = t.elapsed();
    assert_eq!(count, NOTES);
    drop(updater);
    rows.push([
        format!("full reindex, {NOTES} notes"),
        format!("{:.2} s", reindex.as_secs_f64()),
        "≤ 3 s".into(),
        format!("walk + read the files: {}", ms(walk_time)),
        format!("{:.1}×", reindex.as_secs_f64() / walk_time.as_secs_f64()),
    ]);

    // 2. Query latency (top 20 with snippets), against a linear scan of the texts in memory.
    let mut rng = Rng(7);
    let queries: Vec<String> = (0..QUERIES)
        .map(|i| {
            let a = &words[rng.below(200)];
            let b = &words[rng.below(200)];
            match i % 5 {
                0 => format!("{a} "),
                1 => format!("{a} {b} "),
                2 => format!("\"{a} {b}\""),
                3 => a.chars().take(3).collect(),
                _ => format!("tag:rust {a} "),
            }
        })
        .collect();
    let mut latencies = Vec::with_capacity(QUERIES);
    for q in &queries {
        let t = Instant::now();
        let query = Query::parse(q).unwrap();
        let results = index.search(&dir, &query, Limit::DEFAULT).unwrap();
        latencies.push(t.elapsed());
        std::hint::black_box(results);
    }
    latencies.sort();
    let texts: Vec<String> = store::note_files(&dir)
        .unwrap()
        .iter()
        .map(|f| {
            std::fs::read_to_string(dir.join(f.path()))
                .unwrap()
                .to_lowercase()
        })
        .collect();
    let mut scans = Vec::new();
    for q in queries.iter().take(50) {
        let needle = q.trim().trim_matches('"').to_lowercase();
        let t = Instant::now();
        let hits = texts.iter().filter(|t| t.contains(&needle)).count();
        scans.push(t.elapsed());
        std::hint::black_box(hits);
    }
    scans.sort();
    let scan_p50 = percentile(&scans, 0.5);
    for (name, p, target) in [("query p50", 0.5, "≤ 5 ms"), ("query p99", 0.99, "")] {
        let value = percentile(&latencies, p);
        rows.push([
            format!("{name} ({QUERIES} queries, top 20 + snippets)"),
            ms(value),
            target.into(),
            format!("linear scan of the texts in memory, p50: {}", ms(scan_p50)),
            format!("{:.3}×", value.as_secs_f64() / scan_p50.as_secs_f64()),
        ]);
    }

    // 3. PUT to searchable, through a real `notes serve` on loopback.
    let (mut server, base) = common::start_server(&dir, &dir.join(".bench-public"), Stdio::null());
    let client = reqwest::blocking::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let found = |token: &str| -> bool {
        client
            .get(format!("{base}/api/v1/search?q={token}&limit=1"))
            .send()
            .and_then(|r| r.json::<serde_json::Value>())
            .is_ok_and(|v| v["total"] == 1)
    };
    // Let the startup catch-up finish (bounded).
    let settle = Instant::now();
    while !found("note") && settle.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let mut to_searchable = Vec::new();
    let mut put_only = Vec::new();
    let mut missed = 0;
    for i in 0..PUTS {
        let token = format!("benchtoken{i:03}x");
        let t = Instant::now();
        let response = client
            .put(format!("{base}/api/v1/notes/bench/put-{i:03}.md"))
            .header("Content-Type", "text/markdown")
            .body(format!("# Put {i}\n\nA fresh note with {token} in it.\n"))
            .send()
            .unwrap();
        assert!(response.status().is_success());
        put_only.push(t.elapsed());
        loop {
            if found(&token) {
                to_searchable.push(t.elapsed());
                break;
            }
            if t.elapsed() > PUT_TIMEOUT {
                missed += 1;
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let _ = server.kill();
    let _ = server.wait();
    to_searchable.sort();
    put_only.sort();
    let put_p50 = percentile(&put_only, 0.5);
    for (name, p, target) in [
        ("PUT → searchable p50", 0.5, "≤ 1 s"),
        ("PUT → searchable p99", 0.99, ""),
    ] {
        let value = percentile(&to_searchable, p);
        rows.push([
            format!("{name} ({PUTS} PUTs, {missed} missed)"),
            ms(value),
            target.into(),
            format!("PUT response alone, p50: {}", ms(put_p50)),
            format!("{:.1}×", value.as_secs_f64() / put_p50.as_secs_f64()),
        ]);
    }

    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut table = String::new();
    let _ = writeln!(table, "# Search benchmark\n");
    let _ = writeln!(
        table,
        "Generated by `just bench-search` (`benches/search.rs`): {NOTES} generated notes \
         (deterministic), {cores} CPU core(s), release build. Each figure is compared with a \
         reference measured in the same run.\n"
    );
    let _ = writeln!(table, "| measure | value | target | reference | ratio |");
    let _ = writeln!(table, "|---|---|---|---|---|");
    for row in &rows {
        let _ = writeln!(table, "| {} |", row.join(" | "));
    }
    print!("{table}");
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/SEARCH.md");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(&out, table).unwrap();
    eprintln!("written to {}", out.display());
}
