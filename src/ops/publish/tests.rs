//! The publishing operations on a temp notebook, without HTTP.

use super::*;
use crate::ops::model::{NoteInput, Precondition};

use crate::ops::temp_notebook as notebook;

fn write(notebook: &Notebook, rel: &str, text: &str) -> NotePath {
    let path = NotePath::parse(rel).unwrap();
    notebook
        .put(
            &path,
            NoteInput::Markdown(text.to_string()),
            Precondition::None,
        )
        .unwrap();
    path
}

#[test]
fn toggle_round_trip_and_the_record_states() {
    let (_root, nb) = notebook();
    assert!(nb.public_pages().unwrap().is_none(), "no record yet");
    let path = write(&nb, "a/n.md", "# N\n\ntext\n");
    let on = nb.toggle_public(&path, &Scope::full()).unwrap();
    assert_eq!(on.result.status, Visibility::Public);
    assert_eq!(on.effect, PageEffect::Written);
    assert!(on.page.ends_with("n.html") && on.page.is_file());
    assert_eq!(nb.public_list().unwrap().notes[0].path, "a/n.md");
    let off = nb.toggle_public(&path, &Scope::full()).unwrap();
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
    assert!(matches!(
        nb.unpublish(&path, &Scope::full()),
        Err(Error::NotPublic(_))
    ));
    let missing = NotePath::parse("missing.md").unwrap();
    assert!(matches!(
        nb.toggle_public(&missing, &Scope::full()),
        Err(Error::NotFound)
    ));
    assert!(matches!(
        nb.publish(&missing, &Scope::full()),
        Err(Error::NotFound)
    ));
    assert!(!nb.public_dir().exists(), "a refusal writes nothing");
}

#[test]
fn an_entry_whose_note_vanished_can_still_be_unpublished() {
    let (_root, nb) = notebook();
    let path = write(&nb, "n.md", "x\n");
    nb.publish(&path, &Scope::full()).unwrap();
    std::fs::remove_file(nb.notes_dir().join("n.md")).unwrap();
    assert!(matches!(
        nb.toggle_public(&path, &Scope::full()),
        Err(Error::NotFound)
    ));
    assert_eq!(
        nb.unpublish(&path, &Scope::full()).unwrap().effect,
        PageEffect::Removed
    );
}

#[test]
fn only_files_inside_the_public_dir_are_served() {
    let (root, nb) = notebook();
    let path = write(&nb, "n.md", "x\n");
    nb.publish(&path, &Scope::full()).unwrap();
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
        "../../secret.html",
        "static/../../secret.html",
        "link.html",
        "static",
        "static/",
        ".tmp-x",
        "a\\b.html",
        "a\0.html",
    ] {
        assert!(nb.public_file(refused).is_none(), "{refused}");
    }
}

fn public_bytes(nb: &Notebook, name: &str) -> Option<Vec<u8>> {
    std::fs::read(nb.public_dir().join(name)).ok()
}

fn record_text(nb: &Notebook) -> Option<String> {
    std::fs::read_to_string(nb.notes_dir().join(record::FILE)).ok()
}

/// The record, the index and the feed as they are, to compare after a failed change.
fn state(nb: &Notebook) -> [Option<Vec<u8>>; 3] {
    [
        record_text(nb).map(String::into_bytes),
        public_bytes(nb, site::INDEX_FILE),
        public_bytes(nb, feed::FILE),
    ]
}

/// Puts a non-empty folder where a file of the public dir should be: writes to that
/// name fail whoever runs the test (root included), and it cannot be removed as a file.
fn block(nb: &Notebook, name: &str) {
    let path = nb.public_dir().join(name);
    let _ = std::fs::remove_file(&path);
    std::fs::create_dir_all(path.join("in-the-way")).unwrap();
}

fn unblock(nb: &Notebook, name: &str) {
    std::fs::remove_dir_all(nb.public_dir().join(name)).unwrap();
}

fn no_temp_files(nb: &Notebook) {
    for dir in [nb.notes_dir(), nb.public_dir()] {
        for item in std::fs::read_dir(dir).unwrap() {
            let name = item.unwrap().file_name().into_string().unwrap();
            assert!(!name.starts_with(fsutil::TEMP_PREFIX), "{name} left behind");
        }
    }
}

