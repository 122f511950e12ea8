//! Moving and renaming notes over HTTP, the command line and the web interface: links
//! to the note rewritten in their own style, refusals as ErrorResponses that change
//! nothing, a public note's page and entry moved, and a move stopped dead by a crash
//! finished by the next `serve` start or writing command.

use std::time::Duration;

use serde_json::json;

use crate::support::{
    Server, Workspace, assert_error, assert_invalid_json, eventually, json, keys, no_redirects,
    note, search_paths, stderr, stdout,
};

/// POSTs a move as JSON, with extra headers.
fn post_move(server: &Server, body: &str, headers: &[(&str, &str)]) -> reqwest::blocking::Response {
    let mut request = server
        .request("POST", "/api/v1/move")
        .header("Content-Type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().unwrap()
}

fn move_body(from: &str, to: &str) -> String {
    json!({"from": from, "to": to}).to_string()
}

/// The notes of the main scenario: `a.md` and three notes linking to it in every style.
fn linked_workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write(
        "a.md",
        &note(
            "Alpha",
            &[],
            "# Heading\n\nZephyrine. See [[b]] and [the sibling](sub/c.md).\n",
        ),
    );
    ws.write(
        "b.md",
        &note(
            "Bravo",
            &[],
            "[[a]], [[a|label]] and [[a#Heading|label]].\n",
        ),
    );
    ws.write(
        "sub/c.md",
        &note("Charlie", &[], "Up: [x](../a.md#h) and ![[a]].\n"),
    );
    ws.write(
        "d.md",
        &note(
            "Delta",
            &[],
            "[[a.md]], [t](a.md), `[[a]]` in code, [[b]].\n",
        ),
    );
    ws.write("e.md", &note("Echo", &[], "Only [[b]] here.\n"));
    ws
}

#[test]
fn a_move_rewrites_the_links_of_three_notes_in_their_own_style() {
    let ws = linked_workspace();
    let server = ws.serve();
    let (status, body) = json(post_move(
        &server,
        &move_body("a.md", "archive/2026/alpha.md"),
        &[],
    ));
    assert_eq!(status, 200, "{body}");
    assert_eq!(keys(&body), ["from", "to", "rewritten"]);
    assert_eq!(
        body,
        json!({
            "from": "a.md",
            "to": "archive/2026/alpha.md",
            "rewritten": ["b.md", "d.md", "sub/c.md"],
        })
    );
    assert!(!ws.notes().join("a.md").exists());
    // Its own link still leads to sub/c.md (from the root), as Obsidian reads it.
    assert_eq!(
        ws.read("archive/2026/alpha.md"),
        note(
            "Alpha",
            &[],
            "# Heading\n\nZephyrine. See [[b]] and [the sibling](sub/c.md).\n"
        )
    );
    assert_eq!(
        ws.read("b.md"),
        note(
            "Bravo",
            &[],
            "[[alpha]], [[alpha|label]] and [[alpha#Heading|label]].\n"
        )
    );
    assert_eq!(
        ws.read("sub/c.md"),
        note(
            "Charlie",
            &[],
            "Up: [x](../archive/2026/alpha.md#h) and ![[alpha]].\n"
        )
    );
    assert_eq!(
        ws.read("d.md"),
        note(
            "Delta",
            &[],
            "[[alpha.md]], [t](archive/2026/alpha.md), `[[a]]` in code, [[b]].\n"
        )
    );
    assert_eq!(ws.read("e.md"), note("Echo", &[], "Only [[b]] here.\n"));
    assert!(!ws.notes().join(".notes/move.json").exists());
    // The API and the search index see the note at its new path only.
    assert_eq!(server.get("/api/v1/notes/a.md").status(), 404);
    assert_eq!(
        server.get("/api/v1/notes/archive/2026/alpha.md").status(),
        200
    );
    assert!(
        eventually(Duration::from_secs(10), || search_paths(
            &server,
            "zephyrine"
        ) == ["archive/2026/alpha.md"]),
        "{:?}",
        search_paths(&server, "zephyrine")
    );
}

