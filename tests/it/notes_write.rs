//! Writing a note over HTTP with PUT: the JSON form (defaults, fields, exact content,
//! bad bodies, unknown front matter keys kept), the Markdown form (generated or
//! refreshed front matter) and concurrent writers that never tear a note.

use serde_json::{Value, json};

use crate::support::{Workspace, assert_invalid_json, json, keys, local_now, today};

/// Asserts a `DD-MM-YYYY:HH:MM` stamp is the current time in the test zone (±2 min).
fn assert_now_stamp(stamp: &Value) {
    let stamp = stamp
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {stamp}"));
    let parsed = chrono::NaiveDateTime::parse_from_str(stamp, "%d-%m-%Y:%H:%M")
        .unwrap_or_else(|e| panic!("{stamp}: {e}"));
    let now = local_now().naive_local();
    let diff = (now - parsed).num_seconds().abs();
    assert!(diff <= 120, "{stamp} is not now ({now})");
    assert_eq!(stamp.len(), 16);
}

#[test]
fn json_put_creates_with_defaults_then_replaces() {
    let ws = Workspace::new();
    let server = ws.serve();
    let (status, note) = json(server.put_json("/api/v1/notes/sub/dir/my-first-note.md", "{}"));
    assert_eq!(status, 201);
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
    assert_eq!(note["path"], "sub/dir/my-first-note.md");
    assert_eq!(note["title"], "My First Note");
    assert_eq!(note["frontMatter"]["title"], "My First Note");
    assert_eq!(note["frontMatter"]["date"], today());
    assert_eq!(note["frontMatter"]["tags"], json!([]));
    assert_now_stamp(&note["frontMatter"]["last_modified"]);
    assert_eq!(note["body"], "# My First Note\n\nVotre contenu ici...\n");
    assert_eq!(note["lastModified"], note["frontMatter"]["last_modified"]);
    let on_disk = ws.read("sub/dir/my-first-note.md");
    assert_eq!(note["content"], on_disk.as_str());
    assert_eq!(note["size"], on_disk.len());
    assert!(
        on_disk.starts_with("---\ntitle: My First Note\ndate: "),
        "{on_disk}"
    );

    let (status, again) = json(server.put_json("/api/v1/notes/sub/dir/my-first-note.md", "{}"));
    assert_eq!(status, 200);
    assert_eq!(again["title"], "My First Note");
    let (_, read) = json(server.get("/api/v1/notes/sub/dir/my-first-note.md"));
    assert_eq!(read, again);
}

#[test]
fn json_put_with_fields() {
    let ws = Workspace::new();
    let server = ws.serve();
    let request = json!({"body": "Some *text*.", "frontMatter": {"title": "Mon été", "date": "01-01-2020", "tags": ["voyage", "été"]}});
    let (status, note) = json(server.put_json("/api/v1/notes/trip.md", &request.to_string()));
    assert_eq!(status, 201);
    assert_eq!(note["title"], "Mon été");
    // A new note's date is today, whatever was supplied.
    assert_eq!(note["frontMatter"]["date"], today());
    assert_eq!(note["frontMatter"]["tags"], json!(["voyage", "été"]));
    assert_eq!(note["body"], "Some *text*.");
    // An existing note keeps a supplied date, and gets today for an empty one.
    let (status, note) = json(server.put_json("/api/v1/notes/trip.md", &request.to_string()));
    assert_eq!(status, 200);
    assert_eq!(note["frontMatter"]["date"], "01-01-2020");
    assert_now_stamp(&note["frontMatter"]["last_modified"]);
    let request =
        json!({"frontMatter": {"title": "T", "date": "", "last_modified": "01-01-1999:00:00"}});
    let (_, note) = json(server.put_json("/api/v1/notes/trip.md", &request.to_string()));
    assert_eq!(note["frontMatter"]["date"], today());
    assert_now_stamp(&note["frontMatter"]["last_modified"]);
    assert_eq!(note["body"], "# T\n\nVotre contenu ici...\n");
}

