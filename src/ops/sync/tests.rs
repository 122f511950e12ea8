use std::process::Command;

use super::plan::{Kind, kind_of};
use crate::ops::model::{NoteInput, Precondition};
use crate::ops::{NotePath, Notebook, temp_notebook};

const FILE: u32 = 0o100644;

#[test]
fn remote_paths_follow_the_path_rules() {
    assert!(matches!(kind_of("a/b.md", FILE), Ok(Kind::Note(_))));
    assert!(matches!(kind_of("a/b.png", FILE), Ok(Kind::File(_))));
    assert_eq!(
        kind_of(".obsidian/app.json", FILE).err(),
        Some("a hidden path")
    );
    assert_eq!(kind_of(".notes/x.md", FILE).err(), Some("a hidden path"));
    assert_eq!(kind_of("a/.hidden.md", FILE).err(), Some("a hidden path"));
    assert_eq!(kind_of("link.md", 0o120000).err(), Some("a symlink"));
    assert_eq!(kind_of("sub", 0o160000).err(), Some("a submodule"));
    let long = format!("{}.md", "x".repeat(300));
    assert_eq!(kind_of(&long, FILE).err(), Some("an invalid path"));
}

fn put(notebook: &Notebook, path: &str, text: &str) {
    let path = NotePath::parse(path).unwrap();
    notebook
        .put(
            &path,
            NoteInput::Verbatim(text.to_string()),
            Precondition::None,
        )
        .unwrap();
}

fn read(notebook: &Notebook, path: &str) -> String {
    let raw = notebook.read_raw(&NotePath::parse(path).unwrap()).unwrap();
    String::from_utf8(raw.bytes().to_vec()).unwrap()
}

#[test]
fn two_notebooks_meet_through_a_bare_remote() {
    let remote = tempfile::tempdir().unwrap();
    let made = Command::new("git")
        .args(["init", "--bare", "--quiet"])
        .arg(remote.path())
        .status()
        .unwrap();
    assert!(made.success());
    let url = remote.path().to_str().unwrap();
    let (_a_dir, a) = temp_notebook();
    let (_b_dir, b) = temp_notebook();
    put(&a, "one.md", "# One\n\nfirst\n");
    a.set_sync_remote(url).unwrap();
    b.set_sync_remote(url).unwrap();
    let status = a.sync().unwrap();
    assert_eq!(status.outcome, "ok");
    assert_eq!(status.pushed, Some(1));
    let status = b.sync().unwrap();
    assert_eq!(status.pulled, Some(1));
    assert_eq!(read(&b, "one.md"), "# One\n\nfirst\n");

    // Both edit different lines.
    put(&a, "one.md", "# One!\n\nfirst\n");
    put(&b, "one.md", "# One\n\nfirst, then more\n");
    a.sync().unwrap();
    b.sync().unwrap();
    a.sync().unwrap();
    assert_eq!(read(&a, "one.md"), "# One!\n\nfirst, then more\n");
    assert_eq!(read(&b, "one.md"), "# One!\n\nfirst, then more\n");
    assert!(a.sync_status().unwrap().conflicts.is_empty());
}
