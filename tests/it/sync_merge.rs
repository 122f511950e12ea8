//! The merges of `notes sync`, each with the exact text both notebooks end with:
//! edits to different parts of a note, front matter key by key (`last_modified` the
//! later), an edit against a delete, an edit against a move, two edits of the same
//! lines (markers, listed as conflicted), and an attachment both sides changed.

use serde_json::Value;

use crate::support::{Workspace, json, png, stderr, stdout};
use crate::sync::{Remote, notebook_files, pair, put, sync};

/// The value of `last_modified` in a note's text.
fn last_modified(text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("last_modified: "))
        .unwrap_or_else(|| panic!("no last_modified in {text:?}"))
        .to_string()
}

/// A sync of A, of B, then of A again: both have everything.
fn settle(a: &Workspace, b: &Workspace) {
    sync(a, &[]);
    sync(b, &[]);
    sync(a, &[]);
    assert_eq!(notebook_files(a), notebook_files(b));
}

/// A note on both notebooks, from A.
fn shared(remote: &Remote, path: &str, text: &str) -> (Workspace, Workspace) {
    let (a, b) = pair(remote);
    put(&a, path, text);
    sync(&a, &[]);
    sync(&b, &[]);
    (a, b)
}

fn note(status: &str, priority: &str, body: &str) -> String {
    format!(
        "---\ntitle: Plan\nstatus: {status}\npriority: {priority}\nlast_modified: x\n---\n{body}"
    )
}

#[test]
fn edits_to_different_parts_and_keys_merge() {
    let remote = Remote::new();
    let body = "one\ntwo\nthree\nfour\nfive\n";
    let (a, b) = shared(&remote, "plan.md", &note("draft", "low", body));
    put(
        &a,
        "plan.md",
        &note("done", "low", "ONE\ntwo\nthree\nfour\nfive\n"),
    );
    put(
        &b,
        "plan.md",
        &note("draft", "high", "one\ntwo\nthree\nfour\nFIVE\n"),
    );
    let later = last_modified(&a.read("plan.md")).max(last_modified(&b.read("plan.md")));
    settle(&a, &b);
    assert_eq!(
        a.read("plan.md"),
        format!(
            "---\ntitle: Plan\nstatus: done\npriority: high\nlast_modified: {later}\n---\n\
             ONE\ntwo\nthree\nfour\nFIVE\n"
        )
    );
    assert_eq!(sync(&a, &["--status"])["conflicts"], serde_json::json!([]));
}

