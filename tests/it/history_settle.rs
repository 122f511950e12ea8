//! A change is staged in memory and in the store's log, then settled: the git command
//! line reads it within moments of the write, from a pack, with no loose object made.

use std::process::Command;
use std::time::Duration;

use crate::support::{Workspace, eventually};

/// The subjects `git log` reads from the store's ref; empty while there is no ref.
fn subjects(store: &str) -> Vec<String> {
    let out = Command::new("git")
        .args(["--git-dir", store, "log", "--format=%s", "main"])
        .output()
        .expect("run git");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// `git count-objects -v`'s field `name`.
fn counted(store: &str, name: &str) -> u64 {
    let out = Command::new("git")
        .args(["--git-dir", store, "count-objects", "-v"])
        .output()
        .expect("run git");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(": "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in git count-objects"))
}

#[test]
fn git_reads_a_put_once_the_server_settled_it() {
    let ws = Workspace::new();
    let server = ws.serve();
    let store = ws.notes().join(".notes/history.git");
    let store = store.to_str().unwrap();
    for (i, note) in ["f3/n.md", "f3/n.md", "other.md"].iter().enumerate() {
        let r = server.put_markdown(&format!("/api/v1/notes/{note}"), &format!("{i}\n"));
        assert!(r.status().is_success(), "{note}: {}", r.status());
    }
    let want = ["put other.md", "put f3/n.md", "put f3/n.md"];
    let settled = eventually(Duration::from_secs(2), || subjects(store) == want);
    assert!(
        settled,
        "git log after 2 s: {:?}\n{}",
        subjects(store),
        server.log()
    );
    // Settled as a pack: the writes made no object file of their own.
    assert_eq!(counted(store, "count"), 0);
    assert!(counted(store, "packs") >= 1);
    let shown = Command::new("git")
        .args(["--git-dir", store, "show", "main:f3/n.md"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&shown.stdout), ws.read("f3/n.md"));
}
