//! Links between notes: `GET /api/v1/links/{path}` over each syntax and resolution
//! rule, backlinks after the service's own writes and after edits made on disk, its
//! errors; `notes links` and `notes check` (text, `--json`, exit codes).

use std::time::Duration;

use serde_json::{Value, json as j};

use crate::support::{Workspace, assert_error, eventually, json, stderr, stdout};

const WAIT: Duration = Duration::from_secs(10);

/// A folder using every syntax and every resolution rule.
fn web(ws: &Workspace) {
    ws.write(
        "hub.md",
        "# Hub\n\
         \n\
         [[recipes/bread]] [[bread|the bread]] [[Bread basics#Dough]]\n\
         ![[diagram]] ![[photo.png]]\n\
         [soup](recipes/soup%20pot.md#top) ![img](pic.png) [site](https://example.org/x.md)\n\
         [[#Hub]] [[Nowhere to be found]] [gone](missing.md)\n\
         ```\n\
         [[in code]]\n\
         ```\n\
         [[dup]] [[ÉTÉ À PARIS]] [[old/bread.md]]\n",
    );
    ws.write(
        "recipes/bread.md",
        "---\ntitle: Bread basics\naliases: [Bread basics]\n---\n# Bread\n## Dough\n\n[back](../hub.md)\n",
    );
    ws.write("recipes/soup pot.md", "[[hub]]\n");
    ws.write("diagram.md", "A diagram.\n");
    ws.write("archive/old/bread.md", "An older bread, longer path.\n");
    ws.write("y/dup.md", "same length, later in byte order\n");
    ws.write("x/dup.md", "same length, first in byte order\n");
    ws.write(
        "paris.md",
        "---\ntitle: Été à Paris\naliases: Été à Paris\n---\nNotes.\n",
    );
}