#[test]
fn a_name_another_note_shares_becomes_the_path() {
    let ws = Workspace::new();
    ws.write("x/a.md", "# A\n");
    ws.write("z/a.md", "# Other A\n");
    ws.write("n.md", "[[a]] and [[a#Part|the part]]\n");
    // `[[a]]` leads to x/a.md (same length, byte order); at deep/er/a.md the shorter
    // z/a.md would take the name, so the links spell the shortest path that leads there.
    let out = ws.run(&["mv", "x/a.md", "deep/er/a.md", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let body: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        body,
        json!({"from": "x/a.md", "to": "deep/er/a.md", "rewritten": ["n.md"]})
    );
    assert_eq!(ws.read("n.md"), "[[er/a]] and [[er/a#Part|the part]]\n");
}

#[test]
fn refused_moves_are_error_responses_and_change_nothing() {
    let ws = linked_workspace();
    let server = ws.serve();
    let before: Vec<String> = ["a.md", "b.md", "sub/c.md", "d.md"]
        .iter()
        .map(|p| ws.read(p))
        .collect();
    assert_error(
        post_move(&server, &move_body("missing.md", "x.md"), &[]),
        404,
        "Note not found",
    );
    assert_error(
        post_move(&server, &move_body("a.md", "b.md"), &[]),
        409,
        "A note already exists at the destination: b.md",
    );
    assert_error(
        post_move(&server, &move_body("a.md", "../x.md"), &[]),
        400,
        "Invalid path",
    );
    assert_error(
        post_move(&server, &move_body("a.md", "x.txt"), &[]),
        400,
        "Only .md files are supported",
    );
    assert_error(
        post_move(&server, &move_body("a.md", "./a.md"), &[]),
        400,
        "A note cannot be moved onto itself",
    );
    assert_error(
        post_move(&server, &move_body("", "x.md"), &[]),
        400,
        "Path is required",
    );
    assert_invalid_json(post_move(&server, "{\"from\": \"a.md\"", &[]), "cut short");
    let (status, body) = json(post_move(&server, "{\"from\": \"a.md\"}", &[]));
    assert_eq!(status, 400);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("missing field `to`"),
        "{body}"
    );
    assert_error(
        post_move(
            &server,
            &move_body("a.md", "x.md"),
            &[("If-Match", "\"0000000000000000\"")],
        ),
        412,
        "The note has changed since it was read (If-Match does not match)",
    );
    let r = server.get("/api/v1/move");
    assert_eq!(r.status(), 405);
    assert_eq!(r.headers()["allow"], "POST");
    let after: Vec<String> = ["a.md", "b.md", "sub/c.md", "d.md"]
        .iter()
        .map(|p| ws.read(p))
        .collect();
    assert_eq!(before, after);
    assert!(!ws.notes().join("x.md").exists());

    // With the note's current entity tag, the move goes through.
    let etag = server.get("/api/v1/notes/a.md").headers()["etag"]
        .to_str()
        .unwrap()
        .to_string();
    let (status, body) = json(post_move(
        &server,
        &move_body("a.md", "x.md"),
        &[("If-Match", &etag)],
    ));
    assert_eq!(status, 200, "{body}");
    // The route is documented.
    let (_, doc) = json(server.get("/api/v1/openapi.json"));
    assert!(doc["paths"]["/api/v1/move"]["post"].is_object());
}

#[test]
fn a_public_note_moves_with_its_page_and_entry() {
    let ws = linked_workspace();
    let server = ws.serve();
    assert_eq!(server.toggle("a.md").0, 200);
    let published_at = ws.record()["notes"]["a.md"]["published_at"].clone();
    assert!(ws.public().join("a.html").is_file());
    // A public note that links to it: its page follows the move.
    assert_eq!(server.toggle("b.md").0, 200);
    assert!(ws.public_text("b.html").contains("href=\"a.html"));
    let (status, body) = json(post_move(&server, &move_body("a.md", "k/first.md"), &[]));
    assert_eq!(status, 200, "{body}");
    let record = ws.record();
    assert!(record["notes"].get("a.md").is_none(), "{record}");
    assert_eq!(record["notes"]["k/first.md"]["file"], "first.html");
    assert_eq!(record["notes"]["k/first.md"]["published_at"], published_at);
    assert!(!ws.public().join("a.html").exists());
    assert!(ws.public_text("first.html").contains("Alpha"));
    let index = ws.public_text("index.html");
    assert!(
        index.contains("first.html") && !index.contains("a.html"),
        "{index}"
    );
    assert!(ws.public_text("feed.xml").contains("first.html"));
    let linking = ws.public_text("b.html");
    assert!(
        linking.contains("href=\"first.html\"")
            && linking.contains("href=\"first.html#heading\"")
            && !linking.contains("a.html"),
        "{linking}"
    );
    let mut public = crate::support::public_paths(&server);
    public.sort();
    assert_eq!(public, ["b.md", "k/first.md"]);

    // A private note's move touches nothing public.
    let public = ws.public_files();
    let record = ws.record();
    let (status, _) = json(post_move(&server, &move_body("e.md", "k/e.md"), &[]));
    assert_eq!(status, 200);
    assert_eq!(ws.public_files(), public);
    assert_eq!(ws.record(), record);
}

