//! The search module's tests: sources, prefixes, older and damaged indexes.

use super::indexer::SharedIndex;
use super::run::{PREFIX_WORDS, prefix_words};
use super::updater::IndexUpdater;
use super::*;

use crate::ops::Config;

/// A notebook reading `index` as the server's (none: the server could not open it).
fn notebook(dir: &Path, index: Option<NotesIndex>) -> (Notebook, SharedIndex) {
    let book = Notebook::new(Config {
        notes_dir: dir.to_path_buf(),
        public_dir: dir.join("public"),
        base_url: None,
    });
    let shared = SharedIndex::default();
    if let Some(index) = index {
        shared.set(index);
    }
    book.serve_index(shared.clone());
    (book, shared)
}

fn indexed(dir: &Path) -> NotesIndex {
    let index = NotesIndex::open_or_create(dir).unwrap();
    let mut updater = IndexUpdater::new(index.clone(), dir).unwrap();
    updater.catch_up(&mut |_, _| {}).unwrap();
    index
}

#[test]
fn a_search_reads_the_index_its_source_gives() {
    let notes = tempfile::tempdir().unwrap();
    std::fs::write(
        notes.path().join("a.md"),
        "# Echidna\n\nAn echidna lays eggs.",
    )
    .unwrap();
    std::fs::write(notes.path().join("b.md"), "# Other\n\nEchidnas, again.").unwrap();
    std::fs::write(notes.path().join("c.md"), "# Nothing\n\nHere.").unwrap();
    let (book, shared) = notebook(notes.path(), Some(indexed(notes.path())));
    let query = Query::parse("echidna").unwrap();
    let found = book
        .search(&query, Limit::new(1).unwrap(), &Scope::full())
        .unwrap();
    assert_eq!(found.query, "echidna");
    assert_eq!(found.total, 2);
    assert_eq!(found.results.len(), 1);
    assert_eq!(found.results[0].path, "a.md");
    assert_eq!(found.results[0].title, "a");
    assert_eq!(
        found.results[0].snippet,
        "⟦Echidna⟧ An ⟦echidna⟧ lays eggs."
    );
    assert_eq!(found.results[0].highlighted_title, "a");
    // A note deleted since it was indexed is never returned.
    std::fs::remove_file(notes.path().join("a.md")).unwrap();
    let found = book.search(&query, Limit::DEFAULT, &Scope::full()).unwrap();
    assert_eq!(found.total, 1);
    assert_eq!(found.results[0].path, "b.md");
    // Nothing was reported damaged.
    assert!(shared.get().is_ok());
}

#[test]
fn a_typed_prefix_is_highlighted_as_the_words_the_index_holds() {
    let notes = tempfile::tempdir().unwrap();
    std::fs::write(notes.path().join("a.md"), "Echidna, echo, Échidnas.").unwrap();
    let many: Vec<String> = (0..=PREFIX_WORDS).map(|i| format!("zz{i}")).collect();
    std::fs::write(notes.path().join("b.md"), many.join(" ")).unwrap();
    let index = indexed(notes.path());
    let searcher = index.reader.searcher();
    let body = index.fields.body;
    assert_eq!(
        prefix_words(&searcher, body, "ech").unwrap(),
        Some(vec!["echidna".into(), "echidnas".into(), "echo".into()])
    );
    assert_eq!(prefix_words(&searcher, body, "qq").unwrap(), Some(vec![]));
    // Too many: each body is scanned instead.
    assert_eq!(prefix_words(&searcher, body, "zz").unwrap(), None);
}