#[test]
fn an_edit_and_a_delete_keep_the_edited_note() {
    let remote = Remote::new();
    let (a, b) = shared(&remote, "keep.md", "# Keep\n\nfirst\n");
    put(&a, "keep.md", "# Keep\n\nfirst, edited\n");
    let edited = a.read("keep.md");
    let out = b.run(&["rm", "keep.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    settle(&a, &b);
    assert_eq!(b.read("keep.md"), edited);
    assert_eq!(a.read("keep.md"), edited);

    // And the other way round: deleted first, edited after.
    let out = a.run(&["rm", "keep.md"]);
    assert!(out.status.success());
    put(&b, "keep.md", "# Keep\n\nfirst, edited again\n");
    let edited = b.read("keep.md");
    sync(&a, &[]);
    sync(&b, &[]);
    sync(&a, &[]);
    assert_eq!(a.read("keep.md"), edited);
    assert_eq!(notebook_files(&a), notebook_files(&b));
}

#[test]
fn an_edit_and_a_move_give_the_moved_note_with_the_edit() {
    let remote = Remote::new();
    let text = "# Trip\n\nline one\nline two\nline three\n";
    let (a, b) = shared(&remote, "trip.md", text);
    let before = a.read("trip.md");
    put(
        &a,
        "trip.md",
        &text.replace("line three", "line three, edited"),
    );
    let edited = a.read("trip.md");
    let out = b.run(&["mv", "trip.md", "archive/trip.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(b.read("archive/trip.md"), before);
    settle(&a, &b);
    assert!(!a.notes().join("trip.md").exists());
    assert!(!b.notes().join("trip.md").exists());
    assert_eq!(a.read("archive/trip.md"), edited);
    assert_eq!(b.read("archive/trip.md"), edited);
}

#[test]
fn a_move_there_is_a_move_here_and_the_history_follows_the_note() {
    let remote = Remote::new();
    let (a, b) = shared(&remote, "trip.md", "# Trip\n\nfirst\n");
    put(&a, "trip.md", "# Trip\n\nsecond\n");
    put(&a, "plan.md", "# Plan\n\nSee [the trip](trip.md).\n");
    settle(&a, &b);
    let out = b.run(&["mv", "trip.md", "archive/journey.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        b.read("plan.md").contains("](archive/journey.md)"),
        "{}\n{}",
        stdout(&out),
        b.read("plan.md")
    );
    settle(&a, &b);

    assert!(!a.notes().join("trip.md").exists());
    assert_eq!(a.read("archive/journey.md"), b.read("archive/journey.md"));
    // The link both sides rewrote, once.
    assert_eq!(a.read("plan.md"), b.read("plan.md"));
    assert!(
        !a.read("plan.md").contains("<<<<<<<"),
        "{}",
        a.read("plan.md")
    );
    // Here too the note's history goes back through the move.
    let out = a.run(&["history", "archive/journey.md", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let paths: Vec<Option<&str>> = listed["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["path"].as_str())
        .collect();
    assert_eq!(paths, [None, Some("trip.md"), Some("trip.md")], "{listed}");
}

#[test]
fn two_edits_of_the_same_lines_keep_both_and_mark_the_note() {
    let remote = Remote::new();
    let (a, b) = shared(&remote, "x.md", "---\ntitle: X\n---\nsame line\n");
    put(&a, "x.md", "---\ntitle: X\n---\nA's line\n");
    put(&b, "x.md", "---\ntitle: X\n---\nB's line\n");
    let (a_stamp, b_stamp) = (
        last_modified(&a.read("x.md")),
        last_modified(&b.read("x.md")),
    );
    sync(&a, &[]);
    let merged = sync(&b, &[]);
    assert_eq!(merged["outcome"], "ok", "{merged}");
    assert_eq!(merged["conflicts"], serde_json::json!(["x.md"]));
    sync(&a, &[]);
    let later = a_stamp.max(b_stamp);
    // B merged: its own lines first.
    let expected = format!(
        "---\ntitle: X\nlast_modified: {later}\n---\n\
         <<<<<<< ours\nB's line\n=======\nA's line\n>>>>>>> theirs\n"
    );
    assert_eq!(b.read("x.md"), expected);
    assert_eq!(a.read("x.md"), expected);
    // Listed on both machines, by the command line and by the server.
    let status = sync(&a, &["--status"]);
    assert_eq!(status["conflicts"], serde_json::json!(["x.md"]), "{status}");
    let out = b.run(&["sync", "--status"]);
    assert!(
        stdout(&out).contains("conflicts: 1\n  x.md\n"),
        "{}",
        stdout(&out)
    );
    let server = b.serve();
    let (code, body) = json(server.get("/api/v1/sync"));
    assert_eq!(code, 200);
    assert_eq!(body["conflicts"], serde_json::json!(["x.md"]), "{body}");
    let (_, list) = json(server.get("/api/v1/conflicts"));
    assert_eq!(list["conflicts"][0]["path"], "x.md", "{list}");
    // The web interface: a banner on the note, both versions side by side.
    let note = server.get("/note/x.md").text().unwrap();
    assert!(note.contains("This note holds two versions"), "{note}");
    assert!(note.contains("href=\"/resolve/x.md\""), "{note}");
    let resolve = server.get("/resolve/x.md").text().unwrap();
    assert!(resolve.contains("resolve-sides"), "{resolve}");
    for line in ["B's line", "A's line"] {
        let shown =
            resolve.matches(line).count() + resolve.matches(&line.replace('\'', "&#39;")).count();
        // Once in its column, once in the editor below.
        assert_eq!(shown, 2, "{line}: {resolve}");
    }
}

#[test]
fn an_attachment_both_sides_changed_is_kept_twice() {
    let remote = Remote::new();
    let (a, b) = pair(&remote);
    let server_a = a.serve();
    let server_b = b.serve();
    let put_file = |server: &crate::support::Server, bytes: Vec<u8>| {
        let r = server
            .request("PUT", "/api/v1/files/img/map.png")
            .body(bytes)
            .send()
            .unwrap();
        assert!(r.status().is_success(), "{}", r.status());
    };
    let post_sync = |server: &crate::support::Server| -> Value {
        let (code, body) = json(server.request("POST", "/api/v1/sync").send().unwrap());
        assert_eq!(code, 200, "{body}");
        body
    };
    put_file(&server_a, png(2, 2, [1, 2, 3]));
    post_sync(&server_a);
    post_sync(&server_b);
    assert_eq!(
        std::fs::read(b.notes().join("img/map.png")).unwrap(),
        png(2, 2, [1, 2, 3])
    );

    put_file(&server_a, png(2, 2, [200, 0, 0]));
    put_file(&server_b, png(2, 2, [0, 0, 200]));
    post_sync(&server_a);
    post_sync(&server_b);
    post_sync(&server_a);
    let day = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let copy = format!("img/map (conflict {day}).png");
    for ws in [&a, &b] {
        assert_eq!(
            std::fs::read(ws.notes().join("img/map.png")).unwrap(),
            png(2, 2, [0, 0, 200])
        );
        assert_eq!(
            std::fs::read(ws.notes().join(&copy)).unwrap(),
            png(2, 2, [200, 0, 0])
        );
    }
}
