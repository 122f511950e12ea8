//! Listing notes over HTTP (`GET /api/v1/notes`): recursive, sorted, hidden files
//! skipped, lenient with broken front matter, GET only, and fresh after files change on
//! disk outside the service; and its pages on their own route
//! (`GET /api/v1/pages/notes?limit=N&after=PATH`).

use serde_json::json;

use crate::support::{Workspace, assert_error, json, keys, stdout};

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

#[test]
fn list_sees_files_changed_outside_the_service() {
    let ws = Workspace::new();
    ws.write("a.md", "---\ntitle: Alpha\ntags: [x]\n---\n");
    ws.write("b.md", "---\ntitle: Beta\n---\n");
    let server = ws.serve_settled();
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

/// The titles of the list, in its order.
fn titles_of(server: &crate::support::Server) -> Vec<String> {
    let (status, list) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
    let notes = list["notes"].as_array().unwrap();
    assert_eq!(list["total"], notes.len());
    notes
        .iter()
        .map(|n| n["title"].as_str().unwrap().to_string())
        .collect()
}

fn titled(title: &str) -> String {
    format!("---\ntitle: {title}\n---\n")
}

#[test]
fn a_watch_that_loses_events_scans_again_and_misses_nothing() {
    let ws = Workspace::new();
    for n in 0..6 {
        ws.write(&format!("n{n}.md"), &titled(&format!("Old{n}")));
    }
    // A queue of four events: the changes below overflow it.
    let mut cli = ws.cli();
    cli.env("NOTES_TEST_WATCH_QUEUE", "4")
        .env("NOTES_TEST_SETTLE_MS", "0");
    let server = ws.serve_through(cli, &[]);
    let old: Vec<String> = (0..6).map(|n| format!("Old{n}")).collect();
    assert_eq!(titles_of(&server), old);
    assert_eq!(titles_of(&server), old, "warm list");
    // Rewritten in place, same size: no folder changes, only the events tell.
    for n in 0..6 {
        std::fs::write(
            ws.notes().join(format!("n{n}.md")),
            titled(&format!("New{n}")),
        )
        .unwrap();
    }
    let new: Vec<String> = (0..6).map(|n| format!("New{n}")).collect();
    assert_eq!(titles_of(&server), new);
    assert!(
        server.log().contains("lost events"),
        "the overflow was not taken as one: {}",
        server.log()
    );
    // The watches are set again by the scan: one change is followed as before.
    assert_eq!(titles_of(&server), new);
    std::fs::write(ws.notes().join("n0.md"), titled("Once")).unwrap();
    assert_eq!(titles_of(&server)[0], "Once");
}

#[test]
fn folders_created_moved_in_and_removed_outside_are_followed() {
    let ws = Workspace::new();
    ws.write("a.md", &titled("A"));
    let server = ws.serve_settled();
    assert_eq!(titles_of(&server), ["A"]);
    assert_eq!(titles_of(&server), ["A"]);
    // A folder made elsewhere and moved in whole, as a checkout does.
    let outside = ws.root.path().join("incoming");
    std::fs::create_dir_all(outside.join("deep")).unwrap();
    std::fs::write(outside.join("deep/b.md"), titled("B")).unwrap();
    std::fs::rename(&outside, ws.notes().join("in")).unwrap();
    assert_eq!(titles_of(&server), ["A", "B"]);
    // The moved-in folder is watched from then on.
    assert_eq!(titles_of(&server), ["A", "B"]);
    std::fs::write(ws.notes().join("in/deep/b.md"), titled("b")).unwrap();
    std::fs::write(ws.notes().join("in/deep/c.md"), titled("C")).unwrap();
    assert_eq!(titles_of(&server), ["A", "b", "C"]);
    // A new, empty folder, then a note in it.
    std::fs::create_dir(ws.notes().join("later")).unwrap();
    assert_eq!(titles_of(&server), ["A", "b", "C"]);
    std::fs::write(ws.notes().join("later/d.md"), titled("D")).unwrap();
    assert_eq!(titles_of(&server), ["A", "b", "C", "D"]);
    // Renamed, then removed.
    std::fs::rename(ws.notes().join("in"), ws.notes().join("z")).unwrap();
    assert_eq!(titles_of(&server), ["A", "D", "b", "C"]);
    std::fs::remove_dir_all(ws.notes().join("z")).unwrap();
    assert_eq!(titles_of(&server), ["A", "D"]);
    // A hidden folder is never listed, whatever it holds.
    ws.write(".hidden/e.md", &titled("E"));
    assert_eq!(titles_of(&server), ["A", "D"]);
}

#[test]
fn pages_of_the_list_follow_the_cursor() {
    let ws = Workspace::new();
    for path in ["a.md", "b/c.md", "b/d.md", "e.md", "f.md"] {
        ws.write(path, "x");
    }
    let server = ws.serve();
    let page = |query: &str| {
        let (status, body) = json(server.get(&format!("/api/v1/pages/notes?{query}")));
        assert_eq!(status, 200, "{body}");
        assert_eq!(keys(&body), ["notes", "total", "next"], "{body}");
        let paths: Vec<String> = body["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["path"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(body["total"], 5);
        (paths, body["next"].clone())
    };
    assert_eq!(
        page("limit=2"),
        (vec!["a.md".into(), "b/c.md".into()], json!("b/c.md"))
    );
    assert_eq!(
        page("limit=2&after=b%2Fc.md"),
        (vec!["b/d.md".into(), "e.md".into()], json!("e.md"))
    );
    assert_eq!(
        page("limit=2&after=e.md"),
        (vec!["f.md".into()], json!(null))
    );
    assert_eq!(
        page("after=b%2Fd.md"),
        (vec!["e.md".into(), "f.md".into()], json!(null))
    );
    assert_eq!(page("limit=9&after=zzz"), (vec![], json!(null)));
    // No parameter: the first page of the largest size, here every note.
    let all: Vec<String> = ["a.md", "b/c.md", "b/d.md", "e.md", "f.md"]
        .map(String::from)
        .to_vec();
    assert_eq!(page(""), (all.clone(), json!(null)));
    // A walk along `next` meets every note once, in the list's order.
    let mut walked = Vec::new();
    let mut query = "limit=2".to_string();
    for _ in 0..10 {
        let (paths, next) = page(&query);
        walked.extend(paths);
        match next.as_str() {
            Some(next) => query = format!("limit=2&after={}", next.replace('/', "%2F")),
            None => break,
        }
    }
    assert_eq!(walked, all);
    // Each page's entries are those of the whole list.
    let (_, whole) = json(server.get("/api/v1/notes"));
    let (_, first) = json(server.get("/api/v1/pages/notes?limit=1"));
    assert_eq!(first["notes"][0], whole["notes"][0]);
    for bad in ["0", "1001", "x", "-1"] {
        assert_error(
            server.get(&format!("/api/v1/pages/notes?limit={bad}")),
            400,
            &format!("Invalid limit: \"{bad}\" (use a whole number from 1 to 1000)"),
        );
    }
}

#[test]
fn the_list_ignores_every_query_parameter() {
    let ws = Workspace::new();
    for path in ["a.md", "b/c.md", "b/d.md", "e.md", "f.md"] {
        ws.write(path, "x");
    }
    let server = ws.serve();
    let plain = server.get("/api/v1/notes").text().unwrap();
    let whole: serde_json::Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(keys(&whole), ["notes", "total"]);
    assert_eq!(whole["total"], 5);
    for query in [
        "limit=1",
        "limit=1&offset=1",
        "offset=1",
        "after=a.md",
        "limit=0",
        "limit=x",
        "_=123",
        "outline",
        "%zz=&&=",
    ] {
        let r = server.get(&format!("/api/v1/notes?{query}"));
        assert_eq!(r.status(), 200, "{query}");
        assert_eq!(r.text().unwrap(), plain, "{query}");
    }
}

#[test]
fn other_methods_on_the_pages_route_get_405() {
    let ws = Workspace::new();
    ws.write("a.md", "x");
    let server = ws.serve();
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO"] {
        let r = server.raw(method, "/api/v1/pages/notes?limit=1", &[], b"");
        r.assert_error(405, "Method not allowed");
        assert!(
            r.head.to_ascii_lowercase().contains("\r\nallow: get\r\n"),
            "{method}: {}",
            r.head
        );
    }
}

#[test]
fn a_folder_token_pages_through_its_folder_only() {
    let ws = Workspace::new();
    for path in ["a.md", "work/b.md", "work/c.md", "work/d.md", "z.md"] {
        ws.write(path, "x");
    }
    let out = ws.run(&["token", "create", "--prefix", "work"]);
    assert!(out.status.success(), "{out:?}");
    let bearer = format!("Bearer {}", stdout(&out).trim());
    let server = ws.serve();
    let page = |query: &str| {
        let r = server.raw(
            "GET",
            &format!("/api/v1/pages/notes?{query}"),
            &[("Authorization", &bearer)],
            b"",
        );
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    };
    let paths = |page: &serde_json::Value| -> Vec<String> {
        page["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["path"].as_str().unwrap().to_string())
            .collect()
    };
    // `total` counts the folder's notes, as the token's list does.
    let first = page("limit=2");
    assert_eq!(paths(&first), ["work/b.md", "work/c.md"]);
    assert_eq!(first["total"], 3);
    assert_eq!(first["next"], "work/c.md");
    let second = page("limit=2&after=work%2Fc.md");
    assert_eq!(paths(&second), ["work/d.md"]);
    assert_eq!(second["next"], json!(null));
    // Cursors outside the folder show nothing outside it either.
    assert_eq!(
        paths(&page("after=a.md")),
        ["work/b.md", "work/c.md", "work/d.md"]
    );
    assert_eq!(paths(&page("")), ["work/b.md", "work/c.md", "work/d.md"]);
    assert_eq!(paths(&page("after=work%2Fd.md")), Vec::<String>::new());
    // Without a token: 401.
    let r = server.raw("GET", "/api/v1/pages/notes", &[], b"");
    assert_eq!(r.status, 401, "{}", r.body);
}

#[test]
fn a_large_list_is_sent_whole_and_follows_every_change() {
    let ws = Workspace::new();
    let count = 17_000;
    for n in 0..count {
        std::fs::create_dir_all(ws.notes().join(format!("d{}", n % 100))).unwrap();
        std::fs::write(ws.notes().join(format!("d{}/n{n}.md", n % 100)), "x").unwrap();
    }
    let server = ws.serve();
    let list = || {
        let response = server.get("/api/v1/notes");
        assert_eq!(response.status(), 200);
        let length: usize = response.headers()["content-length"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let bytes = response.bytes().unwrap().to_vec();
        assert_eq!(bytes.len(), length);
        bytes
    };
    // Written once, then sent from the kept file: the same bytes each time.
    let first = list();
    assert_eq!(list(), first);
    let body: serde_json::Value = serde_json::from_slice(&first).unwrap();
    assert_eq!(body["total"], count);
    let notes = body["notes"].as_array().unwrap();
    assert_eq!(notes.len(), count);
    assert_eq!(notes[0]["path"], "d0/n0.md");
    assert!(
        notes
            .windows(2)
            .all(|w| w[0]["path"].as_str() < w[1]["path"].as_str())
    );
    // The spec's body, as serde_json writes it.
    let mut pretty = serde_json::to_vec_pretty(&body).unwrap();
    pretty.push(b'\n');
    assert_eq!(first, pretty);
    // A change made through the API is in the next list.
    let r = server
        .request("PUT", "/api/v1/notes/d0/new.md")
        .header("Content-Type", "text/markdown")
        .body("new")
        .send()
        .unwrap();
    assert_eq!(r.status(), 201);
    let after: serde_json::Value = serde_json::from_slice(&list()).unwrap();
    assert_eq!(after["total"], count + 1);
    assert!(
        after["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["path"] == "d0/new.md")
    );
}
