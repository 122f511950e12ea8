//! Sync under faults: `kill -9` of `notes sync` at several points leaves every note
//! whole and the next sync converges; a push that loses a race with another machine's
//! push (at the remote, or after the fetch) is retried and keeps both changes; API
//! writes made while a sync runs are neither lost nor reverted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{
    Workspace, clone, commit_and_push, git, git_present, init_bare, json, notebook_files, show,
    stderr, sync_ok,
};

/// Filler lines, so that edits at a note's top and bottom merge cleanly.
fn filler(i: usize) -> String {
    (1..=8).map(|k| format!("line {k} of note {i}\n")).collect()
}

/// `count` notes `n/NNNN.md` in the clone `work`, committed and pushed.
fn seed(work: &Path, count: usize) {
    for i in 0..count {
        let path = work.join(format!("n/{i:04}.md"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("# Note {i}\n\n{}", filler(i))).unwrap();
    }
    commit_and_push(work, "seed");
}

/// Appends `line` to the file `rel` of the clone `work`.
fn append(work: &Path, rel: &str, line: &str) {
    let path = work.join(rel);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(line);
    text.push('\n');
    std::fs::write(&path, text).unwrap();
}

/// The working files of a git clone (outside `.git`), path → bytes.
fn clone_files(work: &Path) -> BTreeMap<String, Vec<u8>> {
    git(work, &["ls-files"])
        .lines()
        .map(|rel| (rel.to_string(), std::fs::read(work.join(rel)).unwrap()))
        .collect()
}

/// Runs `notes sync` on `ws` and kills it with the git it runs (SIGKILL to its process
/// group, as a power cut would) once `ready` holds; whether it was still running then
/// (it may finish first).
fn sync_killed_when(ws: &Workspace, mut ready: impl FnMut() -> bool) -> bool {
    use std::os::unix::process::CommandExt;
    let mut child = ws
        .cli()
        .arg("sync")
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if ready() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the sync neither ended nor got there"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let running = child.try_wait().unwrap().is_none();
    // SAFETY: a plain signal to the group the child leads (not yet reaped, so its id
    // is still its own).
    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
    child.wait().unwrap();
    running
}

/// Where `kill -9` lands: by what the notebook shows of the sync's progress.
#[derive(Clone, Copy, Debug)]
enum Point {
    /// Soon after the start: fetching, or planning.
    Start,
    /// Once the first of the remote's changed notes is written here.
    FirstWrite,
    /// Once half of them are.
    Half,
    /// Once all are: the push is next.
    AllWritten,
}

/// A bare remote, a plain clone of it (`laptop`) that pushed `count` notes, and a
/// notebook synced with it; the scratch dir (kept while it is held) holds the first two.
fn seeded(count: usize) -> (tempfile::TempDir, PathBuf, Workspace) {
    let scratch = tempfile::tempdir().unwrap();
    let bare = scratch.path().join("remote.git");
    let work = scratch.path().join("laptop");
    init_bare(&bare);
    clone(bare.to_str().unwrap(), &work);
    seed(&work, count);
    let ws = Workspace::new();
    sync_ok(&ws, &["--remote", bare.to_str().unwrap()]);
    (scratch, work, ws)
}

#[test]
fn kill_9_at_any_point_of_a_sync_leaves_every_note_whole_and_the_next_sync_converges() {
    if !git_present() {
        return;
    }
    const NOTES: usize = 600;
    let (_scratch, work, ws) = seeded(NOTES);
    assert_eq!(notebook_files(&ws), clone_files(&work));

    let mut killed_running = 0;
    let points = [
        Point::Start,
        Point::FirstWrite,
        Point::Half,
        Point::AllWritten,
    ];
    for (round, point) in points.into_iter().enumerate() {
        // The laptop (plain git) edits a third of the notes at the bottom, adds some and
        // deletes a few; this machine edits others, and some of the laptop's at the top.
        let before = notebook_files(&ws);
        let mut theirs = Vec::new();
        for i in (round % 3..NOTES).step_by(3) {
            let rel = format!("n/{i:04}.md");
            if work.join(&rel).exists() {
                append(&work, &rel, &format!("laptop edit {round}"));
                theirs.push(rel);
            }
        }
        for k in 0..40 {
            let rel = format!("r{round}/new-{k}.md");
            std::fs::create_dir_all(work.join(format!("r{round}"))).unwrap();
            std::fs::write(work.join(&rel), format!("# New {k}\n\nround {round}\n")).unwrap();
            theirs.push(rel);
        }
        let gone: Vec<String> = (0..3)
            .map(|k| format!("n/{:04}.md", (round + 1) % 3 + 3 * (round * 5 + k)))
            .collect();
        for rel in &gone {
            std::fs::remove_file(work.join(rel)).unwrap();
        }
        commit_and_push(&work, &format!("laptop round {round}"));
        let laptop = clone_files(&work);

        // Local edits: notes the laptop left alone, and two it edited (at the top).
        let mut ours = BTreeMap::new();
        let mine: Vec<usize> = (0..4)
            .map(|k| (round + 2) % 3 + 3 * (round * 7 + k + 40))
            .collect();
        let both: Vec<usize> = (0..2)
            .map(|k| round % 3 + 3 * (round * 7 + k + 80))
            .collect();
        for &i in mine.iter().chain(&both) {
            let rel = format!("n/{i:04}.md");
            // A new title line, the rest as this machine has it.
            let text = ws.read(&rel).replacen(
                &format!("# Note {i}\n"),
                &format!("# Note {i} (machine {round})\n"),
                1,
            );
            assert!(text.contains("(machine"), "{rel}: {text}");
            let out = ws.run_stdin(&["put", "--quiet", &rel], text.as_bytes());
            assert!(out.status.success(), "{}", stderr(&out));
            ours.insert(rel.clone(), ws.read(&rel));
        }
        let both: Vec<String> = both.iter().map(|i| format!("n/{i:04}.md")).collect();

        // The notes written by the sync, for the kill points that count them.
        let pulled: Vec<String> = theirs
            .iter()
            .filter(|rel| !both.contains(rel))
            .cloned()
            .collect();
        let written = |ws: &Workspace| {
            pulled
                .iter()
                .filter(|rel| std::fs::read(ws.notes().join(rel)).ok().as_ref() == laptop.get(*rel))
                .count()
        };
        let started = Instant::now();
        let running = sync_killed_when(&ws, || match point {
            Point::Start => started.elapsed() >= Duration::from_millis(30),
            Point::FirstWrite => written(&ws) >= 1,
            Point::Half => written(&ws) >= pulled.len() / 2,
            Point::AllWritten => written(&ws) == pulled.len(),
        });
        killed_running += usize::from(running);
        eprintln!(
            "round {round}: killed at {point:?} after {:?}, {} of {} notes written{}",
            started.elapsed(),
            written(&ws),
            pulled.len(),
            if running { "" } else { " (it had ended)" }
        );

        // Every note is whole: one of the versions it had, or (edited on both sides)
        // a merge holding both edits.
        let now = notebook_files(&ws);
        let paths: std::collections::BTreeSet<&String> = now
            .keys()
            .chain(before.keys())
            .chain(laptop.keys())
            .collect();
        for rel in paths {
            let got = now.get(rel);
            let mut allowed = vec![before.get(rel), laptop.get(rel)];
            let own = ours.get(rel).map(|t| t.as_bytes().to_vec());
            allowed.push(own.as_ref());
            if allowed.contains(&got) {
                continue;
            }
            let text = String::from_utf8_lossy(got.unwrap()).into_owned();
            assert!(
                both.contains(rel)
                    && text.contains(&format!("(machine {round})"))
                    && text.contains(&format!("laptop edit {round}"))
                    && text.contains(&filler(rel[2..6].parse().unwrap())),
                "round {round}, killed at {point:?}: {rel} is none of its versions:\n{text}"
            );
        }

        // The next sync converges: both sides' edits here, then on the laptop.
        let status = sync_ok(&ws, &[]);
        assert_eq!(status["conflicts"], serde_json::json!([]), "{status}");
        git(&work, &["pull", "--quiet", "--ff-only", "origin", "main"]);
        assert_eq!(notebook_files(&ws), clone_files(&work), "round {round}");
        for (rel, text) in &ours {
            let text = text.as_str();
            let now = ws.read(rel);
            if both.contains(rel) {
                assert!(
                    now.contains(&format!("laptop edit {round}")),
                    "{rel}: {now}"
                );
                assert!(now.contains(&format!("(machine {round})")), "{rel}: {now}");
            } else {
                assert_eq!(now, text, "{rel}");
            }
        }
        for rel in &gone {
            assert!(!ws.notes().join(rel).exists(), "{rel}");
        }
    }
    // The kills landed while the sync ran (not after it ended) at least twice.
    assert!(
        killed_running >= 2,
        "only {killed_running} kills hit a running sync"
    );
}

/// A bare remote whose `pre-receive` hook, the first time, lets `third` (a clone with
/// a commit ready) push first: the push being received then fails to update its ref,
/// as when two machines push at once.
fn race_at_the_remote(bare: &Path, third: &Path) {
    let hook = bare.join("hooks/pre-receive");
    let once = bare.join("raced");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\n\
             cat >/dev/null\n\
             if mkdir '{once}' 2>/dev/null; then\n  \
               for v in $(env | sed -n 's/^\\(GIT_[A-Z_]*\\)=.*/\\1/p'); do unset \"$v\"; done\n  \
               git -C '{third}' push --quiet origin HEAD:main >&2 || exit 1\n\
             fi\n\
             exit 0\n",
            once = once.display(),
            third = third.display(),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// Both races: `at_the_remote` (the other push lands while this one is received) or
/// after this machine's fetch (the remote's upload-pack, once, lets the other push
/// when it is done).
fn a_lost_race_is_retried(at_the_remote: bool) {
    let scratch = tempfile::tempdir().unwrap();
    let bare = scratch.path().join("remote.git");
    let third = scratch.path().join("phone");
    init_bare(&bare);
    let ws = Workspace::new();
    let out = ws.run_stdin(&["put", "--quiet", "a.md"], b"# A\n\nfirst\n");
    assert!(out.status.success(), "{}", stderr(&out));
    sync_ok(&ws, &["--remote", bare.to_str().unwrap()]);

    // The phone's commit, ready to push.
    clone(bare.to_str().unwrap(), &third);
    std::fs::write(third.join("phone.md"), "# Phone\n\nfrom the phone\n").unwrap();
    git(&third, &["add", "-A"]);
    git(&third, &["commit", "--quiet", "-m", "phone"]);
    let marker = if at_the_remote {
        race_at_the_remote(&bare, &third);
        bare.join("raced")
    } else {
        // git runs `remote.origin.uploadpack` for a fetch from a folder.
        let script = scratch.path().join("upload-pack");
        let once = scratch.path().join("raced");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\n\
                 git upload-pack \"$@\"\n\
                 status=$?\n\
                 if mkdir '{once}' 2>/dev/null; then\n  \
                   for v in $(env | sed -n 's/^\\(GIT_[A-Z_]*\\)=.*/\\1/p'); do unset \"$v\"; done\n  \
                   git -C '{third}' push --quiet origin HEAD:main >&2 || exit 1\n\
                 fi\n\
                 exit $status\n",
                once = once.display(),
                third = third.display(),
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let store = ws.notes().join(".notes/history.git");
        let out = crate::support::git_command()
            .arg("--git-dir")
            .arg(&store)
            .args(["config", "remote.origin.uploadpack"])
            .arg(&script)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        once
    };

    let out = ws.run_stdin(
        &["put", "--quiet", "a.md"],
        b"# A\n\nfirst\n\nedited here\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let status = sync_ok(&ws, &[]);
    assert!(marker.exists(), "the other push did not happen: {status}");
    // Both changes: here, on the remote, and on the phone after a pull.
    assert!(ws.read("phone.md").contains("from the phone"), "{status}");
    assert!(
        show(&bare, "a.md").is_some_and(|t| t.contains("edited here")),
        "{status}"
    );
    assert!(show(&bare, "phone.md").is_some_and(|t| t.contains("from the phone")));
    git(&third, &["pull", "--quiet", "--ff-only", "origin", "main"]);
    assert_eq!(notebook_files(&ws), clone_files(&third));
}

#[test]
fn a_push_that_loses_a_race_at_the_remote_is_retried_and_keeps_both_changes() {
    if git_present() {
        a_lost_race_is_retried(true);
    }
}

#[test]
fn a_push_refused_as_another_machine_pushed_after_the_fetch_is_retried() {
    if git_present() {
        a_lost_race_is_retried(false);
    }
}

/// Inserts `line` after the first line of `text`.
fn insert_after_title(text: &str, line: &str) -> String {
    match text.split_once('\n') {
        Some((title, rest)) => format!("{title}\n{line}\n{rest}"),
        None => format!("{text}\n{line}\n"),
    }
}

#[test]
fn api_writes_during_a_sync_are_neither_lost_nor_reverted() {
    if !git_present() {
        return;
    }
    const NOTES: usize = 600;
    let (_scratch, work, ws) = seeded(NOTES);
    // The laptop edits every other note at the bottom: a sync that takes a while.
    for i in (0..NOTES).step_by(2) {
        append(&work, &format!("n/{i:04}.md"), "laptop edit");
    }
    commit_and_push(&work, "laptop");

    let server = ws.serve();
    let base = server.base.clone();
    let syncing = std::thread::spawn(move || {
        let client = crate::support::http_client(Duration::from_secs(300));
        let response = client.post(format!("{base}/api/v1/sync")).send().unwrap();
        json(response)
    });
    // Read, add a line at the top, write back with If-Match, while the sync runs:
    // notes the sync changes and notes it leaves, and new notes.
    let mut written: Vec<(String, String)> = Vec::new();
    let mut during = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    for k in 0..3000 {
        let finished = syncing.is_finished();
        if finished && (during == 0 || written.len() >= 20) {
            break;
        }
        assert!(Instant::now() < deadline, "the sync did not end");
        let token = format!("api edit {k}");
        if k % 3 == 2 {
            let rel = format!("api/{k}.md");
            let body = serde_json::json!({"content": format!("# Api {k}\n\n{token}\n")});
            let r = server.put_json(&format!("/api/v1/notes/{rel}"), &body.to_string());
            assert_eq!(r.status().as_u16(), 201, "{rel}");
            written.push((rel, token));
        } else {
            let rel = format!("n/{:04}.md", (k * 7) % NOTES);
            let mut stored = false;
            for _ in 0..20 {
                let r = server
                    .request("GET", &format!("/api/v1/notes/{rel}"))
                    .header("Accept", "text/markdown")
                    .send()
                    .unwrap();
                assert_eq!(r.status().as_u16(), 200, "{rel}");
                let etag = r.headers()["etag"].to_str().unwrap().to_string();
                let text = insert_after_title(&r.text().unwrap(), &token);
                let body = serde_json::json!({ "content": text });
                let r = server
                    .request("PUT", &format!("/api/v1/notes/{rel}"))
                    .header("Content-Type", "application/json")
                    .header("If-Match", etag)
                    .body(body.to_string())
                    .send()
                    .unwrap();
                match r.status().as_u16() {
                    200 => {
                        stored = true;
                        break;
                    }
                    // The sync wrote it meanwhile: read again.
                    412 => continue,
                    other => panic!("{rel}: {other}"),
                }
            }
            assert!(stored, "{rel} kept changing");
            written.push((rel, token));
        }
        if !finished {
            during += 1;
        }
    }
    let (code, status) = syncing.join().unwrap();
    assert_eq!(code, 200, "{status}");
    assert!(during >= 5, "only {during} writes landed during the sync");

    // A second sync sends what was written during the first.
    let (code, status) = json(server.request("POST", "/api/v1/sync").send().unwrap());
    assert_eq!(code, 200, "{status}");
    assert_eq!(status["conflicts"], serde_json::json!([]), "{status}");
    git(&work, &["pull", "--quiet", "--ff-only", "origin", "main"]);
    for (rel, token) in &written {
        let here = ws.read(rel);
        assert!(
            here.contains(&format!("{token}\n")),
            "{rel} lost {token:?}:\n{here}"
        );
        let there = std::fs::read_to_string(work.join(rel)).unwrap();
        assert!(
            there.contains(&format!("{token}\n")),
            "remote {rel} lost {token:?}"
        );
    }
    for i in (0..NOTES).step_by(2) {
        let rel = format!("n/{i:04}.md");
        assert!(ws.read(&rel).contains("laptop edit"), "{rel} reverted");
    }
    assert_eq!(notebook_files(&ws), clone_files(&work));
}
