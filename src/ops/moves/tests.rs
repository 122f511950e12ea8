//! Moves on a temp notebook, without HTTP: the refusals, the rewrite of linking notes,
//! and the roll-forward of a journal a crash left at each step.

use super::journal::{Journal, Rewrite};
use super::*;

use crate::ops::temp_notebook as notebook;

fn p(s: &str) -> NotePath {
    NotePath::parse(s).unwrap()
}

fn write(nb: &Notebook, rel: &str, text: &str) {
    let path = nb.notes_dir().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(nb: &Notebook, rel: &str) -> Option<String> {
    std::fs::read_to_string(nb.notes_dir().join(rel)).ok()
}

#[test]
fn a_folder_scope_moves_nothing_that_would_rewrite_a_note_outside_it() {
    let (_root, nb) = notebook();
    let work = Scope::new(
        false,
        Some(crate::ops::tokens::Prefix::parse("work").unwrap()),
    );
    write(&nb, "work/a.md", "alpha\n");
    write(&nb, "work/c.md", "[[a]]\n");
    write(&nb, "private/plans.md", "[a](../work/a.md)\n");
    let none = Precondition::None;
    assert!(matches!(
        nb.move_note(&p("work/a.md"), &p("work/b.md"), &none, &work),
        Err(Error::MoveOutsideScope)
    ));
    assert!(matches!(
        nb.move_note(&p("work/a.md"), &p("private/b.md"), &none, &work),
        Err(Error::OutsideScope)
    ));
    assert_eq!(read(&nb, "work/a.md").as_deref(), Some("alpha\n"));
    assert_eq!(read(&nb, "work/c.md").as_deref(), Some("[[a]]\n"));
    assert_eq!(
        read(&nb, "private/plans.md").as_deref(),
        Some("[a](../work/a.md)\n")
    );
    assert!(!journal::exists(nb.notes_dir()));
    // Once no note outside links to it, the same move goes through.
    write(&nb, "private/plans.md", "nothing\n");
    let moved = nb
        .move_note(&p("work/a.md"), &p("work/b.md"), &none, &work)
        .unwrap();
    assert_eq!(moved.rewritten, ["work/c.md"]);
}

#[test]
fn refusals_change_nothing() {
    let (_root, nb) = notebook();
    write(&nb, "a.md", "[[b]]\n");
    write(&nb, "b.md", "[[a]]\n");
    let none = Precondition::None;
    assert!(matches!(
        nb.move_note(&p("x.md"), &p("y.md"), &none, &Scope::full()),
        Err(Error::NotFound)
    ));
    assert!(matches!(
        nb.move_note(&p("a.md"), &p("b.md"), &none, &Scope::full()),
        Err(Error::MoveDestinationExists(to)) if to == "b.md"
    ));
    assert!(matches!(
        nb.move_note(&p("a.md"), &p("a.md"), &none, &Scope::full()),
        Err(Error::MoveOntoItself)
    ));
    assert!(matches!(
        nb.move_note(&p("a.md"), &p(".hidden/c.md"), &none, &Scope::full()),
        Err(Error::InvalidPath)
    ));
    let stale = Precondition::IfMatch(vec!["\"0\"".into()]);
    assert!(matches!(
        nb.move_note(&p("a.md"), &p("c.md"), &stale, &Scope::full()),
        Err(Error::PreconditionFailed)
    ));
    assert_eq!(read(&nb, "a.md").as_deref(), Some("[[b]]\n"));
    assert_eq!(read(&nb, "b.md").as_deref(), Some("[[a]]\n"));
    assert_eq!(read(&nb, "c.md"), None);
    assert!(!journal::exists(nb.notes_dir()));
}

#[test]
fn a_move_rewrites_the_linking_notes_and_says_which() {
    let (_root, nb) = notebook();
    write(&nb, "a.md", "# A\n\n[up](sub/c.md)\n");
    write(&nb, "b.md", "[[a|label]] [[a#H]]\n");
    write(&nb, "sub/c.md", "[x](../a.md#h)\n");
    write(&nb, "d.md", "[[b]] only\n");
    let current = etag(read(&nb, "a.md").unwrap().as_bytes());
    let moved = nb
        .move_note(
            &p("a.md"),
            &p("k/z.md"),
            &Precondition::IfMatch(vec![current]),
            &Scope::full(),
        )
        .unwrap();
    assert_eq!(
        moved,
        Moved {
            from: "a.md".into(),
            to: "k/z.md".into(),
            rewritten: vec!["b.md".into(), "sub/c.md".into()],
        }
    );
    assert_eq!(read(&nb, "a.md"), None);
    // Its own link still leads to sub/c.md (from the root): unchanged.
    assert_eq!(read(&nb, "k/z.md").unwrap(), "# A\n\n[up](sub/c.md)\n");
    assert_eq!(read(&nb, "b.md").unwrap(), "[[z|label]] [[z#H]]\n");
    assert_eq!(read(&nb, "sub/c.md").unwrap(), "[x](../k/z.md#h)\n");
    assert_eq!(read(&nb, "d.md").unwrap(), "[[b]] only\n");
    assert!(!journal::exists(nb.notes_dir()));
}

/// The journal a move of `a.md` to `dir/b.md` writes when `n1.md` and `n2.md` link to it.
fn journal_of(nb: &Notebook) -> Journal {
    write(nb, "a.md", "# A\n");
    write(nb, "n1.md", "[[a]]\n");
    write(nb, "n2.md", "[t](a.md)\n");
    let rewrite = |path: &str, old: &str, text: &str| Rewrite {
        path: path.into(),
        old: etag(old.as_bytes()),
        text: text.into(),
    };
    Journal::new(
        "a.md".into(),
        "dir/b.md".into(),
        vec![
            rewrite("n1.md", "[[a]]\n", "[[b]]\n"),
            rewrite("n2.md", "[t](a.md)\n", "[t](dir/b.md)\n"),
        ],
    )
}

#[test]
fn a_journal_left_before_the_rename_is_carried_out_whole() {
    let (_root, nb) = notebook();
    journal_of(&nb).save(&nb.root).unwrap();
    let done = nb.finish_interrupted_move().unwrap().unwrap();
    assert!(done.renamed);
    assert_eq!(done.rewritten, ["n1.md", "n2.md"]);
    assert!(done.left_alone.is_empty());
    assert_eq!(read(&nb, "a.md"), None);
    assert_eq!(read(&nb, "dir/b.md").unwrap(), "# A\n");
    assert_eq!(read(&nb, "n1.md").unwrap(), "[[b]]\n");
    assert_eq!(read(&nb, "n2.md").unwrap(), "[t](dir/b.md)\n");
    // Finished: the journal is gone, and a second call has nothing to do.
    assert_eq!(nb.finish_interrupted_move().unwrap(), None);
}

#[test]
fn a_journal_left_midway_finishes_and_leaves_notes_changed_since_alone() {
    let (_root, nb) = notebook();
    journal_of(&nb).save(&nb.root).unwrap();
    // The crash came after the rename and the first rewrite; then someone edited n2.
    std::fs::create_dir(nb.notes_dir().join("dir")).unwrap();
    std::fs::rename(nb.notes_dir().join("a.md"), nb.notes_dir().join("dir/b.md")).unwrap();
    write(&nb, "n1.md", "[[b]]\n");
    write(&nb, "n2.md", "[t](a.md) edited\n");
    let done = nb.finish_interrupted_move().unwrap().unwrap();
    assert!(!done.renamed);
    assert!(done.rewritten.is_empty(), "n1 had its new text already");
    assert_eq!(done.left_alone, ["n2.md"]);
    assert_eq!(read(&nb, "n2.md").unwrap(), "[t](a.md) edited\n");
    assert!(
        done.to_string()
            .contains("left alone (changed since the move began): n2.md")
    );
    assert!(!journal::exists(nb.notes_dir()));
}

#[test]
fn a_journal_whose_notes_are_both_there_changes_nothing() {
    let (_root, nb) = notebook();
    journal_of(&nb).save(&nb.root).unwrap();
    write(&nb, "dir/b.md", "someone else's\n");
    let done = nb.finish_interrupted_move().unwrap().unwrap();
    assert!(!done.renamed);
    assert_eq!(done.left_alone, ["n1.md", "n2.md"]);
    assert_eq!(read(&nb, "a.md").unwrap(), "# A\n");
    assert_eq!(read(&nb, "n1.md").unwrap(), "[[a]]\n");
    assert!(!journal::exists(nb.notes_dir()));
}

#[test]
fn a_public_note_takes_its_entry_and_page_along() {
    let (_root, nb) = notebook();
    write(&nb, "a.md", "---\ntitle: Alpha\n---\ntext\n");
    nb.publish(&p("a.md"), &Scope::full()).unwrap();
    let before = nb.public_list().unwrap().notes;
    nb.move_note(
        &p("a.md"),
        &p("dir/z.md"),
        &Precondition::None,
        &Scope::full(),
    )
    .unwrap();
    let after = nb.public_list().unwrap().notes;
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].path, "dir/z.md");
    assert_eq!(after[0].published_at, before[0].published_at);
    assert!(!nb.public_dir().join("a.html").exists());
    assert!(nb.public_dir().join("z.html").is_file());
    // Once more changes nothing.
    assert!(
        !nb.moved_public(&p("a.md"), &p("dir/z.md"), &Scope::full())
            .unwrap()
    );
    assert!(nb.repair_public().unwrap().is_clean());
}