#[test]
fn a_publication_that_fails_after_its_page_was_written_is_undone() {
    let (_root, nb) = notebook();
    let kept = write(&nb, "kept.md", "# Kept\n");
    nb.publish(&kept, &Scope::full()).unwrap();
    let path = write(&nb, "n.md", "# N\n");
    let before = state(&nb);
    block(&nb, feed::FILE);
    assert!(matches!(
        nb.toggle_public(&path, &Scope::full()),
        Err(Error::PublishFailed(_))
    ));
    assert!(!nb.public_dir().join("n.html").exists(), "page taken back");
    assert_eq!(
        state(&nb)[..2],
        before[..2],
        "record and index as they were"
    );
    no_temp_files(&nb);
    unblock(&nb, feed::FILE);
    assert!(nb.repair_public().unwrap().feed_rebuilt);
    assert_eq!(
        nb.toggle_public(&path, &Scope::full())
            .unwrap()
            .result
            .status,
        Visibility::Public
    );
}

#[test]
fn the_first_publication_failing_leaves_no_record() {
    let (_root, nb) = notebook();
    let path = write(&nb, "n.md", "# N\n");
    std::fs::create_dir_all(nb.public_dir()).unwrap();
    block(&nb, site::INDEX_FILE);
    assert!(nb.publish(&path, &Scope::full()).is_err());
    assert_eq!(record_text(&nb), None);
    assert!(!nb.public_dir().join("n.html").exists());
    assert!(nb.public_pages().unwrap().is_none());
}

#[test]
fn a_page_taken_over_from_another_note_is_given_back_when_the_change_fails() {
    let (_root, nb) = notebook();
    let first = write(&nb, "x/n.md", "# From x\n");
    let second = write(&nb, "y/n.md", "# From y\n");
    nb.publish(&first, &Scope::full()).unwrap();
    let page = public_bytes(&nb, "n.html").unwrap();
    let before = state(&nb);
    block(&nb, site::INDEX_FILE);
    assert!(nb.publish(&second, &Scope::full()).is_err());
    assert_eq!(public_bytes(&nb, "n.html").unwrap(), page, "x's page back");
    assert_eq!(state(&nb)[0], before[0]);
    assert!(
        !nb.notes_dir().join(record::PENDING_FILE).exists(),
        "marker cleared after the undo"
    );
}

#[test]
fn an_unpublication_whose_page_cannot_go_keeps_the_note_public() {
    let (_root, nb) = notebook();
    let path = write(&nb, "n.md", "# N\n");
    nb.publish(&path, &Scope::full()).unwrap();
    // The page name taken by a folder: removing it as a file fails after the record
    // was saved without the entry; the entry must come back.
    block(&nb, "n.html");
    let before = state(&nb);
    assert!(matches!(
        nb.unpublish(&path, &Scope::full()),
        Err(Error::PublishFailed(_))
    ));
    assert!(matches!(
        nb.delete(&path, &Precondition::None),
        Err(Error::DeleteFailed(_))
    ));
    assert_eq!(state(&nb), before, "record, index and feed as they were");
    assert!(nb.notes_dir().join("n.md").exists(), "the note stays");
    assert_eq!(nb.public_list().unwrap().notes[0].path, "n.md");
    no_temp_files(&nb);
}

#[test]
fn an_unpublication_failing_at_the_index_keeps_page_and_entry() {
    let (_root, nb) = notebook();
    let path = write(&nb, "n.md", "# N\n");
    nb.publish(&path, &Scope::full()).unwrap();
    let page = public_bytes(&nb, "n.html").unwrap();
    block(&nb, site::INDEX_FILE);
    let record = record_text(&nb);
    assert!(nb.toggle_public(&path, &Scope::full()).is_err());
    assert_eq!(public_bytes(&nb, "n.html").unwrap(), page);
    assert_eq!(record_text(&nb), record);
}