#[test]
fn json_put_content_is_stored_exactly() {
    let ws = Workspace::new();
    let server = ws.serve();
    let content = "---\ntitle: Exact\nlast_modified: 01-01-2001:01:01\n---\nkept   as is\n";
    let request =
        json!({"content": content, "body": "ignored", "frontMatter": {"title": "ignored"}});
    let (status, note) = json(server.put_json("/api/v1/notes/exact.md", &request.to_string()));
    assert_eq!(status, 201);
    assert_eq!(ws.read("exact.md"), content);
    assert_eq!(note["content"], content);
    assert_eq!(note["lastModified"], "01-01-2001:01:01");
    assert_eq!(note["title"], "Exact");
    // An empty content falls back to building the note.
    let (_, note) =
        json(server.put_json("/api/v1/notes/exact.md", r#"{"content": "", "body": "b"}"#));
    assert_eq!(note["title"], "Exact");
    assert_eq!(note["body"], "b");
}

#[test]
fn json_put_bad_bodies_change_nothing() {
    let ws = Workspace::new();
    ws.write("keep.md", "original");
    let server = ws.serve();
    let before = ws.snapshot();
    for body in [
        "{bad",
        "",
        "[1,2]",
        "\"text\"",
        r#"{"body": 5}"#,
        r#"{"frontMatter": {"tags": "x"}}"#,
        r#"{"frontMatter": {"title": ["a"]}}"#,
    ] {
        for target in ["/api/v1/notes/keep.md", "/api/v1/notes/new.md"] {
            assert_invalid_json(server.put_json(target, body), body);
        }
    }
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn json_put_keeps_unknown_front_matter_keys() {
    let ws = Workspace::new();
    ws.write(
        "n.md",
        "---\ntitle: Old\nauthor: Ann\ndraft: true\n---\nold body\n",
    );
    let server = ws.serve();
    let (status, note) = json(server.put_json(
        "/api/v1/notes/n.md",
        r#"{"body": "new", "frontMatter": {"title": "New"}}"#,
    ));
    assert_eq!(status, 200);
    assert_eq!(
        keys(&note["frontMatter"]),
        ["title", "date", "last_modified", "tags"]
    );
    let text = ws.read("n.md");
    assert!(text.contains("author: Ann\ndraft: true\n"), "{text}");
    assert!(text.starts_with("---\ntitle: New\n"), "{text}");
}

#[test]
fn markdown_put_generates_front_matter() {
    let ws = Workspace::new();
    let server = ws.serve();
    let (status, note) =
        json(server.put_markdown("/api/v1/notes/ideas/my-idea.md", "# Idea\n\nText.\n"));
    assert_eq!(status, 201);
    assert_eq!(note["title"], "my-idea");
    assert_eq!(note["frontMatter"]["title"], "my-idea");
    assert_eq!(note["frontMatter"]["date"], today());
    assert_eq!(note["frontMatter"]["tags"], json!([]));
    assert_now_stamp(&note["lastModified"]);
    assert_eq!(note["body"], "# Idea\n\nText.\n");
    assert_eq!(note["content"], ws.read("ideas/my-idea.md").as_str());
    let (status, _) = json(server.put_markdown("/api/v1/notes/ideas/my-idea.md", "again"));
    assert_eq!(status, 200);
}

#[test]
fn markdown_put_refreshes_last_modified_and_keeps_the_rest() {
    let ws = Workspace::new();
    let server = ws.serve();
    let text = "---\nzeta: 1\ntitle: Kept\ndate: 03-03-2003\nlast_modified: 03-03-2003:03:03\ntags:\n- t\nextra:\n  nested:\n  - 1\n  - 2\n---\nBody *kept*\n\nbyte for byte.  \n";
    let (status, note) = json(server.put_markdown("/api/v1/notes/k.md", text));
    assert_eq!(status, 201);
    let stored = ws.read("k.md");
    let stamp = note["lastModified"].as_str().unwrap().to_string();
    assert_now_stamp(&note["lastModified"]);
    assert_eq!(stored, text.replace("03-03-2003:03:03", &stamp));
    assert_eq!(note["frontMatter"]["date"], "03-03-2003");
    assert_eq!(note["body"], "Body *kept*\n\nbyte for byte.  \n");
}

#[test]
fn markdown_put_with_broken_front_matter_is_stored_unchanged() {
    let ws = Workspace::new();
    let server = ws.serve();
    for text in [
        "---\ntitle: [broken\n---\nbody",
        "---\nnever closed",
        "----\nnot a delimiter\n",
    ] {
        let (status, note) = json(server.put_markdown("/api/v1/notes/b.md", text));
        assert!(status == 201 || status == 200);
        assert_eq!(ws.read("b.md"), text);
        assert_eq!(note["content"], text);
    }
}

#[test]
fn concurrent_writes_to_one_note_never_tear() {
    let ws = Workspace::new();
    let server = std::sync::Arc::new(ws.serve());
    let bodies: Vec<String> = (0..8)
        .map(|i| format!("{}\n", i.to_string().repeat(20_000)))
        .collect();
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let (server, body) = (server.clone(), bodies[i].clone());
            std::thread::spawn(move || {
                for _ in 0..5 {
                    let r = server
                        .request("PUT", "/api/v1/notes/same.md")
                        .header("Content-Type", "application/json")
                        .body(json!({"content": body}).to_string())
                        .send()
                        .unwrap();
                    assert!(r.status().is_success());
                    let raw = server
                        .request("GET", "/api/v1/notes/same.md")
                        .header("Accept", "text/markdown")
                        .send()
                        .unwrap()
                        .text()
                        .unwrap();
                    assert!(
                        raw.len() == 20_001
                            && raw
                                .chars()
                                .take(20_000)
                                .collect::<std::collections::HashSet<_>>()
                                .len()
                                == 1,
                        "torn read"
                    );
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    let last = ws.read("same.md");
    assert!(bodies.contains(&last));
    let leftovers: Vec<_> = std::fs::read_dir(ws.notes())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != ".notes")
        .collect();
    assert_eq!(leftovers, ["same.md"], "temp files left behind");
}
