//! Publishing under crashes and failures: the server killed (`kill -9`) in the middle of
//! toggle storms, writes that fail in the public folder, a corrupt record. After each,
//! the record, the pages, `index.html` and `feed.xml` must agree.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::support::{
    Workspace, assert_error, http_client, json, note, public_paths, stderr, stdout,
};

/// The notes of the storms: two of them share a page name (`same.html`).
const NOTES: [(&str, &str); 5] = [
    ("one.md", "One"),
    ("two.md", "Two"),
    ("three.md", "Three"),
    ("a/same.md", "Same A"),
    ("b/same.md", "Same B"),
];

const GENERATOR: &str = r#"<meta name="generator" content="notes">"#;

fn workspace() -> Workspace {
    let ws = Workspace::new();
    for (path, title) in NOTES {
        ws.write(path, &note(title, &[], &format!("Text of {title}.\n")));
    }
    ws
}

/// A small xorshift generator: the storms differ from run to run, and a failing seed
/// is printed so it can be replayed.
struct Rng(u64);

impl Rng {
    fn seeded() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        Rng(nanos | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// One entry of `.public.json`.
struct Entry {
    path: String,
    title: String,
    file: String,
    published_at: String,
}

fn entries(ws: &Workspace) -> Vec<Entry> {
    let Ok(text) = std::fs::read_to_string(ws.notes().join(".public.json")) else {
        return Vec::new();
    };
    let record: serde_json::Value = serde_json::from_str(&text).unwrap();
    record["notes"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(path, e)| Entry {
            path: path.clone(),
            title: e["title"].as_str().unwrap().to_string(),
            file: e["file"].as_str().unwrap().to_string(),
            published_at: e["published_at"].as_str().unwrap().to_string(),
        })
        .collect()
}

/// The texts between each `start` and the next `end`.
fn between(text: &str, start: &str, end: &str) -> Vec<String> {
    text.split(start)
        .skip(1)
        .filter_map(|rest| rest.split_once(end).map(|(found, _)| found.to_string()))
        .collect()
}

/// Everything in the workspace that disagrees with the record, in words; empty when
/// the record, the pages, the index and the feed agree.
fn disagreements(ws: &Workspace) -> Vec<String> {
    let mut out = Vec::new();
    let entries = entries(ws);
    let read = |name: &str| std::fs::read_to_string(ws.public().join(name)).ok();
    // Each page name shows its latest publication.
    let mut owners: BTreeMap<&str, &Entry> = BTreeMap::new();
    for e in &entries {
        let owner = owners.entry(&e.file).or_insert(e);
        if e.published_at > owner.published_at {
            *owner = e;
        }
    }
    for (file, owner) in &owners {
        match read(file) {
            None => out.push(format!("{} has no page {file}", owner.path)),
            Some(page) if !page.contains(&format!("<title>{}</title>", owner.title)) => {
                out.push(format!("{file} does not show its owner {}", owner.path))
            }
            Some(_) => {}
        }
    }
    if let Ok(items) = std::fs::read_dir(ws.public()) {
        for item in items {
            let name = item.unwrap().file_name().into_string().unwrap();
            let generated = read(&name).is_some_and(|text| text.contains(GENERATOR));
            if name.ends_with(".html")
                && name != "index.html"
                && generated
                && !owners.contains_key(name.as_str())
            {
                out.push(format!("{name} is a page no entry names"));
            }
        }
    }
    let files: Vec<String> = entries.iter().map(|e| e.file.clone()).collect();
    let titles: Vec<String> = entries.iter().map(|e| e.title.clone()).collect();
    for (file, open, close, what, mut want) in [
        ("index.html", "<li><a href=\"", "\"", "links", files),
        ("feed.xml", "<entry>\n<title>", "<", "holds", titles),
    ] {
        let mut found = between(&read(file).unwrap_or_default(), open, close);
        found.sort();
        want.sort();
        if found != want {
            out.push(format!("{file} {what} {found:?}, the record {want:?}"));
        }
    }
    out
}

/// Two clients toggle random notes until the server dies.
fn storm(
    base: &str,
    stop: &Arc<AtomicBool>,
    done: &Arc<AtomicUsize>,
    seed: u64,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..2u64)
        .map(|n| {
            let (base, stop, done) = (base.to_string(), stop.clone(), done.clone());
            std::thread::spawn(move || {
                let client = http_client(Duration::from_secs(5));
                let mut rng = Rng(seed.wrapping_add(n * 7919) | 1);
                while !stop.load(Ordering::Relaxed) {
                    let (path, _) = NOTES[rng.below(NOTES.len() as u64) as usize];
                    let sent = client
                        .post(format!("{base}/api/public/toggle"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .body(format!("path={path}"))
                        .send();
                    match sent {
                        Ok(response) if response.status() == 200 => {
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(response) => panic!("toggle answered {}", response.status()),
                        Err(_) => break,
                    }
                }
            })
        })
        .collect()
}

#[test]
fn killing_the_server_during_toggle_storms_leaves_nothing_out_of_step_after_a_restart() {
    let started = Instant::now();
    let ws = workspace();
    let mut rng = Rng::seeded();
    let seed = rng.0;
    let done = Arc::new(AtomicUsize::new(0));
    let (mut broken_by_kill, mut broken_after_restart) = (0, Vec::new());
    for run in 0..50 {
        // The restart repairs whatever the last kill left.
        let server = ws.serve();
        let found = disagreements(&ws);
        if !found.is_empty() {
            broken_after_restart.push(format!("run {run}: {found:?}"));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let clients = storm(&server.base, &stop, &done, rng.below(u64::MAX));
        std::thread::sleep(Duration::from_millis(10 + rng.below(141)));
        drop(server); // SIGKILL, then wait.
        stop.store(true, Ordering::Relaxed);
        for client in clients {
            client.join().unwrap();
        }
        if !disagreements(&ws).is_empty() {
            broken_by_kill += 1;
        }
    }
    let server = ws.serve();
    let found = disagreements(&ws);
    if !found.is_empty() {
        broken_after_restart.push(format!("last restart: {found:?}"));
    }
    let listed = public_paths(&server).len();
    assert_eq!(listed, entries(&ws).len());
    eprintln!(
        "kill during toggles: 50 kills, {} toggles answered, {broken_by_kill} kills left the \
         files out of step, {} after the restart; {:.1} s (seed {seed})",
        done.load(Ordering::Relaxed),
        broken_after_restart.len(),
        started.elapsed().as_secs_f64(),
    );
    assert_eq!(broken_after_restart, Vec::<String>::new(), "seed {seed}");
    assert!(
        done.load(Ordering::Relaxed) >= 10,
        "the storms toggled (seed {seed})"
    );
}

#[test]
fn a_public_dir_that_cannot_be_created_fails_the_toggle_and_records_nothing() {
    let ws = workspace();
    let blocker = ws.root.path().join("a-file");
    std::fs::write(&blocker, "not a folder").unwrap();
    let public = blocker.join("public");
    let server = ws.serve_with(&["--public-dir", public.to_str().unwrap()]);
    let before = ws.snapshot();
    assert_error(
        server.post_form("/api/public/toggle", "path=one.md"),
        500,
        "Failed to generate HTML",
    );
    assert_eq!(ws.snapshot(), before, "nothing written");
    assert_eq!(public_paths(&server), Vec::<String>::new());
}

/// Puts a non-empty folder where a file of the public dir should be: writing that name
/// fails even for root, for whom permissions do not.
fn block(ws: &Workspace, name: &str) {
    let path = ws.public().join(name);
    let _ = std::fs::remove_file(&path);
    std::fs::create_dir_all(path.join("in-the-way")).unwrap();
}

#[test]
fn a_publication_that_cannot_finish_takes_its_page_back() {
    let ws = workspace();
    let server = ws.serve();
    assert_eq!(server.toggle("one.md").0, 200);
    let record = ws.record();
    let index = ws.public_text("index.html");
    block(&ws, "feed.xml");
    assert_error(
        server.post_form("/api/public/toggle", "path=two.md"),
        500,
        "Failed to generate HTML",
    );
    assert!(!ws.public().join("two.html").exists(), "no page left live");
    assert_eq!(ws.record(), record);
    assert_eq!(ws.public_text("index.html"), index);
    assert_eq!(public_paths(&server), ["one.md"]);
    // A page name taken by something that is not a page: refused the same way.
    block(&ws, "three.html");
    std::fs::remove_dir_all(ws.public().join("feed.xml")).unwrap();
    assert_error(
        server.post_form("/api/public/toggle", "path=three.md"),
        500,
        "Failed to generate HTML",
    );
    assert_eq!(ws.record(), record);
    assert_eq!(ws.public_text("index.html"), index);
}

#[test]
fn an_unpublication_or_delete_that_fails_leaves_the_note_public() {
    let ws = workspace();
    let server = ws.serve();
    assert_eq!(server.toggle("one.md").0, 200);
    let page = ws.public_text("one.html");
    let record = ws.record();
    for blocked in ["index.html", "feed.xml"] {
        let before = ws.public_files();
        block(&ws, blocked);
        assert_error(
            server.post_form("/api/public/toggle", "path=one.md"),
            500,
            "Failed to generate HTML",
        );
        assert_error(
            server
                .request("DELETE", "/api/v1/notes/one.md")
                .send()
                .unwrap(),
            500,
            "Failed to delete note",
        );
        assert!(ws.notes().join("one.md").exists(), "the note stays");
        assert_eq!(ws.public_text("one.html"), page, "its page stays live");
        assert_eq!(ws.record(), record, "the record still names it");
        assert_eq!(public_paths(&server), ["one.md"]);
        std::fs::remove_dir_all(ws.public().join(blocked)).unwrap();
        std::fs::write(ws.public().join(blocked), &before[blocked]).unwrap();
        assert_eq!(ws.public_files(), before, "every public file as it was");
    }
    // Once the folder is writable again, the toggle works and everything agrees.
    let (status, body) = server.toggle("one.md");
    assert_eq!((status, body["status"].as_str()), (200, Some("private")));
    assert_eq!(disagreements(&ws), Vec::<String>::new());
}

#[test]
fn a_corrupt_record_breaks_only_the_publishing_routes() {
    let ws = workspace();
    std::fs::write(ws.notes().join(".public.json"), "{ torn").unwrap();
    let server = ws.serve();
    let home = server.get("/");
    assert_eq!(home.status(), 200);
    assert!(home.text().unwrap().contains("Publish state unknown"));
    let page = server.get("/note/one.md");
    assert_eq!(page.status(), 200);
    let page = page.text().unwrap();
    assert!(page.contains("Publish state unknown"), "{page}");
    assert!(!page.contains(r#"value="publish""#), "no publish button");
    assert_eq!(json(server.get("/api/v1/notes")).0, 200);
    assert_eq!(json(server.get("/api/v1/notes/one.md")).0, 200);
    assert_eq!(
        server
            .put_markdown("/api/v1/notes/new.md", "# New\n")
            .status(),
        201
    );
    for response in [
        server.post_form("/api/public/toggle", "path=one.md"),
        server.get("/api/public/list"),
    ] {
        let (status, body) = json(response);
        assert_eq!((status, body["code"].as_u64()), (500, Some(500)), "{body}");
        let message = body["message"].as_str().unwrap();
        assert!(message.contains("public record"), "{message}");
    }
    assert_error(
        server
            .request("DELETE", "/api/v1/notes/one.md")
            .send()
            .unwrap(),
        500,
        "Failed to delete note",
    );
    assert!(ws.notes().join("one.md").exists());
    assert!(server.log().contains("cannot repair the public folder"));
    drop(server);
    for args in [
        &["list-public"][..],
        &["publish", "--repair"],
        &["publish", "one.md"],
    ] {
        let out = ws.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr(&out).contains("public record"), "{}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
    let text = std::fs::read_to_string(ws.notes().join(".public.json")).unwrap();
    assert_eq!(text, "{ torn", "never reset");
    assert!(!ws.public().exists());
}

#[test]
fn the_server_repairs_the_public_folder_when_it_starts_and_says_what_it_fixed() {
    let ws = workspace();
    for note in ["one.md", "two.md"] {
        assert!(ws.run(&["publish", note]).status.success());
    }
    std::fs::copy(ws.public().join("two.html"), ws.public().join("stray.html")).unwrap();
    std::fs::remove_file(ws.public().join("one.html")).unwrap();
    std::fs::write(ws.public().join("index.html"), "stale").unwrap();
    std::fs::write(ws.public().join("mine.html"), "<p>written by hand</p>").unwrap();
    assert!(!disagreements(&ws).is_empty());
    let server = ws.serve();
    assert_eq!(disagreements(&ws), Vec::<String>::new());
    let log = server.log();
    let fixes: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("public folder repaired"))
        .collect();
    assert_eq!(fixes.len(), 3, "{log}");
    assert!(fixes[0].ends_with("removed 1 generated page(s) no public note names: stray.html"));
    assert!(fixes[1].ends_with("regenerated 1 page(s) of public notes: one.html"));
    assert!(fixes[2].ends_with("rebuilt index.html"));
    assert!(
        ws.public().join("mine.html").exists(),
        "hand-made pages stay"
    );
    drop(server);
    let server = ws.serve();
    assert!(
        !server.log().contains("public folder repaired"),
        "nothing logged when all agree: {}",
        server.log()
    );
}

#[test]
fn publish_repair_prints_what_it_fixed() {
    let ws = workspace();
    let out = ws.run(&["publish", "--repair"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "the public folder agrees with the public notes: nothing to repair\n"
    );
    assert!(!ws.public().exists(), "nothing published, nothing created");
    for note in ["one.md", "three.md"] {
        assert!(ws.run(&["publish", note]).status.success());
    }
    std::fs::remove_file(ws.public().join("one.html")).unwrap();
    std::fs::remove_file(ws.notes().join("three.md")).unwrap();
    std::fs::remove_file(ws.public().join("three.html")).unwrap();
    std::fs::remove_file(ws.public().join("static/style.css")).unwrap();
    let out = ws.run(&["publish", "--repair", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report,
        serde_json::json!({
            "removed_pages": [],
            "regenerated_pages": ["one.html"],
            "dropped_entries": ["three.md"],
            "index_rebuilt": true,
            "feed_rebuilt": true,
            "stylesheet_restored": true,
        })
    );
    assert_eq!(disagreements(&ws), Vec::<String>::new());
    std::fs::remove_file(ws.public().join("one.html")).unwrap();
    let out = ws.run(&["publish", "--repair"]);
    assert_eq!(
        stdout(&out),
        "regenerated 1 page(s) of public notes: one.html\n"
    );
    // NOTE and --repair exclude each other; one of them is needed.
    for args in [&["publish", "--repair", "one.md"][..], &["publish"]] {
        let out = ws.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}
