//! A move or a delete that empties a folder removes it, and each parent it leaves
//! empty, never the notes dir and never a folder that still holds anything (a hidden
//! file included): through the API and the command line.

use serde_json::json;

use crate::support::{Server, Workspace, json, stderr};

fn post_move(server: &Server, from: &str, to: &str) -> (u16, serde_json::Value) {
    json(
        server
            .request("POST", "/api/v1/move")
            .header("Content-Type", "application/json")
            .body(json!({"from": from, "to": to}).to_string())
            .send()
            .unwrap(),
    )
}

fn put(server: &Server, note: &str) {
    let r = server.put_markdown(&format!("/api/v1/notes/{note}"), "text\n");
    assert!(r.status().is_success(), "{note}: {}", r.status());
}

fn delete(server: &Server, note: &str) {
    let r = server
        .request("DELETE", &format!("/api/v1/notes/{note}"))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{note}");
}

#[test]
fn a_move_out_of_a_folder_removes_the_emptied_folder_and_its_parents() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(&server, "Inbox/a.md");
    let (status, body) = post_move(&server, "Inbox/a.md", "a.md");
    assert_eq!(status, 200, "{body}");
    assert!(ws.notes().join("a.md").is_file());
    assert!(!ws.notes().join("Inbox").exists(), "Inbox/ left behind");

    // Two levels emptied at once; the folder that still holds a note stays.
    put(&server, "deep/er/b.md");
    put(&server, "deep/c.md");
    let (status, body) = post_move(&server, "deep/er/b.md", "b.md");
    assert_eq!(status, 200, "{body}");
    assert!(!ws.notes().join("deep/er").exists());
    assert!(ws.notes().join("deep/c.md").is_file());
    delete(&server, "deep/c.md");
    assert!(!ws.notes().join("deep").exists());
    // The notes dir itself stays, even emptied of notes.
    delete(&server, "a.md");
    delete(&server, "b.md");
    assert!(ws.notes().is_dir());
}

#[test]
fn a_folder_that_still_holds_a_hidden_file_stays() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(&server, "keep/a.md");
    std::fs::write(ws.notes().join("keep/.hidden"), "mine\n").unwrap();
    delete(&server, "keep/a.md");
    assert!(ws.notes().join("keep/.hidden").is_file());
    // A folder holding an empty folder is not empty either.
    put(&server, "outer/a.md");
    std::fs::create_dir(ws.notes().join("outer/made-by-me")).unwrap();
    delete(&server, "outer/a.md");
    assert!(ws.notes().join("outer/made-by-me").is_dir());
}

#[test]
fn the_command_line_removes_the_folders_it_empties() {
    let ws = Workspace::new();
    for note in ["Inbox/a.md", "old/b.md"] {
        let out = ws.run_stdin(&["put", note], b"text\n");
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = ws.run(&["mv", "Inbox/a.md", "a.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!ws.notes().join("Inbox").exists());
    let out = ws.run(&["rm", "old/b.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!ws.notes().join("old").exists());
    assert!(ws.notes().join("a.md").is_file());
}
