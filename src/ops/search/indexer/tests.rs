//! The background indexer: its slot, its passes and its failures.

use super::*;

#[test]
fn own_files_are_ignored() {
    let root = Path::new("/n");
    assert!(matches!(
        classify(root, Path::new("/n/a/b.md")),
        Seen::Note(_)
    ));
    assert!(matches!(
        classify(root, Path::new("/n/.notes/index/meta.json")),
        Seen::Ignored
    ));
    assert!(matches!(
        classify(root, Path::new("/n/a/.tmp-x1")),
        Seen::Ignored
    ));
    assert!(matches!(
        classify(root, Path::new("/n/.public.json")),
        Seen::Ignored
    ));
    assert!(matches!(
        classify(root, Path::new("/n/gone-folder")),
        Seen::Other
    ));
}

#[test]
fn settle_returns_once_queued_changes_are_indexed() {
    let notes = tempfile::tempdir().unwrap();
    let shared = SharedIndex::open(notes.path());
    let indexer = Indexer::start(notes.path(), shared.clone(), || {}, |_| {});
    shared.settle();
    let count = || shared.get().unwrap().reader.searcher().num_docs();
    assert_eq!(count(), 0);
    let listener = indexer.listener();
    for i in 0..3 {
        let name = format!("n{i}.md");
        std::fs::write(notes.path().join(&name), "x").unwrap();
        listener(Changed::Note(&NotePath::parse(&name).unwrap()));
    }
    let started = Instant::now();
    shared.settle();
    assert_eq!(count(), 3, "settle returned before the pass");
    assert!(
        started.elapsed() < SETTLE_WAIT,
        "settle waited for its bound"
    );
    // Nothing queued: answered at once, not after the bound.
    let started = Instant::now();
    shared.settle();
    assert!(
        started.elapsed() < SETTLE_WAIT / 2,
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_note_indexed_again_replaces_its_document_and_a_new_one_adds_one() {
    let notes = tempfile::tempdir().unwrap();
    let shared = SharedIndex::open(notes.path());
    let indexer = Indexer::start(notes.path(), shared.clone(), || {}, |_| {});
    shared.settle();
    let count = || shared.get().unwrap().reader.searcher().num_docs();
    let listener = indexer.listener();
    let write = |name: &str, text: &str| {
        std::fs::write(notes.path().join(name), text).unwrap();
        listener(Changed::Note(&NotePath::parse(name).unwrap()));
        shared.settle();
    };
    write("a.md", "first");
    write("b.md", "other");
    assert_eq!(count(), 2);
    // Known to the index: its document is deleted before the new one is added.
    write("a.md", "second, longer");
    write("a.md", "third and longer still");
    assert_eq!(count(), 2, "a note indexed again left a second document");
    write("c.md", "new");
    assert_eq!(count(), 3);
}

#[test]
fn a_damaged_index_reads_as_being_rebuilt_until_replaced() {
    let notes = tempfile::tempdir().unwrap();
    let shared = SharedIndex::default();
    assert!(matches!(shared.current(), Err(Error::Index(_))));
    let first = NotesIndex::open_or_create(notes.path()).unwrap();
    shared.set(first.clone());
    assert!(shared.current().is_ok());
    let answer = IndexSource::damaged(&shared, &first, "test".into());
    assert!(matches!(answer, Err(Error::IndexRebuilding)));
    assert!(matches!(shared.current(), Err(Error::IndexRebuilding)));
    // Once the indexer puts a new index in place, damage seen through the old one
    // no longer takes it away.
    let second = NotesIndex::open_or_create(notes.path()).unwrap();
    shared.set(second);
    let answer = IndexSource::damaged(&shared, &first, "late".into());
    assert!(matches!(answer, Err(Error::IndexRebuilding)));
    assert!(shared.current().is_ok());
}
