//! The public dir as people see it: pages served with their types, escaping, shared
//! page names, the "editing does not regenerate" rule and the Atom feed.

use crate::support::{Workspace, assert_error, json, note, public_paths};
use crate::xml;

#[test]
fn public_pages_are_served_with_their_types() {
    let ws = Workspace::new();
    ws.write("dir/hello.md", &note("Hello", &[], "Hi.\n"));
    let server = ws.serve();
    assert_error(server.get("/public/"), 404, "Not found");
    server.toggle("dir/hello.md");
    let cases = [
        ("/public/", "text/html; charset=utf-8", "index.html"),
        (
            "/public/index.html",
            "text/html; charset=utf-8",
            "index.html",
        ),
        (
            "/public/hello.html",
            "text/html; charset=utf-8",
            "hello.html",
        ),
        (
            "/public/static/style.css",
            "text/css; charset=utf-8",
            "static/style.css",
        ),
        (
            "/public/feed.xml",
            "application/atom+xml; charset=utf-8",
            "feed.xml",
        ),
    ];
    for (url, content_type, file) in cases {
        let response = server.get(url);
        assert_eq!(response.status(), 200, "{url}");
        assert_eq!(response.headers()["content-type"], content_type, "{url}");
        assert_eq!(
            response.bytes().unwrap().as_ref(),
            ws.public_files()[file].as_slice()
        );
    }
    // `/public` leads to the index.
    let response = server.get("/public");
    assert_eq!(response.status(), 200);
    assert_eq!(response.url().path(), "/public/");
    for missing in [
        "/public/nope.html",
        "/public/static/",
        "/public/static",
        "/public/..%2Fnotes%2Fdir%2Fhello.md",
        "/public/%2e%2e/notes/dir/hello.md",
        "/public/.hidden",
        "/public/static/..%2F..%2Fnotes%2F.public.json",
    ] {
        assert_error(server.get(missing), 404, "Not found");
    }
    let response = server.request("POST", "/public/hello.html").send().unwrap();
    assert_error(response, 405, "Method not allowed");
}

