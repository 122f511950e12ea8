//! Attachments are versioned: a replace, a delete and a restore of a file are changes
//! in the history store, read back through the API, the CLI, the trash and plain git;
//! the store holds each distinct content once (a folder of images costs about the
//! images' own size); a folder token reaches only its folder's files' history.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use crate::support::{Server, Workspace, eventually, json, stderr, stdout};

/// `n` bytes that do not compress (xorshift from `seed`): image data, for the store.
fn random_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn put_file(server: &Server, path: &str, bytes: &[u8]) -> u16 {
    let r = server
        .request("PUT", &format!("/api/v1/files/{path}"))
        .body(bytes.to_vec())
        .send()
        .unwrap();
    r.status().as_u16()
}

fn get_bytes(server: &Server, path: &str) -> (u16, Vec<u8>) {
    let r = server.get(path);
    let status = r.status().as_u16();
    (status, r.bytes().unwrap().to_vec())
}

fn store(ws: &Workspace) -> PathBuf {
    ws.notes().join(".notes/history.git")
}

/// `git --git-dir STORE show REV`'s bytes.
fn git_show(ws: &Workspace, rev: &str) -> Vec<u8> {
    let out = ws
        .command("git")
        .arg("--git-dir")
        .arg(store(ws))
        .args(["show", rev])
        .stdin(Stdio::null())
        .output()
        .expect("run git");
    assert!(out.status.success(), "git show {rev}: {}", stderr(&out));
    out.stdout
}

fn versions(server: &Server, path: &str) -> Vec<Value> {
    let (status, history) = json(server.get(&format!("/api/v1/history/{path}")));
    assert_eq!(status, 200, "{history}");
    assert_eq!(history["path"], path);
    history["versions"].as_array().unwrap().clone()
}

fn restore(server: &Server, path: &str, version: &str) -> (u16, Value) {
    let body = serde_json::json!({"path": path, "version": version}).to_string();
    json(
        server
            .request("POST", "/api/v1/restore")
            .header("Content-Type", "application/json")
            .body(body)
            .send()
            .unwrap(),
    )
}

#[test]
fn a_replaced_file_is_restored_byte_for_byte_and_git_reads_each_version() {
    let ws = Workspace::new();
    let server = ws.serve();
    let one = random_bytes(1, 50_000);
    let two = random_bytes(2, 70_000);
    assert_eq!(put_file(&server, "img/photo.png", &one), 201);
    assert_eq!(put_file(&server, "img/photo.png", &two), 200);

    // Newest first, each a put with its size.
    let listed = versions(&server, "img/photo.png");
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert_eq!(listed[0]["operation"], "put");
    assert_eq!(listed[0]["size"], 70_000);
    assert_eq!(listed[1]["size"], 50_000);
    let old = listed[1]["id"].as_str().unwrap().to_string();

    // Plain git reads the bytes of each version, the file in the commit's tree.
    assert_eq!(git_show(&ws, "HEAD:img/photo.png"), two);
    assert_eq!(git_show(&ws, &format!("{old}:img/photo.png")), one);

    // One version's bytes through the API.
    let (status, bytes) = get_bytes(
        &server,
        &format!("/api/v1/history/img/photo.png?version={old}"),
    );
    assert_eq!(status, 200);
    assert_eq!(bytes, one);

    // Restore the old bytes: 200 (the file exists), the file byte-equal, a new version.
    let (status, info) = restore(&server, "img/photo.png", &old[..8]);
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["path"], "img/photo.png");
    assert_eq!(
        std::fs::read(ws.notes().join("img/photo.png")).unwrap(),
        one
    );
    let listed = versions(&server, "img/photo.png");
    assert_eq!(listed.len(), 3);
    assert_eq!(listed[0]["operation"], "restore");
    assert_eq!(git_show(&ws, "HEAD:img/photo.png"), one);

    // An unknown version of a file: 404, nothing written.
    let (status, body) = restore(&server, "img/photo.png", "00000000");
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["message"], "Version not found");
    assert_eq!(
        std::fs::read(ws.notes().join("img/photo.png")).unwrap(),
        one
    );
}

