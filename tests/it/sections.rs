//! Section edits and the outline over the real server, on their own route:
//! `PATCH /api/v1/sections/{path}` (append, prepend, replace under a heading path, front
//! matter set), its errors with the candidate heading paths, `If-Match`, the history it
//! leaves, line endings kept, `GET /api/v1/sections/{path}` (the outline), the 405 of
//! other methods, and a folder token's reach.

use reqwest::blocking::Response;
use serde_json::{Value, json};

use crate::support::{Server, Workspace, assert_cross_site_refused, assert_error, json};

const NOTE: &str = "# Top\nintro\n\n## Sub\nold\n\n```\n# not a heading\n```\n\n## Other\nz\n\nSetext\n======\ntail\n";

fn patch(server: &Server, path: &str, body: &Value) -> Response {
    server
        .request("PATCH", &format!("/api/v1/sections/{path}"))
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .unwrap()
}

/// A PATCH that must succeed: the NoteResponse.
fn patched(server: &Server, path: &str, body: Value) -> Value {
    let (status, note) = json(patch(server, path, &body));
    assert_eq!(status, 200, "{body}: {note}");
    note
}

fn served(notes: &[(&str, &str)]) -> (Workspace, Server) {
    let ws = Workspace::new();
    for (path, text) in notes {
        ws.write(path, text);
    }
    let server = ws.serve();
    (ws, server)
}

#[test]
fn append_prepend_and_replace_edit_only_their_section() {
    let (ws, server) = served(&[("n.md", NOTE)]);
    // Append: at the end of the section, its subsections included, before the blank
    // line that separates it from the next heading.
    let note = patched(
        &server,
        "n.md",
        json!({"op": "append", "heading": ["Top", "Sub"], "text": "added"}),
    );
    let expected = NOTE.replace("# not a heading\n```\n", "# not a heading\n```\nadded\n");
    assert_eq!(ws.read("n.md"), expected);
    assert_eq!(note["content"], expected);
    assert_eq!(note["path"], "n.md");

    patched(
        &server,
        "n.md",
        json!({"op": "prepend", "heading": ["Top", "Other"], "text": "first\n"}),
    );
    let expected = expected.replace("## Other\nz\n", "## Other\nfirst\nz\n");
    assert_eq!(ws.read("n.md"), expected);

    // Replace keeps the heading line (setext: both lines) and swaps what is under it.
    patched(
        &server,
        "n.md",
        json!({"op": "replace", "heading": ["Setext"], "text": "new tail"}),
    );
    let expected = expected.replace("======\ntail\n", "======\nnew tail\n");
    assert_eq!(ws.read("n.md"), expected);

    // Append to the top section goes after all of its subsections.
    patched(
        &server,
        "n.md",
        json!({"op": "append", "heading": ["Top"], "text": "end of top"}),
    );
    let expected = expected.replace("first\nz\n", "first\nz\nend of top\n");
    assert_eq!(ws.read("n.md"), expected);

    // Replacing a section with subsections replaces them too.
    patched(
        &server,
        "n.md",
        json!({"op": "replace", "heading": ["Top"], "text": "only this"}),
    );
    assert_eq!(
        ws.read("n.md"),
        "# Top\nonly this\n\nSetext\n======\nnew tail\n"
    );
}

#[test]
fn missing_and_ambiguous_headings_answer_the_candidates_and_change_nothing() {
    let text = "# A\n## B\n# A\n## C\n```\n# D\n```\n";
    let (ws, server) = served(&[("n.md", text)]);
    let candidates = json!([["A"], ["A", "B"], ["A", "C"]]);

    let (status, body) = json(patch(
        &server,
        "n.md",
        &json!({"op": "append", "heading": ["A"], "text": "x"}),
    ));
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"], "Conflict");
    assert_eq!(body["code"], 409);
    assert_eq!(
        body["message"],
        "Heading is ambiguous: more than one section is [\"A\"]"
    );
    assert_eq!(body["candidates"], candidates);

    // Headings inside a code fence are no candidates; case and the whole path matter.
    for heading in [
        json!(["D"]),
        json!(["a", "B"]),
        json!(["B"]),
        json!(["A", "B", "C"]),
    ] {
        let (status, body) = json(patch(
            &server,
            "n.md",
            &json!({"op": "replace", "heading": heading, "text": "x"}),
        ));
        assert_eq!(status, 404, "{heading}: {body}");
        assert_eq!(body["error"], "Not Found");
        assert_eq!(body["message"], format!("Heading not found: {heading}"));
        assert_eq!(body["candidates"], candidates, "{heading}");
    }
    // Never a silent new heading: the note is as it was.
    assert_eq!(ws.read("n.md"), text);

    // A unique path under a duplicated parent still works.
    patched(
        &server,
        "n.md",
        json!({"op": "append", "heading": ["A", "C"], "text": "x"}),
    );
    assert_eq!(ws.read("n.md"), "# A\n## B\n# A\n## C\n```\n# D\n```\nx\n");
}

