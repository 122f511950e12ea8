//! The store's log, committer and packs, on a bare repository in a temp dir.

use std::path::Path;
use std::sync::Arc;

use git2::{Oid, Repository};

use super::change::Change;
use super::pack::MERGE_PAST;
use super::repo::REF;
use super::store::Store;
use super::wal::Sync;

fn open(dir: &Path) -> Store {
    Store::open(dir, Arc::default()).unwrap()
}

fn record(store: &Store, path: &str, text: &str) {
    let change = Change {
        path: path.to_string(),
        text: Some(text.as_bytes().to_vec()),
    };
    store
        .record(&format!("put {path}"), &[change], Sync::WithNext)
        .unwrap();
}

fn loose(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("objects"))
        .unwrap()
        .flatten()
        .filter(|d| d.file_name().len() == 2)
        .map(|d| std::fs::read_dir(d.path()).unwrap().count())
        .sum()
}

fn packs(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("objects/pack"))
        .map(|files| {
            let packs = files.flatten();
            packs
                .filter(|f| f.file_name().to_string_lossy().ends_with(".pack"))
                .count()
        })
        .unwrap_or(0)
}

/// The commit subjects from the ref on disk, newest first.
fn chain_on_disk(dir: &Path) -> Vec<String> {
    let repo = Repository::open_bare(dir).unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push_ref(REF).unwrap();
    walk.map(|id| {
        let commit = repo.find_commit(id.unwrap()).unwrap();
        commit.summary().unwrap().unwrap_or_default().to_string()
    })
    .collect()
}

fn blob(text: &str) -> Oid {
    Oid::hash_object(git2::ObjectType::Blob, text.as_bytes()).unwrap()
}

#[test]
fn a_change_is_committed_in_the_background_as_a_pack_naming_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("history.git");
    let store = open(&dir);
    record(&store, "f3/n.md", "one\n");
    record(&store, "f3/n.md", "two\n");
    // A lookup waits for this handle's changes to be committed.
    let latest = store
        .with_index(|index| {
            (
                index.notes["f3/n.md"].len(),
                index.latest("f3/n.md").cloned(),
            )
        })
        .unwrap();
    assert_eq!(latest.0, 2);
    let latest = latest.1.unwrap();
    assert_eq!(latest.blob, Some(blob("two\n")));
    assert_eq!(store.blob(blob("one\n")).unwrap(), b"one\n");
    // Packed, no loose object; the ref at the last commit, which names its record.
    assert_eq!(loose(&dir), 0);
    assert!(packs(&dir) >= 1);
    let repo = Repository::open_bare(&dir).unwrap();
    assert_eq!(repo.refname_to_id(REF).unwrap(), latest.commit);
    let message = store.message(latest.commit).unwrap();
    assert!(super::commit::trailer(&message).is_some(), "{message}");
    assert_eq!(chain_on_disk(&dir), ["put f3/n.md", "put f3/n.md"]);
}

#[test]
fn two_handles_take_turns_and_a_lost_handles_records_are_committed_once() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("history.git");
    let first = open(&dir);
    let other = open(&dir);
    record(&first, "a.md", "first\n");
    record(&other, "b.md", "other\n");
    record(&first, "a.md", "first again\n");
    let seen = |store: &Store| {
        store
            .with_index(|index| (index.notes["a.md"].len(), index.notes["b.md"].len()))
            .unwrap()
    };
    assert_eq!(seen(&first), (2, 1));
    assert_eq!(seen(&other), (2, 1));
    assert_eq!(other.blob(blob("first again\n")).unwrap(), b"first again\n");
    drop(other);
    // A change logged, then the handle lost before its committer ran (a crash): the
    // next handle commits it, and only it.
    let store_dir = dir.clone();
    let lost = open(&store_dir);
    record(&lost, "c.md", "lost\n");
    std::mem::forget(lost);
    drop(first);
    let reopened = open(&dir);
    let chain = chain_on_disk(&dir);
    assert_eq!(chain.len(), 4, "{chain:?}");
    assert_eq!(chain[0], "put c.md");
    assert_eq!(reopened.blob(blob("lost\n")).unwrap(), b"lost\n");
}

