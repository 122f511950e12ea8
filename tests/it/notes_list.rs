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