#[test]
fn the_cli_moves_and_says_what_it_did() {
    let ws = linked_workspace();
    let out = ws.run(&["mv", "e.md", "later/e.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "moved e.md → later/e.md; no link needed rewriting\n"
    );
    let out = ws.run(&["mv", "b.md", "bee.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "moved b.md → bee.md; rewrote links in 3 notes: a.md, d.md, later/e.md\n"
    );
    assert_eq!(
        ws.read("later/e.md"),
        note("Echo", &[], "Only [[bee]] here.\n")
    );
    let out = ws.run(&["mv", "a.md", "c.md", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let body: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(body["rewritten"], json!(["bee.md", "d.md", "sub/c.md"]));

    for (args, line) in [
        (["mv", "missing.md", "x.md"], "missing.md: note not found\n"),
        (
            ["mv", "c.md", "d.md"],
            "d.md: a note already exists there (choose another path, or move that note first)\n",
        ),
        (["mv", "c.md", "../x.md"], "../x.md: invalid path\n"),
        (
            ["mv", "c.md", "x.txt"],
            "x.txt: only .md files are supported\n",
        ),
        (
            ["mv", "sub", "x.md"],
            "sub: is a folder, not a note (`notes list` shows the notes)\n",
        ),
    ] {
        let out = ws.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&out), format!("error: {line}"), "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    assert!(ws.notes().join("c.md").is_file());
}

/// POSTs the move form the way a browser on this site does.
fn post_form(server: &Server, fields: &[(&str, &str)]) -> reqwest::blocking::Response {
    no_redirects()
        .post(server.url("/move"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Origin", server.base.trim_end_matches('/'))
        .header("Sec-Fetch-Site", "same-origin")
        .body(serde_urlencoded::to_string(fields).unwrap())
        .send()
        .unwrap()
}

#[test]
fn the_web_interface_moves_a_note_from_a_form() {
    let ws = linked_workspace();
    let server = ws.serve();
    let page = server.get("/note/a.md").text().unwrap();
    assert!(page.contains("href=\"/move/a.md\""), "{page}");
    let form = server.get("/move/a.md");
    assert_eq!(form.status(), 200);
    let form = form.text().unwrap();
    assert!(
        form.contains("action=\"/move\"") && form.contains("value=\"a.md\""),
        "{form}"
    );
    let etag = server.get("/api/v1/notes/a.md").headers()["etag"]
        .to_str()
        .unwrap()
        .to_string();

    assert!(form.contains("<h1>Move “Alpha”</h1>"), "{form}");
    assert!(
        form.contains(r#"name="title" value="Alpha""#),
        "the heading travels with the form: {form}"
    );

    // Taken: the form again, saying so, under the same heading, and nothing moved.
    let r = post_form(
        &server,
        &[
            ("from", "a.md"),
            ("to", "b"),
            ("etag", &etag),
            ("title", "Alpha"),
        ],
    );
    assert_eq!(r.status(), 409);
    let text = r.text().unwrap();
    assert!(text.contains("A note already exists at b.md"), "{text}");
    assert!(text.contains("action=\"/move\""), "{text}");
    assert!(text.contains("<h1>Move “Alpha”</h1>"), "{text}");
    let r = post_form(
        &server,
        &[("from", "a.md"), ("to", "../x"), ("etag", &etag)],
    );
    assert_eq!(r.status(), 400);
    assert!(ws.notes().join("a.md").is_file());

    // A folder ending in `/` keeps the file name.
    let r = post_form(
        &server,
        &[("from", "a.md"), ("to", "kept/"), ("etag", &etag)],
    );
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/note/kept/a.md");
    assert!(ws.notes().join("kept/a.md").is_file());
    assert_eq!(
        ws.read("b.md"),
        note(
            "Bravo",
            &[],
            "[[a]], [[a|label]] and [[a#Heading|label]].\n"
        ),
        "the name `a` still leads there"
    );
    assert_eq!(
        ws.read("sub/c.md"),
        note("Charlie", &[], "Up: [x](../kept/a.md#h) and ![[a]].\n")
    );
    // The old entity tag is the old text's: a second form posted from it is refused.
    let r = post_form(
        &server,
        &[("from", "kept/a.md"), ("to", "z.md"), ("etag", "\"1\"")],
    );
    assert_eq!(r.status(), 409);
    assert!(r.text().unwrap().contains("changed elsewhere"));
}

/// Runs `notes mv FROM TO` stopped dead after `step`; checks it did not exit normally.
fn crash_after(ws: &Workspace, step: &str, from: &str, to: &str) {
    let out = ws
        .cli()
        .args(["mv", from, to])
        .env("NOTES_TEST_CRASH_AFTER_MOVE_STEP", step)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(
        ws.notes().join(".notes/move.json").is_file(),
        "the journal is left"
    );
}

#[test]
fn a_move_stopped_after_the_rename_is_finished_when_serve_starts() {
    let ws = linked_workspace();
    let out = ws.run(&["publish", "a.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    crash_after(&ws, "rename", "a.md", "moved/a2.md");
    // Half done: renamed, links and the public entry not yet.
    assert!(ws.notes().join("moved/a2.md").is_file());
    assert!(!ws.notes().join("a.md").exists());
    assert!(ws.read("b.md").contains("[[a|label]]"));
    assert!(ws.record()["notes"].get("a.md").is_some());

    let server = ws.serve();
    assert!(!ws.notes().join(".notes/move.json").exists());
    assert_eq!(
        ws.read("b.md"),
        note(
            "Bravo",
            &[],
            "[[a2]], [[a2|label]] and [[a2#Heading|label]].\n"
        )
    );
    assert!(ws.read("sub/c.md").contains("[x](../moved/a2.md#h)"));
    assert!(ws.read("moved/a2.md").contains("[the sibling](sub/c.md)"));
    assert_eq!(crate::support::public_paths(&server), ["moved/a2.md"]);
    assert!(ws.public().join("a2.html").is_file() && !ws.public().join("a.html").exists());
    let log = server.log();
    assert!(
        log.contains("finished the interrupted move of a.md to moved/a2.md; rewrote links in"),
        "{log}"
    );
}

#[test]
fn a_move_stopped_midway_is_finished_by_a_writing_command_and_spares_edited_notes() {
    let ws = linked_workspace();
    crash_after(&ws, "journal", "a.md", "z.md");
    assert!(
        ws.notes().join("a.md").is_file(),
        "stopped before the rename"
    );
    // Edited after the crash: neither the text the move planned from nor its own.
    ws.write("d.md", "my own words, [[a]]\n");
    let out = ws.run_stdin(&["put", "f.md"], b"# F\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let log = stderr(&out);
    assert!(
        log.contains("finished the interrupted move of a.md to z.md: renamed the note")
            && log.contains("left alone (changed since the move began): d.md"),
        "{log}"
    );
    assert!(ws.notes().join("z.md").is_file());
    assert_eq!(ws.read("d.md"), "my own words, [[a]]\n");
    assert!(ws.read("b.md").contains("[[z|label]]"));
    assert!(!ws.notes().join(".notes/move.json").exists());
}

#[test]
fn writes_racing_with_moves_are_never_lost() {
    let ws = Workspace::new();
    ws.write("a0.md", "# The note\n");
    for i in 0..4 {
        ws.write(&format!("n{i}.md"), "[[a0]] v0\n");
    }
    let server = ws.serve();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let last: Vec<u32> = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..4)
            .map(|i| {
                let (server, stop) = (&server, &stop);
                scope.spawn(move || {
                    let mut version = 0;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        version += 1;
                        let r = server.put_markdown(
                            &format!("/api/v1/notes/n{i}.md"),
                            &format!("[[a0]] v{version}\n"),
                        );
                        assert!(r.status().is_success(), "{}", r.status());
                    }
                    version
                })
            })
            .collect();
        for round in 0..20 {
            let (from, to) = (format!("a{round}.md"), format!("a{}.md", round + 1));
            let (status, body) = json(post_move(&server, &move_body(&from, &to), &[]));
            assert_eq!(status, 200, "{body}");
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        writers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    // Each note holds its last acknowledged write, its link rewritten or not, never an
    // older text a move read before the write came in.
    for (i, version) in last.iter().enumerate() {
        let text = ws.read(&format!("n{i}.md"));
        let body = text.split("\n---\n").last().unwrap();
        assert!(body.ends_with(&format!(" v{version}\n")), "n{i}.md: {text}");
        assert!(body.trim_start().starts_with("[[a"), "n{i}.md: {text}");
    }
    assert!(ws.notes().join("a20.md").is_file());
    assert!(last.iter().all(|&v| v > 0), "{last:?}");
}
