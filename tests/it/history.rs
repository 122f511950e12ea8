//! Every change keeps its version: the history routes over the real server, byte-exact
//! versions, delete → trash → restore, outside edits (at start-up and while running),
//! the store read by the git command line, a user's own repository left alone, and a
//! store that cannot be written refusing the change.

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{
    Server, Workspace, assert_cross_site_refused, assert_error, eventually, json, snapshot_of,
};

/// The note's text as stored (the Markdown form of the notes route).
fn markdown(server: &Server, path: &str) -> String {
    let r = server
        .request("GET", &format!("/api/v1/notes/{path}"))
        .header("Accept", "text/markdown")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{path}");
    r.text().unwrap()
}

fn versions(server: &Server, path: &str) -> Vec<Value> {
    let (status, body) = json(server.get(&format!("/api/v1/history/{path}")));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["path"], path);
    body["versions"].as_array().unwrap().clone()
}

/// A version's text, asked for as Markdown.
fn version_text(server: &Server, path: &str, id: &str) -> String {
    let r = server
        .request("GET", &format!("/api/v1/history/{path}?version={id}"))
        .header("Accept", "text/markdown")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{path} {id}");
    assert_eq!(r.headers()["content-type"], "text/markdown; charset=utf-8");
    r.text().unwrap()
}

fn restore(server: &Server, path: &str, version: &str) -> (u16, Value) {
    json(
        server
            .request("POST", "/api/v1/restore")
            .header("Content-Type", "application/json")
            .body(json!({ "path": path, "version": version }).to_string())
            .send()
            .unwrap(),
    )
}