#[test]
fn a_deleted_file_is_in_the_trash_and_comes_back() {
    let ws = Workspace::new();
    let server = ws.serve();
    let bytes = random_bytes(3, 30_000);
    assert_eq!(put_file(&server, "docs/map.pdf", &bytes), 201);
    let r = server.put_markdown("/api/v1/notes/gone.md", "bye\n");
    assert!(r.status().is_success());
    let r = server
        .request("DELETE", "/api/v1/notes/gone.md")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = server
        .request("DELETE", "/api/v1/files/docs/map.pdf")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(!ws.notes().join("docs/map.pdf").exists());

    // Both in the trash, the file said to be one; the note's entry as before.
    let (status, trash) = json(server.get("/api/v1/trash"));
    assert_eq!(status, 200);
    let entries = trash["notes"].as_array().unwrap();
    let file = entries
        .iter()
        .find(|e| e["path"] == "docs/map.pdf")
        .unwrap_or_else(|| panic!("no file in the trash: {trash}"));
    assert_eq!(file["kind"], "file");
    let note = entries.iter().find(|e| e["path"] == "gone.md").unwrap();
    assert_eq!(note["kind"], "note");
    assert!(note["deletedAt"].is_string() && note["version"].is_string());
    let listed = versions(&server, "docs/map.pdf");
    assert_eq!(listed[0]["operation"], "delete");
    assert_eq!(listed[0]["size"], 0);

    // The web trash lists it too, marked as a file, and its Restore brings it back.
    let page = server.get("/trash").text().unwrap();
    assert!(
        page.contains("docs/map.pdf") && page.contains("File"),
        "{page}"
    );
    let other = random_bytes(6, 2_000);
    assert_eq!(put_file(&server, "web.bin", &other), 201);
    let r = server
        .request("DELETE", "/api/v1/files/web.bin")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let web_version = versions(&server, "web.bin")[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = crate::web_pages::same_site_post(
        &server,
        "/restore",
        &[("path", "web.bin"), ("version", &web_version)],
    );
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/file/web.bin");
    assert_eq!(std::fs::read(ws.notes().join("web.bin")).unwrap(), other);

    // Restored from the trash entry: 201, byte-equal, out of the trash.
    let (status, info) = restore(&server, "docs/map.pdf", file["version"].as_str().unwrap());
    assert_eq!(status, 201, "{info}");
    assert_eq!(
        std::fs::read(ws.notes().join("docs/map.pdf")).unwrap(),
        bytes
    );
    let (_, trash) = json(server.get("/api/v1/trash"));
    assert!(
        !trash["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["path"] == "docs/map.pdf"),
        "{trash}"
    );
    assert_eq!(git_show(&ws, "HEAD:docs/map.pdf"), bytes);
}

#[test]
fn the_cli_lists_restores_and_trashes_files() {
    let ws = Workspace::new();
    let one = random_bytes(4, 10_000);
    let two = random_bytes(5, 12_000);
    {
        let server = ws.serve();
        assert_eq!(put_file(&server, "a.bin", &one), 201);
        assert_eq!(put_file(&server, "a.bin", &two), 200);
        assert_eq!(put_file(&server, "b.bin", &one), 201);
        let r = server
            .request("DELETE", "/api/v1/files/b.bin")
            .send()
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let run = |args: &[&str]| {
        let out = ws.run(args);
        assert!(out.status.success(), "notes {args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let history: Value = serde_json::from_str(&run(&["history", "a.bin", "--json"])).unwrap();
    assert_eq!(history["path"], "a.bin");
    assert_eq!(history["versions"].as_array().unwrap().len(), 2);
    assert!(run(&["history", "a.bin"]).lines().count() == 2);
    let trash = run(&["trash"]);
    assert!(
        trash
            .lines()
            .any(|l| l.starts_with("b.bin") && l.ends_with("(file)")),
        "{trash}"
    );
    // With no version: the change before the last (a replace undone, a delete undone).
    assert!(run(&["restore", "a.bin"]).starts_with("restored a.bin"));
    assert_eq!(std::fs::read(ws.notes().join("a.bin")).unwrap(), one);
    assert!(run(&["restore", "b.bin"]).starts_with("restored deleted file b.bin"));
    assert_eq!(std::fs::read(ws.notes().join("b.bin")).unwrap(), one);
    // A file with no history: one line, exit 1.
    let out = ws.run(&["history", "never.bin"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
}

#[test]
fn a_folder_token_reaches_only_its_folders_file_history() {
    let ws = Workspace::new();
    let out = ws.run(&["token", "create", "--name", "owner"]);
    assert!(out.status.success());
    let owner = stdout(&out).trim().to_string();
    let out = ws.run(&["token", "create", "--name", "work", "--prefix", "work"]);
    assert!(out.status.success());
    let work = stdout(&out).trim().to_string();
    let server = ws.serve();
    let send = |method: &str, target: &str, token: &str, body: &[u8], json: bool| {
        let bearer = format!("Bearer {token}");
        let mut headers = vec![("Authorization", bearer.as_str())];
        if json {
            headers.push(("Content-Type", "application/json"));
        }
        server.raw(method, target, &headers, body)
    };
    for path in ["work/w.png", "private/p.png"] {
        let r = send(
            "PUT",
            &format!("/api/v1/files/{path}"),
            &owner,
            b"v1",
            false,
        );
        assert_eq!(r.status, 201, "{}", r.body);
        let r = send(
            "PUT",
            &format!("/api/v1/files/{path}"),
            &owner,
            b"v2",
            false,
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let (_, history) = json(
        server
            .request("GET", "/api/v1/history/private/p.png")
            .header("Authorization", format!("Bearer {owner}"))
            .send()
            .unwrap(),
    );
    let private_old = history["versions"][1]["id"].as_str().unwrap().to_string();

    // Inside its folder: history and restore work.
    let r = send("GET", "/api/v1/history/work/w.png", &work, b"", false);
    assert_eq!(r.status, 200, "{}", r.body);
    let old = r.json()["versions"][1]["id"].as_str().unwrap().to_string();
    let body = serde_json::json!({"path": "work/w.png", "version": old}).to_string();
    let r = send("POST", "/api/v1/restore", &work, body.as_bytes(), true);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(std::fs::read(ws.notes().join("work/w.png")).unwrap(), b"v1");

    // Outside: 403, as for a note; nothing written; the trash is not for a folder token.
    let outside = "This token is limited to a folder, and this path is outside it";
    let r = send("GET", "/api/v1/history/private/p.png", &work, b"", false);
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(r.json()["message"], outside);
    let r = send(
        "GET",
        &format!("/api/v1/history/private/p.png?version={private_old}"),
        &work,
        b"",
        false,
    );
    assert_eq!(r.status, 403, "{}", r.body);
    for path in ["private/p.png", "work/../private/p.png"] {
        let body = serde_json::json!({"path": path, "version": private_old}).to_string();
        let r = send("POST", "/api/v1/restore", &work, body.as_bytes(), true);
        assert_eq!(r.status, 403, "{path}: {}", r.body);
        assert_eq!(r.json()["message"], outside);
    }
    assert_eq!(
        std::fs::read(ws.notes().join("private/p.png")).unwrap(),
        b"v2"
    );
    let r = send("GET", "/api/v1/trash", &work, b"", false);
    assert_eq!(r.status, 403, "{}", r.body);
}

/// The size of the files beneath `dir`, in bytes.
fn size_of(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    // Bounded: the store holds a few hundred files here.
    for _ in 0..100_000 {
        let Some(at) = stack.pop() else { break };
        for entry in std::fs::read_dir(&at).unwrap().flatten() {
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}

#[test]
fn a_folder_of_images_costs_the_store_about_its_own_size() {
    let ws = Workspace::new();
    let server = ws.serve();
    let mut files = 0u64;
    for n in 0..20u64 {
        let bytes = random_bytes(100 + n, 100 << 10);
        files += bytes.len() as u64;
        assert_eq!(put_file(&server, &format!("img/{n}.jpg"), &bytes), 201);
        // The same bytes again under another name and at the same path: no new blob.
        if n < 5 {
            assert_eq!(put_file(&server, &format!("copy/{n}.jpg"), &bytes), 201);
            assert_eq!(put_file(&server, &format!("img/{n}.jpg"), &bytes), 200);
        }
    }
    // Every change committed (git reads the last one) before measuring.
    let last = random_bytes(119, 100 << 10);
    let settled = eventually(Duration::from_secs(5), || {
        git_show(&ws, "HEAD:img/19.jpg") == last
    });
    assert!(settled, "{}", server.log());
    let store_bytes = size_of(&store(&ws));
    // The log's first MiB is written ahead of its records (a fixed cost); the rest is
    // commits, trees and the index.
    let allowed = files + files / 10 + (1 << 20) + (256 << 10);
    assert!(
        store_bytes <= allowed,
        "store {store_bytes} bytes for {files} bytes of files (allowed {allowed})"
    );
    // And each image is there once: every blob readable by git.
    assert_eq!(
        git_show(&ws, "HEAD:copy/4.jpg"),
        random_bytes(104, 100 << 10)
    );
}

/// Whether the history of `path` comes to hold `count` versions within 20 s.
fn settled(server: &Server, path: &str, count: usize) -> bool {
    eventually(Duration::from_secs(20), || {
        let (status, body) = json(server.get(&format!("/api/v1/history/{path}")));
        status == 200 && body["versions"].as_array().map_or(0, Vec::len) == count
    })
}

/// The operations of a file's versions, newest first.
fn operations(server: &Server, path: &str) -> Vec<String> {
    versions(server, path)
        .iter()
        .map(|v| v["operation"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn files_copied_changed_or_removed_by_hand_are_recorded_while_serving_and_at_the_start() {
    let ws = Workspace::new();
    let first = random_bytes(7, 4000);
    std::fs::create_dir_all(ws.notes().join("pics")).unwrap();
    // Copied in before the service starts: recorded by the start's pass.
    std::fs::write(ws.notes().join("pics/before.bin"), &first).unwrap();
    let server = ws.serve();
    assert!(settled(&server, "pics/before.bin", 1), "{}", server.log());
    assert_eq!(operations(&server, "pics/before.bin"), ["outside-edit"]);

    // Copied in, changed and removed while it runs: each seen by the watcher.
    let second = random_bytes(8, 5000);
    std::fs::write(ws.notes().join("pics/during.bin"), &second).unwrap();
    assert!(settled(&server, "pics/during.bin", 1), "{}", server.log());
    std::fs::write(ws.notes().join("pics/during.bin"), &first).unwrap();
    assert!(settled(&server, "pics/during.bin", 2), "{}", server.log());
    let listed = versions(&server, "pics/during.bin");
    let (status, bytes) = get_bytes(
        &server,
        &format!(
            "/api/v1/history/pics/during.bin?version={}",
            listed[1]["id"].as_str().unwrap()
        ),
    );
    assert_eq!(status, 200);
    assert_eq!(bytes, second);
    std::fs::remove_file(ws.notes().join("pics/before.bin")).unwrap();
    assert!(settled(&server, "pics/before.bin", 2), "{}", server.log());
    assert_eq!(
        operations(&server, "pics/before.bin"),
        ["delete", "outside-edit"]
    );
    // A file the service wrote is not recorded again as an outside change.
    assert_eq!(put_file(&server, "pics/api.bin", &second), 201);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(operations(&server, "pics/api.bin").len(), 1);
}

/// A folder moved in from outside (with a folder and a file inside), then moved out,
/// and a file inside another removed: the watcher names only the folders (or the name
/// gone), and what is under them reaches search and the history, the rest untouched.
#[test]
fn folders_moved_in_and_out_by_hand_reach_search_and_history_note_by_note() {
    let ws = Workspace::new();
    ws.write("keep.md", "---\ntitle: Keep\n---\nstays put\n");
    ws.write("pics/old/kept.bin", "a file that stays\n");
    let server = ws.serve();
    let found = |word: &str| {
        let (_, body) = json(server.get(&format!("/api/v1/search?q={word}")));
        let mut paths: Vec<String> = body["results"]
            .as_array()
            .map(|r| {
                r.iter()
                    .map(|h| h["path"].as_str().unwrap_or("").to_string())
            })
            .into_iter()
            .flatten()
            .collect();
        paths.sort();
        paths
    };
    assert!(settled(&server, "keep.md", 1), "{}", server.log());

    let staging = ws.root.path().join("staging/trip");
    std::fs::create_dir_all(staging.join("day2")).unwrap();
    std::fs::write(
        staging.join("day1.md"),
        "---\ntitle: Day one\n---\nkangaroo\n",
    )
    .unwrap();
    std::fs::write(staging.join("day2/walk.md"), "# Walk\n\nkangaroo again\n").unwrap();
    std::fs::write(staging.join("day2/map.bin"), random_bytes(3, 2000)).unwrap();
    std::fs::rename(&staging, ws.notes().join("trip")).unwrap();
    let moved_in = eventually(Duration::from_secs(20), || {
        found("kangaroo") == ["trip/day1.md", "trip/day2/walk.md"]
    });
    assert!(moved_in, "{:?}\n{}", found("kangaroo"), server.log());
    assert!(settled(&server, "trip/day1.md", 1), "{}", server.log());
    assert!(settled(&server, "trip/day2/walk.md", 1), "{}", server.log());
    assert!(settled(&server, "trip/day2/map.bin", 1), "{}", server.log());
    assert_eq!(operations(&server, "trip/day2/walk.md"), ["outside-edit"]);

    // Moved out: its notes leave the search, and the history records them deleted.
    std::fs::rename(ws.notes().join("trip"), ws.root.path().join("trip-away")).unwrap();
    assert!(
        eventually(Duration::from_secs(20), || found("kangaroo").is_empty()),
        "{:?}",
        found("kangaroo")
    );
    assert!(settled(&server, "trip/day2/walk.md", 2), "{}", server.log());
    let latest = versions(&server, "trip/day2/walk.md")[0].clone();
    assert_eq!(latest["operation"], "outside-edit", "{latest}");
    assert_eq!(latest["size"], 0, "{latest}");
    let (_, trash) = json(server.get("/api/v1/trash"));
    let trashed: Vec<&str> = trash["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["path"].as_str())
        .collect();
    for path in ["trip/day1.md", "trip/day2/walk.md", "trip/day2/map.bin"] {
        assert!(trashed.contains(&path), "{path} not in the trash: {trash}");
    }
    assert!(settled(&server, "trip/day2/map.bin", 2), "{}", server.log());

    // A folder removed with the file in it: only that file is recorded deleted.
    std::fs::remove_dir_all(ws.notes().join("pics/old")).unwrap();
    assert!(settled(&server, "pics/old/kept.bin", 2), "{}", server.log());
    assert_eq!(operations(&server, "keep.md"), ["outside-edit"]);
    assert_eq!(found("stays"), ["keep.md"]);
    // Each change was compared under its folder only: no pass over every note after
    // the start's.
    let log = server.log();
    assert_eq!(
        log.matches("search: caught up with the notes folder")
            .count(),
        1,
        "{log}"
    );
}