fn outgoing(body: &Value) -> Vec<(String, Value, u64)> {
    body["outgoing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["target"].as_str().unwrap().to_string(),
                l["path"].clone(),
                l["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn incoming(body: &Value) -> Vec<(String, u64)> {
    body["incoming"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["path"].as_str().unwrap().to_string(),
                l["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The 1-based line of the first line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> u64 {
    let index = text.lines().position(|l| l.contains(needle)).unwrap();
    index as u64 + 1
}

fn row(target: &str, path: Value, line: u64) -> (String, Value, u64) {
    (target.to_string(), path, line)
}

#[test]
fn each_syntax_and_each_resolution_rule_over_http() {
    let ws = Workspace::new();
    web(&ws);
    let server = ws.serve();
    let (status, body) = json(server.get("/api/v1/links/hub.md"));
    assert_eq!(status, 200, "{body}");
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["path", "outgoing", "incoming"]);
    assert_eq!(body["path"], "hub.md");
    assert_eq!(
        outgoing(&body),
        [
            // A path from the root; a file name (the nearest wins); an alias (titles
            // never resolve).
            row("recipes/bread", j!("recipes/bread.md"), 3),
            row("bread", j!("recipes/bread.md"), 3),
            row("Bread basics#Dough", j!("recipes/bread.md"), 3),
            // A note embed; an image embed is an attachment, not listed.
            row("diagram", j!("diagram.md"), 4),
            // Relative Markdown link, percent-encoded space and heading.
            row("recipes/soup%20pot.md#top", j!("recipes/soup pot.md"), 5),
            // This note; unresolved ones are kept as written.
            row("#Hub", j!("hub.md"), 6),
            row("Nowhere to be found", Value::Null, 6),
            row("missing.md", Value::Null, 6),
            // Byte order among equal lengths; an alias with case folded; a path
            // suffix `dir/name`.
            row("dup", j!("x/dup.md"), 10),
            row("ÉTÉ À PARIS", j!("paris.md"), 10),
            row("old/bread.md", j!("archive/old/bread.md"), 10),
        ]
    );
    assert_eq!(
        body["incoming"],
        j!([
            {"path": "recipes/bread.md", "title": "Bread basics", "line": 8},
            {"path": "recipes/soup pot.md", "title": "soup pot", "line": 1},
        ])
    );

    let (status, body) = json(server.get("/api/v1/links/recipes/bread.md"));
    assert_eq!(status, 200);
    assert_eq!(
        incoming(&body),
        [("hub.md".to_string(), 3)],
        "one entry per line"
    );
    assert_eq!(outgoing(&body), [row("../hub.md", j!("hub.md"), 8)]);
    // A percent-encoded path in the URL names the same note.
    let (status, body) = json(server.get("/api/v1/links/recipes/soup%20pot.md"));
    assert_eq!(status, 200);
    assert_eq!(incoming(&body), [("hub.md".to_string(), 5)]);
    let (_, body) = json(server.get("/api/v1/links/archive/old/bread.md"));
    assert_eq!(incoming(&body), [("hub.md".to_string(), 10)]);
    let (_, body) = json(server.get("/api/v1/links/y/dup.md"));
    assert_eq!(
        body["incoming"],
        j!([]),
        "the longer-or-later twin gets nothing"
    );
}

#[test]
fn backlinks_follow_the_services_writes_and_edits_on_disk() {
    let ws = Workspace::new();
    ws.write("target.md", "# Target\n");
    let server = ws.serve();
    let (_, body) = json(server.get("/api/v1/links/target.md"));
    assert_eq!(body["incoming"], j!([]));

    // A write through the service is seen by the next request, without waiting.
    let resp = server.put_markdown("/api/v1/notes/a.md", "Intro\n\n[[target]]\n");
    assert_eq!(resp.status(), 201);
    let (_, body) = json(server.get("/api/v1/links/target.md"));
    // The service stored front matter above the text: lines count in the file.
    let line = line_of(&ws.read("a.md"), "[[target]]");
    assert!(line > 3, "{}", ws.read("a.md"));
    assert_eq!(incoming(&body), [("a.md".to_string(), line)]);

    // A note written on disk by another program: the watcher brings it in.
    ws.write("sub/b.md", "See [t](../target.md).\n");
    assert!(
        eventually(WAIT, || {
            let (_, body) = json(server.get("/api/v1/links/target.md"));
            incoming(&body) == [("a.md".to_string(), line), ("sub/b.md".to_string(), 1)]
        }),
        "an outside edit did not reach the backlinks"
    );

    // Edited on disk to link elsewhere, then a note deleted: both leave the list.
    ws.write("sub/b.md", "No link now.\n");
    std::fs::remove_file(ws.notes().join("a.md")).unwrap();
    assert!(
        eventually(WAIT, || {
            let (_, body) = json(server.get("/api/v1/links/target.md"));
            body["incoming"] == j!([])
        }),
        "stale backlinks stayed"
    );

    // A note created on disk becomes a link target for notes already there.
    ws.write("c.md", "[[Later note]]\n");
    ws.write("later.md", "---\naliases: [Later note]\n---\n");
    assert!(eventually(WAIT, || {
        let (_, body) = json(server.get("/api/v1/links/c.md"));
        body["outgoing"][0]["path"] == "later.md"
    }));
    let (_, body) = json(server.get("/api/v1/links/later.md"));
    assert_eq!(incoming(&body), [("c.md".to_string(), 1)]);
}

#[test]
fn missing_notes_and_bad_paths_are_refused() {
    let ws = Workspace::new();
    ws.write("a.md", "[[b]]\n");
    let server = ws.serve();
    assert_error(server.get("/api/v1/links/nope.md"), 404, "Note not found");
    assert_error(
        server.get("/api/v1/links/dir/nope.md"),
        404,
        "Note not found",
    );
    assert_error(
        server.get("/api/v1/links/%2e%2e%2fa.md"),
        400,
        "Invalid path",
    );
    assert_error(
        server.get("/api/v1/links/a.txt"),
        400,
        "Only .md files are supported",
    );
    let resp = server.request("POST", "/api/v1/links/a.md").send().unwrap();
    assert_eq!(resp.status(), 405);
    assert_eq!(resp.headers()["allow"], "GET");
    let (status, body) = json(
        server
            .request("DELETE", "/api/v1/links/a.md")
            .send()
            .unwrap(),
    );
    assert_eq!((status, body["code"].clone()), (405, j!(405)));
}

#[test]
fn cli_links_in_text_and_json() {
    let ws = Workspace::new();
    web(&ws);
    let out = ws.run(&["links", "recipes/bread.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "Links to:\n     8  ../hub.md → hub.md\nLinked from:\n  hub.md:3  hub\n"
    );
    let out = ws.run(&["links", "diagram.md"]);
    assert_eq!(
        stdout(&out),
        "Links to:\n  (none)\nLinked from:\n  hub.md:4  hub\n"
    );

    let out = ws.run(&["links", "hub.md", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["path"], "hub.md");
    assert_eq!(body["outgoing"].as_array().unwrap().len(), 11);
    assert_eq!(
        body["outgoing"][6],
        j!({"target": "Nowhere to be found", "path": null, "line": 6})
    );
    assert_eq!(incoming(&body).len(), 2);

    let text = stdout(&ws.run(&["links", "hub.md"]));
    assert!(
        text.contains("     6  Nowhere to be found → no such note\n"),
        "{text}"
    );

    let out = ws.run(&["links", "nope.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: nope.md: note not found\n");
    let out = ws.run(&["links", "../x.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: ../x.md: invalid path\n");
}

#[test]
fn cli_check_reports_broken_links_and_orphans_and_exits_1() {
    let ws = Workspace::new();
    web(&ws);
    let out = ws.run(&["check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "Broken links (2):\n  hub.md:6  Nowhere to be found\n  hub.md:6  missing.md\n\
         Notes nothing links to (1):\n  y/dup.md  dup\n\
         Missing files (2):\n  hub.md:4  photo.png\n  hub.md:5  pic.png\n"
    );
    let out = ws.run(&["check", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        body,
        j!({
            "broken": [
                {"path": "hub.md", "line": 6, "target": "Nowhere to be found"},
                {"path": "hub.md", "line": 6, "target": "missing.md"},
            ],
            "orphans": [{"path": "y/dup.md", "title": "dup"}],
            "missingFiles": [
                {"path": "hub.md", "line": 4, "target": "photo.png", "file": "photo.png"},
                {"path": "hub.md", "line": 5, "target": "pic.png", "file": "pic.png"},
            ],
            "orphanFiles": [],
        })
    );

    // Fixed: exit 0, and the same report with nothing broken.
    ws.write("missing.md", "[[hub]]\n");
    ws.write("Nowhere to be found.md", "[[y/dup]]\n");
    ws.write("photo.png", "png");
    ws.write("pic.png", "png");
    let out = ws.run(&["check"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert_eq!(
        stdout(&out),
        "No broken links.\nNotes nothing links to (0):\n"
    );
    let body: Value = serde_json::from_slice(&ws.run(&["check", "--json"]).stdout).unwrap();
    assert_eq!(
        body,
        j!({"broken": [], "orphans": [], "missingFiles": [], "orphanFiles": []})
    );
}