#[test]
fn a_delete_with_an_unreadable_record_changes_nothing() {
    let (_root, nb) = notebook();
    let path = write(&nb, "n.md", "# N\n");
    std::fs::write(nb.notes_dir().join(record::FILE), "{ torn").unwrap();
    assert!(matches!(
        nb.delete(&path, &Precondition::None),
        Err(Error::DeleteFailed(_))
    ));
    assert!(nb.notes_dir().join("n.md").exists());
    assert_eq!(record_text(&nb).unwrap(), "{ torn");
}

#[test]
fn repair_puts_every_kind_of_drift_right_and_then_finds_nothing() {
    let (_root, nb) = notebook();
    let a = write(&nb, "a.md", "# A\n");
    let b = write(&nb, "b.md", "# B\n");
    let gone = write(&nb, "gone.md", "# Gone\n");
    for path in [&a, &b, &gone] {
        nb.publish(path, &Scope::full()).unwrap();
    }
    assert!(nb.repair_public().unwrap().is_clean(), "all agreed");
    let dir = nb.public_dir().to_path_buf();
    let a_page = public_bytes(&nb, "a.html").unwrap();
    // A page a crash left behind, one lost, one whose note is gone too, a hand-made
    // page, a stale index, a damaged stylesheet.
    std::fs::copy(dir.join("b.html"), dir.join("orphan.html")).unwrap();
    std::fs::remove_file(dir.join("a.html")).unwrap();
    std::fs::remove_file(dir.join("gone.html")).unwrap();
    std::fs::remove_file(nb.notes_dir().join("gone.md")).unwrap();
    std::fs::write(dir.join("about.html"), "<p>mine</p>").unwrap();
    std::fs::write(dir.join(site::INDEX_FILE), "stale").unwrap();
    std::fs::write(dir.join("static/style.css"), "body{}").unwrap();
    let report = nb.repair_public().unwrap();
    assert_eq!(
        report,
        RepairReport {
            removed_pages: vec!["orphan.html".into()],
            regenerated_pages: vec!["a.html".into()],
            dropped_entries: vec!["gone.md".into()],
            index_rebuilt: true,
            feed_rebuilt: true,
            stylesheet_restored: true,
            restored_media: Vec::new(),
            removed_media: Vec::new(),
        }
    );
    assert_eq!(public_bytes(&nb, "a.html").unwrap(), a_page);
    assert!(
        dir.join("about.html").exists(),
        "pages we did not make stay"
    );
    let listed: Vec<_> = nb
        .public_list()
        .unwrap()
        .notes
        .into_iter()
        .map(|n| n.path)
        .collect();
    assert_eq!(listed, ["b.md", "a.md"]);
    let index = String::from_utf8(public_bytes(&nb, site::INDEX_FILE).unwrap()).unwrap();
    assert!(index.contains("a.html") && index.contains("b.html"));
    assert!(!index.contains("gone.html"));
    assert_eq!(nb.repair_public().unwrap(), RepairReport::default());
}

#[test]
fn repair_gives_a_shared_page_left_mid_change_back_to_its_owner() {
    let (_root, nb) = notebook();
    let x = write(&nb, "x/n.md", "# From x\n");
    let y = write(&nb, "y/n.md", "# From y\n");
    nb.publish(&y, &Scope::full()).unwrap();
    nb.publish(&x, &Scope::full()).unwrap();
    let x_page = public_bytes(&nb, "n.html").unwrap();
    nb.unpublish(&x, &Scope::full()).unwrap();
    let y_page = public_bytes(&nb, "n.html").unwrap();
    assert_ne!(x_page, y_page);
    // As a crash leaves a publication of x over y's page: page written, record not.
    record::save_pending(nb.notes_dir(), &["n.html"]).unwrap();
    std::fs::write(nb.public_dir().join("n.html"), &x_page).unwrap();
    let report = nb.repair_public().unwrap();
    assert_eq!(report.regenerated_pages, ["n.html"]);
    assert_eq!(public_bytes(&nb, "n.html").unwrap(), y_page);
    assert!(!nb.notes_dir().join(record::PENDING_FILE).exists());
}