#[test]
fn the_small_packs_are_merged_and_every_handle_reads_on() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("history.git");
    let store = open(&dir);
    let other = open(&dir);
    // One batch (one pack) per change: each waited for by a lookup.
    for i in 0..MERGE_PAST + 3 {
        record(&store, &format!("n{i}.md"), &format!("text {i}\n"));
        store.with_index(|_| ()).unwrap();
        let text = format!("text {i}\n");
        assert_eq!(other.blob(blob(&text)).unwrap(), text.as_bytes());
    }
    assert!(packs(&dir) <= MERGE_PAST + 1, "{} packs", packs(&dir));
    for i in 0..MERGE_PAST + 3 {
        let text = format!("text {i}\n");
        assert_eq!(store.blob(blob(&text)).unwrap(), text.as_bytes());
        assert_eq!(other.blob(blob(&text)).unwrap(), text.as_bytes());
    }
    assert!(store.pack().unwrap());
    assert_eq!(packs(&dir), 1);
    assert_eq!(loose(&dir), 0);
    record(&other, "n0.md", "again\n");
    assert_eq!(other.with_index(|i| i.notes["n0.md"].len()).unwrap(), 2);
    assert_eq!(chain_on_disk(&dir).len(), MERGE_PAST + 4);
}

#[test]
fn the_handle_knows_the_latest_text_it_recorded_of_each_note() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("h.git");
    let store = open(&dir);
    record(&store, "a.md", "one");
    record(&store, "a.md", "two");
    assert!(store.is_own("a.md", Some(b"two")));
    assert!(
        !store.is_own("a.md", Some(b"one")),
        "an older version is news"
    );
    assert!(
        !store.is_own("a.md", None),
        "a removal nobody recorded is news"
    );
    assert!(!store.is_own("b.md", Some(b"two")), "another note is news");
    let removal = Change {
        path: "a.md".to_string(),
        text: None,
    };
    store.record("delete a.md", &[removal], Sync::Now).unwrap();
    assert!(store.is_own("a.md", None));
    // Another handle's change is not this one's.
    let other = open(&dir);
    record(&other, "b.md", "three");
    assert!(!store.is_own("b.md", Some(b"three")));
}

#[test]
fn a_log_of_git_objects_an_older_version_left_is_moved_into_the_repository() {
    use super::wal::{self, Log, Object};
    use git2::ObjectType;
    let dir = tempfile::tempdir().unwrap();
    Repository::init_bare(dir.path()).unwrap();
    let text = b"# Old\n".to_vec();
    let blob_id = Oid::hash_object(ObjectType::Blob, &text).unwrap();
    let mut tree = b"100644 old.md\0".to_vec();
    tree.extend_from_slice(blob_id.as_bytes());
    let tree_id = Oid::hash_object(ObjectType::Tree, &tree).unwrap();
    let commit =
        format!("tree {tree_id}\nauthor a <a@b> 0 +0000\ncommitter a <a@b> 0 +0000\n\nold\n")
            .into_bytes();
    let commit_id = Oid::hash_object(ObjectType::Commit, &commit).unwrap();
    let objects = [(b'b', text.clone()), (b't', tree), (b'c', commit)]
        .map(|(kind, bytes)| Object { kind, bytes });
    Log::open(dir.path())
        .unwrap()
        .append(&objects, wal::Sync::Now)
        .unwrap();

    let _store = open(dir.path());
    let repo = Repository::open_bare(dir.path()).unwrap();
    assert_eq!(repo.refname_to_id(REF).unwrap(), commit_id);
    assert_eq!(repo.find_blob(blob_id).unwrap().content(), text);
    assert!(wal::records(dir.path()).unwrap().is_empty());
}