#[test]
fn bad_bodies_and_missing_notes() {
    let (ws, server) = served(&[("n.md", "# A\n")]);
    for (body, message) in [
        (
            json!({"heading": ["A"], "text": "x"}),
            "Invalid section edit: \"op\" must be one of \"append\", \"prepend\", \"replace\", \"set\"",
        ),
        (
            json!({"op": "append", "heading": "A", "text": "x"}),
            "Invalid section edit: \"heading\" must be a non-empty array of heading texts, \
             outermost first (for example [\"Top\", \"Sub\"])",
        ),
        (
            json!({"op": "prepend", "heading": ["A"]}),
            "Invalid section edit: \"prepend\" needs a \"text\" string",
        ),
        (
            json!({"op": "set", "frontMatter": "x"}),
            "Invalid section edit: \"frontMatter\" must be an object",
        ),
        (
            json!({"op": "append", "heading": ["A"], "text": "x", "extra": 1}),
            "Invalid section edit: \"extra\" is not a field of \"append\"",
        ),
    ] {
        assert_error(patch(&server, "n.md", &body), 400, message);
    }
    let r = server
        .request("PATCH", "/api/v1/sections/n.md")
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .unwrap();
    let (status, body) = json(r);
    assert_eq!(status, 400);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid JSON: ")
    );
    assert_eq!(ws.read("n.md"), "# A\n");
    let r = server
        .request("PATCH", "/api/v1/sections/n.md")
        .header("Content-Type", "text/markdown")
        .body(json!({"op": "append", "heading": ["A"], "text": "x"}).to_string())
        .send()
        .unwrap();
    assert_error(r, 415, "Unsupported Content-Type. Use application/json");

    let edit = json!({"op": "append", "heading": ["A"], "text": "x"});
    assert_error(patch(&server, "gone.md", &edit), 404, "Note not found");
    assert!(!ws.notes().join("gone.md").exists());
    assert_error(
        patch(&server, "n.txt", &edit),
        400,
        "Only .md files are supported",
    );
    assert_error(patch(&server, "..%2Fx.md", &edit), 400, "Invalid path");

    // The note's own route takes no PATCH: the spec's 405, the note unchanged.
    let r = server
        .request("PATCH", "/api/v1/notes/n.md")
        .header("Content-Type", "application/json")
        .body(edit.to_string())
        .send()
        .unwrap();
    assert_eq!(r.headers()["allow"], "GET, PUT, DELETE");
    assert_error(r, 405, "Method not allowed. Supported: GET, PUT, DELETE");
    assert_eq!(ws.read("n.md"), "# A\n");

    // A write like PUT: a cross-site browser request is refused.
    let r = server
        .request("PATCH", "/api/v1/sections/n.md")
        .header("Content-Type", "application/json")
        .header("Sec-Fetch-Site", "cross-site")
        .body(edit.to_string())
        .send()
        .unwrap();
    let (status, body) = json(r);
    assert_cross_site_refused(status, &body, "PATCH");
    assert_eq!(ws.read("n.md"), "# A\n");
}

#[test]
fn front_matter_set_merges_keeps_unknown_keys_and_their_order() {
    let text = "---\nzeta: 1\ntitle: Old\nauthor: Ann\ntags:\n- a\n---\n\n# A\nbody\n";
    let (ws, server) = served(&[("n.md", text), ("plain.md", "just text\n")]);
    let note = patched(
        &server,
        "n.md",
        json!({"op": "set", "frontMatter": {"title": "New", "mood": "ok", "author": null}}),
    );
    assert_eq!(note["title"], "New");
    assert_eq!(note["frontMatter"]["tags"], json!(["a"]));
    let stored = ws.read("n.md");
    let yaml: Vec<&str> = stored
        .lines()
        .skip(1)
        .take_while(|l| *l != "---")
        .filter(|l| !l.starts_with(' ') && !l.starts_with('-'))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    // No key is added beyond those set: the note had no last_modified.
    assert_eq!(yaml, ["zeta", "title", "tags", "mood"]);
    assert!(stored.ends_with("---\n\n# A\nbody\n"), "{stored}");
    assert!(!stored.contains("author"));

    // A note without front matter gets one; its text follows unchanged.
    let note = patched(
        &server,
        "plain.md",
        json!({"op": "set", "frontMatter": {"tags": ["x", "y"]}}),
    );
    assert_eq!(note["frontMatter"]["tags"], json!(["x", "y"]));
    let stored = ws.read("plain.md");
    assert!(stored.starts_with("---\n"), "{stored}");
    assert!(stored.ends_with("---\n\njust text\n"), "{stored}");

    // A front matter that does not parse is not guessed at.
    ws.write("broken.md", "---\ntitle: [x\n---\nbody\n");
    let (status, body) = json(patch(
        &server,
        "broken.md",
        &json!({"op": "set", "frontMatter": {"a": 1}}),
    ));
    assert_eq!(status, 409, "{body}");
    assert_eq!(ws.read("broken.md"), "---\ntitle: [x\n---\nbody\n");
}

