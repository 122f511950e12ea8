//! The history operations on a notebook in a temp dir.

use crate::error::Error;
use crate::ops::model::{NoteInput, Precondition};
use crate::ops::tokens::Scope;
use crate::ops::{NotePath, temp_notebook};

fn put(nb: &crate::ops::Notebook, path: &NotePath, text: &str) -> String {
    nb.put(
        path,
        NoteInput::Markdown(text.to_string()),
        Precondition::None,
    )
    .unwrap()
    .note
    .content
}

#[test]
fn every_put_is_a_version_newest_first_byte_exact() {
    let (_dir, nb) = temp_notebook();
    let path = NotePath::parse("ideas/a.md").unwrap();
    let written: Vec<String> = (0..5)
        .map(|i| put(&nb, &path, &format!("---\ntitle: A\n---\nversion {i}\n")))
        .collect();
    let versions = nb.history(&path).unwrap();
    assert_eq!(versions.len(), 5);
    assert!(versions.iter().all(|v| v.operation == "put"));
    for (version, text) in versions.iter().rev().zip(&written) {
        assert_eq!(nb.version(&path, &version.id).unwrap(), text.as_bytes());
        assert_eq!(version.size, text.len() as u64);
    }
    // A prefix names a version too; an unknown id does not.
    assert_eq!(
        nb.version(&path, &versions[0].id[..8]).unwrap(),
        written[4].as_bytes()
    );
    assert!(matches!(
        nb.version(&path, "0000000"),
        Err(Error::VersionNotFound)
    ));
    assert!(matches!(
        nb.history(&NotePath::parse("never.md").unwrap()),
        Err(Error::NotFound)
    ));
}

#[test]
fn delete_trash_and_restore() {
    let (_dir, nb) = temp_notebook();
    let path = NotePath::parse("a.md").unwrap();
    let first = put(&nb, &path, "one\n");
    let second = put(&nb, &path, "two\n");
    nb.delete(&path, &Precondition::None).unwrap();
    let trash = nb.trash().unwrap();
    assert_eq!(trash.len(), 1);
    assert_eq!(trash[0].path, "a.md");
    assert_eq!(
        nb.version(&path, &trash[0].version).unwrap(),
        second.as_bytes()
    );
    let restored = nb.restore(&path, &trash[0].version).unwrap();
    assert!(restored.created);
    assert_eq!(restored.note.content, second);
    assert!(nb.trash().unwrap().is_empty());
    let oldest = nb.history(&path).unwrap().last().unwrap().id.clone();
    let again = nb.restore(&path, &oldest).unwrap();
    assert!(!again.created);
    assert_eq!(nb.read(&path).unwrap().content, first);
    let ops: Vec<String> = nb
        .history(&path)
        .unwrap()
        .into_iter()
        .map(|v| v.operation)
        .collect();
    assert_eq!(ops, ["restore", "restore", "delete", "put", "put"]);
}

#[test]
fn outside_edits_and_moves_are_recorded() {
    let (dir, nb) = temp_notebook();
    let a = NotePath::parse("a.md").unwrap();
    put(&nb, &a, "one\n");
    std::fs::write(dir.path().join("notes/a.md"), "edited outside\n").unwrap();
    std::fs::write(dir.path().join("notes/new.md"), "made outside\n").unwrap();
    assert_eq!(nb.record_outside_edits(&|| {}).unwrap(), 2);
    assert_eq!(nb.record_outside_edits(&|| {}).unwrap(), 0);
    let latest = &nb.history(&a).unwrap()[0];
    assert_eq!(latest.operation, "outside-edit");
    assert_eq!(nb.version(&a, &latest.id).unwrap(), b"edited outside\n");
    let b = NotePath::parse("sub/b.md").unwrap();
    nb.move_note(&a, &b, &Precondition::None, &Scope::full())
        .unwrap();
    assert_eq!(nb.history(&a).unwrap()[0].operation, "move");
    let moved = &nb.history(&b).unwrap()[0];
    assert_eq!(nb.version(&b, &moved.id).unwrap(), b"edited outside\n");
}

#[test]
fn a_second_notebook_sees_the_first_ones_changes() {
    let (dir, nb) = temp_notebook();
    let path = NotePath::parse("a.md").unwrap();
    put(&nb, &path, "one\n");
    let other = crate::ops::Notebook::new(nb.config().clone());
    assert_eq!(other.history(&path).unwrap().len(), 1);
    put(&other, &path, "two\n");
    assert_eq!(nb.history(&path).unwrap().len(), 2);
    // A lost index is rebuilt from the commits.
    std::fs::remove_file(dir.path().join("notes/.notes/history.git/notes-index")).unwrap();
    let third = crate::ops::Notebook::new(nb.config().clone());
    let versions = third.history(&path).unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(
        third.version(&path, &versions[0].id).unwrap(),
        nb.read(&path).unwrap().content.as_bytes()
    );
}

