//! The publishing operations on a temp notebook, without HTTP.

use super::*;
use crate::ops::Config;
use crate::ops::model::Precondition;

fn notebook() -> (tempfile::TempDir, Notebook) {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("notes")).unwrap();
    let notebook = Notebook::new(Config {
        notes_dir: root.path().join("notes"),
        public_dir: root.path().join("public"),
        base_url: None,
    });
    (root, notebook)
}

fn write(notebook: &Notebook, rel: &str, text: &str) -> NotePath {
    let path = NotePath::parse(rel).unwrap();
    notebook
        .put_markdown(&path, text.as_bytes(), &Precondition::None)
        .unwrap();
    path
}

#[test]
fn toggle_round_trip_and_the_record_states() {
    let (_root, nb) = notebook();
    assert!(nb.public_pages().unwrap().is_none(), "no record yet");
    let path = write(&nb, "a/n.md", "# N\n\ntext\n");
    let on = nb.toggle_public(&path).unwrap();
    assert_eq!(on.result.status, Visibility::Public);
    assert_eq!(on.effect, PageEffect::Written);
    assert!(on.page.ends_with("n.html") && on.page.is_file());
    assert_eq!(nb.public_list().unwrap().notes[0].path, "a/n.md");
    let off = nb.toggle_public(&path).unwrap();
    assert_eq!(off.result.status, Visibility::Private);
    assert_eq!(off.effect, PageEffect::Removed);
    assert!(!off.page.exists());
    assert_eq!(
        nb.public_pages().unwrap().map(|p| p.len()),
        Some(0),
        "record kept, empty"
    );
}

#[test]
fn unpublish_and_toggle_refusals() {
    let (_root, nb) = notebook();
    let path = write(&nb, "n.md", "x\n");
    assert!(matches!(nb.unpublish(&path), Err(Error::NotPublic(_))));
    let missing = NotePath::parse("missing.md").unwrap();
    assert!(matches!(nb.toggle_public(&missing), Err(Error::NotFound)));
    assert!(matches!(nb.publish(&missing), Err(Error::NotFound)));
    assert!(!nb.public_dir().exists(), "a refusal writes nothing");
}

#[test]
fn an_entry_whose_note_vanished_can_still_be_unpublished() {
    let (_root, nb) = notebook();
    let path = write(&nb, "n.md", "x\n");
    nb.publish(&path).unwrap();
    std::fs::remove_file(nb.notes_dir().join("n.md")).unwrap();
    assert!(matches!(nb.toggle_public(&path), Err(Error::NotFound)));
    assert_eq!(nb.unpublish(&path).unwrap().effect, PageEffect::Removed);
}

#[test]
fn only_files_inside_the_public_dir_are_served() {
    let (root, nb) = notebook();
    let path = write(&nb, "n.md", "x\n");
    nb.publish(&path).unwrap();
    assert!(
        nb.public_file("")
            .unwrap()
            .bytes
            .starts_with(b"<!DOCTYPE html>")
    );
    assert_eq!(
        nb.public_file("static/style.css").unwrap().name,
        "style.css"
    );
    std::fs::write(root.path().join("secret.html"), "secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        root.path().join("secret.html"),
        nb.public_dir().join("link.html"),
    )
    .unwrap();
    for refused in [
        "../secret.html",
        "%2e%2e/secret.html",
        "static/../../secret.html",
        "link.html",
        "static",
        "static/",
        ".tmp-x",
        "a%5Cb.html",
        "%ff.html",
    ] {
        assert!(
            matches!(nb.public_file(refused), Err(Error::RouteNotFound)),
            "{refused}"
        );
    }
}
