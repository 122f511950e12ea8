//! History follows the note across its moves (like `git log --follow`): the API, the
//! command line and the web History page list its versions under former paths, each
//! naming the path it had; diff and restore work across the rename; plain git reads
//! the move as one commit naming both paths.

use std::time::Duration;

use serde_json::{Value, json};

use crate::history_moves::{post, put};
use crate::support::{Server, Workspace, eventually, stderr, stdout};
use crate::web_pages::page;

fn mv(server: &Server, from: &str, to: &str) {
    let (status, body) = post(server, "/api/v1/move", json!({"from": from, "to": to}));
    assert_eq!(status, 200, "{body}");
}

/// The versions of `note` as (operation, path named or None), newest first, and ids.
fn history(server: &Server, note: &str) -> (Vec<(String, Option<String>)>, Vec<String>) {
    let (status, body) = crate::support::json(server.get(&format!("/api/v1/history/{note}")));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["path"], note, "{body}");
    let versions = body["versions"].as_array().unwrap();
    let shape = versions
        .iter()
        .map(|v| {
            (
                v["operation"].as_str().unwrap().to_string(),
                v.get("path").map(|p| p.as_str().unwrap().to_string()),
            )
        })
        .collect();
    let ids = versions
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    (shape, ids)
}

fn op(name: &str, path: Option<&str>) -> (String, Option<String>) {
    (name.to_string(), path.map(str::to_string))
}

#[test]
fn api_history_follows_one_and_two_moves_and_restores_a_pre_move_version_at_the_new_path() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(&server, "a.md", "one\n");
    put(&server, "a.md", "two\n");
    mv(&server, "a.md", "b.md");
    let (shape, _) = history(&server, "b.md");
    assert_eq!(
        shape,
        [
            op("move", None),
            op("put", Some("a.md")),
            op("put", Some("a.md"))
        ]
    );
    put(&server, "b.md", "three\n");
    mv(&server, "b.md", "sub/c.md");
    let (shape, ids) = history(&server, "sub/c.md");
    assert_eq!(
        shape,
        [
            op("move", None),
            op("put", Some("b.md")),
            op("move", Some("b.md")),
            op("put", Some("a.md")),
            op("put", Some("a.md")),
        ]
    );
    // The old path's own history is unchanged: it ends with the move away.
    let (shape, _) = history(&server, "a.md");
    assert_eq!(shape[0], op("move", None));

    // A version made at a.md is read, and restored, at the note's current path.
    let r = server.get(&format!("/api/v1/history/sub/c.md?version={}", ids[4]));
    assert_eq!(r.status(), 200);
    assert!(r.text().unwrap().contains("one"));
    let (status, body) = post(
        &server,
        "/api/v1/restore",
        json!({"path": "sub/c.md", "version": ids[4]}),
    );
    assert!(status == 200 || status == 201, "{status} {body}");
    assert!(
        ws.read("sub/c.md").ends_with("\none\n"),
        "{}",
        ws.read("sub/c.md")
    );
    assert!(
        !ws.notes().join("a.md").exists(),
        "restored at the old path"
    );
    assert!(
        !ws.notes().join("b.md").exists(),
        "restored at the old path"
    );
    let (shape, _) = history(&server, "sub/c.md");
    assert_eq!(shape.len(), 6);
    assert_eq!(shape[0], op("restore", None));

    // The web History page names the former paths, and compares across the move.
    let (status, html) = page(server.get("/history/sub/c.md"));
    assert_eq!(status, 200);
    assert!(html.contains("as <code>a.md</code>"), "{html}");
    assert!(html.contains("as <code>b.md</code>"), "{html}");
    let (status, html) =
        page(server.get(&format!("/history/sub/c.md?from={}&to={}", ids[4], ids[1])));
    assert_eq!(status, 200);
    assert!(html.contains("one") && html.contains("three"), "{html}");
}

#[test]
fn a_rename_back_to_an_earlier_path_is_followed_once_per_move() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(&server, "a.md", "one\n");
    mv(&server, "a.md", "b.md");
    put(&server, "b.md", "two\n");
    mv(&server, "b.md", "a.md");
    mv(&server, "a.md", "b.md");
    mv(&server, "b.md", "a.md");
    let (shape, ids) = history(&server, "a.md");
    assert_eq!(
        shape,
        [
            op("move", None),
            op("move", Some("b.md")),
            op("move", None),
            op("put", Some("b.md")),
            op("move", Some("b.md")),
            op("put", None),
        ]
    );
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "a version listed twice: {ids:?}");
}

fn git(ws: &Workspace, args: &[&str]) -> String {
    let out = ws
        .command("git")
        .arg("--git-dir")
        .arg(ws.notes().join(".notes/history.git"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn the_command_line_lists_diffs_and_restores_across_a_move_and_git_sees_a_rename() {
    let ws = Workspace::new();
    let ok = |args: &[&str], input: Option<&[u8]>| {
        let out = match input {
            Some(input) => ws.run_stdin(args, input),
            None => ws.run(args),
        };
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    ok(&["put", "old.md"], Some(b"alpha\nbeta\n"));
    ok(&["mv", "old.md", "new.md"], None);
    ok(&["put", "new.md"], Some(b"alpha\ngamma\n"));

    let listed: Value = serde_json::from_str(&ok(&["history", "new.md", "--json"], None)).unwrap();
    let versions = listed["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 3, "{listed}");
    assert_eq!(versions[0].get("path"), None, "{listed}");
    assert_eq!(versions[1].get("path"), None, "{listed}");
    assert_eq!(versions[2]["path"], "old.md", "{listed}");
    let old = versions[2]["id"].as_str().unwrap().to_string();
    let text = ok(&["history", "new.md"], None);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.lines().nth(2).unwrap().ends_with("(as old.md)"),
        "{text}"
    );

    let diff = ok(&["diff", "new.md", &old], None);
    assert!(diff.contains("\n-beta\n+gamma\n"), "{diff}");

    ok(&["restore", "new.md", "--version", &old], None);
    assert!(
        ws.read("new.md").ends_with("\nalpha\nbeta\n"),
        "{}",
        ws.read("new.md")
    );
    assert!(!ws.notes().join("old.md").exists());

    // Plain git: the move is one commit naming both paths (a rename when git sees one).
    let committed = eventually(Duration::from_secs(5), || {
        git(&ws, &["log", "--format=%s"]).contains("move old.md -> new.md")
    });
    assert!(committed, "{}", git(&ws, &["log", "--format=%s"]));
    let log = git(
        &ws,
        &[
            "log",
            "--follow",
            "--name-status",
            "--format=@%s",
            "--",
            "new.md",
        ],
    );
    let block = log
        .split('@')
        .find(|b| b.starts_with("move old.md -> new.md"))
        .unwrap_or_else(|| panic!("{log}"));
    let renamed = block
        .lines()
        .any(|l| l.starts_with('R') && l.ends_with("old.md\tnew.md"));
    let both = block.contains("D\told.md") && block.contains("A\tnew.md");
    assert!(renamed || both, "{block}");
    assert!(
        log.contains("put old.md"),
        "git's --follow reaches the first version: {log}"
    );
}
