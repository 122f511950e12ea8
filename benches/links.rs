//! Links benchmark (`just bench-links`): 10k generated notes linking to each other (a
//! wikilink by file name, one by title, a relative Markdown link each, and one note
//! linked from 50 others), served by a real `notes serve` on loopback. Measures
//! `GET /api/v1/links/{path}` against `GET /api/v1/notes/{path}` of the same notes in
//! the same run, and the web note page of the note linked from 50 others (its "Linked
//! from"), warm and on its first view after an edit. The table is printed and written
//! to `bench/LINKS.md`.

mod common;
#[path = "common/stats.rs"]
mod stats;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use stats::{ms, percentile};

const NOTES: usize = 10_000;
const REQUESTS: usize = 1_000;
/// Notes linking to the hub note `f00/note-00000.md`.
const HUB_LINKS: usize = 50;
const HUB: &str = "f00/note-00000.md";
/// Views of the hub's page timed warm, and edits each followed by one timed view.
const PAGE_VIEWS: usize = 100;
const EDITS: usize = 20;

/// A small deterministic generator (64-bit LCG), so every run has the same links.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn path_of(i: usize) -> String {
    format!("f{:02}/note-{i:05}.md", i % 50)
}

fn generate(dir: &Path) {
    let mut rng = Rng(11);
    for i in 0..NOTES {
        let path = dir.join(path_of(i));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let (a, b, c) = (rng.below(NOTES), rng.below(NOTES), rng.below(NOTES));
        let mut text = format!(
            "---\ntitle: Topic {i} notes\n---\n# Topic {i}\n\nSee [[note-{a:05}]] and \
             [[Topic {b} notes|that one]].\n\nAlso [the other](../{}).\n",
            path_of(c)
        );
        if i % (NOTES / HUB_LINKS) == 1 {
            text.push_str("\nBack to [[f00/note-00000]].\n");
        }
        for p in 0..4 {
            let _ = writeln!(
                text,
                "\nParagraph {p} of note {i}, some words to read past."
            );
        }
        std::fs::write(path, text).unwrap();
    }
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    eprintln!("generating {NOTES} notes in {}", dir.display());
    generate(&dir);
    let (mut server, base) = common::start_server(&dir, &tmp.path().join("public"), Stdio::null());
    let client = reqwest::blocking::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let get_json = |path: &str| -> serde_json::Value {
        client
            .get(format!("{base}{path}"))
            .send()
            .and_then(|r| r.json())
            .unwrap_or_default()
    };
    // The start-up catch-up indexes every note; wait for it (bounded).
    let started = Instant::now();
    loop {
        let hub = get_json(&format!("/api/v1/links/{HUB}"));
        let count = hub["incoming"].as_array().map_or(0, Vec::len);
        if count >= HUB_LINKS {
            eprintln!("indexed in {:.1} s", started.elapsed().as_secs_f64());
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "not indexed");
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut rng = Rng(5);
    let picks: Vec<String> = (0..REQUESTS).map(|_| path_of(rng.below(NOTES))).collect();
    let timed = |route: &str, path: &str| {
        let t = Instant::now();
        let response = client.get(format!("{base}{route}{path}")).send().unwrap();
        assert!(response.status().is_success(), "{route}{path}");
        std::hint::black_box(response.bytes().unwrap());
        t.elapsed()
    };
    // Warm both routes once over every note picked (the file caches, the resolver).
    for path in &picks {
        timed("/api/v1/links/", path);
        timed("/api/v1/notes/", path);
    }
    let mut links = Vec::with_capacity(REQUESTS);
    let mut reads = Vec::with_capacity(REQUESTS);
    for path in &picks {
        links.push(timed("/api/v1/links/", path));
        reads.push(timed("/api/v1/notes/", path));
    }
    let mut hub = (0..100)
        .map(|_| timed("/api/v1/links/", HUB))
        .collect::<Vec<_>>();
    // The hub's web page: warm, then its first view after an edit of another note
    // made through the API (the page must show the service's own writes at once).
    timed("/note/", HUB);
    let mut page = (0..PAGE_VIEWS)
        .map(|_| timed("/note/", HUB))
        .collect::<Vec<_>>();
    let mut after_edit = Vec::with_capacity(EDITS);
    for e in 0..EDITS {
        // Not the hub, nor a note linking to it (the edit drops the note's links).
        let edited = path_of(
            (0..)
                .map(|_| rng.below(NOTES))
                .find(|i| i % (NOTES / HUB_LINKS) > 1)
                .unwrap_or(2),
        );
        let response = client
            .put(format!("{base}/api/v1/notes/{edited}"))
            .header("Content-Type", "text/markdown")
            .body(format!(
                "# Edited {e}\n\nSee [[note-{:05}]].\n",
                rng.below(NOTES)
            ))
            .send()
            .unwrap();
        assert!(response.status().is_success(), "PUT {edited}");
        after_edit.push(timed("/note/", HUB));
    }
    let _ = server.kill();
    let _ = server.wait();
    links.sort();
    reads.sort();
    hub.sort();
    page.sort();
    after_edit.sort();
    let read_p50 = percentile(&reads, 0.5);
    let mut rows: Vec<[String; 5]> = Vec::new();
    for (name, sorted, p, target) in [
        ("links p50", &links, 0.5, "≤ 5 ms"),
        ("links p99", &links, 0.99, ""),
        ("links of the hub note (≥ 50 backlinks) p50", &hub, 0.5, ""),
    ] {
        let value = percentile(sorted, p);
        rows.push([
            format!("GET /api/v1/links/{{path}}, {name}"),
            ms(value),
            target.into(),
            format!("GET /api/v1/notes/{{path}} p50: {}", ms(read_p50)),
            format!("{:.1}×", value.as_secs_f64() / read_p50.as_secs_f64()),
        ]);
    }
    for (name, sorted, p) in [
        ("warm p50", &page, 0.5),
        ("first view after an edit p50", &after_edit, 0.5),
        ("first view after an edit max", &after_edit, 1.0),
    ] {
        let value = percentile(sorted, p);
        rows.push([
            format!("GET /note/{{path}} of the hub note (50 backlinks), {name}"),
            ms(value),
            String::new(),
            format!("GET /api/v1/notes/{{path}} p50: {}", ms(read_p50)),
            format!("{:.1}×", value.as_secs_f64() / read_p50.as_secs_f64()),
        ]);
    }
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut table = String::new();
    let _ = writeln!(table, "# Links benchmark\n");
    let _ = writeln!(
        table,
        "Generated by `just bench-links` (`benches/links.rs`): {NOTES} generated notes with \
         three links each (file name, title, relative path) and one note linked from \
         {HUB_LINKS} others; {REQUESTS} requests for random notes, one at a time, over \
         loopback; the hub's web page {PAGE_VIEWS} times warm, then once after each of \
         {EDITS} edits of other notes through the API; {cores} CPU core(s), release \
         build.\n"
    );
    let _ = writeln!(table, "| measure | value | target | reference | ratio |");
    let _ = writeln!(table, "|---|---|---|---|---|");
    for row in &rows {
        let _ = writeln!(table, "| {} |", row.join(" | "));
    }
    print!("{table}");
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/LINKS.md");
    std::fs::write(&out, table).unwrap();
    eprintln!("written to {}", out.display());
}