#[test]
fn if_match_is_honoured_and_history_records_the_edit() {
    let (ws, server) = served(&[]);
    let r = server.put_markdown("/api/v1/notes/n.md", "# A\nold\n");
    assert_eq!(r.status(), 201);
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let before = ws.read("n.md");
    let versions = |server: &Server| {
        let (status, body) = json(server.get("/api/v1/history/n.md"));
        assert_eq!(status, 200, "{body}");
        body["versions"].as_array().unwrap().len()
    };
    let count = versions(&server);

    let edit = json!({"op": "replace", "heading": ["A"], "text": "new"});
    let r = server
        .request("PATCH", "/api/v1/sections/n.md")
        .header("If-Match", "\"0000000000000000\"")
        .body(edit.to_string())
        .send()
        .unwrap();
    assert_error(
        r,
        412,
        "The note has changed since it was read (If-Match does not match)",
    );
    assert_eq!(ws.read("n.md"), before);
    assert_eq!(versions(&server), count);

    let r = server
        .request("PATCH", "/api/v1/sections/n.md")
        .header("If-Match", &etag)
        .body(edit.to_string())
        .send()
        .unwrap();
    let new_tag = r.headers()["etag"].to_str().unwrap().to_string();
    assert_ne!(new_tag, etag);
    let (status, note) = json(r);
    assert_eq!(status, 200, "{note}");
    assert!(
        note["body"].as_str().unwrap().ends_with("# A\nnew\n"),
        "{note}"
    );
    let (_, read) = json(server.get("/api/v1/notes/n.md"));
    assert_eq!(read["content"], note["content"]);
    assert_eq!(versions(&server), count + 1);

    // The tag of the edit is the note's: a second edit with it passes.
    let r = server
        .request("PATCH", "/api/v1/sections/n.md")
        .header("If-Match", &new_tag)
        .body(json!({"op": "append", "heading": ["A"], "text": "more"}).to_string())
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(ws.read("n.md").ends_with("# A\nnew\nmore\n"));
}

#[test]
fn crlf_notes_and_a_missing_last_newline_are_kept() {
    let (ws, server) = served(&[
        ("crlf.md", "# A\r\nx\r\n\r\n## B\r\ny\r\n"),
        ("open.md", "# A\nx\n## B\ny"),
    ]);
    patched(
        &server,
        "crlf.md",
        json!({"op": "append", "heading": ["A", "B"], "text": "one\ntwo"}),
    );
    patched(
        &server,
        "crlf.md",
        json!({"op": "prepend", "heading": ["A"], "text": "p"}),
    );
    assert_eq!(
        ws.read("crlf.md"),
        "# A\r\np\r\nx\r\n\r\n## B\r\ny\r\none\r\ntwo\r\n"
    );
    patched(
        &server,
        "open.md",
        json!({"op": "append", "heading": ["A", "B"], "text": "z\n"}),
    );
    assert_eq!(ws.read("open.md"), "# A\nx\n## B\ny\nz");
    patched(
        &server,
        "open.md",
        json!({"op": "replace", "heading": ["A", "B"], "text": "only"}),
    );
    assert_eq!(ws.read("open.md"), "# A\nx\n## B\nonly");
}

