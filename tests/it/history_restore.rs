//! Every version the history lists can be restored: a delete's version (or a moved
//! note's old path) brings back the text the note had just before, through the API
//! and the command line.

use serde_json::Value;

use crate::support::{Server, Workspace, json, stderr, stdout};

/// `(id, operation)` of each version of `note`, newest first, through the API.
fn listed(server: &Server, note: &str) -> Vec<(String, String)> {
    let (status, history) = json(server.get(&format!("/api/v1/history/{note}")));
    assert_eq!(status, 200, "{history}");
    history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_string(),
                v["operation"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn restore(server: &Server, note: &str, version: &str) -> (u16, Value) {
    json(
        server
            .request("POST", "/api/v1/restore")
            .header("Content-Type", "application/json")
            .body(format!(r#"{{"path":"{note}","version":"{version}"}}"#))
            .send()
            .unwrap(),
    )
}

#[test]
fn restoring_a_delete_through_the_api_brings_back_the_last_text() {
    let ws = Workspace::new();
    let server = ws.serve();
    assert!(
        server
            .put_markdown("/api/v1/notes/a.md", "one\n")
            .status()
            .is_success()
    );
    assert!(
        server
            .put_markdown("/api/v1/notes/a.md", "two\n")
            .status()
            .is_success()
    );
    let last = ws.read("a.md");
    let r = server
        .request("DELETE", "/api/v1/notes/a.md")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let versions = listed(&server, "a.md");
    assert_eq!(versions[0].1, "delete", "{versions:?}");
    let (status, body) = restore(&server, "a.md", &versions[0].0);
    assert_eq!(status, 201, "{body}");
    assert_eq!(ws.read("a.md"), last);
    // A short id of the delete works too, and restoring it again (the note there now)
    // writes the same text back.
    let (status, body) = restore(&server, "a.md", &versions[0].0[..8]);
    assert_eq!(status, 200, "{body}");
    assert_eq!(ws.read("a.md"), last);
    // An id the history does not list is still not found.
    let (status, body) = restore(&server, "a.md", "00000000");
    assert_eq!(
        (status, body["message"].as_str()),
        (404, Some("Version not found"))
    );
}

#[test]
fn restoring_a_delete_from_the_command_line_brings_back_the_last_text() {
    let ws = Workspace::new();
    assert!(ws.run_stdin(&["put", "a.md"], b"one\n").status.success());
    assert!(ws.run_stdin(&["put", "a.md"], b"two\n").status.success());
    let last = ws.read("a.md");
    assert!(ws.run(&["rm", "a.md"]).status.success());
    let out = ws.run(&["history", "a.md", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let history: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let newest = &history["versions"][0];
    assert_eq!(newest["operation"], "delete", "{history}");
    let id = newest["id"].as_str().unwrap();
    let out = ws.run(&["restore", "a.md", "--version", id]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("restored deleted note a.md"),
        "{}",
        stdout(&out)
    );
    assert_eq!(ws.read("a.md"), last);
}