#[test]
fn repair_leaves_a_public_dir_without_record_alone_and_never_resets_a_record() {
    let (_root, nb) = notebook();
    std::fs::create_dir_all(nb.public_dir()).unwrap();
    let stranger = "<meta name=\"generator\" content=\"notes\"> another notebook's";
    std::fs::write(nb.public_dir().join("p.html"), stranger).unwrap();
    assert!(nb.repair_public().unwrap().is_clean());
    assert!(nb.public_dir().join("p.html").exists());
    std::fs::write(nb.notes_dir().join(record::FILE), "{ torn").unwrap();
    assert!(matches!(
        nb.repair_public(),
        Err(Error::PublicRecordUnreadable { .. })
    ));
    assert_eq!(record_text(&nb).unwrap(), "{ torn");
    assert!(nb.public_dir().join("p.html").exists());
}

#[cfg(unix)]
#[test]
fn only_regular_files_are_served_and_a_fifo_does_not_block() {
    let (_root, nb) = notebook();
    let path = write(&nb, "n.md", "x\n");
    nb.publish(&path, &Scope::full()).unwrap();
    let fifo = nb.public_dir().join("fifo.html");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    std::os::unix::fs::symlink("n.html", nb.public_dir().join("inside.html")).unwrap();
    assert!(nb.public_file("fifo.html").is_none());
    assert_eq!(
        nb.public_file("inside.html").unwrap().bytes,
        public_bytes(&nb, "n.html").unwrap(),
        "a link that stays inside is followed"
    );
}

#[test]
fn repair_renders_again_the_pages_an_older_version_made_without_the_policy() {
    let (_root, nb) = notebook();
    let a = write(&nb, "a.md", "# A\n\nText\n");
    nb.publish(&a, &Scope::full()).unwrap();
    let page = nb.public_dir().join("a.html");
    let fresh = std::fs::read_to_string(&page).unwrap();
    let policy = format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n",
        site::PUBLIC_CSP
    );
    assert!(fresh.contains(&policy));
    std::fs::write(&page, fresh.replace(&policy, "")).unwrap();
    let report = nb.repair_public().unwrap();
    assert_eq!(report.regenerated_pages, ["a.html"]);
    assert_eq!(std::fs::read_to_string(&page).unwrap(), fresh);
    assert!(nb.repair_public().unwrap().is_clean());
}

fn text_of_page(nb: &Notebook, name: &str) -> String {
    String::from_utf8(public_bytes(nb, name).unwrap()).unwrap()
}

