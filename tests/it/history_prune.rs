//! Retention: `notes history --prune --keep DAYS` over versions made days apart (the
//! history's clock set by `NOTES_TEST_HISTORY_NOW`), keeping every note's latest
//! version and a deleted note's last text until its own time; a crash at each step of
//! a prune leaving a store that git and the service read; `serve --history-keep`
//! pruning at start-up and packing in the background.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::support::{Workspace, eventually, json, stderr, stdout};

const DAY: u64 = 24 * 3600;

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn days_ago(days: u64) -> String {
    (now() - days * DAY).to_string()
}

/// The CLI with the history's clock `days` days back.
fn back(ws: &Workspace, days: u64) -> Command {
    let mut cli = ws.cli();
    cli.env("NOTES_TEST_HISTORY_NOW", days_ago(days));
    cli
}

fn put_at(ws: &Workspace, days: u64, note: &str, text: &str) -> String {
    use std::io::Write;
    let mut child = back(ws, days)
        .args(["put", note])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "put {note}: {}", stderr(&out));
    ws.read(note)
}

fn rm_at(ws: &Workspace, days: u64, note: &str) {
    let out = back(ws, days).args(["rm", note]).output().unwrap();
    assert!(out.status.success(), "rm {note}: {}", stderr(&out));
}

fn ok(out: Output, what: &str) -> String {
    assert!(out.status.success(), "{what}: {}", stderr(&out));
    stdout(&out)
}

fn cli_json(ws: &Workspace, args: &[&str]) -> Value {
    serde_json::from_str(&ok(ws.run(args), &format!("{args:?}"))).unwrap()
}

fn store(ws: &Workspace) -> PathBuf {
    ws.notes().join(".notes/history.git")
}

fn git(ws: &Workspace, args: &[&str]) -> String {
    let out = ws
        .command("git")
        .arg("--git-dir")
        .arg(store(ws))
        .args(args)
        .output()
        .expect("run git");
    ok(out, &format!("git {args:?}"))
}