fn git(args: &[&str]) -> String {
    let out = Command::new("git").args(args).output().expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn twenty_puts_are_twenty_versions_each_byte_exact() {
    let ws = Workspace::new();
    let server = ws.serve();
    let mut written = Vec::new();
    for i in 0..20 {
        let r = server.put_markdown(
            "/api/v1/notes/ideas/a.md",
            &format!(
                "---\ntitle: A\ntags: [x]\n---\nversion {i} {}\n",
                "é".repeat(i)
            ),
        );
        assert_eq!(r.status(), if i == 0 { 201 } else { 200 });
        written.push(markdown(&server, "ideas/a.md"));
    }
    let versions = versions(&server, "ideas/a.md");
    assert_eq!(versions.len(), 20);
    for (version, text) in versions.iter().rev().zip(&written) {
        assert_eq!(version["operation"], "put");
        assert_eq!(version["size"], text.len());
        assert!(version["at"].as_str().unwrap().ends_with('Z'), "{version}");
        let id = version["id"].as_str().unwrap();
        assert_eq!(&version_text(&server, "ideas/a.md", id), text);
    }
    // The JSON form is the notes route's NoteResponse.
    let oldest = versions[19]["id"].as_str().unwrap();
    let (status, note) = json(server.get(&format!("/api/v1/history/ideas/a.md?version={oldest}")));
    assert_eq!(status, 200);
    assert_eq!(note["path"], "ideas/a.md");
    assert_eq!(note["content"], written[0].as_str());
    assert_eq!(note["title"], "A");

    assert_error(
        server.get("/api/v1/history/never.md"),
        404,
        "Note not found",
    );
    assert_error(
        server.get("/api/v1/history/ideas/a.md?version=0123456789abcdef"),
        404,
        "Version not found",
    );
    // Not a note: an attachment's path, whose history is asked (it has none).
    assert_error(server.get("/api/v1/history/a.txt"), 404, "File not found");
    let r = server
        .request("DELETE", "/api/v1/history/ideas/a.md")
        .send()
        .unwrap();
    assert_eq!(r.status(), 405);
    assert_eq!(r.headers()["allow"], "GET");
}

#[test]
fn delete_trash_restore_and_an_old_version_come_back_byte_exact() {
    let ws = Workspace::new();
    let server = ws.serve();
    server.put_markdown("/api/v1/notes/n.md", "---\ntitle: N\n---\nfirst\n");
    let first = markdown(&server, "n.md");
    server.put_markdown("/api/v1/notes/n.md", "---\ntitle: N\n---\nsecond\n");
    let second = markdown(&server, "n.md");
    let (_, trash) = json(server.get("/api/v1/trash"));
    assert_eq!(trash, json!({ "notes": [] }));

    assert_eq!(
        server
            .request("DELETE", "/api/v1/notes/n.md")
            .send()
            .unwrap()
            .status(),
        200
    );
    let (status, trash) = json(server.get("/api/v1/trash"));
    assert_eq!(status, 200);
    let trashed = trash["notes"].as_array().unwrap();
    assert_eq!(trashed.len(), 1);
    assert_eq!(trashed[0]["path"], "n.md");
    assert!(trashed[0]["deletedAt"].as_str().unwrap().ends_with('Z'));
    let version = trashed[0]["version"].as_str().unwrap().to_string();
    assert_eq!(versions(&server, "n.md")[0]["operation"], "delete");

    let (status, note) = restore(&server, "n.md", &version);
    assert_eq!(status, 201, "{note}");
    assert_eq!(note["content"], second.as_str());
    assert_eq!(ws.read("n.md"), second);
    let (_, trash) = json(server.get("/api/v1/trash"));
    assert_eq!(trash["notes"], json!([]));

    // An old version, over the current text.
    let oldest = versions(&server, "n.md").last().unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, note) = restore(&server, "n.md", &oldest);
    assert_eq!(status, 200, "{note}");
    assert_eq!(ws.read("n.md"), first);
    let operations: Vec<Value> = versions(&server, "n.md")
        .into_iter()
        .map(|v| v["operation"].clone())
        .collect();
    assert_eq!(operations, ["restore", "restore", "delete", "put", "put"]);

    let (status, body) = restore(&server, "n.md", "feedfacefeedface");
    assert_eq!(
        (status, body["message"].as_str()),
        (404, Some("Version not found"))
    );
    let r = server
        .request("POST", "/api/v1/restore")
        .header("Content-Type", "application/json")
        .body(r#"{"path": "n.md"}"#)
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    // A page of another site may not restore.
    let r = server
        .request("POST", "/api/v1/restore")
        .header("Sec-Fetch-Site", "cross-site")
        .header("Content-Type", "application/json")
        .body(json!({ "path": "n.md", "version": version }).to_string())
        .send()
        .unwrap();
    let (status, body) = json(r);
    assert_cross_site_refused(status, &body, "restore");
    assert_eq!(ws.read("n.md"), first);
}

#[test]
fn outside_edits_are_recorded_at_start_up_and_while_running() {
    let ws = Workspace::new();
    let mut server = ws.serve();
    server.put_markdown("/api/v1/notes/a.md", "---\ntitle: A\n---\nby the service\n");
    assert!(server.terminate());
    ws.write("a.md", "edited while the service was down\n");
    ws.write("b.md", "made while the service was down\n");
    let server = ws.serve();
    let latest = |path: &str| versions(&server, path).first().cloned();
    assert!(
        eventually(Duration::from_secs(10), || {
            latest("a.md").is_some_and(|v| v["operation"] == "outside-edit")
        }),
        "{:?}\n{}",
        latest("a.md"),
        server.log()
    );
    let id = latest("a.md").unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(
        version_text(&server, "a.md", &id),
        "edited while the service was down\n"
    );
    let id = latest("b.md").unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(
        version_text(&server, "b.md", &id),
        "made while the service was down\n"
    );

    // While running: the watcher sees the edit, the history records it.
    ws.write("a.md", "edited while the service runs\n");
    let noticed = eventually(Duration::from_secs(10), || {
        let id = latest("a.md").unwrap()["id"].as_str().unwrap().to_string();
        version_text(&server, "a.md", &id) == "edited while the service runs\n"
    });
    assert!(noticed, "{}", server.log());
    assert_eq!(versions(&server, "a.md").len(), 3);
}

#[test]
fn the_git_command_line_reads_the_store_and_a_users_repository_is_left_alone() {
    let ws = Workspace::new();
    // The user keeps the notes folder in a git repository of their own.
    let notes = ws.notes();
    std::fs::create_dir_all(&notes).unwrap();
    ws.write(
        "kept.md",
        "---\ntitle: Kept\n---\nin the user's repository\n",
    );
    let dir = notes.to_str().unwrap();
    git(&["-C", dir, "init", "-q"]);
    git(&[
        "-C",
        dir,
        "-c",
        "user.name=U",
        "-c",
        "user.email=u@x",
        "add",
        "kept.md",
    ]);
    git(&[
        "-C",
        dir,
        "-c",
        "user.name=U",
        "-c",
        "user.email=u@x",
        "commit",
        "-qm",
        "mine",
    ]);
    let users_repo = snapshot_of(&notes.join(".git"));

    let server = ws.serve();
    server.put_markdown("/api/v1/notes/ideas/a.md", "---\ntitle: A\n---\none\n");
    let text = markdown(&server, "ideas/a.md");
    let r = server
        .request("POST", "/api/v1/move")
        .header("Content-Type", "application/json")
        .body(r#"{"from": "ideas/a.md", "to": "b.md"}"#)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        server
            .request("DELETE", "/api/v1/notes/b.md")
            .send()
            .unwrap()
            .status(),
        200
    );

    let store = notes.join(".notes/history.git");
    let store = store.to_str().unwrap();
    let log = git(&["--git-dir", store, "log", "--format=%H %s", "main"]);
    // The start-up's record of the note already there (kept.md) may come anywhere.
    let commits: Vec<(&str, &str)> = log
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter(|(_, subject)| !subject.starts_with("outside-edit"))
        .collect();
    let subjects: Vec<&str> = commits.iter().map(|(_, s)| *s).collect();
    assert_eq!(
        subjects,
        ["delete b.md", "move ideas/a.md -> b.md", "put ideas/a.md"],
        "{log}"
    );
    let shown = git(&[
        "--git-dir",
        store,
        "show",
        &format!("{}:b.md", commits[1].0),
    ]);
    assert_eq!(shown, text);
    git(&["--git-dir", store, "fsck", "--no-progress"]);

    assert_eq!(snapshot_of(&notes.join(".git")), users_repo);
    let status = git(&["-C", dir, "status", "--porcelain", "--untracked-files=no"]);
    assert_eq!(status, "", "the user's index and branch are untouched");
    assert_eq!(git(&["-C", dir, "log", "--format=%s"]), "mine\n");
}

#[test]
fn a_store_that_cannot_be_written_refuses_the_change_and_keeps_the_note() {
    let ws = Workspace::new();
    let server = ws.serve();
    server.put_markdown("/api/v1/notes/n.md", "---\ntitle: N\n---\nkept\n");
    let kept = ws.read("n.md");
    let wal = ws.notes().join(".notes/history.git/wal");
    std::fs::remove_file(&wal).unwrap();
    std::fs::create_dir(&wal).unwrap();

    let message = "Failed to record the note's history";
    assert_error(
        server.put_markdown("/api/v1/notes/n.md", "changed\n"),
        500,
        message,
    );
    assert_eq!(ws.read("n.md"), kept);
    assert_error(
        server.put_markdown("/api/v1/notes/new.md", "new\n"),
        500,
        message,
    );
    assert!(!ws.notes().join("new.md").exists());
    assert_error(
        server
            .request("DELETE", "/api/v1/notes/n.md")
            .send()
            .unwrap(),
        500,
        message,
    );
    assert_eq!(ws.read("n.md"), kept);
    let r = server
        .request("POST", "/api/v1/move")
        .header("Content-Type", "application/json")
        .body(r#"{"from": "n.md", "to": "m.md"}"#)
        .send()
        .unwrap();
    assert_error(r, 500, message);
    assert_eq!(ws.read("n.md"), kept);
    assert!(!ws.notes().join("m.md").exists());
    assert!(
        server.log().contains("cannot write the log"),
        "{}",
        server.log()
    );
}

#[test]
fn with_history_off_nothing_is_recorded() {
    let ws = Workspace::new();
    let server = ws.serve_with(&["--history", "off"]);
    assert_eq!(
        server.put_markdown("/api/v1/notes/n.md", "x\n").status(),
        201
    );
    assert_error(server.get("/api/v1/history/n.md"), 404, "Note not found");
    assert!(!ws.notes().join(".notes/history.git").exists());
}
