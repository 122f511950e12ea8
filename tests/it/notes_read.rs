//! Reading one note over HTTP: JSON or raw Markdown by `Accept`, lenient forms, 404,
//! and reads that follow files changed or a notes folder replaced on disk.

use serde_json::{Value, json};

use crate::support::{Server, Workspace, assert_error, json, keys, wait_for_root_check};

#[test]
fn read_json_and_raw() {
    let ws = Workspace::new();
    let text = "---\ntitle: Hello\ndate: 01-02-2024\nlast_modified: 01-02-2024:10:30\ntags:\n- a\nauthor: Ann\n---\n\n# Hello\n";
    ws.write("dir/hello.md", text);
    let server = ws.serve();
    let response = server.get("/api/v1/notes/dir/hello.md");
    let body_text_check = response
        .headers()
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(body_text_check, "application/json; charset=utf-8");
    let raw_json = response.text().unwrap();
    assert!(
        raw_json.contains("\n  \"path\": \"dir/hello.md\""),
        "not indented: {raw_json}"
    );
    let note: Value = serde_json::from_str(&raw_json).unwrap();
    assert_eq!(
        keys(&note),
        [
            "path",
            "title",
            "content",
            "body",
            "frontMatter",
            "lastModified",
            "size"
        ]
    );
    assert_eq!(
        note,
        json!({"path": "dir/hello.md", "title": "Hello", "content": text, "body": "# Hello\n",
               "frontMatter": {"title": "Hello", "date": "01-02-2024", "last_modified": "01-02-2024:10:30", "tags": ["a"]},
               "lastModified": "01-02-2024:10:30", "size": text.len()})
    );
    for accept in [
        "text/markdown",
        "text/plain",
        "text/html, text/markdown;q=0.9",
        // Media types compare without regard to case.
        "Text/Markdown",
        "application/json, TEXT/PLAIN",
    ] {
        let r = server
            .request("GET", "/api/v1/notes/dir/hello.md")
            .header("Accept", accept)
            .send()
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-type"], "text/markdown; charset=utf-8");
        assert_eq!(
            r.headers()["content-disposition"],
            "inline; filename=\"hello.md\""
        );
        assert_eq!(r.text().unwrap(), text);
    }
    for accept in ["application/json", "*/*", "text/html"] {
        let r = server
            .request("GET", "/api/v1/notes/dir/hello.md")
            .header("Accept", accept)
            .send()
            .unwrap();
        assert_eq!(json(r).1["path"], "dir/hello.md");
    }
}

#[test]
fn read_lenient_forms() {
    let ws = Workspace::new();
    ws.write("plain.md", "no front matter here");
    ws.write("broken.md", "---\ntitle: [x\n---\nbody");
    ws.write("empty.md", "");
    let server = ws.serve();
    let (_, plain) = json(server.get("/api/v1/notes/plain.md"));
    assert_eq!(
        plain,
        json!({"path": "plain.md", "title": "plain", "content": "no front matter here",
               "body": "no front matter here", "lastModified": "", "size": 20})
    );
    let (_, broken) = json(server.get("/api/v1/notes/broken.md"));
    assert_eq!(
        broken["frontMatter"],
        json!({"title": "", "date": "", "last_modified": "", "tags": []})
    );
    assert_eq!(broken["body"], "---\ntitle: [x\n---\nbody");
    assert_eq!(broken["content"], broken["body"]);
    let (_, empty) = json(server.get("/api/v1/notes/empty.md"));
    assert_eq!(
        empty,
        json!({"path": "empty.md", "title": "empty", "lastModified": "", "size": 0})
    );
}

#[test]
fn read_missing_is_404() {
    let ws = Workspace::new();
    let server = ws.serve();
    assert_error(server.get("/api/v1/notes/nope.md"), 404, "Note not found");
    let r = server
        .request("GET", "/api/v1/notes/a/nope.md")
        .header("Accept", "text/markdown")
        .send()
        .unwrap();
    assert_error(r, 404, "Note not found");
}

/// Reads `path` as Markdown.
fn raw_text(server: &Server, path: &str) -> String {
    server
        .request("GET", path)
        .header("Accept", "text/markdown")
        .send()
        .unwrap()
        .text()
        .unwrap()
}

#[test]
fn reads_see_files_changed_outside_the_service() {
    let ws = Workspace::new();
    let first = "---\ntitle: One\ntags: [a]\n---\n\nfirst body\n";
    ws.write("r.md", first);
    let server = ws.serve_settled();
    // Read twice each way: the second reads come from memory.
    for _ in 0..2 {
        let (_, note) = json(server.get("/api/v1/notes/r.md"));
        assert_eq!(
            (note["title"].as_str(), note["body"].as_str()),
            (Some("One"), Some("first body\n"))
        );
        assert_eq!(raw_text(&server, "/api/v1/notes/r.md"), first);
    }
    // Same size, rewritten in place: the next read shows the new text.
    let second = "---\ntitle: Two\ntags: [b]\n---\n\nother body\n";
    assert_eq!(first.len(), second.len());
    std::fs::write(ws.notes().join("r.md"), second).unwrap();
    assert_eq!(raw_text(&server, "/api/v1/notes/r.md"), second);
    let (_, note) = json(server.get("/api/v1/notes/r.md"));
    assert_eq!(note["title"], "Two");
    assert_eq!(note["frontMatter"]["tags"], json!(["b"]));
    assert_eq!(note["body"], "other body\n");
    // Replaced by a rename after settling in memory again.
    assert_eq!(raw_text(&server, "/api/v1/notes/r.md"), second);
    let third = "---\ntitle: Six\ntags: [c]\n---\n\nthird body\n";
    std::fs::write(ws.root.path().join("r.tmp"), third).unwrap();
    std::fs::rename(ws.root.path().join("r.tmp"), ws.notes().join("r.md")).unwrap();
    assert_eq!(raw_text(&server, "/api/v1/notes/r.md"), third);
    assert_eq!(json(server.get("/api/v1/notes/r.md")).1["title"], "Six");
    // Front matter removed: frontMatter goes, the body is the whole text.
    std::fs::write(ws.notes().join("r.md"), "just text now").unwrap();
    let (_, note) = json(server.get("/api/v1/notes/r.md"));
    assert!(note.get("frontMatter").is_none(), "{note}");
    assert_eq!(note["body"], "just text now");
    assert_eq!(note["title"], "r");
}

#[test]
fn a_notes_dir_replaced_while_serving_is_read_from_its_path() {
    let ws = Workspace::new();
    ws.write("n.md", "old folder\n");
    let server = ws.serve();
    // Past the start-up passes and the first check of the folder.
    wait_for_root_check();
    assert_eq!(raw_text(&server, "/api/v1/notes/n.md"), "old folder\n");
    assert_eq!(raw_text(&server, "/api/v1/notes/n.md"), "old folder\n");
    // Moved aside and replaced, as by a fresh clone.
    std::fs::rename(ws.notes(), ws.root.path().join("notes-aside")).unwrap();
    ws.write("n.md", "new folder\n");
    ws.write("only-new.md", "x\n");
    // The handle on the old folder is trusted for at most a second.
    wait_for_root_check();
    assert_eq!(raw_text(&server, "/api/v1/notes/n.md"), "new folder\n");
    assert_eq!(raw_text(&server, "/api/v1/notes/only-new.md"), "x\n");
    let (_, list) = json(server.get("/api/v1/notes"));
    assert_eq!(list["total"], 2, "{list}\n{}", server.log());
}
