//! The history store is a git repository to plain git: `HEAD` names the branch the
//! history is on, so `git log`, `git clone` and `git gc` need no options; a store of
//! the older layout (the history on `refs/notes/history`) is moved to it at start.

use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

use crate::support::{Server, Workspace, eventually, json, stderr, stdout};

fn store(ws: &Workspace) -> PathBuf {
    ws.notes().join(".notes/history.git")
}

/// Runs git on the store with `args`.
fn git_out(ws: &Workspace, args: &[&str]) -> Output {
    ws.command("git")
        .arg("--git-dir")
        .arg(store(ws))
        .args(args)
        .output()
        .expect("run git")
}

fn git(ws: &Workspace, args: &[&str]) -> String {
    let out = git_out(ws, args);
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// The subjects of `git log` with no options, newest first (empty while it fails).
fn subjects(ws: &Workspace) -> Vec<String> {
    let out = git_out(ws, &["log", "--format=%s"]);
    stdout(&out).lines().map(str::to_string).collect()
}

fn put(server: &Server, note: &str, text: &str) {
    let r = server.put_markdown(&format!("/api/v1/notes/{note}"), text);
    assert!(r.status().is_success(), "{note}: {}", r.status());
}

/// The version ids of `note`, newest first, through the API.
fn version_ids(server: &Server, note: &str) -> Vec<String> {
    let (status, history) = json(server.get(&format!("/api/v1/history/{note}")));
    assert_eq!(status, 200, "{history}");
    history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect()
}

/// Puts three versions of a.md and one of b.md and waits for git to read them.
fn three_puts(ws: &Workspace, server: &Server) {
    put(server, "a.md", "one\n");
    put(server, "a.md", "two\n");
    put(server, "ideas/b.md", "bee\n");
    put(server, "a.md", "three\n");
    let want = ["put a.md", "put ideas/b.md", "put a.md", "put a.md"];
    let settled = eventually(Duration::from_secs(3), || subjects(ws) == want);
    assert!(settled, "git log: {:?}\n{}", subjects(ws), server.log());
}

#[test]
fn git_log_and_clone_read_the_store_with_no_options() {
    let ws = Workspace::new();
    let server = ws.serve();
    three_puts(&ws, &server);
    let oneline = git(&ws, &["log", "--oneline"]);
    assert_eq!(oneline.lines().count(), 4, "{oneline}");
    assert_eq!(
        git(&ws, &["symbolic-ref", "HEAD"]).trim(),
        "refs/heads/main"
    );
    assert_eq!(git(&ws, &["show", "HEAD:a.md"]), ws.read("a.md"));
    assert!(git(&ws, &["show", "HEAD~1:ideas/b.md"]).ends_with("bee\n"));

    // A clone checks out the notebook's notes with their latest text.
    let clone = ws.notes().parent().unwrap().join("clone");
    let out = ws
        .command("git")
        .arg("clone")
        .arg(store(&ws))
        .arg(&clone)
        .output()
        .unwrap();
    assert!(out.status.success(), "git clone: {}", stderr(&out));
    for note in ["a.md", "ideas/b.md"] {
        let cloned = std::fs::read_to_string(clone.join(note)).unwrap();
        assert_eq!(cloned, ws.read(note), "{note}");
    }
    assert!(ws.read("a.md").ends_with("three\n"));
    // The service's own files are not in it.
    assert!(!clone.join(".notes").exists());
}

#[test]
fn a_store_of_the_old_layout_is_moved_to_the_branch_at_start() {
    let ws = Workspace::new();
    let before = {
        let mut server = ws.serve();
        three_puts(&ws, &server);
        let ids = version_ids(&server, "a.md");
        assert_eq!(ids.len(), 3);
        assert!(server.terminate(), "{}", server.log());
        ids
    };
    let tip = git(&ws, &["rev-parse", "main"]);
    // The layout of the stores made before: the history on a private ref, HEAD
    // naming an unborn master.
    git(&ws, &["update-ref", "refs/notes/history", tip.trim()]);
    git(&ws, &["update-ref", "-d", "refs/heads/main"]);
    git(&ws, &["symbolic-ref", "HEAD", "refs/heads/master"]);
    assert!(!git_out(&ws, &["log", "--oneline"]).status.success());

    let mut server = ws.serve();
    assert_eq!(version_ids(&server, "a.md"), before);
    put(&server, "a.md", "four\n");
    assert!(server.terminate(), "{}", server.log());
    assert_eq!(
        git(&ws, &["symbolic-ref", "HEAD"]).trim(),
        "refs/heads/main"
    );
    let refs = git(&ws, &["for-each-ref", "--format=%(refname)"]);
    assert_eq!(refs.trim(), "refs/heads/main", "the old ref is gone");
    let log = subjects(&ws);
    assert_eq!(log.len(), 5, "{log:?}");
    assert_eq!(log[0], "put a.md");
    assert_eq!(git(&ws, &["show", "HEAD:a.md"]), ws.read("a.md"));
    assert!(ws.read("a.md").ends_with("four\n"));
}

#[test]
fn a_store_with_both_refs_keeps_the_branch() {
    let ws = Workspace::new();
    {
        let mut server = ws.serve();
        three_puts(&ws, &server);
        assert!(server.terminate(), "{}", server.log());
    }
    // A crash between the branch's creation and the old ref's removal: the old ref
    // may lag the branch.
    let older = git(&ws, &["rev-parse", "main~1"]);
    git(&ws, &["update-ref", "refs/notes/history", older.trim()]);
    let server = ws.serve();
    assert_eq!(version_ids(&server, "a.md").len(), 3);
    drop(server);
    let refs = git(&ws, &["for-each-ref", "--format=%(refname)"]);
    assert_eq!(refs.trim(), "refs/heads/main");
    assert_eq!(subjects(&ws).len(), 4);
}

#[test]
fn the_history_still_answers_after_git_gc() {
    let ws = Workspace::new();
    {
        let mut server = ws.serve();
        three_puts(&ws, &server);
        assert!(server.terminate(), "{}", server.log());
    }
    git(&ws, &["gc", "--quiet"]);
    let out = ws.run(&["history", "a.md", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let history: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        history["versions"].as_array().unwrap().len(),
        3,
        "{history}"
    );
    // And the store is written on: a new version after the gc.
    let server = ws.serve();
    put(&server, "a.md", "four\n");
    assert_eq!(version_ids(&server, "a.md").len(), 4);
    drop(server);
    let out = git_out(&ws, &["fsck", "--strict"]);
    assert!(out.status.success(), "git fsck: {}", stderr(&out));
}