#[test]
fn a_store_that_cannot_be_written_fails_the_write_and_keeps_the_note() {
    let (dir, nb) = temp_notebook();
    let path = NotePath::parse("a.md").unwrap();
    let first = put(&nb, &path, "one\n");
    let wal = dir.path().join("notes/.notes/history.git/wal");
    std::fs::remove_file(&wal).unwrap();
    std::fs::create_dir(&wal).unwrap();
    let refused = nb.put(
        &path,
        NoteInput::Markdown("two\n".into()),
        Precondition::None,
    );
    assert!(
        matches!(refused, Err(Error::HistoryFailed(_))),
        "{refused:?}"
    );
    assert_eq!(nb.read(&path).unwrap().content, first);
    assert!(matches!(
        nb.delete(&path, &Precondition::None),
        Err(Error::HistoryFailed(_))
    ));
    assert_eq!(nb.read(&path).unwrap().content, first);
}

#[test]
fn the_log_makes_lost_objects_and_ref_whole_again() {
    let (dir, nb) = temp_notebook();
    let path = NotePath::parse("a.md").unwrap();
    put(&nb, &path, "one\n");
    let second = put(&nb, &path, "two\n");
    let store = dir.path().join("notes/.notes/history.git");
    let config = nb.config().clone();
    // A crash: what the store staged in memory is lost, never settled.
    std::mem::forget(nb);
    // What a crash can leave of other writes that were never synced: a torn loose
    // object, an empty ref, no index.
    let blob = git2::Oid::hash_object(git2::ObjectType::Blob, second.as_bytes())
        .unwrap()
        .to_string();
    std::fs::create_dir_all(store.join("objects").join(&blob[..2])).unwrap();
    std::fs::write(store.join("objects").join(&blob[..2]).join(&blob[2..]), b"").unwrap();
    std::fs::create_dir_all(store.join("refs/heads")).unwrap();
    std::fs::write(store.join("refs/heads/main"), b"").unwrap();
    std::fs::remove_file(store.join("notes-index")).unwrap();
    let reopened = crate::ops::Notebook::new(config);
    let versions = reopened.history(&path).unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(
        reopened.version(&path, &versions[0].id).unwrap(),
        second.as_bytes()
    );
}

#[test]
fn only_versions_that_replace_another_count_towards_a_full_pack() {
    use std::sync::atomic::Ordering;
    let (_dir, nb) = temp_notebook();
    let replaced = || nb.history.replaced.load(Ordering::Relaxed);
    let (a, b) = (
        NotePath::parse("a.md").unwrap(),
        NotePath::parse("b.md").unwrap(),
    );
    put(&nb, &a, "one\n");
    put(&nb, &b, "one\n");
    assert_eq!(replaced(), 0, "first versions");
    put(&nb, &a, "two\n");
    assert_eq!(replaced(), 1);
    nb.delete(&b, &Precondition::None).unwrap();
    assert_eq!(replaced(), 1, "a delete");
    put(&nb, &b, "again\n");
    assert_eq!(replaced(), 1, "after a delete, a first version again");
    put(&nb, &b, "and again\n");
    assert_eq!(replaced(), 2);
}

#[test]
fn a_pass_over_many_notes_shares_one_pack_and_each_note_keeps_its_version() {
    let (dir, nb) = temp_notebook();
    let a = NotePath::parse("a.md").unwrap();
    put(&nb, &a, "one\n");
    let notes = dir.path().join("notes");
    for i in 0..1000 {
        let folder = notes.join(format!("f{}", i % 7));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(format!("n{i}.md")), format!("note {i}\n")).unwrap();
    }
    let packs = || {
        std::fs::read_dir(nb.history_dir().join("objects/pack"))
            .unwrap()
            .flatten()
            .filter(|f| f.file_name().to_string_lossy().ends_with(".pack"))
            .count()
    };
    assert_eq!(nb.history(&a).unwrap().len(), 1);
    let before = packs();
    assert_eq!(nb.record_outside_edits(&|| {}).unwrap(), 1000);
    // Four records of up to 256 notes, committed in one batch: one pack, where a
    // commit waited for at each record wrote four.
    assert_eq!(packs(), before + 1);
    for i in [0, 499, 999] {
        let path = NotePath::parse(&format!("f{}/n{i}.md", i % 7)).unwrap();
        let versions = nb.history(&path).unwrap();
        assert_eq!(versions.len(), 1);
        assert_eq!(versions[0].operation, "outside-edit");
        assert_eq!(
            nb.version(&path, &versions[0].id).unwrap(),
            format!("note {i}\n").as_bytes()
        );
    }
    // After the pass, a change is committed as before.
    put(&nb, &a, "two\n");
    assert_eq!(nb.history(&a).unwrap().len(), 2);
}
