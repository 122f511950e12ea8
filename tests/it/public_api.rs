//! The public export over HTTP: toggle, list and public pages, checked against the
//! responses and the files on disk (pages, `static/`, index, feed, `.public.json`).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::json;

use crate::support::{Workspace, assert_error, assert_invalid_json, json, note, public_paths};

fn is_iso_utc(text: &str) -> bool {
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%SZ").is_ok()
}

#[test]
fn toggle_publishes_then_unpublishes_with_every_file() {
    let ws = Workspace::new();
    ws.write(
        "blog/first-post.md",
        &note("First post", &["rust", "web"], "Hello **world**.\n"),
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
    // The page shows the day it was published, labelled, as the index does.
    let (_, list) = json(server.get("/api/public/list"));
    let published = list["notes"][0]["published_at"].as_str().unwrap()[..10].to_string();
    assert!(
        page.contains(&format!(r#"Published <time datetime="{published}">"#)),
        "{page}"
    );
    assert!(!page.contains("2026-02-03"), "{page}");
    let index = ws.public_text("index.html");
    assert!(
        index.contains(&format!(r#"Published <time datetime="{published}">"#)),
        "{index}"
    );
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
        ws.write(&format!("{name}.md"), &note(name, &[], "x\n"));
    }
    let server = ws.serve();
    for name in ["a.md", "b.md", "c.md"] {
        assert_eq!(server.toggle(name).0, 200);
    }
    assert_eq!(public_paths(&server), ["c.md", "b.md", "a.md"]);
    // Republishing moves a note to the top.
    server.toggle("a.md");
    server.toggle("a.md");
    assert_eq!(public_paths(&server), ["a.md", "c.md", "b.md"]);
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
    ws.write("n.md", &note("N", &[], "x\n"));
    let server = ws.serve();
    let before = ws.snapshot();
    for (form, status, message) in [
        ("", 400, "Path is required"),
        ("path=", 400, "Path is required"),
        ("other=n.md", 400, "Path is required"),
        ("path=..%2Fx.md", 400, "Invalid path"),
        ("path=%2Fetc%2Fx.md", 400, "Invalid path"),
        ("path=notes.txt", 400, "Only .md files are supported"),
        ("path=missing.md", 404, "Note not found"),
    ] {
        assert_error(
            server.post_form("/api/public/toggle", form),
            status,
            message,
        );
    }
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
fn delete_of_a_published_note_unpublishes_it() {
    let ws = Workspace::new();
    ws.write("gone.md", &note("Gone", &[], "x\n"));
    ws.write("kept.md", &note("Kept", &[], "x\n"));
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
    assert_eq!(public_paths(&server), ["kept.md"]);
    // A new note of the same name starts private.
    ws.write("gone.md", &note("Gone", &[], "x\n"));
    assert_eq!(server.toggle("gone.md").1["status"], "public");
}

#[test]
fn an_unreadable_record_is_an_error_not_a_reset() {
    let ws = Workspace::new();
    ws.write("n.md", &note("N", &[], "x\n"));
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
        ws.write(name, &note(name, &[], "x\n"));
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
    let listed: BTreeSet<String> = public_paths(&server).into_iter().collect();
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
fn a_page_that_cannot_be_written_is_a_generation_failure() {
    let ws = Workspace::new();
    ws.write("n.md", &note("N", &[], "x\n"));
    std::fs::write(ws.public(), "a file where the public dir should be").unwrap();
    let server = ws.serve();
    assert_error(
        server.post_form("/api/public/toggle", "path=n.md"),
        500,
        "Failed to generate HTML",
    );
    assert!(
        !ws.notes().join(".public.json").exists(),
        "nothing recorded"
    );
    assert_eq!(public_paths(&server), Vec::<String>::new());
}

#[test]
fn toggle_takes_the_path_from_a_form_or_a_json_body_never_the_query() {
    let ws = Workspace::new();
    ws.write("a.md", &note("A", &[], "a\n"));
    let server = ws.serve();
    let (status, body) = json(server.post_form("/api/public/toggle", "path=a.md"));
    assert_eq!((status, body["status"].as_str()), (200, Some("public")));
    // The spec's field is the form body's: a query string names nothing.
    let r = server
        .request("POST", "/api/public/toggle?path=a.md")
        .send()
        .unwrap();
    assert_error(r, 400, "Path is required");
    let r = server
        .request("POST", "/api/public/toggle")
        .header("Content-Type", "application/json")
        .body(r#"{"path": "a.md"}"#)
        .send()
        .unwrap();
    assert_eq!(json(r).1["status"], "private");
    let r = server
        .request("POST", "/api/public/toggle")
        .header("Content-Type", "application/json")
        .body(r#"{"path": "a.md"}"#)
        .send()
        .unwrap();
    assert_eq!(json(r).1["status"], "public");
    // The form field is taken whatever the query string says.
    let r = server
        .request("POST", "/api/public/toggle?path=missing.md")
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("path=a.md")
        .send()
        .unwrap();
    assert_eq!(json(r).1["status"], "private");
    assert_error(
        server.post_form("/api/public/toggle", "other=1"),
        400,
        "Path is required",
    );
}

#[test]
fn toggle_refuses_a_json_body_the_document_does_not_allow() {
    let ws = Workspace::new();
    ws.write("n3.md", &note("N3", &[], "x\n"));
    let server = ws.serve();
    let before = ws.snapshot();
    // Each names an existing note in the query string, which is never read.
    for (body, message) in [
        ("true", "Invalid JSON: expected an object, found a boolean"),
        (
            "[\"n3.md\"]",
            "Invalid JSON: expected an object, found an array",
        ),
        (
            "\"n3.md\"",
            "Invalid JSON: expected an object, found a string",
        ),
        ("3", "Invalid JSON: expected an object, found a number"),
        ("null", "Invalid JSON: expected an object, found null"),
        (r#"{"path": 1}"#, "Invalid JSON: path must be a string"),
        (r#"{"path": null}"#, "Invalid JSON: path must be a string"),
        (
            r#"{"path": ["n3.md"]}"#,
            "Invalid JSON: path must be a string",
        ),
    ] {
        let response = server
            .request("POST", "/api/public/toggle?path=n3.md")
            .header("Content-Type", "application/json")
            .body(body)
            .send()
            .unwrap();
        assert_error(response, 400, message);
    }
    let response = server
        .request("POST", "/api/public/toggle?path=n3.md")
        .header("Content-Type", "application/json")
        .body("{")
        .send()
        .unwrap();
    assert_invalid_json(response, "{");
    assert_eq!(ws.snapshot(), before, "a refused toggle writes nothing");
    assert!(!ws.public().exists());
    // An empty body or an object without `path` names no note, whatever the query.
    for body in ["", "{}", r#"{"other": 1}"#] {
        let response = server
            .request("POST", "/api/public/toggle?path=n3.md")
            .header("Content-Type", "application/json")
            .body(body)
            .send()
            .unwrap();
        assert_error(response, 400, "Path is required");
    }
    assert_eq!(ws.snapshot(), before, "a refused toggle writes nothing");
    let response = server
        .request("POST", "/api/public/toggle")
        .header("Content-Type", "application/json")
        .body(r#"{"path": "n3.md"}"#)
        .send()
        .unwrap();
    assert_eq!(
        json(response),
        (200, json!({"status": "public", "path": "n3.md"}))
    );
}
