//! Listing notes over HTTP (`GET /api/v1/notes`): recursive, sorted, hidden files
//! skipped, lenient with broken front matter, GET only, and fresh after files change on
//! disk outside the service.

use serde_json::json;

use crate::support::{Workspace, assert_error, json, keys, wait_until_settled};

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
    let server = ws.serve();
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
    wait_until_settled();
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
    cli.env("NOTES_TEST_WATCH_QUEUE", "4");
    let server = ws.serve_through(cli, &[]);
    let old: Vec<String> = (0..6).map(|n| format!("Old{n}")).collect();
    assert_eq!(titles_of(&server), old);
    wait_until_settled();
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
    wait_until_settled();
    assert_eq!(titles_of(&server), new);
    std::fs::write(ws.notes().join("n0.md"), titled("Once")).unwrap();
    assert_eq!(titles_of(&server)[0], "Once");
}

#[test]
fn folders_created_moved_in_and_removed_outside_are_followed() {
    let ws = Workspace::new();
    ws.write("a.md", &titled("A"));
    let server = ws.serve();
    assert_eq!(titles_of(&server), ["A"]);
    wait_until_settled();
    assert_eq!(titles_of(&server), ["A"]);
    // A folder made elsewhere and moved in whole, as a checkout does.
    let outside = ws.root.path().join("incoming");
    std::fs::create_dir_all(outside.join("deep")).unwrap();
    std::fs::write(outside.join("deep/b.md"), titled("B")).unwrap();
    std::fs::rename(&outside, ws.notes().join("in")).unwrap();
    assert_eq!(titles_of(&server), ["A", "B"]);
    // The moved-in folder is watched from then on.
    wait_until_settled();
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
        let (status, body) = json(server.get(&format!("/api/v1/notes?{query}")));
        assert_eq!(status, 200, "{body}");
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
    // Each page's entries are those of the whole list.
    let (_, whole) = json(server.get("/api/v1/notes"));
    let (_, first) = json(server.get("/api/v1/notes?limit=1"));
    assert_eq!(first["notes"][0], whole["notes"][0]);
    // Without the extension's parameters the spec's body is unchanged.
    assert_eq!(keys(&whole), ["notes", "total"]);
    for bad in ["0", "1001", "x", "-1"] {
        assert_error(
            server.get(&format!("/api/v1/notes?limit={bad}")),
            400,
            &format!("Invalid limit: \"{bad}\" (use a whole number from 1 to 1000)"),
        );
    }
}

#[test]
fn a_large_list_is_streamed_whole() {
    let ws = Workspace::new();
    let count = 17_000;
    for n in 0..count {
        std::fs::create_dir_all(ws.notes().join(format!("d{}", n % 100))).unwrap();
        std::fs::write(ws.notes().join(format!("d{}/n{n}.md", n % 100)), "x").unwrap();
    }
    let server = ws.serve();
    for _ in 0..2 {
        let response = server.get("/api/v1/notes");
        assert_eq!(response.headers()["transfer-encoding"], "chunked");
        let (status, body) = json(response);
        assert_eq!(status, 200);
        assert_eq!(body["total"], count);
        let notes = body["notes"].as_array().unwrap();
        assert_eq!(notes.len(), count);
        assert_eq!(notes[0]["path"], "d0/n0.md");
        assert!(
            notes
                .windows(2)
                .all(|w| w[0]["path"].as_str() < w[1]["path"].as_str())
        );
    }
}
