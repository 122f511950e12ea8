//! `list-public`, `publish` and `unpublish` on the command line: each message and exit
//! code, and the same files as the HTTP toggle, byte for byte.

use std::collections::BTreeMap;

use crate::support::{Workspace, json, note, stderr, stdout};

#[test]
fn list_public_without_a_record() {
    let ws = Workspace::new();
    let out = ws.run(&["list-public"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Aucune note publique trouvée.\n");
    assert!(!ws.notes().join(".public.json").exists());
    let out = ws.run(&["list-public", "--json"]);
    assert_eq!(stdout(&out), "{\n  \"notes\": []\n}\n");
}

#[test]
fn list_public_with_an_empty_record() {
    let ws = Workspace::new();
    ws.write("a.md", &note("A", &["demo"], "x\n"));
    assert!(ws.run(&["publish", "a.md"]).status.success());
    assert!(ws.run(&["unpublish", "a.md"]).status.success());
    let out = ws.run(&["list-public"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "Aucune note publique.\n");
}

#[test]
fn list_public_shows_count_title_source_page_and_time() {
    let ws = Workspace::new();
    ws.write("blog/one.md", &note("First one", &["demo"], "x\n"));
    ws.write("two.md", &note("Second", &["demo"], "x\n"));
    ws.run(&["publish", "blog/one.md"]);
    ws.run(&["publish", "two.md"]);
    let out = ws.run(&["list-public"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let record = ws.record();
    let stamp =
        |p: &str| record["notes"][p]["published_at"].as_str().unwrap()[..19].to_string() + "Z";
    let expected = format!(
        "2 notes publiques :\n\n  Second\n    source  two.md\n    page    {}\n    publiée {}\n\n  First one\n    source  blog/one.md\n    page    {}\n    publiée {}\n",
        ws.public().join("two.html").display(),
        stamp("two.md"),
        ws.public().join("one.html").display(),
        stamp("blog/one.md"),
    );
    assert_eq!(text, expected);
    assert!(!text.contains('\u{1b}'), "no colour without a terminal");
}

#[test]
fn list_public_positional_dir_overrides_the_option() {
    let ws = Workspace::new();
    ws.write("a.md", &note("A", &["demo"], "x\n"));
    ws.run(&["publish", "a.md"]);
    let notes = ws.notes().display().to_string();
    let out = ws
        .cli()
        .env("NOTES_DIR", "/nonexistent")
        .args(["list-public", &notes])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("1 note publique :\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn list_public_of_a_missing_directory_fails() {
    let ws = Workspace::new();
    let missing = ws.root.path().join("nope").display().to_string();
    let out = ws.run(&["list-public", &missing]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        format!("error: no notes folder at {missing}\n")
    );
}

#[test]
fn list_public_json_matches_the_api() {
    let ws = Workspace::new();
    ws.write("a.md", &note("A", &["demo"], "x\n"));
    ws.write("b.md", &note("B", &["demo"], "x\n"));
    let server = ws.serve();
    server.toggle("a.md");
    server.toggle("b.md");
    let out = ws.run(&["list-public", "--json"]);
    let from_cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(from_cli, json(server.get("/api/public/list")).1);
}

#[test]
fn publish_messages_json_quiet_and_errors() {
    let ws = Workspace::new();
    ws.write("a/b.md", &note("B", &["demo"], "x\n"));
    let page = ws.public().join("b.html").display().to_string();
    let out = ws.run(&["publish", "a/b.md"]);
    assert_eq!(stdout(&out), format!("published a/b.md → {page}\n"));
    let out = ws.run(&["unpublish", "a/b.md"]);
    assert_eq!(
        stdout(&out),
        format!("unpublished a/b.md, removed {page}\n")
    );
    let out = ws.run(&["publish", "a/b.md", "--json"]);
    assert_eq!(
        stdout(&out),
        "{\n  \"status\": \"public\",\n  \"path\": \"a/b.md\"\n}\n"
    );
    let out = ws.run(&["unpublish", "a/b.md", "--quiet"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "");

    let out = ws.run(&["unpublish", "a/b.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: a/b.md: note is not public\n");
    let out = ws.run(&["publish", "missing.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: missing.md: note not found\n");
    let out = ws.run(&["publish", "../x.md"]);
    assert_eq!(
        (out.status.code(), stderr(&out)),
        (Some(1), "error: ../x.md: invalid path\n".into())
    );
}

#[test]
fn publish_refreshes_an_already_public_page() {
    let ws = Workspace::new();
    ws.write("r.md", &note("R", &["demo"], "Old text.\n"));
    ws.run(&["publish", "r.md"]);
    ws.write("r.md", &note("R", &["demo"], "New text.\n"));
    ws.run(&["publish", "r.md"]);
    assert!(ws.public_text("r.html").contains("New text."));
    assert_eq!(ws.record()["notes"].as_object().unwrap().len(), 1);
}

#[test]
fn rm_of_a_published_note_unpublishes_it() {
    let ws = Workspace::new();
    ws.write("r.md", &note("R", &["demo"], "x\n"));
    ws.run(&["publish", "r.md"]);
    assert!(ws.run(&["rm", "r.md"]).status.success());
    assert!(!ws.public().join("r.html").exists());
    assert_eq!(stdout(&ws.run(&["list-public"])), "Aucune note publique.\n");
}

/// The public dir with the feed's time stamps masked (they differ between two runs).
fn comparable(ws: &Workspace) -> BTreeMap<String, String> {
    ws.public_files()
        .into_iter()
        .map(|(name, bytes)| {
            let text = String::from_utf8(bytes).unwrap();
            let text = if name == "feed.xml" {
                mask_times(&text)
            } else {
                text
            };
            (name, text)
        })
        .collect()
}

/// `<updated>…</updated>` and `<published>…</published>` contents replaced by `T`.
fn mask_times(feed: &str) -> String {
    feed.lines()
        .map(|line| {
            for tag in ["updated", "published"] {
                let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
                if line.starts_with(&open) && line.ends_with(&close) {
                    return format!("{open}T{close}");
                }
            }
            line.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn publish_and_unpublish_write_the_same_files_as_the_toggle() {
    let notes = [
        (
            "x/same.md",
            note("Same in x", &["demo"], "| a |\n|---|\n| 1 |\n"),
        ),
        (
            "y/same.md",
            note("Same in y", &["demo"], "Text[^1].\n\n[^1]: Foot.\n"),
        ),
        ("solo.md", note("Solo <b>", &["demo"], "```\ncode\n```\n")),
    ];
    let by_http = Workspace::new();
    let by_cli = Workspace::new();
    for ws in [&by_http, &by_cli] {
        for (path, text) in &notes {
            ws.write(path, text);
        }
    }
    let server = by_http.serve();
    for (path, _) in &notes {
        assert_eq!(server.toggle(path).1["status"], "public");
        assert!(by_cli.run(&["publish", path]).status.success());
    }
    assert_eq!(comparable(&by_http), comparable(&by_cli));
    assert!(by_cli.public_files().contains_key("static/style.css"));

    for path in ["y/same.md", "solo.md"] {
        assert_eq!(server.toggle(path).1["status"], "private");
        assert!(by_cli.run(&["unpublish", path]).status.success());
    }
    assert_eq!(comparable(&by_http), comparable(&by_cli));
    let files: Vec<String> = by_cli.public_files().into_keys().collect();
    assert_eq!(
        files,
        ["feed.xml", "index.html", "same.html", "static/style.css"]
    );
}