#[test]
fn the_outline_is_the_heading_tree_with_line_ranges() {
    let text = "---\ntitle: T\n---\n# Top\nintro\n## Sub\n```\n# fenced\n```\n### Deep\n## Other\n\nSetext\n---\nend\n";
    let (_ws, server) = served(&[("n.md", text), ("flat.md", "no headings\n")]);
    let r = server.get("/api/v1/sections/n.md");
    let etag = r.headers()["etag"].to_str().unwrap().to_string();
    let (status, body) = json(r);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({
            "path": "n.md",
            "headings": [{
                "level": 1, "text": "Top", "lineStart": 4, "lineEnd": 15,
                "children": [
                    {"level": 2, "text": "Sub", "lineStart": 6, "lineEnd": 10, "children": [
                        {"level": 3, "text": "Deep", "lineStart": 10, "lineEnd": 10, "children": []}
                    ]},
                    {"level": 2, "text": "Other", "lineStart": 11, "lineEnd": 12, "children": []},
                    {"level": 2, "text": "Setext", "lineStart": 13, "lineEnd": 15, "children": []}
                ]
            }]
        })
    );
    // The outline's tag is the note's: a section edit may use it.
    let (_, note) = json(server.get("/api/v1/notes/n.md"));
    assert_eq!(note["path"], "n.md");
    let r = server.get("/api/v1/notes/n.md");
    assert_eq!(r.headers()["etag"].to_str().unwrap(), etag);

    let (status, body) = json(server.get("/api/v1/sections/flat.md"));
    assert_eq!(status, 200);
    assert_eq!(body, json!({"path": "flat.md", "headings": []}));
    assert_error(
        server.get("/api/v1/sections/missing.md"),
        404,
        "Note not found",
    );
    assert_error(
        server.get("/api/v1/sections/n.txt"),
        400,
        "Only .md files are supported",
    );
    assert_error(
        server.get("/api/v1/sections/..%2Fx.md"),
        400,
        "Invalid path",
    );
    // The note's own route reads the note whatever the query: `?outline` is no outline.
    for query in ["", "?outline", "?outline=1", "?x=1"] {
        let (status, body) = json(server.get(&format!("/api/v1/notes/n.md{query}")));
        assert_eq!(status, 200, "{query}");
        assert_eq!(body["content"], text, "{query}");
        assert!(body.get("headings").is_none(), "{query}: {body}");
    }
}

#[test]
fn other_methods_on_the_sections_route_get_405_and_change_nothing() {
    let (ws, server) = served(&[("n.md", "# A\n")]);
    let edit = json!({"op": "append", "heading": ["A"], "text": "x"}).to_string();
    for method in ["POST", "PUT", "DELETE", "OPTIONS", "TRACE", "FOO"] {
        let r = server.raw(
            method,
            "/api/v1/sections/n.md",
            &[("Content-Type", "application/json")],
            edit.as_bytes(),
        );
        r.assert_error(405, "Method not allowed");
        assert!(
            r.head
                .to_ascii_lowercase()
                .contains("\r\nallow: get, patch"),
            "{method}: {}",
            r.head
        );
        assert_eq!(r.json()["error"], "Method Not Allowed", "{method}");
    }
    assert_eq!(ws.read("n.md"), "# A\n");
}

/// Makes a token limited to `prefix` with the CLI and returns its secret.
fn folder_token(ws: &Workspace, prefix: &str) -> String {
    let out = ws.run(&["token", "create", "--prefix", prefix]);
    assert!(out.status.success(), "{out:?}");
    crate::support::stdout(&out).trim().to_string()
}

#[test]
fn a_folder_token_reaches_the_sections_of_its_folder_only() {
    let ws = Workspace::new();
    ws.write("work/plan.md", "# Plan\nold\n");
    ws.write("other/diary.md", "# Diary\nsecret\n");
    let work = folder_token(&ws, "work");
    let server = ws.serve();
    let bearer = format!("Bearer {work}");
    let edit = json!({"op": "append", "heading": ["Diary"], "text": "x"}).to_string();
    let send = |method: &str, path: &str, body: &str| {
        server.raw(
            method,
            &format!("/api/v1/sections/{path}"),
            &[
                ("Authorization", bearer.as_str()),
                ("Content-Type", "application/json"),
            ],
            body.as_bytes(),
        )
    };
    let outside = "This token is limited to a folder, and this path is outside it";
    for path in [
        "other/diary.md",
        "work/..%2Fother/diary.md",
        "work/../other/diary.md",
    ] {
        send("GET", path, "").assert_error(403, outside);
        send("PATCH", path, &edit).assert_error(403, outside);
    }
    assert_eq!(ws.read("other/diary.md"), "# Diary\nsecret\n");
    // Inside its folder both work.
    let outline = send("GET", "work/plan.md", "");
    assert_eq!(outline.status, 200, "{}", outline.body);
    assert_eq!(outline.json()["headings"][0]["text"], "Plan");
    let edit = json!({"op": "append", "heading": ["Plan"], "text": "new"}).to_string();
    let edited = send("PATCH", "work/plan.md", &edit);
    assert_eq!(edited.status, 200, "{}", edited.body);
    assert_eq!(ws.read("work/plan.md"), "# Plan\nold\nnew\n");
    // Without a token, nothing.
    let r = server.raw("GET", "/api/v1/sections/work/plan.md", &[], b"");
    assert_eq!(r.status, 401, "{}", r.body);
}
