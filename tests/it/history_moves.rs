//! A move is a move, not a delete: one change naming both paths, the old path kept out
//! of the Trash, and a restore at the old path refused with where the note is now
//! (never a second copy), through the API and the command line.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Server, Workspace, eventually, stderr, stdout};

pub(crate) fn put(server: &Server, note: &str, text: &str) {
    let r = server.put_markdown(&format!("/api/v1/notes/{note}"), text);
    assert!(r.status().is_success(), "{note}: {}", r.status());
}

pub(crate) fn post(server: &Server, route: &str, body: Value) -> (u16, Value) {
    crate::support::json(
        server
            .request("POST", route)
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap(),
    )
}

fn trash_paths(server: &Server) -> Vec<String> {
    let (status, trash) = crate::support::json(server.get("/api/v1/trash"));
    assert_eq!(status, 200, "{trash}");
    trash["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap().to_string())
        .collect()
}

/// The ids of `note`'s versions, newest first.
fn version_ids(server: &Server, note: &str) -> Vec<String> {
    let (status, history) = crate::support::json(server.get(&format!("/api/v1/history/{note}")));
    assert_eq!(status, 200, "{history}");
    history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect()
}

fn git_log(ws: &Workspace) -> Vec<String> {
    let out = ws
        .command("git")
        .arg("--git-dir")
        .arg(ws.notes().join(".notes/history.git"))
        .args(["log", "--format=%s"])
        .output()
        .unwrap();
    stdout(&out).lines().map(str::to_string).collect()
}

#[test]
fn a_moved_note_is_not_in_the_trash_and_its_old_path_is_not_restored() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(&server, "a.md", "one\n");
    put(&server, "gone.md", "bye\n");
    let (status, body) = post(
        &server,
        "/api/v1/move",
        json!({"from": "a.md", "to": "b.md"}),
    );
    assert_eq!(status, 200, "{body}");
    let r = server
        .request("DELETE", "/api/v1/notes/gone.md")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    // One change naming both paths.
    let moved = eventually(Duration::from_secs(3), || {
        git_log(&ws).iter().any(|s| s == "move a.md -> b.md")
    });
    assert!(moved, "{:?}", git_log(&ws));
    // Only the deleted note is in the trash.
    assert_eq!(trash_paths(&server), ["gone.md"]);

    // A restore of the old path, by any of its versions, says where the note is.
    let moved_text = ws.read("b.md");
    for id in version_ids(&server, "a.md") {
        let (status, body) = post(
            &server,
            "/api/v1/restore",
            json!({"path": "a.md", "version": id}),
        );
        assert_eq!(status, 409, "{body}");
        assert_eq!(body["error"], "Conflict", "{body}");
        assert!(body["message"].as_str().unwrap().contains("b.md"), "{body}");
    }
    assert!(!ws.notes().join("a.md").exists(), "a second copy");
    assert_eq!(ws.read("b.md"), moved_text);

    // Moved again: the error names where it is at the end of its moves.
    let (status, body) = post(
        &server,
        "/api/v1/move",
        json!({"from": "b.md", "to": "sub/c.md"}),
    );
    assert_eq!(status, 200, "{body}");
    let id = version_ids(&server, "a.md").pop().unwrap();
    let (status, body) = post(
        &server,
        "/api/v1/restore",
        json!({"path": "a.md", "version": id}),
    );
    assert_eq!(status, 409, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("sub/c.md"),
        "{body}"
    );
    // Deleted at its new path: it is in the trash there, and the old path restores.
    let r = server
        .request("DELETE", "/api/v1/notes/sub/c.md")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    // (Both deleted within the same second: the order then is by path.)
    let mut trashed = trash_paths(&server);
    trashed.sort();
    assert_eq!(trashed, ["gone.md", "sub/c.md"]);
    let (status, body) = post(
        &server,
        "/api/v1/restore",
        json!({"path": "a.md", "version": id}),
    );
    assert_eq!(status, 201, "{body}");
}

#[test]
fn the_command_line_trash_leaves_out_moves_and_restore_says_where_the_note_is() {
    let ws = Workspace::new();
    let out = ws.run_stdin(&["put", "a.md"], b"one\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = ws.run(&["mv", "a.md", "b.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = ws.run(&["trash", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let trash: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(trash["notes"], json!([]), "{trash}");
    let out = ws.run(&["restore", "a.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        "error: a.md: the note was moved and is now at b.md: restore it there"
    );
    assert!(!ws.notes().join("a.md").exists());
}

/// A write the disk refuses (a file where a folder of its path must be) is refused
/// before the history records it: the history keeps only what happened, and the next
/// writes are recorded as ever.
#[test]
fn writes_refused_for_a_file_in_the_way_leave_no_version_behind() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(&server, "n.md", "note\n");
    let r = server
        .request("PUT", "/api/v1/files/box")
        .body("a file named like a folder")
        .send()
        .unwrap();
    assert_eq!(r.status(), 201);
    let (status, body) = post(
        &server,
        "/api/v1/move",
        json!({"from": "n.md", "to": "box/in/n.md"}),
    );
    assert_eq!(status, 409, "{body}");
    assert_eq!(
        body["message"],
        "A file is in the way of the destination's folder: box/in"
    );
    let r = server.put_markdown("/api/v1/notes/box/m.md", "beneath a file\n");
    assert_eq!(r.status(), 500);
    let (_, body) = crate::support::json(r);
    assert_eq!(body["message"], "Failed to create parent directory");
    let r = server
        .request("PUT", "/api/v1/files/n.md/x.png")
        .body("beneath a note")
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(git_log(&ws), ["put box", "put n.md"]);
    put(&server, "after.md", "recorded\n");
    assert_eq!(version_ids(&server, "after.md").len(), 1);
    assert_eq!(version_ids(&server, "n.md").len(), 1);
    assert!(trash_paths(&server).is_empty());
    assert!(ws.read("n.md").ends_with("\nnote\n"));
    assert!(!ws.notes().join("box/in").exists());
}