#[test]
fn a_publication_failing_at_a_linking_page_puts_every_page_back() {
    let (_root, nb) = notebook();
    let a = write(&nb, "a.md", "See [[n]].\n");
    let b = write(&nb, "b.md", "And [[n|here]].\n");
    nb.publish(&a, &Scope::full()).unwrap();
    nb.publish(&b, &Scope::full()).unwrap();
    let a_page = public_bytes(&nb, "a.html").unwrap();
    assert!(text_of_page(&nb, "a.html").contains("<p>See n.</p>"));
    let n = write(&nb, "n.md", "# N\n");
    let before = state(&nb);
    // a's page is rewritten first (path order), then b's fails.
    block(&nb, "b.html");
    assert!(matches!(
        nb.publish(&n, &Scope::full()),
        Err(Error::PublishFailed(_))
    ));
    assert_eq!(
        public_bytes(&nb, "a.html").unwrap(),
        a_page,
        "a's page back"
    );
    assert!(!nb.public_dir().join("n.html").exists());
    assert_eq!(state(&nb), before, "record, index and feed as they were");
    assert!(!nb.notes_dir().join(record::PENDING_FILE).exists());
    no_temp_files(&nb);
    unblock(&nb, "b.html");
    nb.publish(&n, &Scope::full()).unwrap();
    assert!(text_of_page(&nb, "a.html").contains(r#"<p>See <a href="n.html">n</a>.</p>"#));
    assert!(text_of_page(&nb, "b.html").contains(r#"<a href="n.html">here</a>"#));
}

#[test]
fn repair_renders_again_a_linking_page_left_mid_change() {
    let (_root, nb) = notebook();
    let a = write(&nb, "a.md", "See [[n]].\n");
    let n = write(&nb, "n.md", "# N\n");
    nb.publish(&a, &Scope::full()).unwrap();
    nb.publish(&n, &Scope::full()).unwrap();
    let linked = public_bytes(&nb, "a.html").unwrap();
    assert!(text_of_page(&nb, "a.html").contains(r#"<a href="n.html">n</a>"#));
    nb.unpublish(&n, &Scope::full()).unwrap();
    let plain = public_bytes(&nb, "a.html").unwrap();
    assert!(!text_of_page(&nb, "a.html").contains("n.html"));
    // As a crash in the middle of the unpublication leaves it: the record saved, the
    // linking page not yet rewritten, the marker naming it.
    record::save_pending(nb.notes_dir(), &["a.html"]).unwrap();
    std::fs::write(nb.public_dir().join("a.html"), &linked).unwrap();
    let report = nb.repair_public().unwrap();
    assert_eq!(report.regenerated_pages, ["a.html"]);
    assert_eq!(public_bytes(&nb, "a.html").unwrap(), plain);
    assert!(!nb.notes_dir().join(record::PENDING_FILE).exists());
}

/// The public dir's pages (not the feed or the index, which carry the times), by name.
fn pages_of(nb: &Notebook) -> std::collections::BTreeMap<String, String> {
    std::fs::read_dir(nb.public_dir())
        .unwrap()
        .flatten()
        .map(|f| f.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".html") && name != "index.html")
        .map(|name| {
            let text = std::fs::read_to_string(nb.public_dir().join(&name)).unwrap();
            (name, text)
        })
        .collect()
}

#[test]
fn a_batch_of_toggles_writes_what_the_same_toggles_one_by_one_write() {
    let notes = [
        ("a/n.md", "# A\n\nsee [[b/n]] and [[c]]\n"),
        ("b/n.md", "# B\n\nback to [[a/n]]\n"),
        ("c.md", "# C\n\nlinks to [[a/n]]\n"),
        ("d.md", "# D\n\nalone\n"),
    ];
    // A page name two notes share, a note toggled twice, a missing note, links both
    // ways between notes of the batch.
    let toggles = [
        "c.md",
        "a/n.md",
        "b/n.md",
        "missing.md",
        "d.md",
        "a/n.md",
        "b/n.md",
        "b/n.md",
    ];
    let one_by_one = notebook();
    let batched = notebook();
    for nb in [&one_by_one.1, &batched.1] {
        for (path, text) in notes {
            write(nb, path, text);
        }
        // Public before the batch: a page that links into it.
        nb.toggle_public(&NotePath::parse("c.md").unwrap(), &Scope::full())
            .unwrap();
    }
    let paths: Vec<NotePath> = toggles
        .iter()
        .map(|p| NotePath::parse(p).unwrap())
        .collect();
    let alone: Vec<String> = paths
        .iter()
        .map(|p| match one_by_one.1.toggle_public(p, &Scope::full()) {
            Ok(done) => format!("{:?} {:?}", done.result, done.effect),
            Err(e) => e.to_string(),
        })
        .collect();
    let batch = paths.iter().map(|p| (p.clone(), Scope::full())).collect();
    let together: Vec<String> = batched
        .1
        .toggle_batch(batch)
        .into_iter()
        .map(|answer| match answer {
            Ok(done) => format!("{:?} {:?}", done.result, done.effect),
            Err(e) => e.to_string(),
        })
        .collect();
    assert_eq!(together, alone);
    let public = |nb: &Notebook| -> Vec<String> {
        let list = nb.public_list().unwrap().notes;
        list.into_iter().map(|n| n.path).collect()
    };
    assert_eq!(public(&batched.1), public(&one_by_one.1));
    let pages = pages_of(&batched.1);
    assert_eq!(pages, pages_of(&one_by_one.1));
    assert_eq!(pages.len(), 2, "{:?}", pages.keys());
    assert!(nb_repair_is_clean(&batched.1));
}

fn nb_repair_is_clean(nb: &Notebook) -> bool {
    nb.repair_public().unwrap().is_clean()
}