/// `(id, at, operation)` of each version of `note`, newest first (empty when it has none).
fn versions(ws: &Workspace, note: &str) -> Vec<(String, String, String)> {
    let out = ws.run(&["history", note, "--json"]);
    if !out.status.success() {
        assert!(stderr(&out).contains("note not found"), "{}", stderr(&out));
        return Vec::new();
    }
    let history: Value = serde_json::from_str(&stdout(&out)).unwrap();
    history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_string(),
                v["at"].as_str().unwrap().to_string(),
                v["operation"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn text_of(ws: &Workspace, note: &str, id: &str) -> String {
    ok(
        ws.run(&["show", note, "--version", id]),
        &format!("show {note} {id}"),
    )
}

fn trash_paths(ws: &Workspace) -> Vec<String> {
    cli_json(ws, &["trash", "--json"])["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap().to_string())
        .collect()
}

/// What is not in the store's one pack: its loose objects and every other pack (a
/// change is staged, then settled as a small pack of its own; a pack of the whole
/// history replaces them).
fn unpacked(ws: &Workspace) -> usize {
    let counted = git(ws, &["count-objects", "-v"]);
    let field = |name: &str| -> usize {
        counted
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap()
            .parse()
            .unwrap()
    };
    field("count: ") + field("packs: ").saturating_sub(1)
}

fn fsck(ws: &Workspace) {
    let out = ws
        .command("git")
        .arg("--git-dir")
        .arg(store(ws))
        .args(["fsck", "--full", "--strict", "--no-dangling"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git fsck: {}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// The texts of the notebook the tests prune, by name.
struct Made {
    a2: String,
    a3: String,
    c: String,
    d: String,
    e: String,
}

/// a.md: three versions (50, 40 and 10 days ago); b.md: made 50 days ago, deleted 35
/// days ago; c.md: made 50 days ago, deleted 5 days ago; d.md: made 45 days ago; e.md:
/// made 20 days ago.
fn make(ws: &Workspace) -> Made {
    put_at(ws, 50, "a.md", "---\ntitle: A\n---\none\n");
    put_at(ws, 50, "b.md", "---\ntitle: B\n---\ngone for good\n");
    let c = put_at(ws, 50, "c.md", "---\ntitle: C\n---\nin the trash\n");
    let d = put_at(ws, 45, "d.md", "---\ntitle: D\n---\nlatest and old\n");
    let a2 = put_at(ws, 40, "a.md", "---\ntitle: A\n---\ntwo\n");
    rm_at(ws, 35, "b.md");
    let e = put_at(ws, 20, "e.md", "---\ntitle: E\n---\nrecent\n");
    let a3 = put_at(ws, 10, "a.md", "---\ntitle: A\n---\nthree\n");
    rm_at(ws, 5, "c.md");
    Made { a2, a3, c, d, e }
}

#[test]
fn prune_keeps_the_last_days_every_latest_version_and_the_trash_until_its_time() {
    let ws = Workspace::new();
    let made = make(&ws);
    assert_eq!(versions(&ws, "a.md").len(), 3);
    let d_before = versions(&ws, "d.md");

    let pruned = cli_json(&ws, &["history", "--prune", "--keep", "30", "--json"]);
    assert_eq!(pruned["keepDays"], 30);
    assert!(
        pruned["cutoff"].as_str().unwrap().ends_with('Z'),
        "{pruned}"
    );
    // a.md's first version, and b.md's two (deleted 35 days ago).
    assert_eq!(pruned["versionsDropped"], 3, "{pruned}");
    assert_eq!(pruned["notesForgotten"], 1, "{pruned}");
    assert!(
        pruned["storeBytesAfter"].as_u64().unwrap() < pruned["storeBytesBefore"].as_u64().unwrap(),
        "{pruned}"
    );

    // a.md: the version current 30 days ago and the newer one, byte for byte.
    let a = versions(&ws, "a.md");
    assert_eq!(a.len(), 2, "{a:?}");
    assert_eq!(text_of(&ws, "a.md", &a[0].0), made.a3);
    assert_eq!(text_of(&ws, "a.md", &a[1].0), made.a2);
    assert_eq!(a[1].2, "put");
    // The version kept from before the cut still says when it was made.
    let d = versions(&ws, "d.md");
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].1.as_str(), d[0].2.as_str()),
        (d_before[0].1.as_str(), "put")
    );
    assert_eq!(text_of(&ws, "d.md", &d[0].0), made.d);
    assert_eq!(text_of(&ws, "e.md", &versions(&ws, "e.md")[0].0), made.e);
    // b.md was deleted before the cut: gone. c.md, deleted 5 days ago, stays in the trash.
    assert!(versions(&ws, "b.md").is_empty());
    assert_eq!(trash_paths(&ws), ["c.md"]);

    // git reads the rewritten history: the first commit, then the three changes of the
    // last 30 days; packed, nothing loose, nothing broken.
    let log = git(&ws, &["log", "--format=%s", "main"]);
    let subjects: Vec<&str> = log.lines().collect();
    assert_eq!(subjects.len(), 4, "{log}");
    assert_eq!(&subjects[..3], ["delete c.md", "put a.md", "put e.md"]);
    assert!(
        subjects[3].starts_with("pruned versions replaced before "),
        "{log}"
    );
    assert_eq!(
        git(&ws, &["show", "main~3:d.md"]),
        made.d,
        "the first commit holds the notebook at the cut"
    );
    fsck(&ws);
    assert_eq!(unpacked(&ws), 0);

    // The service answers from the pruned store; c.md comes back from the trash.
    {
        let server = ws.serve();
        let (status, history) = json(server.get("/api/v1/history/a.md"));
        assert_eq!(status, 200, "{history}");
        assert_eq!(history["versions"].as_array().unwrap().len(), 2);
        let (status, _) = json(server.get("/api/v1/history/b.md"));
        assert_eq!(status, 404);
        let (_, trash) = json(server.get("/api/v1/trash"));
        assert_eq!(trash["notes"][0]["path"], "c.md");
        let version = trash["notes"][0]["version"].as_str().unwrap().to_string();
        let r = server
            .request("POST", "/api/v1/restore")
            .header("Content-Type", "application/json")
            .body(format!(r#"{{"path":"c.md","version":"{version}"}}"#))
            .send()
            .unwrap();
        assert_eq!(r.status(), 201);
        assert_eq!(ws.read("c.md"), made.c);
    }

    // A shorter retention: only what is current stays (c.md is back, so it stays too).
    // With the clock two seconds on, so the restore is before the cut.
    let mut prune = ws.cli();
    prune.env("NOTES_TEST_HISTORY_NOW", (now() + 2).to_string());
    let pruned = ok(
        prune
            .args(["history", "--prune", "--keep", "0", "--json"])
            .output()
            .unwrap(),
        "prune",
    );
    let pruned: Value = serde_json::from_str(&pruned).unwrap();
    assert!(pruned["versionsDropped"].as_u64().unwrap() >= 3, "{pruned}");
    for (note, text) in [("a.md", &made.a3), ("c.md", &made.c), ("d.md", &made.d)] {
        let kept = versions(&ws, note);
        assert_eq!(kept.len(), 1, "{note}: {kept:?}");
        assert_eq!(&text_of(&ws, note, &kept[0].0), text);
    }
    assert!(trash_paths(&ws).is_empty());
    fsck(&ws);
    assert_eq!(git(&ws, &["log", "--format=%s", "main"]).lines().count(), 1);

    // Without a retention, nothing is dropped; the store is only packed.
    put_at(&ws, 0, "a.md", "---\ntitle: A\n---\nfour\n");
    assert!(unpacked(&ws) > 0);
    let packed = ok(ws.run(&["history", "--prune"]), "prune");
    assert!(
        packed.starts_with("kept every version (no --keep); packed the store: "),
        "{packed}"
    );
    assert_eq!(versions(&ws, "a.md").len(), 2);
    assert_eq!(unpacked(&ws), 0);
    fsck(&ws);
}

#[test]
fn a_crash_at_any_step_of_a_prune_leaves_a_store_git_and_the_service_read() {
    for (step, a_versions) in [("commits", 3), ("synced", 3), ("ref", 2)] {
        let ws = Workspace::new();
        let made = make(&ws);
        let out = ws
            .cli()
            .env("NOTES_TEST_CRASH_AFTER_PRUNE_STEP", step)
            .args(["history", "--prune", "--keep", "30"])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{step}: the prune did not stop");
        fsck(&ws);
        // Before the ref moves, the old history; after, the new one.
        let a = versions(&ws, "a.md");
        assert_eq!(a.len(), a_versions, "{step}: {a:?}");
        assert_eq!(text_of(&ws, "a.md", &a[0].0), made.a3, "{step}");
        let trash: &[&str] = if step == "ref" {
            &["c.md"]
        } else {
            &["c.md", "b.md"]
        };
        assert_eq!(trash_paths(&ws), trash, "{step}");
        // The store takes changes, and the prune runs again to its end.
        put_at(&ws, 0, "e.md", "---\ntitle: E\n---\nafter the crash\n");
        let pruned = cli_json(&ws, &["history", "--prune", "--keep", "30", "--json"]);
        assert_eq!(pruned["notesForgotten"], if step == "ref" { 0 } else { 1 });
        let a = versions(&ws, "a.md");
        assert_eq!(a.len(), 2, "{step}: {a:?}");
        assert_eq!(text_of(&ws, "a.md", &a[1].0), made.a2, "{step}");
        let e = versions(&ws, "e.md");
        assert_eq!(e.len(), 2, "{step}: {e:?}");
        assert_eq!(text_of(&ws, "e.md", &e[1].0), made.e, "{step}");
        fsck(&ws);
        assert_eq!(unpacked(&ws), 0, "{step}");
    }
}

#[test]
fn serve_prunes_with_history_keep_and_packs_in_the_background() {
    let ws = Workspace::new();
    let made = make(&ws);
    let mut cli = ws.cli();
    cli.env("NOTES_TEST_HISTORY_PACK_AFTER", "3");
    let server = ws.serve_through(cli, &["--history-keep", "30"]);
    let pruned = eventually(Duration::from_secs(20), || {
        let (_, history) = json(server.get("/api/v1/history/a.md"));
        history["versions"].as_array().is_some_and(|v| v.len() == 2)
    });
    assert!(pruned, "the server did not prune: {}", server.log());
    let (status, _) = json(server.get("/api/v1/history/b.md"));
    assert_eq!(status, 404);
    let (_, version) = json(server.get("/api/v1/history/d.md"));
    assert_eq!(version["versions"].as_array().unwrap().len(), 1);
    assert!(eventually(Duration::from_secs(20), || unpacked(&ws) == 0));

    // Four changes: small packs, then one pack made in the background.
    let mut written = Vec::new();
    for i in 0..4 {
        let r = server.put_markdown("/api/v1/notes/e.md", &format!("---\ntitle: E\n---\n{i}\n"));
        assert_eq!(r.status(), 200);
        written.push(ws.read("e.md"));
    }
    assert!(
        eventually(Duration::from_secs(30), || unpacked(&ws) == 0),
        "no pack in the background: {}",
        server.log()
    );
    fsck(&ws);
    let (_, history) = json(server.get("/api/v1/history/e.md"));
    let ids: Vec<&str> = history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 5);
    for (id, text) in ids
        .iter()
        .rev()
        .zip(std::iter::once(&made.e).chain(&written))
    {
        let r = server
            .request("GET", &format!("/api/v1/history/e.md?version={id}"))
            .header("Accept", "text/markdown")
            .send()
            .unwrap();
        assert_eq!(&r.text().unwrap(), text);
    }
}
