//! The updater's passes: the queue and the merges.

use super::*;

#[test]
fn a_pass_leaves_nothing_counted_in_the_queue() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..300 {
        fs::write(dir.path().join(format!("n{i}.md")), "x".repeat(20_000)).unwrap();
    }
    let index = NotesIndex::open_or_create(dir.path()).unwrap();
    let mut updater = IndexUpdater::new(index.clone(), dir.path()).unwrap();
    assert_eq!(updater.catch_up(&mut |_, _| {}).unwrap().indexed, 300);
    assert_eq!(updater.queued.held(), 0);
    assert_eq!(index.reader.searcher().num_docs(), 300);
}

#[test]
fn a_long_pass_merges_at_its_end_and_leaves_the_merges_on() {
    let dir = tempfile::tempdir().unwrap();
    // Ten segments: more than the merge policy's eight at one level.
    let count = 10 * PASS_CHUNK + 1;
    for i in 0..count {
        let folder = dir.path().join(format!("f{}", i % 20));
        fs::create_dir_all(&folder).unwrap();
        fs::write(folder.join(format!("n{i}.md")), format!("note {i} text\n")).unwrap();
    }
    let index = NotesIndex::open_or_create(dir.path()).unwrap();
    let mut updater = IndexUpdater::new(index.clone(), dir.path()).unwrap();
    let policy = |u: &IndexUpdater| format!("{:?}", u.writer.get_merge_policy());
    assert!(policy(&updater).starts_with("LogMergePolicy"));
    let changes = updater.catch_up(&mut |_, _| {}).unwrap();
    assert_eq!(changes.indexed, count);
    assert!(
        policy(&updater).starts_with("LogMergePolicy"),
        "{}",
        policy(&updater)
    );
    assert_eq!(index.reader.searcher().num_docs(), count as u64);
    // The readers come to read the merged segments, without a commit: a segment
    // per indexing thread at each of the eleven commits, at most 22, merged ten by
    // ten.
    let merged = (INDEXING_THREADS * 11).div_ceil(MERGE_GROUP);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while index.reader.searcher().segment_readers().len() > merged {
        assert!(std::time::Instant::now() < deadline, "not merged in 30 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(index.reader.searcher().num_docs(), count as u64);
}
