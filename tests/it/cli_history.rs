//! The history commands: `notes history`, `show --version`, `diff`, `restore` and
//! `trash`, run as the real binary over a notes folder written by `put`, `rm` and `mv`.

use serde_json::Value;

use crate::support::{Workspace, stderr, stdout};

fn ok(ws: &Workspace, args: &[&str]) -> String {
    let out = ws.run(args);
    assert!(out.status.success(), "notes {args:?}: {}", stderr(&out));
    stdout(&out)
}

fn json_of(ws: &Workspace, args: &[&str]) -> Value {
    serde_json::from_str(&ok(ws, args)).unwrap()
}

fn ids(ws: &Workspace, note: &str) -> Vec<String> {
    json_of(ws, &["history", note, "--json"])["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn history_show_diff_restore_and_trash() {
    let ws = Workspace::new();
    assert!(
        ws.run_stdin(&["put", "a.md"], b"---\ntitle: A\n---\nline one\n")
            .status
            .success()
    );
    let first = ws.read("a.md");
    assert!(
        ws.run_stdin(&["put", "a.md"], b"---\ntitle: A\n---\nline two\n")
            .status
            .success()
    );
    let second = ws.read("a.md");

    let history = json_of(&ws, &["history", "a.md", "--json"]);
    assert_eq!(history["path"], "a.md");
    let versions = history["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0]["operation"], "put");
    assert_eq!(versions[1]["size"], first.len());
    let plain = ok(&ws, &["history", "a.md"]);
    assert_eq!(plain.lines().count(), 2);
    assert!(plain.lines().all(|l| l.contains("  put ")), "{plain}");

    let ids = ids(&ws, "a.md");
    assert_eq!(ok(&ws, &["show", "a.md", "--version", &ids[1]]), first);
    assert_eq!(ok(&ws, &["show", "a.md", "--version", &ids[1][..8]]), first);
    let shown = json_of(&ws, &["show", "a.md", "--version", &ids[0], "--json"]);
    assert_eq!(shown["content"], second.as_str());

    // Not a terminal: no colour codes, a plain unified diff of the last change.
    let diff = ok(&ws, &["diff", "a.md"]);
    assert!(!diff.contains('\u{1b}'), "{diff:?}");
    assert!(diff.contains("\n-line one\n+line two\n"), "{diff}");
    assert!(diff.starts_with("--- a.md version "), "{diff}");
    let diff = json_of(&ws, &["diff", "a.md", &ids[1], &ids[0], "--json"]);
    assert!(
        diff["diff"].as_str().unwrap().contains("+line two\n"),
        "{diff}"
    );
    let diff = ok(&ws, &["diff", "a.md", &ids[0]]);
    assert!(
        !diff.contains("+line"),
        "no change since the latest: {diff}"
    );

    // Undo the last change, then delete and bring back.
    assert!(ok(&ws, &["restore", "a.md"]).starts_with("restored a.md from version "));
    assert_eq!(ws.read("a.md"), first);
    assert!(ws.run(&["rm", "a.md"]).status.success());
    let trash = json_of(&ws, &["trash", "--json"]);
    assert_eq!(trash["notes"][0]["path"], "a.md");
    assert!(ok(&ws, &["trash"]).starts_with("a.md  deleted "));
    let restored = ok(&ws, &["restore", "a.md"]);
    assert!(
        restored.starts_with("restored deleted note a.md"),
        "{restored}"
    );
    assert_eq!(ws.read("a.md"), first);
    let note = json_of(&ws, &["restore", "a.md", "--version", &ids[0], "--json"]);
    assert_eq!(note["content"], second.as_str());
    assert_eq!(ws.read("a.md"), second);
    assert_eq!(
        json_of(&ws, &["trash", "--json"])["notes"],
        serde_json::json!([])
    );
    let operations: Vec<Value> = json_of(&ws, &["history", "a.md", "--json"])["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["operation"].clone())
        .collect();
    assert_eq!(
        operations,
        ["restore", "restore", "delete", "restore", "put", "put"]
    );

    // A move is one change of both paths.
    assert!(ws.run(&["mv", "a.md", "b.md"]).status.success());
    assert_eq!(
        json_of(&ws, &["history", "b.md", "--json"])["versions"][0]["operation"],
        "move"
    );
}

#[test]
fn unknown_notes_and_versions_are_one_line_naming_the_note() {
    let ws = Workspace::new();
    assert!(ws.run_stdin(&["put", "a.md"], b"x\n").status.success());
    let out = ws.run(&["history", "missing.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).trim_end(), "error: missing.md: note not found");
    let out = ws.run(&["show", "a.md", "--version", "deadbeef"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).trim_end(), "error: a.md: version not found");
    let out = ws.run(&["restore", "a.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).trim_end(), "error: a.md: version not found");
    let before = ws.read("a.md");
    let out = ws.run(&["restore", "a.md", "--version", "0000"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(ws.read("a.md"), before);
}
