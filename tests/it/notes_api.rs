//! The v1 notes API over HTTP: every rule of the spec's path, list, read, PUT, DELETE
//! and error sections, checked against the built binary and the files on disk.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Server, Workspace, assert_error, json, local_now, today};

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

fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

// ---- list ----

#[test]
fn empty_list() {
    let ws = Workspace::new();
    let server = ws.serve();
    for path in ["/api/v1/notes", "/api/v1/notes/"] {
        let (status, body) = json(server.get(path));
        assert_eq!(status, 200);
        assert_eq!(body, json!({"notes": [], "total": 0}));
    }
}

#[test]
fn list_is_recursive_sorted_and_skips_hidden() {
    let ws = Workspace::new();
    ws.write("b.md", "---\ntitle: Bee\ndate: 01-02-2024\nlast_modified: 01-02-2024:10:30\ntags: [x, y]\n---\nbody\n");
    ws.write("a/deep/c.md", "plain text, no front matter");
    ws.write("a/broken.md", "---\ntitle: [unclosed\n---\nbody");
    ws.write(".hidden.md", "---\ntitle: h\n---\n");
    ws.write(".git/x.md", "x");
    ws.write("a/.secret/y.md", "y");
    ws.write("readme.txt", "not a note");
    std::fs::create_dir_all(ws.notes().join("folder.md")).unwrap();
    let server = ws.serve();
    let (status, body) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
    assert_eq!(body["total"], 3);
    let paths: Vec<_> = body["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["a/broken.md", "a/deep/c.md", "b.md"]);
    let bee = &body["notes"][2];
    assert_eq!(
        keys(bee),
        ["path", "title", "tags", "lastModified", "date", "size"]
    );
    assert_eq!(
        *bee,
        json!({"path": "b.md", "title": "Bee", "tags": ["x", "y"], "lastModified": "01-02-2024:10:30",
               "date": "01-02-2024", "size": std::fs::metadata(ws.notes().join("b.md")).unwrap().len()})
    );
    let broken = &body["notes"][0];
    assert_eq!(broken["title"], "broken");
    assert_eq!(broken["tags"], json!([]));
    assert_eq!(broken["date"], "");
    assert_eq!(broken["lastModified"], "");
    assert_eq!(body["notes"][1]["title"], "c");
}

#[test]
fn list_accepts_only_get() {
    let ws = Workspace::new();
    let server = ws.serve();
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        assert_error(
            server.request(method, "/api/v1/notes").send().unwrap(),
            405,
            "Method not allowed",
        );
        assert_error(
            server.request(method, "/api/v1/notes/").send().unwrap(),
            405,
            "Method not allowed",
        );
    }
}

#[test]
fn list_fails_with_500_when_the_folder_is_gone() {
    let ws = Workspace::new();
    let server = ws.serve();
    // A file where the folder was: nothing (not even the indexer) can recreate it.
    std::fs::remove_dir_all(ws.notes()).unwrap();
    std::fs::write(ws.notes(), "not a folder").unwrap();
    assert_error(server.get("/api/v1/notes"), 500, "Failed to list notes");
}

// ---- path rules ----

#[test]
fn path_checks_run_in_spec_order() {
    let ws = Workspace::new();
    let server = ws.serve();
    let before = ws.snapshot();
    for target in [
        "/api/v1/notes/../x.md",
        "/api/v1/notes/a/../../x.md",
        "/api/v1/notes/%2e%2e/x.md",
        "/api/v1/notes/%2e%2e%2fx.md",
        "/api/v1/notes/..%2fx.md",
        "/api/v1/notes/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd.md",
        "/api/v1/notes//etc/passwd.md",
        "/api/v1/notes/%2fetc%2fpasswd.md",
        "/api/v1/notes/a%5c..%5c..%5cx.md",
        "/api/v1/notes/a%00.md",
        "/api/v1/notes/../x.txt",
    ] {
        for method in ["GET", "PUT", "DELETE", "POST"] {
            let r = server.raw(method, target, &[("Content-Type", "text/markdown")], b"x");
            r.assert_error(400, "Invalid path");
        }
    }
    for target in [
        "/api/v1/notes/x.txt",
        "/api/v1/notes/a/b",
        "/api/v1/notes/x.MD",
    ] {
        for method in ["GET", "PUT", "DELETE", "POST", "PATCH"] {
            let r = server.raw(method, target, &[("Content-Type", "text/markdown")], b"x");
            r.assert_error(400, "Only .md files are supported");
        }
    }
    for method in ["POST", "PATCH", "OPTIONS", "HEAD"] {
        let r = server.raw(method, "/api/v1/notes/x.md", &[], b"");
        assert_eq!(r.status, 405, "{method}");
        if method != "HEAD" {
            r.assert_error(405, "Method not allowed. Supported: GET, PUT, DELETE");
        }
    }
    assert_eq!(ws.snapshot(), before, "a refused request changed the disk");
}