#[test]
fn a_version_where_the_tree_has_a_file_or_a_folder_in_the_way_takes_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("history.git");
    let store = open(&dir);
    record(&store, "a", "a file\n");
    record(&store, "a/b.md", "a note where the file was\n");
    record(&store, "c/d/e.md", "deep\n");
    record(&store, "c/f.md", "beside\n");
    record(&store, "c", "a file where the folder was\n");
    record(&store, "g.md", "after\n");
    let latest = store
        .with_index(|index| {
            ["a", "a/b.md", "c/d/e.md", "c/f.md", "c", "g.md"]
                .map(|path| index.latest(path).and_then(|entry| entry.blob))
        })
        .unwrap();
    assert_eq!(
        latest,
        [
            None,
            Some(blob("a note where the file was\n")),
            None,
            None,
            Some(blob("a file where the folder was\n")),
            Some(blob("after\n")),
        ]
    );
    let repo = Repository::open_bare(&dir).unwrap();
    let tree = repo
        .revparse_single("HEAD^{tree}")
        .unwrap()
        .peel_to_tree()
        .unwrap();
    let mut paths = Vec::new();
    tree.walk(git2::TreeWalkMode::PreOrder, |folder, entry| {
        if entry.kind() == Some(git2::ObjectType::Blob) {
            paths.push(format!("{folder}{}", entry.name().unwrap()));
        }
        git2::TreeWalkResult::Ok
    })
    .unwrap();
    assert_eq!(paths, ["a/b.md", "c", "g.md"]);
    assert_eq!(chain_on_disk(&dir).len(), 6);
}

#[test]
fn records_are_committed_a_budget_of_objects_at_a_time() {
    use super::change::encode;
    use super::commit::commit_records;
    use super::repo::point_ref;
    use super::wal::Log;

    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("history.git");
    let repo = Repository::init_bare(&dir).unwrap();
    let mut log = Log::open(&dir).unwrap();
    for n in 0..3 {
        let change = Change {
            path: format!("f/{n}.md"),
            text: Some(format!("note {n}\n").into_bytes()),
        };
        let objects = encode(1_700_000_000 + n, &format!("put f/{n}.md"), &[change]);
        log.append(&objects, Sync::Now).unwrap();
    }
    // A budget of one byte: one record per call, the rest left for the next.
    let mut calls = Vec::new();
    loop {
        let made = commit_records(&repo, &dir, 1).unwrap();
        calls.push(made.entries.len());
        if let Some(tip) = made.tip {
            point_ref(&dir, &repo, tip, "committed").unwrap();
        }
        if !made.more {
            break;
        }
        assert!(calls.len() < 10, "the records never run out: {calls:?}");
    }
    assert_eq!(calls, vec![1, 1, 1]);
    assert_eq!(
        chain_on_disk(&dir),
        ["put f/2.md", "put f/1.md", "put f/0.md"]
    );
    // Without a budget, one call commits every record.
    let other = tempfile::tempdir().unwrap();
    let other = other.path().join("history.git");
    let repo = Repository::init_bare(&other).unwrap();
    std::fs::copy(dir.join(super::wal::FILE), other.join(super::wal::FILE)).unwrap();
    let made = commit_records(&repo, &other, u64::MAX).unwrap();
    assert!(!made.more);
    assert_eq!(made.entries.len(), 3);
}

#[test]
fn many_records_of_distinct_notes_share_commits_and_each_keeps_its_version() {
    use super::change::encode;
    use super::commit::commit_records;
    use super::repo::point_ref;
    use super::store::entries_of;
    use super::wal::Log;

    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("history.git");
    let repo = Repository::init_bare(&dir).unwrap();
    let mut log = Log::open(&dir).unwrap();
    // Each text differs: a version the same as the one before changes no tree.
    let made_texts = std::cell::Cell::new(0);
    let put = |path: &str| {
        made_texts.set(made_texts.get() + 1);
        Change {
            path: path.to_string(),
            text: Some(format!("text {} of {path}\n", made_texts.get()).into_bytes()),
        }
    };
    let gone = |path: &str| Change {
        path: path.to_string(),
        text: None,
    };
    let mut records: Vec<(String, Vec<Change>)> = (0..20)
        .map(|n| (format!("put f/{n}.md"), vec![put(&format!("f/{n}.md"))]))
        .collect();
    records.extend([
        // The same note again: a new commit.
        ("delete f/0.md".to_string(), vec![gone("f/0.md")]),
        ("put f/3.md".to_string(), vec![put("f/3.md")]),
        // A move stays a commit of its own.
        (
            "move f/1.md -> g/1.md".to_string(),
            vec![gone("f/1.md"), put("g/1.md")],
        ),
        // A note, then the folder of the same name: never in one tree.
        ("put x".to_string(), vec![put("x")]),
        ("delete x".to_string(), vec![gone("x")]),
        ("put x/y.md".to_string(), vec![put("x/y.md")]),
    ]);
    for (n, (message, changes)) in records.iter().enumerate() {
        let objects = encode(1_700_000_000 + n as i64, message, changes);
        log.append(&objects, Sync::Now).unwrap();
    }
    let made = commit_records(&repo, &dir, u64::MAX).unwrap();
    point_ref(&dir, &repo, made.tip.unwrap(), "committed").unwrap();
    assert_eq!(
        chain_on_disk(&dir),
        [
            "put x/y.md",
            "delete x",
            "put x",
            "move f/1.md -> g/1.md",
            "grouped 2 changes",
            "grouped 20 changes"
        ]
    );
    // Every version kept, with when and by what it was made; the commits say the same
    // when the index is made again from them.
    assert_eq!(made.entries.len(), records.len() + 1);
    let f3: Vec<i64> = made
        .entries
        .iter()
        .filter(|(path, _)| path == "f/3.md")
        .map(|(_, e)| e.at)
        .collect();
    assert_eq!(f3, [1_700_000_003, 1_700_000_021]);
    let mut rebuilt = Vec::new();
    let mut walk = repo.revwalk().unwrap();
    walk.push(made.tip.unwrap()).unwrap();
    for id in walk {
        rebuilt.extend(entries_of(&repo, id.unwrap()).unwrap());
    }
    let key = |(path, e): &(String, super::index::Entry)| (path.clone(), e.commit);
    let mut expected = made.entries.clone();
    expected.sort_by_key(key);
    rebuilt.sort_by_key(key);
    assert_eq!(rebuilt, expected);
}

