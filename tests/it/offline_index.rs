//! Offline commands see what the server sees: `notes mv`, `notes links` and `notes check`
//! on a folder never served, on an index older than the files, and beside a running
//! server that owns the index, answer as the server does.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Workspace, eventually, json, stderr};

/// The notes of every case: `hub.md` linked from `a.md` (wiki link) and `c.md` (a
/// Markdown link), `b.md` linking to nothing that exists.
fn notes(ws: &Workspace) {
    ws.write("a.md", "# A\n\nSee [[hub]] here.\n");
    ws.write("b.md", "# B\n\n[[nowhere]]\n");
    ws.write("c.md", "Also [the hub](hub.md).\n");
    ws.write("hub.md", "# Hub\n\nLinks to [[a]].\n");
}

/// `notes ARGS --json`, which must succeed (or exit 1 for `check` with broken links)
/// and print nothing on standard error (no progress bar off a terminal).
fn cli_json(ws: &Workspace, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = ws.run(&all);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "{args:?}: nothing on stderr");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The paths linking to a note, in a links answer.
fn incoming(body: &Value) -> Vec<String> {
    body["incoming"]
        .as_array()
        .expect("incoming")
        .iter()
        .map(|l| l["path"].as_str().expect("path").to_string())
        .collect()
}

#[test]
fn an_offline_move_in_a_folder_never_served_rewrites_as_the_server_does() {
    let offline = Workspace::new();
    let served = Workspace::new();
    for ws in [&offline, &served] {
        ws.write("a.md", "Link to [[b]] here.\n");
        ws.write("b.md", "# B\n\nbody\n");
        ws.write("c.md", "[bee](b.md) and [[b|the b]]\n");
    }
    assert!(!offline.notes().join(".notes/index").exists());
    let moved = cli_json(&offline, &["mv", "b.md", "sub/b2.md"]);
    let server = served.serve();
    let (status, answer) = json(
        server
            .request("POST", "/api/v1/move")
            .header("Content-Type", "application/json")
            .body(json!({"from": "b.md", "to": "sub/b2.md"}).to_string())
            .send()
            .expect("move"),
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(moved["rewritten"], json!(["a.md", "c.md"]), "{moved}");
    assert_eq!(moved, answer);
    assert_eq!(offline.read("a.md"), "Link to [[b2]] here.\n");
    for note in ["a.md", "c.md", "sub/b2.md"] {
        assert_eq!(offline.read(note), served.read(note), "{note}");
    }
    // The links the move wrote lead to the note, offline as on the server.
    let links = cli_json(&offline, &["links", "sub/b2.md"]);
    assert_eq!(incoming(&links), ["a.md", "c.md"], "{links}");
    let (_, on_server) = json(server.get("/api/v1/links/sub/b2.md"));
    assert_eq!(links, on_server);
}

#[test]
fn links_and_check_on_a_never_indexed_and_a_stale_index_answer_as_the_server() {
    let ws = Workspace::new();
    notes(&ws);
    // Never indexed.
    let links = cli_json(&ws, &["links", "hub.md"]);
    assert_eq!(incoming(&links), ["a.md", "c.md"], "{links}");
    assert_eq!(links["outgoing"][0]["path"], "a.md", "{links}");
    let check = cli_json(&ws, &["check"]);
    assert_eq!(check["broken"][0]["path"], "b.md", "{check}");
    assert!(ws.notes().join(".notes/index/meta.json").is_file());
    // Stale: changed on disk after the index was written.
    ws.write("a.md", "# A\n\nNo link now.\n");
    ws.write("new/d.md", "\n[[Hub]] at last\n");
    std::fs::remove_file(ws.notes().join("c.md")).unwrap();
    ws.write("b.md", "# B\n\n[[hub]]\n");
    let links = cli_json(&ws, &["links", "hub.md"]);
    assert_eq!(incoming(&links), ["b.md", "new/d.md"], "{links}");
    let check = cli_json(&ws, &["check"]);
    assert_eq!(check["broken"], json!([]), "{check}");
    let orphans: Vec<&str> = check["orphans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["path"].as_str().unwrap())
        .collect();
    assert_eq!(orphans, ["b.md", "new/d.md"], "{check}");
    // The server, once it has caught up, says the same.
    let server = ws.serve();
    assert!(
        eventually(Duration::from_secs(20), || {
            json(server.get("/api/v1/links/hub.md")).1 == links
        }),
        "the server's links differ from {links}"
    );
    for note in ["a.md", "b.md", "new/d.md"] {
        let (_, on_server) = json(server.get(&format!("/api/v1/links/{note}")));
        assert_eq!(cli_json(&ws, &["links", note]), on_server, "{note}");
    }
}

#[test]
fn beside_a_running_server_offline_links_wait_for_its_index() {
    let ws = Workspace::new();
    ws.write("hub.md", "# Hub\n");
    // More notes than the server indexes between two commits (2,000): read as it is
    // while the server is still indexing, the index would lack some or all of them.
    const NOTES: usize = 4_000;
    for i in 0..NOTES {
        ws.write(&format!("n/{i:04}.md"), &format!("# N{i}\n\nTo [[hub]].\n"));
    }
    let server = ws.serve();
    // Once the server has taken the index's writer (tantivy's lock file appears then),
    // the command cannot write the index and must read the server's.
    let lock = ws.notes().join(".notes/index/.tantivy-writer.lock");
    assert!(eventually(Duration::from_secs(10), || lock.exists()));
    let links = cli_json(&ws, &["links", "hub.md"]);
    assert_eq!(
        incoming(&links).len(),
        NOTES,
        "the server's index, read half built"
    );
    // An edit on disk the server has not indexed yet is seen too.
    ws.write("late.md", "[[hub]]");
    let links = cli_json(&ws, &["links", "hub.md"]);
    assert_eq!(incoming(&links).len(), NOTES + 1);
    assert!(incoming(&links).contains(&"late.md".to_string()));
    assert!(
        eventually(Duration::from_secs(20), || {
            json(server.get("/api/v1/links/hub.md")).1 == links
        }),
        "the server's links differ from the command's"
    );
}