#[test]
fn dot_segments_are_cleaned_inside_the_folder() {
    let ws = Workspace::new();
    let server = ws.serve();
    let r = server.raw(
        "PUT",
        "/api/v1/notes/a/./b/../c.md",
        &[("Content-Type", "text/markdown")],
        b"hi",
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["path"], "a/c.md");
    assert!(ws.notes().join("a/c.md").is_file());
    let r = server.raw("GET", "/api/v1/notes/a%2Fc.md", &[], b"");
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["path"], "a/c.md");
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_folder_are_refused() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        "---\ntitle: secret\n---\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.notes().join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), ws.notes().join("link.md"))
        .unwrap();
    let server = ws.serve();
    assert_error(
        server.get("/api/v1/notes/out/secret.md"),
        400,
        "Invalid path",
    );
    assert_error(server.get("/api/v1/notes/link.md"), 400, "Invalid path");
    assert_error(
        server.put_markdown("/api/v1/notes/out/new.md", "x"),
        400,
        "Invalid path",
    );
    assert_error(
        server.put_markdown("/api/v1/notes/link.md", "x"),
        400,
        "Invalid path",
    );
    assert_error(
        server
            .request("DELETE", "/api/v1/notes/link.md")
            .send()
            .unwrap(),
        400,
        "Invalid path",
    );
    let names: Vec<_> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["secret.md"]);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.md")).unwrap(),
        "---\ntitle: secret\n---\n"
    );
    let (_, list) = json(server.get("/api/v1/notes"));
    assert_eq!(list["total"], 0, "{list}");
}

// ---- read ----

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

