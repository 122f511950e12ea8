//! Attachments in the web interface over HTTP, without a browser: a note's page lists
//! the files it references (resolved as its images are, each once, with size and a
//! `/file/` link that answers; missing ones marked), and the editor carries the upload
//! bar the script shows, with the server's limit, while staying a plain form.

use crate::support::{Server, Workspace, body_of_type};

/// The page of a note, checked to be HTML.
fn page(server: &Server, path: &str) -> String {
    let (status, html) = body_of_type(server.get(path), "text/html; charset=utf-8");
    assert_eq!(status, 200, "{path}: {html}");
    html
}

/// The "Attachments" section of a note page.
fn attachments(html: &str) -> &str {
    let start = html
        .find(r#"<section class="attachments""#)
        .unwrap_or_else(|| panic!("no attachments section: {html}"));
    let len = html[start..].find("</section>").expect("section end");
    &html[start..start + len]
}

/// The list items of a section, in order.
fn items(section: &str) -> Vec<&str> {
    section
        .split("<li")
        .skip(1)
        .map(|item| item.split("</li>").next().unwrap_or_default())
        .collect()
}

#[test]
fn a_note_page_lists_the_files_it_references_with_sizes_and_missing_ones_marked() {
    let ws = Workspace::new();
    ws.write(
        "trips/alps.md",
        "---\ntitle: Alps\n---\nThe ridge: ![the ridge](img/ridge.png), again ![[img/ridge.png]].\n\n\
         The [plan](plan%20a.pdf), a [[Packing list]], a ![lost one](gone.png),\n\
         a ![web image](https://example.org/x.png) and `![in code](code.png)`.\n\n\
         [Shared map](../shared/map.pdf)\n",
    );
    let ridge = vec![7u8; 2048];
    std::fs::create_dir_all(ws.notes().join("trips/img")).unwrap();
    std::fs::create_dir_all(ws.notes().join("shared")).unwrap();
    std::fs::write(ws.notes().join("trips/img/ridge.png"), &ridge).unwrap();
    std::fs::write(ws.notes().join("trips/plan a.pdf"), b"%PDF-1.7 tiny").unwrap();
    std::fs::write(ws.notes().join("shared/map.pdf"), b"%PDF-1.7").unwrap();
    let server = ws.serve();

    let html = page(&server, "/note/trips/alps.md");
    let section = attachments(&html);
    let listed = items(section);
    assert_eq!(listed.len(), 4, "{section}");

    // Each file once, in the order the note names it, relative to the note's folder.
    assert!(
        listed[0].contains(r#"href="/file/trips/img/ridge.png""#),
        "{}",
        listed[0]
    );
    assert!(listed[0].contains("2.0 KB"), "{}", listed[0]);
    assert!(listed[0].contains("image/png"), "{}", listed[0]);
    assert!(
        listed[1].contains(r#"href="/file/trips/plan%20a.pdf""#),
        "{}",
        listed[1]
    );
    assert!(listed[1].contains("trips/plan a.pdf"), "{}", listed[1]);
    assert!(listed[1].contains("13 B"), "{}", listed[1]);
    assert!(listed[1].contains("application/pdf"), "{}", listed[1]);
    // A file that is not there: marked, and no link to it.
    assert!(listed[2].contains("trips/gone.png"), "{}", listed[2]);
    assert!(listed[2].contains("Missing"), "{}", listed[2]);
    assert!(listed[2].contains(r#"class="missing""#), "{}", listed[2]);
    assert!(!listed[2].contains("href="), "{}", listed[2]);
    assert!(
        listed[3].contains(r#"href="/file/shared/map.pdf""#),
        "{}",
        listed[3]
    );
    // Notes, external images and code are not attachments.
    for absent in ["Packing", "example.org", "code.png"] {
        assert!(!section.contains(absent), "{absent} listed: {section}");
    }

    // The image on the page and the list lead to the same address, which answers.
    assert!(
        html.contains(r#"<img src="/file/trips/img/ridge.png""#),
        "{html}"
    );
    let r = server.get("/file/trips/img/ridge.png");
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().unwrap().as_ref(), ridge.as_slice());
    let r = server.get("/file/trips/plan%20a.pdf");
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().unwrap().as_ref(), b"%PDF-1.7 tiny");
    let r = server.get("/file/trips/gone.png");
    assert_eq!(r.status(), 404);
}

#[test]
fn a_file_uploaded_as_the_editor_does_shows_on_the_page_and_is_never_replaced() {
    let ws = Workspace::new();
    ws.write("garden.md", "---\ntitle: Garden\n---\nNo picture yet.\n");
    let server = ws.serve();
    let html = page(&server, "/note/garden.md");
    // A note that references no file has no empty section.
    assert!(!html.contains(r#"<section class="attachments""#), "{html}");

    // The editor's request: same-origin, create only.
    let origin = server.base.trim_end_matches('/').to_string();
    let upload = |path: &str, bytes: &'static [u8]| {
        server
            .request("PUT", path)
            .header("Origin", &origin)
            .header("Sec-Fetch-Site", "same-origin")
            .header("If-None-Match", "*")
            .header("Content-Type", "image/png")
            .body(bytes)
            .send()
            .unwrap()
    };
    let r = upload("/api/v1/files/attachments/garden-1.png", b"first");
    assert_eq!(r.status(), 201);
    // The name is taken: 412, and the file keeps its bytes (the editor tries `-2`).
    let r = upload("/api/v1/files/attachments/garden-1.png", b"second");
    assert_eq!(r.status(), 412);
    assert_eq!(
        std::fs::read(ws.notes().join("attachments/garden-1.png")).unwrap(),
        b"first"
    );
    assert_eq!(
        upload("/api/v1/files/attachments/garden-2.png", b"second").status(),
        201
    );

    ws.write(
        "garden.md",
        "---\ntitle: Garden\n---\n![garden-1.png](attachments/garden-1.png)\n\
         ![garden-2.png](attachments/garden-2.png)\n",
    );
    let html = page(&server, "/note/garden.md");
    let listed: Vec<String> = items(attachments(&html))
        .into_iter()
        .map(str::to_string)
        .collect();
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert!(listed[0].contains(r#"href="/file/attachments/garden-1.png""#));
    assert!(listed[0].contains("5 B"), "{}", listed[0]);
    assert!(listed[1].contains(r#"href="/file/attachments/garden-2.png""#));
    assert!(listed[1].contains("6 B"), "{}", listed[1]);
}

#[test]
fn the_editor_has_an_upload_bar_for_the_script_and_stays_a_plain_form() {
    let ws = Workspace::new();
    ws.write("garden.md", "---\ntitle: Garden\n---\nText.\n");
    let server = ws.serve_with(&["--max-upload", "1000"]);
    for path in ["/edit/garden.md", "/new?folder=trips"] {
        let response = server.get(path);
        let csp = response
            .headers()
            .get("content-security-policy")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        assert!(csp.contains("default-src 'self'"), "{path}: {csp}");
        assert!(!csp.contains("unsafe-inline"), "{path}: {csp}");
        let (status, html) = body_of_type(response, "text/html; charset=utf-8");
        assert_eq!(status, 200, "{path}");
        // Hidden until the script shows it; the form still posts the text to /save.
        assert!(
            html.contains(r#"<div class="upload" hidden data-max-upload="1000">"#),
            "{path}: {html}"
        );
        assert!(
            html.contains(r#"<form class="editor" method="post" action="/save""#),
            "{path}: {html}"
        );
        assert!(
            html.contains(r#"<input type="file" multiple hidden"#),
            "{path}"
        );
        // No script or style in the page itself.
        assert!(!html.contains("<script>"), "{path}");
        assert!(!html.contains("style="), "{path}");
    }
    // The script that does the uploads is served from this origin.
    let (status, script) = body_of_type(
        server.get("/assets/app.js"),
        "text/javascript; charset=utf-8",
    );
    assert_eq!(status, 200);
    assert!(script.contains("\"If-None-Match\": \"*\""), "{script}");
    assert!(script.contains("/api/v1/files/"), "{script}");
}
