//! The offline CLI mirrors of the v1 operations: list, show, put, rm.

use crate::support::{Workspace, stderr, stdout};

#[test]
fn put_then_show_then_rm() {
    let ws = Workspace::new();
    let out = ws.run_stdin(&["put", "a/b.md"], b"hello\n");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("created a/b.md"),
        "{}",
        stdout(&out)
    );
    assert!(ws.read("a/b.md").ends_with("---\n\nhello\n"));
    let out = ws.run(&["show", "a/b.md"]);
    assert_eq!(stdout(&out), ws.read("a/b.md"));
    let out = ws.run(&["rm", "a/b.md"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "deleted a/b.md\n");
    assert!(!ws.notes().join("a/b.md").exists());
}

#[test]
fn put_from_a_file_and_json_outputs() {
    let ws = Workspace::new();
    let draft = ws.root.path().join("draft.md");
    std::fs::write(&draft, "---\ntitle: Draft\ntags: [a]\n---\nText\n").unwrap();
    let out = ws.run(&["put", "d.md", draft.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let note: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(note["title"], "Draft");
    assert_eq!(note["frontMatter"]["tags"], serde_json::json!(["a"]));
    let out = ws.run(&["put", "d.md", draft.to_str().unwrap(), "--quiet"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "");

    let out = ws.run(&["list", "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["total"], 1);
    assert_eq!(list["notes"][0]["path"], "d.md");
    let out = ws.run(&["list"]);
    let text = stdout(&out);
    assert!(
        text.contains("d.md") && text.contains("Draft") && text.contains("#a"),
        "{text}"
    );
    assert!(text.ends_with("1 note\n"), "{text}");
    assert!(
        !text.contains('\u{1b}'),
        "colour with NO_COLOR set: {text:?}"
    );

    let out = ws.run(&["show", "d.md", "--json"]);
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["path"], "d.md");
    let out = ws.run(&["rm", "d.md", "--json"]);
    let gone: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        gone,
        serde_json::json!({"message": "Note deleted successfully", "path": "d.md"})
    );
}

#[test]
fn errors_are_one_line_with_exit_1() {
    let ws = Workspace::new();
    for (args, message) in [
        (
            vec!["show", "missing.md"],
            "error: missing.md: note not found",
        ),
        (
            vec!["rm", "missing.md"],
            "error: missing.md: note not found",
        ),
        (vec!["show", "../x.md"], "error: ../x.md: invalid path"),
        (
            vec!["show", "x.txt"],
            "error: x.txt: only .md files are supported",
        ),
        (
            vec!["put", "x.md", "/nonexistent/draft.md"],
            "error: cannot read /nonexistent/draft.md",
        ),
    ] {
        let out = ws.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(message), "{args:?}: {err}");
        assert_eq!(stdout(&out), "");
    }
    let out = ws.run_stdin(&["put", "bin.md"], &[0xff, 0xfe]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: standard input is not UTF-8 text: invalid utf-8 sequence of 1 bytes from index 0\n"
    );
    assert!(!ws.notes().join("bin.md").exists());
}

#[test]
fn usage_errors_exit_2() {
    let ws = Workspace::new();
    for args in [
        vec!["frobnicate"],
        vec!["show"],
        vec!["list", "--bogus"],
        vec![],
    ] {
        let out = ws.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn list_of_a_missing_folder_fails() {
    let ws = Workspace::new();
    let out = ws.run(&["--notes-dir", "/nonexistent/notes", "list"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: no notes folder at /nonexistent/notes\n"
    );
}

/// Runs `notes ARGS` on a pseudo-terminal (util-linux `script`) and returns what it
/// printed, so colour decisions are made as for a person at a terminal.
fn on_a_terminal(ws: &Workspace, args: &str, no_color: bool) -> Option<String> {
    let found = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok();
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "`script` (util-linux) is required in CI"
        );
        eprintln!("SKIPPED: `script` is not installed");
        return None;
    }
    let mut cmd = ws.command("script");
    cmd.env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE");
    cmd.env("TERM", "xterm-256color");
    if no_color {
        cmd.env("NO_COLOR", "1");
    }
    let out = cmd
        .arg("-qec")
        .arg(format!("{} {args}", crate::support::bin()))
        .arg("/dev/null")
        .output()
        .unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let ws = Workspace::new();
    ws.write("a.md", "---\ntitle: A\ntags: [x]\n---\n");
    let Some(coloured) = on_a_terminal(&ws, "list", false) else {
        return;
    };
    assert!(
        coloured.contains("\u{1b}["),
        "no colour on a terminal: {coloured:?}"
    );
    let plain = on_a_terminal(&ws, "list", true).unwrap();
    assert!(plain.contains("a.md"), "{plain:?}");
    assert!(
        !plain.contains("\u{1b}["),
        "colour despite NO_COLOR: {plain:?}"
    );
}
