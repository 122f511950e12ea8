//! What one request costs follows what it shows: the real server is asked for a page
//! of a note of many links, an editor's preview embedding a note of a huge title many
//! times, a public page of that note of many links, and the diff of two large versions,
//! and each answer must weigh at most a constant times its input plus a fixed budget,
//! while the server's peak resident memory during the request (reset before it) stays
//! under its memory before plus 64 MiB plus four times the input.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Server, Workspace, eventually, json, note};

const MIB: u64 = 1024 * 1024;
/// What a page may weigh beyond `WEIGHT` bytes for each byte of its input.
const BUDGET: u64 = MIB;
/// Bytes of answer per byte of input at most (a short link makes a long anchor).
const WEIGHT: u64 = 16;
/// `[[a]] ` over and over: a paragraph of half a million links to a missing note.
const LINKS: usize = 1_000_000;

/// A field of `/proc/<pid>/status`, in bytes.
fn status(pid: u32, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = text
        .lines()
        .find(|line| line.starts_with(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field} in {text}"));
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    kib * 1024
}

/// Runs `request` against `server` and checks what it cost: the answer (its bytes)
/// at most `WEIGHT` times `input` plus `BUDGET`, the server's peak memory meanwhile at
/// most its memory before plus 64 MiB plus four times `input`. Returns the answer.
fn bounded(
    server: &Server,
    what: &str,
    input: usize,
    request: impl FnOnce() -> Vec<u8>,
) -> Vec<u8> {
    let pid = server.pid();
    // Writing 5 sets the peak (VmHWM) to the memory now.
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
    let before = status(pid, "VmRSS");
    let started = Instant::now();
    let answer = request();
    let took = started.elapsed();
    let peak = status(pid, "VmHWM");
    let input = input as u64;
    let (grew, allowed) = (peak.saturating_sub(before), 64 * MIB + 4 * input);
    eprintln!(
        "{what}: {} bytes in, {} out, {} MiB before, +{} MiB at the peak, {took:?}",
        input,
        answer.len(),
        before / MIB,
        grew / MIB
    );
    assert!(
        (answer.len() as u64) <= WEIGHT * input + BUDGET,
        "{what}: {} bytes for {input} bytes of input",
        answer.len()
    );
    assert!(
        grew <= allowed,
        "{what}: the server grew by {} MiB (allowed: {} MiB)",
        grew / MIB,
        allowed / MIB
    );
    answer
}

/// Starts the server on `ws` and waits until it has read every note (indexed and
/// recorded in the history), so that nothing else runs during a measure.
fn serve_idle(ws: &Workspace, notes: &[&str]) -> Server {
    // Every version trusted as soon as read, so nothing is read again once settled.
    let server = ws.serve_settled();
    for path in notes {
        let recorded = eventually(Duration::from_secs(60), || {
            server.get(&format!("/api/v1/history/{path}")).status() == 200
        });
        assert!(recorded, "{path} not recorded:\n{}", server.log());
    }
    let indexed = eventually(Duration::from_secs(60), || {
        let (status, body) = json(server.get("/api/v1/search?q=indexed"));
        status == 200 && body["total"].as_u64() == Some(notes.len() as u64)
    });
    assert!(indexed, "not indexed:\n{}", server.log());
    // A small page first: what every page sets up once is not the request's.
    assert_eq!(server.get("/note/small.md").status(), 200);
    server
}

fn many_links() -> String {
    note("Many indexed", &[], &"[[a]] ".repeat(LINKS / 6))
}

#[test]
fn a_note_of_many_links_renders_in_memory_bounded_by_its_size() {
    let ws = Workspace::new();
    let text = many_links();
    ws.write("many.md", &text);
    ws.write("small.md", &note("Small indexed", &[], "[[many]]\n"));
    let server = serve_idle(&ws, &["many.md", "small.md"]);
    let page = bounded(&server, "note page", text.len(), || {
        let response = server.get("/note/many.md");
        assert_eq!(response.status(), 200);
        response.bytes().unwrap().to_vec()
    });
    let page = String::from_utf8(page).unwrap();
    // Every link is on the page, the page is whole.
    assert_eq!(
        page.matches(r#"<a class="missing" href="/new?path=a.md">a</a>"#)
            .count(),
        LINKS / 6
    );
    assert!(
        page.trim_end().ends_with("</html>"),
        "{}",
        &page[page.len() - 200..]
    );
}

#[test]
fn a_public_page_of_many_links_is_written_in_memory_bounded_by_its_size() {
    let ws = Workspace::new();
    let text = many_links();
    ws.write("many.md", &text);
    ws.write("small.md", &note("Small indexed", &[], "Hi.\n"));
    let server = serve_idle(&ws, &["many.md", "small.md"]);
    bounded(&server, "publish", text.len(), || {
        let (status, body) = server.toggle("many.md");
        assert_eq!(
            (status, &body["status"]),
            (200, &Value::from("public")),
            "{body}"
        );
        std::fs::read(ws.public().join("many.html")).unwrap()
    });
}

#[test]
fn a_preview_embedding_a_huge_title_many_times_shows_bounded_cards() {
    let ws = Workspace::new();
    let title = "T".repeat(100_000);
    ws.write("big.md", &note(&title, &[], "indexed\n"));
    ws.write("small.md", &note("Small indexed", &[], "Hi.\n"));
    let server = serve_idle(&ws, &["big.md", "small.md"]);
    let body = "![[big]]\n".repeat(2_000);
    let form =
        serde_urlencoded::to_string([("path", "p.md"), ("title", "P"), ("body", &body)]).unwrap();
    let html = bounded(&server, "preview", body.len() + title.len(), || {
        let response = server.post_form("/preview", &form);
        assert_eq!(response.status(), 200);
        response.bytes().unwrap().to_vec()
    });
    let html = String::from_utf8(html).unwrap();
    // 100 cards, each title cut to 200 characters; the other embeds are plain links.
    assert_eq!(html.matches(r#"class="embed""#).count(), 100);
    let shown = format!(r#"<span class="embed-title">{}…</span>"#, "T".repeat(199));
    assert_eq!(html.matches(&shown).count(), 100);
    assert_eq!(
        html.matches(r#"<a href="/note/big.md">big</a>"#).count(),
        1_900
    );
}

#[test]
fn a_diff_of_versions_too_large_says_so_instead_of_rendering() {
    let ws = Workspace::new();
    ws.write("small.md", &note("Small indexed", &[], "Hi.\n"));
    let server = serve_idle(&ws, &["small.md"]);
    // Two versions of 1 MB with the same lines in two orders: every line changes.
    let lines: Vec<String> = (0..50_000).map(|n| format!("line {n:>12}\n")).collect();
    let first = lines.concat();
    let second: String = lines.iter().rev().map(String::as_str).collect();
    for text in [&first, &second] {
        let response = server.put_markdown("/api/v1/notes/v.md", text);
        assert!(response.status().is_success(), "{:?}", response.text());
    }
    let (status, history) = json(server.get("/api/v1/history/v.md"));
    assert_eq!(status, 200, "{history}");
    let ids: Vec<&str> = history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    // Indexed, so that the indexer does not run during the measure.
    let indexed = eventually(Duration::from_secs(60), || {
        let (status, body) = json(server.get("/api/v1/search?q=line"));
        status == 200 && body["total"].as_u64() == Some(1)
    });
    assert!(indexed, "not indexed:\n{}", server.log());
    let url = format!("/history/v.md?from={}&to={}", ids[1], ids[0]);
    let input = first.len() + second.len();
    let page = bounded(&server, "diff", input, || {
        let response = server.get(&url);
        assert_eq!(response.status(), 200);
        response.bytes().unwrap().to_vec()
    });
    let page = String::from_utf8(page).unwrap();
    assert!(
        page.contains("These versions are too large to compare here"),
        "{page}"
    );
    assert!(!page.contains("<table class=\"diff\""), "{page}");
    // It shows none of the texts: a page of the fixed budget.
    assert!(page.len() < 256 * 1024, "{}", page.len());
    // Versions within the limits are compared as before.
    server.put_markdown("/api/v1/notes/w.md", "one\ntwo\n");
    server.put_markdown("/api/v1/notes/w.md", "one\nthree\n");
    let (_, history) = json(server.get("/api/v1/history/w.md"));
    let latest = history["versions"][0]["id"].as_str().unwrap();
    let page = server
        .get(&format!("/history/w.md?to={latest}"))
        .text()
        .unwrap();
    assert!(
        page.contains("<del>two</del>") && page.contains("<ins>three</ins>"),
        "{page}"
    );
}
