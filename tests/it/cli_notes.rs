//! The offline CLI mirrors of the v1 operations: list, show, put, rm.

use crate::support::Workspace;

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

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
