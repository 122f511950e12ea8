//! First-hour polish of the command line: errors that name the note or folder, read
//! commands that create nothing, the `--listen` forms, help grouping, and `put`'s hints
//! and warnings.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::support::{Workspace, stderr, stdout};

#[test]
fn errors_name_the_note_and_say_a_folder_is_a_folder() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.notes().join("home")).unwrap();
    std::fs::create_dir_all(ws.notes().join("dir.md")).unwrap();
    for (args, expected) in [
        (
            vec!["show", "home"],
            "error: home: is a folder, not a note (`notes list` shows the notes)\n",
        ),
        (
            vec!["show", "dir.md"],
            "error: dir.md: is a folder, not a note (`notes list` shows the notes)\n",
        ),
        (vec!["show", "a.md"], "error: a.md: note not found\n"),
        (vec!["rm", "a/b.md"], "error: a/b.md: note not found\n"),
        (vec!["publish", "a.md"], "error: a.md: note not found\n"),
        (
            vec!["unpublish", "a.md"],
            "error: a.md: note is not public\n",
        ),
        (vec!["put", "../a.md"], "error: ../a.md: invalid path\n"),
    ] {
        let out = ws.run_stdin(&args, b"text\n");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&out), expected, "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
    }
}

#[test]
fn read_commands_refuse_a_missing_folder_and_create_nothing() {
    let ws = Workspace::new();
    for args in [
        vec!["list"],
        vec!["show", "a.md"],
        vec!["search", "hi"],
        vec!["list-public"],
        vec!["reindex"],
        vec!["rm", "a.md"],
        vec!["publish", "a.md"],
        vec!["publish", "--repair"],
        vec!["unpublish", "a.md"],
    ] {
        let out = ws
            .cli()
            .args(["--notes-dir", "typo"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&out), "error: no notes folder at typo\n", "{args:?}");
        assert!(!ws.root.path().join("typo").exists(), "{args:?} created it");
        assert!(!ws.public().exists(), "{args:?} created the public folder");
    }
    // A file in the folder's place is named as such.
    std::fs::write(ws.root.path().join("file"), "x").unwrap();
    let out = ws
        .cli()
        .args(["--notes-dir", "file", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("error: file: not a folder"),
        "{}",
        stderr(&out)
    );
    // A write creates it.
    let out = ws
        .cli()
        .args(["--notes-dir", "fresh", "put", "a.md"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "empty input is refused");
    let out = {
        use std::io::Write;
        let mut child = ws
            .cli()
            .args(["--notes-dir", "fresh", "put", "a.md"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"# A\n").unwrap();
        child.wait_with_output().unwrap()
    };
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(ws.root.path().join("fresh/a.md").is_file());
}

/// Starts `notes serve --listen FORM` and returns the URL it announces.
fn announced_url(ws: &Workspace, form: &str) -> String {
    let mut child = ws
        .cli()
        .args(["serve", "--listen", form])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    line
}

#[test]
fn listen_takes_localhost_and_bare_ports_on_loopback() {
    let ws = Workspace::new();
    for form in ["localhost:0", ":0", "0"] {
        let line = announced_url(&ws, form);
        assert!(line.contains("http://127.0.0.1:"), "{form}: {line:?}");
    }
    let out = ws.run(&["serve", "--listen", "example.org:80"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("localhost:PORT, :PORT or PORT"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn help_groups_the_global_options_after_the_commands_own() {
    let ws = Workspace::new();
    let help = stdout(&ws.run(&["list", "--help"]));
    let own = help.find("--json").expect("--json listed");
    let heading = help.find("Global options:").expect("a global heading");
    let public_dir = help.find("--public-dir").expect("--public-dir listed");
    assert!(own < heading && heading < public_dir, "{help}");
    let help = stdout(&ws.run(&["serve", "--help"]));
    let order: Vec<usize> = [
        "--listen",
        "--allow-host",
        "--max-body",
        "--request-timeout",
        "--shutdown-timeout",
        "Global options:",
    ]
    .iter()
    .map(|o| {
        help.find(o)
            .unwrap_or_else(|| panic!("{o} missing: {help}"))
    })
    .collect();
    assert!(order.is_sorted(), "{help}");
    assert!(help.contains("[env: NOTES_REQUEST_TIMEOUT="), "{help}");
    let out = ws
        .cli()
        .env("NOTES_REQUEST_TIMEOUT", "soon")
        .args(["serve"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "the variable is read");
    assert!(
        stderr(&out).contains("--request-timeout"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn put_refuses_empty_input_unless_asked() {
    let ws = Workspace::new();
    ws.write("keep.md", "---\ntitle: Keep\n---\nprecious\n");
    let before = ws.read("keep.md");
    for input in [&b""[..], b"  \n"] {
        let out = ws.run_stdin(&["put", "keep.md"], input);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            stderr(&out),
            "error: keep.md: standard input is empty, nothing stored (--allow-empty stores an empty note)\n"
        );
        assert_eq!(ws.read("keep.md"), before);
    }
    let out = ws.run_stdin(&["put", "empty.md", "--allow-empty"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(ws.notes().join("empty.md").is_file());
}

#[test]
fn put_warns_about_front_matter_it_cannot_read() {
    let ws = Workspace::new();
    let text = "---\ntitle: [unclosed\n---\nbody\n";
    let out = ws.run_stdin(&["put", "b.md"], text.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "warning: b.md: the front matter is not a valid YAML mapping; stored as written, \
         the block reads as body text\n"
    );
    assert_eq!(ws.read("b.md"), text, "stored as the API stores it");
    let out = ws.run_stdin(&["put", "c.md"], b"---\ntitle: C\nno end\n");
    assert!(
        stderr(&out).contains("c.md: the front matter has no closing `---` line"),
        "{}",
        stderr(&out)
    );
    let out = ws.run_stdin(&["put", "d.md"], b"---\ntitle: D\n---\nfine\n");
    assert_eq!(stderr(&out), "", "no warning for a readable front matter");
}

#[test]
fn put_on_a_terminal_says_it_reads_standard_input() {
    let ws = Workspace::new();
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var("CI").is_err(),
            "`script` (util-linux) is required in CI"
        );
        eprintln!("SKIPPED: `script` is not installed");
        return;
    }
    // `script` runs the command on a pseudo-terminal and types its own input there:
    // a line, then Ctrl-D.
    let mut child = ws
        .command("script")
        .arg("-qec")
        .arg(format!("{} put t.md", crate::support::bin()))
        .arg("/dev/null")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"hello\n\x04")
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let seen = stdout(&out);
    assert!(
        seen.contains("reading Markdown from stdin, Ctrl-D to end"),
        "{seen:?}"
    );
    assert!(ws.read("t.md").ends_with("hello\n"), "{seen:?}");
    // Not on a terminal: no hint.
    let out = ws.run_stdin(&["put", "u.md"], b"hello\n");
    assert_eq!(stderr(&out), "");
}
