//! The public export over HTTP: toggle, list and public pages, checked against the
//! responses and the files on disk (pages, `static/`, index, feed, `.public.json`).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::json;

use crate::support::{Server, Workspace, assert_error, json};

fn note(title: &str, tags: &str, body: &str) -> String {
    format!("---\ntitle: {title}\ndate: 03-02-2026\ntags: {tags}\n---\n\n{body}")
}

fn is_iso_utc(text: &str) -> bool {
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%SZ").is_ok()
}

fn listed(server: &Server) -> Vec<String> {
    let (status, body) = json(server.get("/api/public/list"));
    assert_eq!(status, 200, "{body}");
    body["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn toggle_publishes_then_unpublishes_with_every_file() {
    let ws = Workspace::new();
    ws.write(
        "blog/first-post.md",
        &note("First post", "[rust, web]", "Hello **world**.\n"),
    );
    let server = ws.serve();

    let (status, body) = server.toggle("blog/first-post.md");
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"status": "public", "path": "blog/first-post.md"})
    );
    let page = ws.public_text("first-post.html");
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains("<title>First post</title>"));
    assert!(page.contains("<strong>world</strong>"));
    assert!(page.contains(r#"<li class="tag">rust</li>"#));
    assert!(page.contains(r#"<time datetime="2026-02-03">"#));
    assert!(
        !page.contains("date: 03-02-2026"),
        "front matter shown as text"
    );
    let css = ws.public_text("static/style.css");
    assert!(css.contains("prefers-color-scheme: dark"));
    assert!(page.contains(r#"href="static/style.css""#));
    let index = ws.public_text("index.html");
    assert!(
        index.contains(r#"<a href="first-post.html">First post</a>"#),
        "{index}"
    );
    assert!(
        ws.public_text("feed.xml")
            .contains("<title>First post</title>")
    );
    assert!(!ws.public().join("blog").exists(), "the public dir is flat");

    let record = ws.record();
    assert_eq!(record["version"], 1);
    let entry = &record["notes"]["blog/first-post.md"];
    assert_eq!(entry["title"], "First post");
    assert_eq!(entry["file"], "first-post.html");

    let (status, list) = json(server.get("/api/public/list"));
    assert_eq!(status, 200);
    let notes = list["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].as_object().unwrap().len(), 3, "{list}");
    assert_eq!(notes[0]["path"], "blog/first-post.md");
    assert_eq!(notes[0]["title"], "First post");
    assert!(
        is_iso_utc(notes[0]["published_at"].as_str().unwrap()),
        "{list}"
    );

    let (status, body) = server.toggle("blog/first-post.md");
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"status": "private", "path": "blog/first-post.md"})
    );
    assert!(!ws.public().join("first-post.html").exists());
    assert!(!ws.public_text("index.html").contains("first-post.html"));
    assert!(!ws.public_text("feed.xml").contains("<entry>"));
    assert_eq!(ws.record()["notes"], json!({}));
    assert_eq!(json(server.get("/api/public/list")).1, json!({"notes": []}));
    assert!(
        ws.notes().join("blog/first-post.md").exists(),
        "the note itself stays"
    );
}

#[test]
fn list_is_empty_before_anything_is_published() {
    let ws = Workspace::new();
    let server = ws.serve();
    let response = server.get("/api/public/list");
    let (status, body) = json(response);
    assert_eq!((status, body), (200, json!({"notes": []})));
    assert!(
        !ws.notes().join(".public.json").exists(),
        "listing creates nothing"
    );
}

#[test]
fn list_is_newest_first() {
    let ws = Workspace::new();
    for name in ["a", "b", "c"] {
        ws.write(&format!("{name}.md"), &note(name, "[]", "x\n"));
    }
    let server = ws.serve();
    for name in ["a.md", "b.md", "c.md"] {
        assert_eq!(server.toggle(name).0, 200);
    }
    assert_eq!(listed(&server), ["c.md", "b.md", "a.md"]);
    // Republishing moves a note to the top.
    server.toggle("a.md");
    server.toggle("a.md");
    assert_eq!(listed(&server), ["a.md", "c.md", "b.md"]);
    let index = ws.public_text("index.html");
    let positions: Vec<usize> = ["a.html", "c.html", "b.html"]
        .iter()
        .map(|f| index.find(&format!("href=\"{f}\"")).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{index}");
}

#[test]
fn toggle_errors_are_exact_and_change_nothing() {
    let ws = Workspace::new();
    ws.write("n.md", &note("N", "[]", "x\n"));
    let server = ws.serve();
    let before = ws.snapshot();
    assert_error(
        server.post_form("/api/public/toggle", ""),
        400,
        "Path is required",
    );
    assert_error(
        server.post_form("/api/public/toggle", "path="),
        400,
        "Path is required",
    );
    assert_error(
        server.post_form("/api/public/toggle", "other=n.md"),
        400,
        "Path is required",
    );
    assert_error(
        server.post_form("/api/public/toggle", "path=..%2Fx.md"),
        400,
        "Invalid path",
    );
    assert_error(
        server.post_form("/api/public/toggle", "path=%2Fetc%2Fx.md"),
        400,
        "Invalid path",
    );
    assert_error(
        server.post_form("/api/public/toggle", "path=notes.txt"),
        400,
        "Only .md files are supported",
    );
    assert_error(
        server.post_form("/api/public/toggle", "path=missing.md"),
        404,
        "Note not found",
    );
    for method in ["GET", "PUT", "DELETE", "PATCH"] {
        let response = server.request(method, "/api/public/toggle").send().unwrap();
        assert_error(response, 405, "Method not allowed");
    }
    for method in ["POST", "PUT", "DELETE"] {
        let response = server.request(method, "/api/public/list").send().unwrap();
        assert_error(response, 405, "Method not allowed");
    }
    assert_eq!(ws.snapshot(), before, "a refused toggle writes nothing");
    assert!(!ws.public().exists());
}

#[test]
fn public_pages_are_served_with_their_types() {
    let ws = Workspace::new();
    ws.write("dir/hello.md", &note("Hello", "[]", "Hi.\n"));
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
            "['<img src=x onerror=alert(1)>']",
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
            html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co"),
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
fn delete_of_a_published_note_unpublishes_it() {
    let ws = Workspace::new();
    ws.write("gone.md", &note("Gone", "[]", "x\n"));
    ws.write("kept.md", &note("Kept", "[]", "x\n"));
    let server = ws.serve();
    server.toggle("gone.md");
    server.toggle("kept.md");
    let (status, _) = json(
        server
            .request("DELETE", "/api/v1/notes/gone.md")
            .send()
            .unwrap(),
    );
    assert_eq!(status, 200);
    assert!(!ws.public().join("gone.html").exists());
    assert!(ws.public().join("kept.html").exists());
    assert!(!ws.public_text("index.html").contains("gone.html"));
    assert!(!ws.public_text("feed.xml").contains("Gone"));
    assert_eq!(ws.record()["notes"].as_object().unwrap().len(), 1);
    assert_eq!(listed(&server), ["kept.md"]);
    // A new note of the same name starts private.
    ws.write("gone.md", &note("Gone", "[]", "x\n"));
    assert_eq!(server.toggle("gone.md").1["status"], "public");
}

#[test]
fn editing_a_public_note_does_not_regenerate_its_page() {
    let ws = Workspace::new();
    let server = ws.serve();
    server.put_markdown("/api/v1/notes/e.md", &note("E", "[]", "First version.\n"));
    server.toggle("e.md");
    let first = ws.public_text("e.html");
    assert!(first.contains("First version."));
    server.put_markdown("/api/v1/notes/e.md", &note("E", "[]", "Second version.\n"));
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
    ws.write("x/n.md", &note("From x", "[]", "Body of x.\n"));
    ws.write("y/n.md", &note("From y", "[]", "Body of y.\n"));
    let server = ws.serve();
    server.toggle("x/n.md");
    assert!(ws.public_text("n.html").contains("Body of x."));
    server.toggle("y/n.md");
    assert!(
        ws.public_text("n.html").contains("Body of y."),
        "the later publication wins"
    );
    assert_eq!(listed(&server), ["y/n.md", "x/n.md"]);
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
fn an_unreadable_record_is_an_error_not_a_reset() {
    let ws = Workspace::new();
    ws.write("n.md", &note("N", "[]", "x\n"));
    std::fs::write(ws.notes().join(".public.json"), "{ not json").unwrap();
    let server = ws.serve();
    let (status, body) = json(server.get("/api/public/list"));
    assert_eq!((status, body["code"].as_u64()), (500, Some(500)), "{body}");
    let (status, _) = server.toggle("n.md");
    assert_eq!(status, 500);
    let (status, _) = json(
        server
            .request("DELETE", "/api/v1/notes/n.md")
            .send()
            .unwrap(),
    );
    assert_eq!(
        status, 500,
        "a note whose publication state is unknown is not deleted"
    );
    assert!(ws.notes().join("n.md").exists());
    let text = std::fs::read_to_string(ws.notes().join(".public.json")).unwrap();
    assert_eq!(text, "{ not json");
    assert!(!ws.public().exists());
}

#[test]
fn concurrent_toggles_keep_record_pages_and_list_consistent() {
    let ws = Workspace::new();
    let names: Vec<String> = (0..40)
        .map(|i| format!("d{}/note-{i:02}.md", i % 4))
        .collect();
    for name in &names {
        ws.write(name, &note(name, "[]", "x\n"));
    }
    let server = Arc::new(ws.serve());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let server = server.clone();
            let mine: Vec<(usize, String)> = names
                .iter()
                .cloned()
                .enumerate()
                .filter(|(i, _)| i % 8 == t)
                .collect();
            std::thread::spawn(move || {
                for (_, name) in &mine {
                    assert_eq!(server.toggle(name).1["status"], "public");
                }
                // Every third note is toggled back off.
                for (i, name) in &mine {
                    if i % 3 == 0 {
                        assert_eq!(server.toggle(name).1["status"], "private");
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let expected: BTreeSet<String> = names
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 0)
        .map(|(_, n)| n.clone())
        .collect();
    let record: BTreeSet<String> = ws.record()["notes"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(record, expected);
    let listed: BTreeSet<String> = listed(&server).into_iter().collect();
    assert_eq!(listed, expected);
    let pages: BTreeSet<String> = ws
        .public_files()
        .into_keys()
        .filter(|f| f.starts_with("note-"))
        .collect();
    let expected_pages: BTreeSet<String> = expected
        .iter()
        .map(|n| n.rsplit('/').next().unwrap().replace(".md", ".html"))
        .collect();
    assert_eq!(pages, expected_pages);
    let index = ws.public_text("index.html");
    assert_eq!(index.matches("<li><a href=").count(), expected.len());
    assert_eq!(
        ws.public_text("feed.xml").matches("<entry>").count(),
        expected.len()
    );
    let leftovers = ws
        .public_files()
        .into_keys()
        .filter(|f| f.contains(".tmp-"))
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn atom_feed_is_well_formed_with_absolute_links() {
    let ws = Workspace::new();
    ws.write("a.md", &note("Alpha & <Omega>", "[x]", "x\n"));
    ws.write("b.md", &note("Beta", "[]", "x\n"));
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
    assert!(feed.contains(r#"<link rel="alternate" type="text/html" href="https://notes.example.org/public/a.html"/>"#), "{feed}");
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

/// A small XML well-formedness check: balanced, properly nested tags, quoted
/// attributes, known entities only.
mod xml {
    pub fn check_well_formed(text: &str) {
        let body = text
            .strip_prefix("<?xml")
            .and_then(|t| t.split_once("?>"))
            .map(|(_, rest)| rest)
            .expect("XML declaration");
        let mut stack: Vec<String> = Vec::new();
        let mut rest = body;
        let mut roots = 0;
        while let Some(start) = rest.find(['<', '&']) {
            check_text(&rest[..start]);
            rest = &rest[start..];
            if rest.starts_with('&') {
                let end = rest.find(';').expect("entity end");
                let entity = &rest[1..end];
                let known = ["amp", "lt", "gt", "quot", "apos"].contains(&entity)
                    || entity
                        .strip_prefix('#')
                        .is_some_and(|n| n.parse::<u32>().is_ok());
                assert!(known, "unknown entity &{entity};");
                rest = &rest[end + 1..];
                continue;
            }
            let end = rest.find('>').expect("tag end");
            let tag = &rest[1..end];
            rest = &rest[end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(
                    stack.pop().as_deref(),
                    Some(name.trim()),
                    "closing </{name}>"
                );
                continue;
            }
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let (name, attrs) = tag.split_once(' ').unwrap_or((tag, ""));
            assert!(
                !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == ':'),
                "<{tag}>"
            );
            check_attributes(attrs);
            if stack.is_empty() {
                roots += 1;
            }
            if !self_closing {
                stack.push(name.to_string());
            }
        }
        check_text(rest);
        assert!(stack.is_empty(), "unclosed {stack:?}");
        assert_eq!(roots, 1, "one root element");
    }

    fn check_text(text: &str) {
        assert!(!text.contains('>'), "stray > in {text:?}");
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && !"\n\r\t".contains(c))
        );
    }

    fn check_attributes(mut attrs: &str) {
        loop {
            attrs = attrs.trim_start();
            if attrs.is_empty() {
                return;
            }
            let (name, value) = attrs.split_once("=\"").expect("attribute name=\"value\"");
            assert!(
                !name.is_empty() && !name.contains(' '),
                "attribute {name:?}"
            );
            let end = value.find('"').expect("closing quote");
            assert!(!value[..end].contains('<'), "< in attribute");
            attrs = &value[end + 1..];
        }
    }
}