#[test]
fn notes_indexed_by_an_older_version_are_indexed_again() {
    let notes = tempfile::tempdir().unwrap();
    let file = notes.path().join("a.md");
    let markdown = "# Guide\n\nRead [the guide](https://example.org/manual).";
    std::fs::write(&file, markdown).unwrap();
    let index = indexed(notes.path());
    let (book, _shared) = notebook(notes.path(), Some(index.clone()));
    let total = |words: &str| {
        let query = Query::parse(words).unwrap();
        book.search(&query, Limit::DEFAULT, &Scope::full())
            .unwrap()
            .total
    };
    assert_eq!((total("manual"), total("guide")), (0, 1));
    // The document an older version wrote: the Markdown as body, a stamp without
    // the content version.
    {
        let mut writer = index
            .index
            .writer_with_num_threads::<TantivyDocument>(1, 15_000_000)
            .unwrap();
        let meta = std::fs::metadata(&file).unwrap();
        let nanos = meta
            .modified()
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let old_stamp = format!("{nanos}:{}", meta.len());
        let fields = index.fields;
        writer.delete_term(Term::from_field_text(fields.path, "a.md"));
        let mut doc = TantivyDocument::default();
        doc.add_text(fields.path, "a.md");
        doc.add_text(fields.title, "a");
        doc.add_text(fields.body, markdown);
        doc.add_text(fields.stamp, &old_stamp);
        writer.add_document(doc).unwrap();
        writer.commit().unwrap();
    }
    index.reader.reload().unwrap();
    assert_eq!(total("manual"), 1);
    let mut updater = IndexUpdater::new(index.clone(), notes.path()).unwrap();
    let changes = updater.catch_up(&mut |_, _| {}).unwrap();
    assert_eq!(changes.indexed, 1);
    assert_eq!((total("manual"), total("guide")), (0, 1));
    // Up to date now: nothing more to do.
    assert_eq!(updater.catch_up(&mut |_, _| {}).unwrap().indexed, 0);
}

#[test]
fn an_index_without_the_attachment_fields_is_replaced_and_filled_again() {
    let notes = tempfile::tempdir().unwrap();
    std::fs::write(notes.path().join("a.md"), "# A\n\nalpha").unwrap();
    std::fs::write(notes.path().join("diagram.png"), b"\x89PNG alpha").unwrap();
    // An index as a version without attachments made it: another schema.
    {
        let mut builder = tantivy::schema::Schema::builder();
        builder.add_text_field("path", tantivy::schema::STRING);
        create(&index_dir(notes.path()), builder.build()).unwrap();
    }
    let index = indexed(notes.path());
    let (book, _shared) = notebook(notes.path(), Some(index));
    let found = |words: &str| {
        let query = Query::parse(words).unwrap();
        let results = book.search(&query, Limit::DEFAULT, &Scope::full()).unwrap();
        results
            .results
            .iter()
            .map(|hit| (hit.path.clone(), hit.kind))
            .collect::<Vec<_>>()
    };
    assert_eq!(found("alpha"), [("a.md".to_string(), None)]);
    assert_eq!(
        found("file:diagram"),
        [("diagram.png".to_string(), Some(FILE_KIND))]
    );
    // The bytes of an attachment are not indexed, its name is not a note's word.
    assert_eq!(found("file:alpha"), []);
    assert_eq!(found("diagram"), []);
}

#[test]
fn without_an_index_the_server_says_why() {
    let notes = tempfile::tempdir().unwrap();
    let query = Query::parse("x").unwrap();
    let (book, _shared) = notebook(notes.path(), None);
    let err = book
        .search(&query, Limit::DEFAULT, &Scope::full())
        .unwrap_err();
    assert!(matches!(err, Error::Index(_)), "{err:?}");
}

#[test]
fn a_command_catches_up_by_itself_or_waits_for_the_owner() {
    let notes = tempfile::tempdir().unwrap();
    std::fs::write(notes.path().join("a.md"), "wombat").unwrap();
    let book = Notebook::new(Config {
        notes_dir: notes.path().to_path_buf(),
        public_dir: notes.path().join("public"),
        base_url: None,
    });
    let total = |book: &Notebook| {
        let query = Query::parse("wombat").unwrap();
        book.search(&query, Limit::DEFAULT, &Scope::full())
            .unwrap()
            .total
    };
    // Never indexed: built by the search itself.
    assert_eq!(total(&book), 1);
    // Another process owns the writer and catches up a moment later: waited for.
    let index = NotesIndex::open_or_create(notes.path()).unwrap();
    let mut owner = IndexUpdater::new(index, notes.path()).unwrap();
    std::fs::write(notes.path().join("b.md"), "wombat too").unwrap();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(300));
            owner.catch_up(&mut |_, _| {}).unwrap();
        });
        assert_eq!(total(&book), 2);
    });
}

#[test]
fn a_second_writer_is_told_a_running_server_owns_the_index() {
    let notes = tempfile::tempdir().unwrap();
    let index = NotesIndex::open_or_create(notes.path()).unwrap();
    let _owner = IndexUpdater::new(index.clone(), notes.path()).unwrap();
    let Err(err) = IndexUpdater::new(index, notes.path()) else {
        panic!("a second writer was let in");
    };
    assert!(matches!(err, Error::IndexOwned), "{err:?}");
    assert!(err.to_string().contains("running `notes serve`"), "{err}");
}
