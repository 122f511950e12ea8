//! Attachments in search: a `file:` query finds attachments by the words of their path
//! (uploaded, deleted, or changed on disk behind the service's back), with results of
//! kind `file`; a query without `file:` returns notes only, and an attachment's bytes
//! are never searchable.

use std::time::Duration;

use crate::support::{Workspace, eventually, json, note, search_paths};

const WAIT: Duration = Duration::from_secs(10);

fn upload(server: &crate::support::Server, path: &str, body: &[u8]) -> u16 {
    server
        .request("PUT", &format!("/api/v1/files/{path}"))
        .header("Content-Type", "application/octet-stream")
        .body(body.to_vec())
        .send()
        .unwrap()
        .status()
        .as_u16()
}

#[test]
fn file_queries_find_uploaded_attachments_by_name_until_deleted() {
    let ws = Workspace::new();
    let server = ws.serve();
    // A note whose text says "diagram": plain queries find it, file: queries do not.
    let r = server.put_markdown(
        "/api/v1/notes/design.md",
        &note("Design", &[], "The network diagram is below."),
    );
    assert_eq!(r.status(), 201);
    // Binary bytes holding a word that is in no name.
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend_from_slice(b" secretpayloadword inside the image ");
    bytes.extend((0..2000u32).map(|i| (i * 31 % 256) as u8));
    assert_eq!(upload(&server, "media/Network-Diagram.png", &bytes), 201);
    assert_eq!(upload(&server, "media/other.pdf", b"%PDF-1.7 diagram"), 201);

    assert!(
        eventually(WAIT, || search_paths(&server, "file:diagram")
            == ["media/Network-Diagram.png"]),
        "{:?}",
        search_paths(&server, "file:diagram")
    );
    let (status, body) = json(server.get("/api/v1/search?q=file%3Adiagram"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["query"], "file:diagram");
    assert_eq!(body["total"], 1);
    let hit = &body["results"][0];
    assert_eq!(hit["path"], "media/Network-Diagram.png");
    assert_eq!(hit["title"], "Network-Diagram.png");
    assert_eq!(hit["tags"], serde_json::json!([]));
    assert_eq!(hit["snippet"], "");
    assert_eq!(hit["kind"], "file");
    assert!(hit["score"].as_f64().unwrap() > 0.0, "{hit}");

    // Any word of the path, a prefix while typing, and the folder's name.
    assert_eq!(
        search_paths(&server, "file:netw"),
        ["media/Network-Diagram.png"]
    );
    let mut both = search_paths(&server, "file:media");
    both.sort();
    assert_eq!(both, ["media/Network-Diagram.png", "media/other.pdf"]);
    assert_eq!(search_paths(&server, "file:pdf"), ["media/other.pdf"]);
    assert_eq!(
        search_paths(&server, "file:media -png"),
        ["media/other.pdf"]
    );

    // Without file: only notes, each without a kind.
    let (status, body) = json(server.get("/api/v1/search?q=diagram"));
    assert_eq!(status, 200);
    let results = body["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{body}");
    assert_eq!(results[0]["path"], "design.md");
    let keys: Vec<_> = results[0].as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "path",
            "title",
            "tags",
            "score",
            "snippet",
            "highlightedTitle"
        ]
    );

    // The bytes of an attachment are not words of anything.
    assert!(search_paths(&server, "secretpayloadword").is_empty());
    assert!(search_paths(&server, "file:secretpayloadword").is_empty());

    // Deleted: gone from the results.
    let r = server
        .request("DELETE", "/api/v1/files/media/Network-Diagram.png")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(search_paths(&server, "file:diagram").is_empty());
    assert!(eventually(WAIT, || {
        let (_, body) = json(server.get("/api/v1/search?q=file%3Amedia"));
        body["total"] == 1 && body["results"][0]["path"] == "media/other.pdf"
    }));
}

#[test]
fn attachments_changed_on_disk_are_followed_and_the_web_page_links_to_the_file() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.notes().join("scans")).unwrap();
    std::fs::write(ws.notes().join("scans/invoice march.pdf"), b"%PDF").unwrap();
    // Found by the start-up catch-up.
    let server = ws.serve();
    assert!(eventually(WAIT, || search_paths(&server, "file:invoice")
        == ["scans/invoice march.pdf"]));
    // Added and removed behind the service's back: the watcher sees both.
    std::fs::write(ws.notes().join("scans/receipt.jpg"), b"\xff\xd8\xff").unwrap();
    assert!(eventually(WAIT, || search_paths(&server, "file:receipt")
        == ["scans/receipt.jpg"]));
    std::fs::remove_file(ws.notes().join("scans/invoice march.pdf")).unwrap();
    assert!(eventually(WAIT, || {
        let (_, body) = json(server.get("/api/v1/search?q=file%3Ainvoice"));
        body["total"] == 0
    }));

    // The web search page leads to the file itself.
    let html = server.get("/search?q=file%3Areceipt").text().unwrap();
    assert!(html.contains("href=\"/file/scans/receipt.jpg\""), "{html}");
    assert!(!html.contains("href=\"/note/scans/receipt.jpg\""), "{html}");
}

#[test]
fn the_cli_searches_attachments_with_file() {
    let ws = Workspace::new();
    ws.write("plan.md", "# Plan\n\nSee the floor plan.\n");
    std::fs::write(ws.notes().join("floor-plan.svg"), b"<svg/>").unwrap();
    let out = ws.run(&["search", "file:plan", "--json"]);
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["total"], 1, "{body}");
    assert_eq!(body["results"][0]["path"], "floor-plan.svg");
    assert_eq!(body["results"][0]["kind"], "file");
    let out = ws.run(&["search", "file:plan"]);
    let text = crate::support::stdout(&out);
    assert!(text.contains("floor-plan.svg"), "{text}");
    assert!(text.ends_with("1 file found\n"), "{text}");
    // Without file:, the note only.
    let out = ws.run(&["search", "plan", "--json"]);
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["total"], 1, "{body}");
    assert_eq!(body["results"][0]["path"], "plan.md");
    assert!(body["results"][0].get("kind").is_none(), "{body}");
    // A file: with nothing to look for is refused like any empty query.
    let out = ws.run(&["search", "file:"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        crate::support::stderr(&out).contains("file: needs a word of a file name"),
        "{}",
        crate::support::stderr(&out)
    );
}