// ---- PUT JSON ----

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
            let (status, err) = json(server.put_json(target, body));
            assert_eq!(status, 400, "{body}");
            assert!(
                err["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("Invalid JSON: "),
                "{err}"
            );
            assert_eq!(err["error"], "Bad Request");
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

// ---- PUT Markdown ----

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
fn content_type_selects_the_form() {
    let ws = Workspace::new();
    let server = ws.serve();
    for (ct, expect) in [
        ("text/plain", 201),
        ("text/markdown; charset=utf-8", 200),
        ("application/json; charset=utf-8", 200),
        ("Application/JSON", 200),
    ] {
        let body = if ct.to_ascii_lowercase().contains("json") {
            "{}"
        } else {
            "text"
        };
        let r = server
            .request("PUT", "/api/v1/notes/ct.md")
            .header("Content-Type", ct)
            .body(body)
            .send()
            .unwrap();
        assert_eq!(json(r).0, expect, "{ct}");
    }
    let before = ws.snapshot();
    for ct in [
        "text/html",
        "application/x-www-form-urlencoded",
        "image/png",
        "application/xml",
    ] {
        let r = server
            .request("PUT", "/api/v1/notes/ct.md")
            .header("Content-Type", ct)
            .body("x")
            .send()
            .unwrap();
        assert_error(
            r,
            415,
            "Unsupported Content-Type. Use application/json or text/markdown",
        );
    }
    let r = server.raw("PUT", "/api/v1/notes/new.md", &[], b"x");
    r.assert_error(
        415,
        "Unsupported Content-Type. Use application/json or text/markdown",
    );
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn non_utf8_markdown_is_refused() {
    let ws = Workspace::new();
    let server = ws.serve();
    let before = ws.snapshot();
    let r = server
        .request("PUT", "/api/v1/notes/bin.md")
        .header("Content-Type", "text/markdown")
        .body(vec![0xff, 0xfe, 0x00, 0x41])
        .send()
        .unwrap();
    assert_error(r, 400, "Failed to read body");
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn chunked_uploads_work() {
    let ws = Workspace::new();
    let server = ws.serve();
    let body = b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
    let r = server.raw(
        "PUT",
        "/api/v1/notes/chunked.md",
        &[
            ("Content-Type", "text/markdown"),
            ("Transfer-Encoding", "chunked"),
        ],
        body,
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["body"], "hello world");
}

#[test]
fn bodies_over_the_limit_get_413() {
    let ws = Workspace::new();
    let server = ws.serve_with(&["--max-body", "1000"]);
    let before = ws.snapshot();
    let big = "x".repeat(1001);
    let r = server.put_markdown("/api/v1/notes/big.md", &big);
    assert_error(
        r,
        413,
        "Request body is larger than the limit of 1000 bytes",
    );
    let mut chunked = Vec::new();
    for _ in 0..3 {
        chunked.extend_from_slice(format!("{:x}\r\n{}\r\n", 400, "y".repeat(400)).as_bytes());
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let r = server.raw(
        "PUT",
        "/api/v1/notes/big.md",
        &[
            ("Content-Type", "text/markdown"),
            ("Transfer-Encoding", "chunked"),
        ],
        &chunked,
    );
    r.assert_error(413, "Request body is larger than the limit of 1000 bytes");
    assert_eq!(ws.snapshot(), before);
    let (status, _) = json(server.put_markdown("/api/v1/notes/fits.md", &"z".repeat(1000)));
    assert_eq!(status, 201);
}

// ---- DELETE ----

#[test]
fn delete_confirms_and_removes() {
    let ws = Workspace::new();
    ws.write("a/gone.md", "bye");
    let server = ws.serve();
    let (status, body) = json(
        server
            .request("DELETE", "/api/v1/notes/a/gone.md")
            .send()
            .unwrap(),
    );
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"message": "Note deleted successfully", "path": "a/gone.md"})
    );
    assert_eq!(keys(&body), ["message", "path"]);
    assert!(!ws.notes().join("a/gone.md").exists());
    assert_error(
        server
            .request("DELETE", "/api/v1/notes/a/gone.md")
            .send()
            .unwrap(),
        404,
        "Note not found",
    );
}

// ---- errors and server behaviour ----

#[test]
fn unknown_routes_are_json_errors() {
    let ws = Workspace::new();
    let server = ws.serve();
    for path in [
        "/nope",
        "/api",
        "/api/v1",
        "/api/v1/notesx",
        "/api/v2/notes",
    ] {
        assert_error(server.get(path), 404, "Not found");
    }
}

#[test]
fn serve_creates_the_folder_and_stops_on_sigterm() {
    let ws = Workspace::new();
    std::fs::remove_dir(ws.notes()).unwrap();
    let mut server = ws.serve();
    assert!(server.base.starts_with("http://127.0.0.1:"));
    assert!(ws.notes().is_dir());
    let (status, _) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
    assert!(server.terminate(), "server did not exit cleanly on SIGTERM");
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

#[test]
fn list_sees_files_changed_outside_the_service() {
    let ws = Workspace::new();
    ws.write("a.md", "---\ntitle: Alpha\ntags: [x]\n---\n");
    ws.write("b.md", "---\ntitle: Beta\n---\n");
    let server = ws.serve();
    let titles = || -> Vec<String> {
        let (_, list) = json(server.get("/api/v1/notes"));
        list["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["title"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(titles(), ["Alpha", "Beta"]);
    wait_until_settled();
    assert_eq!(titles(), ["Alpha", "Beta"]);
    assert_eq!(titles(), ["Alpha", "Beta"], "warm list");
    // Same size, rewritten in place (as an editor does): seen at once.
    std::fs::write(
        ws.notes().join("a.md"),
        "---\ntitle: Omega\ntags: [x]\n---\n",
    )
    .unwrap();
    // Replaced by rename, as `git pull` does.
    std::fs::write(ws.root.path().join("tmp.md"), "---\ntitle: Gamma\n---\n").unwrap();
    std::fs::rename(ws.root.path().join("tmp.md"), ws.notes().join("b.md")).unwrap();
    ws.write("c.md", "---\ntitle: New\n---\n");
    assert_eq!(titles(), ["Omega", "Gamma", "New"]);
    std::fs::remove_file(ws.notes().join("a.md")).unwrap();
    assert_eq!(titles(), ["Gamma", "New"]);
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

/// Files are kept in memory only once they have not changed for a second (their
/// identity then tells every later change apart).
fn wait_until_settled() {
    std::thread::sleep(Duration::from_millis(1100));
}

#[test]
fn reads_see_files_changed_outside_the_service() {
    let ws = Workspace::new();
    let first = "---\ntitle: One\ntags: [a]\n---\n\nfirst body\n";
    ws.write("r.md", first);
    let server = ws.serve();
    wait_until_settled();
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
    wait_until_settled();
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
    wait_until_settled();
    assert_eq!(raw_text(&server, "/api/v1/notes/n.md"), "old folder\n");
    assert_eq!(raw_text(&server, "/api/v1/notes/n.md"), "old folder\n");
    // Moved aside and replaced, as by a fresh clone.
    std::fs::rename(ws.notes(), ws.root.path().join("notes-aside")).unwrap();
    ws.write("n.md", "new folder\n");
    ws.write("only-new.md", "x\n");
    // The handle on the old folder is trusted for at most a second.
    wait_until_settled();
    assert_eq!(raw_text(&server, "/api/v1/notes/n.md"), "new folder\n");
    assert_eq!(raw_text(&server, "/api/v1/notes/only-new.md"), "x\n");
    let (_, list) = json(server.get("/api/v1/notes"));
    assert_eq!(list["total"], 2);
}