#[test]
fn a_batch_is_packed_without_deltas_and_a_full_pack_makes_them() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("history.git");
    let store = open(&dir);
    // 4 KiB that zlib cannot shrink much; each note that text with one line of its own.
    let mut seed = 19u64;
    let shared: String = (0..4096)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            char::from(b"0123456789abcdef"[(seed >> 60) as usize])
        })
        .collect();
    for n in 0..40 {
        record(
            &store,
            &format!("n{n}.md"),
            &format!("note {n}\n{shared}\n"),
        );
    }
    store.with_index(|_| ()).unwrap();
    let packed = || {
        std::fs::read_dir(dir.join("objects/pack"))
            .unwrap()
            .flatten()
            .filter(|f| f.file_name().to_string_lossy().ends_with(".pack"))
            .map(|f| f.metadata().unwrap().len())
            .sum::<u64>()
    };
    // Each note stored whole (compressed, about 2 KiB each).
    let batches = packed();
    assert!(batches > 40 * 1500, "{batches} bytes: deltas were made");
    // The full pack stores them as deltas of one another.
    assert!(store.pack().unwrap());
    let full = packed();
    assert!(full < batches / 4, "{full} bytes after the full pack");
    assert_eq!(
        store
            .blob(blob(&format!("note 7\n{shared}\n")))
            .unwrap()
            .len(),
        4096 + 8
    );
}

#[test]
fn a_pass_over_many_notes_records_on_while_its_batches_commit_and_the_log_stays_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("history.git");
    let store = open(&dir);
    store.bulk(true);
    // 32 MiB of notes, twice the size at which the log is emptied.
    let texts: Vec<(String, String)> = (0..256)
        .map(|n| {
            let line = format!("note {n}, a line of its own text\n");
            (format!("f/{n}.md"), line.repeat((128 << 10) / line.len()))
        })
        .collect();
    for (path, text) in &texts {
        let change = Change {
            path: path.clone(),
            text: Some(text.clone().into_bytes()),
        };
        store
            .record_unflushed(&format!("outside-edit {path}"), &[change])
            .unwrap();
    }
    store.flush().unwrap();
    store.bulk(false);
    // The log is written again from its start once emptied: its length is the most it
    // held, well under the 32 MiB recorded.
    let log = std::fs::metadata(dir.join(super::wal::FILE)).unwrap().len();
    assert!(
        log <= super::wal::CHECKPOINT_BYTES + (6 << 20),
        "the log grew to {log} bytes"
    );
    let paths: Vec<&str> = texts.iter().map(|(path, _)| path.as_str()).collect();
    let latest = store.latest_of(&paths).unwrap();
    for ((path, text), latest) in texts.iter().zip(latest) {
        assert_eq!(latest, Some(Some(blob(text))), "{path}");
    }
}
