//! `notes mcp` over standard input and output, driven by the SDK's client: every tool
//! and the resources, a read-only session, a session limited to one folder.

use serde_json::json;

use crate::mcp_client::{READ_TOOLS, every_tool, names, ok, refused, runtime, seed, stdio, tools};
use crate::support::{Workspace, stderr};

#[test]
fn every_tool_over_stdio() {
    let ws = Workspace::new();
    seed(&ws);
    runtime().block_on(async {
        let client = stdio(&ws, &[]).await;
        let info = client.peer_info().expect("server info");
        assert_eq!(
            info.server_info.as_ref().map(|s| s.name.as_str()),
            Some("notes")
        );
        every_tool(&client, &ws).await;
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_read_only_session_sees_and_runs_only_the_read_tools() {
    let ws = Workspace::new();
    seed(&ws);
    let before = ws.snapshot();
    runtime().block_on(async {
        let client = stdio(&ws, &["--read-only"]).await;
        assert_eq!(names(&tools(&client).await), READ_TOOLS);
        let message = refused(
            &client,
            "create_note",
            json!({"path": "x.md", "content": "x"}),
        )
        .await;
        assert!(message.contains("read-only"), "{message}");
        let message = refused(&client, "delete_note", json!({"path": "alpha.md"})).await;
        assert!(message.contains("read-only"), "{message}");
        let alpha = ok(&client, "read_note", json!({"path": "alpha.md"})).await;
        assert_eq!(alpha["title"], "Alpha");
        client.cancel().await.unwrap();
    });
    // Nothing written (the search index aside, none was asked for).
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn a_prefix_session_reaches_only_its_folder() {
    let ws = Workspace::new();
    seed(&ws);
    runtime().block_on(async {
        let client = stdio(&ws, &["--prefix", "ideas"]).await;
        let all = ok(&client, "list_notes", json!({})).await;
        assert_eq!(all["total"], 1);
        assert_eq!(all["notes"][0]["path"], "ideas/beta.md");
        let outside = refused(&client, "read_note", json!({"path": "alpha.md"})).await;
        assert!(outside.contains("out of reach"), "{outside}");
        let outside = refused(
            &client,
            "create_note",
            json!({"path": "ideasx/c.md", "content": "x"}),
        )
        .await;
        assert!(outside.contains("out of reach"), "{outside}");
        let moved = refused(
            &client,
            "move_note",
            json!({"from": "ideas/beta.md", "to": "beta.md"}),
        )
        .await;
        assert!(moved.contains("out of reach"), "{moved}");
        ok(
            &client,
            "create_note",
            json!({"path": "ideas/c.md", "content": "inside"}),
        )
        .await;
        let found = ok(&client, "search_notes", json!({"query": "rust"})).await;
        let paths: Vec<&str> = found["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|hit| hit["path"].as_str().unwrap())
            .collect();
        assert_eq!(paths, ["ideas/beta.md"]);
        let tags = ok(&client, "list_tags", json!({})).await;
        assert_eq!(tags["tags"], json!([{"name": "rust", "count": 1}]));
        let links = ok(&client, "note_links", json!({"path": "ideas/beta.md"})).await;
        assert_eq!(links["incoming"], json!([]), "{links}");
        let resources = client.list_all_resources().await.unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris, ["note:///ideas/beta.md", "note:///ideas/c.md"]);
        client.cancel().await.unwrap();
    });
    assert!(ws.notes().join("ideas/c.md").exists());
    assert!(!ws.notes().join("ideasx").exists());
    assert!(ws.notes().join("ideas/beta.md").exists());
}

#[test]
fn a_bad_prefix_or_folder_stops_with_one_line() {
    let ws = Workspace::new();
    let out = ws.run(&["mcp", "--prefix", "../outside"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--prefix ../outside: invalid path"), "{err}");
    let out = ws.run(&["--notes-dir", "missing", "mcp"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no notes folder at missing"),
        "{}",
        stderr(&out)
    );
}