#[test]
fn script_in_a_title_is_escaped_in_page_index_and_feed() {
    let ws = Workspace::new();
    let title = r#""<script>alert('x')</script> & co""#;
    ws.write(
        "x.md",
        &note(
            title,
            &["'<img src=x onerror=alert(1)>'"],
            "<script>alert(2)</script>\n\nText <b>bold</b>.\n",
        ),
    );
    let server = ws.serve();
    server.toggle("x.md");
    let page = ws.public_text("x.html");
    let index = ws.public_text("index.html");
    for html in [&page, &index] {
        assert!(!html.contains("<script"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert('x')&lt;/script&gt; &amp; co"),
            "{html}"
        );
        assert!(!html.contains("<img"), "{html}");
    }
    // Raw HTML in the body is shown as text, never run.
    assert!(
        page.contains("&lt;script&gt;alert(2)&lt;/script&gt;"),
        "{page}"
    );
    assert!(page.contains("Text &lt;b&gt;bold&lt;/b&gt;."), "{page}");
    assert!(!ws.public_text("feed.xml").contains("<script"));
}

#[test]
fn editing_a_public_note_does_not_regenerate_its_page() {
    let ws = Workspace::new();
    let server = ws.serve();
    server.put_markdown("/api/v1/notes/e.md", &note("E", &[], "First version.\n"));
    server.toggle("e.md");
    let first = ws.public_text("e.html");
    assert!(first.contains("First version."));
    server.put_markdown("/api/v1/notes/e.md", &note("E", &[], "Second version.\n"));
    assert_eq!(ws.public_text("e.html"), first);
    server.toggle("e.md");
    server.toggle("e.md");
    assert!(ws.public_text("e.html").contains("Second version."));
}

/// Two notes with one base name share one page; the later publication wins. Our choice
/// for unpublishing one of them: the page goes back to the other public note (rendered
/// again from its note), and is removed only when no public note uses the name.
#[test]
fn notes_sharing_a_base_name_share_one_page() {
    let ws = Workspace::new();
    ws.write("x/n.md", &note("From x", &[], "Body of x.\n"));
    ws.write("y/n.md", &note("From y", &[], "Body of y.\n"));
    let server = ws.serve();
    server.toggle("x/n.md");
    assert!(ws.public_text("n.html").contains("Body of x."));
    server.toggle("y/n.md");
    assert!(
        ws.public_text("n.html").contains("Body of y."),
        "the later publication wins"
    );
    assert_eq!(public_paths(&server), ["y/n.md", "x/n.md"]);
    let record = ws.record();
    assert_eq!(record["notes"]["x/n.md"]["file"], "n.html");
    assert_eq!(record["notes"]["y/n.md"]["file"], "n.html");

    server.toggle("y/n.md");
    assert!(
        ws.public_text("n.html").contains("Body of x."),
        "handed back to x/n.md"
    );
    server.toggle("x/n.md");
    assert!(!ws.public().join("n.html").exists());
}

#[test]
fn atom_feed_is_well_formed_with_absolute_links() {
    let ws = Workspace::new();
    ws.write("a.md", &note("Alpha & <Omega>", &["x"], "x\n"));
    ws.write("b.md", &note("Beta", &[], "x\n"));
    let server = ws.serve_with(&["--base-url", "https://notes.example.org/"]);
    server.toggle("a.md");
    server.toggle("b.md");
    let feed = ws.public_text("feed.xml");
    xml::check_well_formed(&feed);
    assert!(feed.starts_with(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">"
    ));
    assert_eq!(feed.matches("<entry>").count(), 2);
    let beta = feed.find("<title>Beta</title>").unwrap();
    let alpha = feed
        .find("<title>Alpha &amp; &lt;Omega&gt;</title>")
        .unwrap();
    assert!(beta < alpha, "newest first");
    assert!(feed.contains(r#"<link rel="alternate" type="text/html" href="https://notes.example.org/public/a.html"></link>"#), "{feed}");
    assert!(feed.contains(r#"href="https://notes.example.org/public/feed.xml""#));
    for tag in ["id", "updated", "title"] {
        assert_eq!(
            feed.matches(&format!("<{tag}>")).count(),
            3,
            "{tag}: feed and two entries"
        );
    }
    let list = json(server.get("/api/public/list")).1;
    let a_published = list["notes"][1]["published_at"].as_str().unwrap();
    assert!(
        feed.contains(&format!("<published>{a_published}</published>")),
        "{feed}"
    );
}

#[test]
fn awkward_file_names_get_working_links() {
    let ws = Workspace::new();
    ws.write("drafts/what? #1 été.md", &note("Odd", &[], "x\n"));
    let server = ws.serve();
    assert_eq!(server.toggle("drafts/what? #1 été.md").0, 200);
    assert!(ws.public().join("what? #1 été.html").is_file());
    let href = "what%3F%20%231%20%C3%A9t%C3%A9.html";
    assert!(
        ws.public_text("index.html")
            .contains(&format!("href=\"{href}\""))
    );
    assert!(
        ws.public_text("feed.xml")
            .contains(&format!("href=\"{href}\""))
    );
    let response = server.get(&format!("/public/{href}"));
    assert_eq!(response.status(), 200);
    assert!(response.text().unwrap().contains("<title>Odd</title>"));
}

#[test]
fn summaries_keep_list_items_and_blocks_apart() {
    let ws = Workspace::new();
    ws.write(
        "bread.md",
        &note(
            "Bread",
            &[],
            "# Bread\n\n- 500 g flour\n- 350 g water\n- 100 g starter\n\n> Rest *overnight*.\n",
        ),
    );
    let server = ws.serve();
    server.toggle("bread.md");
    let summary = "500 g flour 350 g water 100 g starter Rest overnight.";
    let page = ws.public_text("bread.html");
    assert!(
        page.contains(&format!(r#"<meta name="description" content="{summary}">"#)),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            r#"<meta property="og:description" content="{summary}">"#
        )),
        "{page}"
    );
    let feed = ws.public_text("feed.xml");
    xml::check_well_formed(&feed);
    assert!(
        feed.contains(&format!("<summary>{summary}</summary>")),
        "{feed}"
    );
    assert!(!feed.contains("flour350"), "{feed}");
}
