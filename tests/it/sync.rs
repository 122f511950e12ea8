//! `notes sync` with a real bare git remote: two notebooks, each driven through the
//! real binary, meet through it; the remote is a plain repository of the notebook;
//! a commit pushed with the git command line comes in as a recorded change; a hostile
//! pushed tree is refused and reported; an unreachable remote is one line and changes
//! nothing; the HTTP routes need a full token.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{Workspace, create_token, json, stderr, stdout};

/// A bare repository in a temp dir, its branch `main`.
pub struct Remote {
    pub dir: tempfile::TempDir,
}

impl Remote {
    pub fn new() -> Remote {
        let dir = tempfile::tempdir().unwrap();
        git_in(
            dir.path(),
            &["init", "--bare", "--quiet", "--initial-branch=main", "."],
        );
        Remote { dir }
    }

    pub fn path(&self) -> String {
        self.dir.path().to_str().unwrap().to_string()
    }

    /// A fresh `git clone` of it.
    pub fn clone_into(&self, into: &Path) -> PathBuf {
        let target = into.join("clone");
        let out = Command::new("git")
            .args(["clone", "--quiet", &self.path()])
            .arg(&target)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        target
    }

    /// `git ls-tree -r --name-only main`.
    pub fn files(&self) -> Vec<String> {
        git_in(self.dir.path(), &["ls-tree", "-r", "--name-only", "main"])
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// Runs git in `dir` (with an identity for commits), asserting it succeeds; its output.
pub fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=Third",
            "-c",
            "user.email=third@example.org",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// `notes put PATH` with `text` on standard input.
pub fn put(ws: &Workspace, path: &str, text: &str) {
    let out = ws.run_stdin(&["put", path], text.as_bytes());
    assert!(out.status.success(), "put {path}: {}", stderr(&out));
}

/// `notes sync ARGS --json`, which must succeed; its JSON.
pub fn sync(ws: &Workspace, args: &[&str]) -> Value {
    let mut all = vec!["sync"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = ws.run(&all);
    assert!(out.status.success(), "sync {args:?}: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

/// Two notebooks set up on one remote, both synced once.
pub fn pair(remote: &Remote) -> (Workspace, Workspace) {
    let (a, b) = (Workspace::new(), Workspace::new());
    sync(&a, &["--remote", &remote.path()]);
    sync(&b, &["--remote", &format!("file://{}", remote.path())]);
    (a, b)
}

/// The notes folder's files outside `.notes/`, relative path → bytes.
pub fn notebook_files(ws: &Workspace) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = walk(&ws.notes())
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(ws.notes())
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let bytes = std::fs::read(&p).unwrap();
            (rel, bytes)
        })
        .filter(|(rel, _)| !rel.starts_with(".notes/") && rel != ".public.json")
        .collect();
    files.sort();
    files
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn first_sync_both_ways_and_a_clone_is_the_notebook() {
    let remote = Remote::new();
    let (a, b) = (Workspace::new(), Workspace::new());
    put(&a, "one.md", "# One\n");
    put(&a, "ideas/two.md", "# Two\n");
    let out = a.run(&["publish", "one.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first = sync(&a, &["--remote", &remote.path()]);
    assert_eq!(first["outcome"], "ok", "{first}");
    assert_eq!(first["pushed"], 2, "{first}");
    assert_eq!(first["remote"], remote.path());
    assert!(first["last_sync"].as_str().unwrap().ends_with('Z'));

    let second = sync(&b, &["--remote", &format!("file://{}", remote.path())]);
    assert_eq!(second["pulled"], 2, "{second}");
    assert_eq!(b.read("one.md"), a.read("one.md"));
    assert_eq!(b.read("ideas/two.md"), a.read("ideas/two.md"));

    // B's note goes the other way.
    put(&b, "three.md", "# Three\n");
    assert_eq!(sync(&b, &[])["pushed"], 1);
    assert_eq!(sync(&a, &[])["pulled"], 1);
    assert_eq!(a.read("three.md"), b.read("three.md"));
    assert_eq!(notebook_files(&a), notebook_files(&b));

    // The remote is the notebook: its notes at the root, nothing of the service's.
    assert_eq!(remote.files(), ["ideas/two.md", "one.md", "three.md"]);
    let scratch = tempfile::tempdir().unwrap();
    let clone = remote.clone_into(scratch.path());
    assert_eq!(
        std::fs::read_to_string(clone.join("one.md")).unwrap(),
        a.read("one.md")
    );
    assert!(!clone.join(".notes").exists());
    assert!(!clone.join(".public.json").exists());

    // Nothing new on either side: nothing moves.
    let idle = sync(&a, &[]);
    assert_eq!(
        (idle["pulled"].clone(), idle["pushed"].clone()),
        (0.into(), 0.into())
    );
}

/// `notes sync --json` with git's trace on: its JSON and the git commands it ran
/// (with the remote side's, `upload-pack` and `receive-pack`, on a local remote).
fn traced_sync(ws: &Workspace) -> (Value, Vec<String>) {
    let trace = ws.root.path().join("git-trace.json");
    let _ = std::fs::remove_file(&trace);
    let out = ws
        .cli()
        .args(["sync", "--json"])
        .env("GIT_TRACE2_EVENT", &trace)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let ran = std::fs::read_to_string(&trace)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["event"] == "cmd_name")
        .map(|event| event["name"].as_str().unwrap_or_default().to_string())
        .collect();
    (serde_json::from_str(&stdout(&out)).unwrap(), ran)
}

#[test]
fn a_sync_with_nothing_new_asks_for_the_tip_and_fetches_nothing() {
    let remote = Remote::new();
    let (a, b) = pair(&remote);
    put(&a, "one.md", "# One\n");
    sync(&a, &[]);
    sync(&b, &[]);

    let (idle, ran) = traced_sync(&a);
    assert_eq!(
        (idle["pulled"].clone(), idle["pushed"].clone()),
        (0.into(), 0.into())
    );
    assert_eq!(idle["outcome"], "ok", "{idle}");
    assert!(ran.iter().any(|c| c == "ls-remote"), "{ran:?}");
    assert!(!ran.iter().any(|c| c == "fetch" || c == "push"), "{ran:?}");

    // A change on the remote: fetched and merged.
    put(&b, "two.md", "# Two\n");
    sync(&b, &[]);
    let (pulled, ran) = traced_sync(&a);
    assert_eq!(pulled["pulled"], 1, "{pulled}");
    assert!(ran.iter().any(|c| c == "fetch"), "{ran:?}");
    assert_eq!(a.read("two.md"), b.read("two.md"));

    // A change here: pushed.
    put(&a, "one.md", "# One, again\n");
    let (pushed, ran) = traced_sync(&a);
    assert_eq!(pushed["pushed"], 1, "{pushed}");
    assert!(ran.iter().any(|c| c == "push"), "{ran:?}");
    let (_, ran) = traced_sync(&a);
    assert!(!ran.iter().any(|c| c == "fetch" || c == "push"), "{ran:?}");
}

#[test]
fn a_commit_pushed_with_git_is_merged_and_recorded() {
    let remote = Remote::new();
    let (a, _b) = pair(&remote);
    put(&a, "a.md", "# A\n\nfirst\n");
    sync(&a, &[]);

    let scratch = tempfile::tempdir().unwrap();
    let clone = remote.clone_into(scratch.path());
    let text = std::fs::read_to_string(clone.join("a.md")).unwrap();
    std::fs::write(
        clone.join("a.md"),
        text.replace("first", "first, from a laptop"),
    )
    .unwrap();
    std::fs::create_dir_all(clone.join("trips")).unwrap();
    std::fs::write(clone.join("trips/rome.md"), "# Rome\n").unwrap();
    git_in(&clone, &["add", "-A"]);
    git_in(&clone, &["commit", "--quiet", "-m", "edits on a laptop"]);
    git_in(&clone, &["push", "--quiet", "origin", "main"]);

    let status = sync(&a, &[]);
    assert_eq!(status["pulled"], 2, "{status}");
    assert_eq!(
        a.read("a.md"),
        text.replace("first", "first, from a laptop")
    );
    assert_eq!(a.read("trips/rome.md"), "# Rome\n");
    // Recorded in the history as a change a sync brought.
    let out = a.run(&["history", "a.md", "--json"]);
    let history: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(history["versions"][0]["operation"], "sync", "{history}");
    let out = a.run(&["history", "trips/rome.md", "--json"]);
    let history: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(history["versions"][0]["operation"], "sync", "{history}");
    // And the laptop's commit is an ancestor of what the remote holds now.
    let laptop = git_in(&clone, &["rev-parse", "HEAD"]);
    git_in(
        remote.dir.path(),
        &["merge-base", "--is-ancestor", laptop.trim(), "main"],
    );
}

/// Writes `bytes` as a blob of the bare repository `git_dir`; its id.
fn blob(git_dir: &Path, bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .args(["hash-object", "-w", "--stdin"])
        .current_dir(git_dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    stdout(&out).trim().to_string()
}

/// `git mktree` of `entries` (`MODE TYPE ID\tNAME` lines); the tree's id.
fn mktree(git_dir: &Path, entries: &[String]) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .args(["mktree"])
        .current_dir(git_dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let text: String = entries.iter().map(|e| format!("{e}\n")).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    stdout(&out).trim().to_string()
}

#[test]
fn a_hostile_pushed_tree_is_refused_reported_and_kept_on_the_remote() {
    let remote = Remote::new();
    let (a, _b) = pair(&remote);
    let git_dir = remote.dir.path();
    let text = blob(git_dir, b"# Planted\n");
    let target = blob(git_dir, b"/etc/passwd");
    let inner = mktree(git_dir, &[format!("100644 blob {text}\tx.md")]);
    let hidden = mktree(git_dir, &[format!("100644 blob {text}\t.hidden.md")]);
    let long = format!("{}.md", "n".repeat(300));
    let top = mktree(
        git_dir,
        &[
            format!("040000 tree {inner}\t.notes"),
            format!("040000 tree {hidden}\ta"),
            format!("120000 blob {target}\tlink.md"),
            format!("100644 blob {text}\t{long}"),
            format!("100644 blob {text}\tok.md"),
        ],
    );
    let commit = git_in(git_dir, &["commit-tree", &top, "-m", "hostile"]);
    git_in(git_dir, &["update-ref", "refs/heads/main", commit.trim()]);

    let status = sync(&a, &[]);
    assert_eq!(status["outcome"], "ok", "{status}");
    let refused: Vec<&str> = status["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(refused.len(), 4, "{status}");
    for path in [".notes/x.md", "a/.hidden.md", "link.md", long.as_str()] {
        assert!(
            refused.iter().any(|r| r.starts_with(&format!("{path}: "))),
            "{path} not reported: {refused:?}"
        );
    }
    // Only the plain note is written.
    assert_eq!(a.read("ok.md"), "# Planted\n");
    assert!(!a.notes().join(".notes/x.md").exists());
    assert!(!a.notes().join("a").exists());
    assert!(std::fs::symlink_metadata(a.notes().join("link.md")).is_err());
    // The next push carries them over as they are.
    put(&a, "mine.md", "# Mine\n");
    sync(&a, &[]);
    let files = remote.files();
    for path in [".notes/x.md", "a/.hidden.md", "link.md", "mine.md", "ok.md"] {
        assert!(
            files.iter().any(|f| f == path),
            "{path} not kept: {files:?}"
        );
    }
}

#[test]
fn an_unreachable_remote_is_one_line_and_changes_nothing() {
    let a = Workspace::new();
    put(&a, "a.md", "# A\n");
    let out = a.run(&["sync"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim(),
        "error: No sync remote is set: run `notes sync --remote URL` once"
    );

    let before = notebook_files(&a);
    let gone = a.root.path().join("nowhere/notes.git");
    let out = a.run(&["sync", "--remote", gone.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("Sync failed: cannot fetch from"), "{err}");
    assert_eq!(notebook_files(&a), before);

    // A URL with credentials is never shown.
    let out = a.run(&[
        "sync",
        "--remote",
        "http://ann:secret@127.0.0.1:9/notes.git",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!stderr(&out).contains("secret"), "{}", stderr(&out));
    let out = a.run(&["sync", "--status", "--json"]);
    let status: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(status["remote"], "http://127.0.0.1:9/notes.git");
    assert_eq!(status["outcome"], "failed");
    assert!(!status.to_string().contains("secret"), "{status}");
    assert_eq!(notebook_files(&a), before);
}

#[test]
fn the_sync_routes_need_a_full_token() {
    let remote = Remote::new();
    let a = Workspace::new();
    let full = create_token(&a, &["--name", "full"]);
    let reader = create_token(&a, &["--name", "reader", "--read-only"]);
    let server = a.serve();
    let bearer = |token: &str| format!("Bearer {token}");

    // No remote yet: 409.
    let r = server
        .request("POST", "/api/v1/sync")
        .header("Authorization", bearer(&full))
        .send()
        .unwrap();
    let (status, body) = json(r);
    assert_eq!(status, 409, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("No sync remote"),
        "{body}"
    );

    for method in ["GET", "POST"] {
        let r = server
            .request(method, "/api/v1/sync")
            .header("Authorization", bearer(&reader))
            .send()
            .unwrap();
        let (status, body) = json(r);
        assert_eq!(status, 403, "{method}: {body}");
    }

    let put = server
        .request("PUT", "/api/v1/notes/a.md")
        .header("Authorization", bearer(&full))
        .header("Content-Type", "text/markdown")
        .body("# A\n")
        .send()
        .unwrap();
    assert!(put.status().is_success());
    // The remote set from the command line; the running server syncs.
    let out = a
        .cli()
        .env("NOTES_TOKEN", &full)
        .args(["sync", "--remote", &remote.path(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let answered: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answered["outcome"], "ok", "{answered}");
    assert_eq!(remote.files(), ["a.md"]);

    let r = server
        .request("GET", "/api/v1/sync")
        .header("Authorization", bearer(&full))
        .send()
        .unwrap();
    let (status, body) = json(r);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["remote"], remote.path());
    assert_eq!(body["outcome"], "ok");
    assert_eq!(body["conflicts"], serde_json::json!([]));
}

/// Whether the remote's `main` holds `path` (false while it has no `main`).
fn remote_has(remote: &Remote, path: &str) -> bool {
    let out = Command::new("git")
        .args(["cat-file", "-e", &format!("main:{path}")])
        .current_dir(remote.dir.path())
        .output()
        .unwrap();
    out.status.success()
}

#[test]
fn serve_syncs_in_the_background_after_writes_and_on_its_period() {
    use std::time::Duration;
    let remote = Remote::new();
    let a = Workspace::new();
    sync(&a, &["--remote", &remote.path()]);
    let server = a.serve_with(&["--sync-every", "1s"]);
    let r = server.put_markdown("/api/v1/notes/bg.md", "# Background\n");
    assert!(r.status().is_success(), "{}", r.status());
    assert!(
        crate::support::eventually(Duration::from_secs(30), || remote_has(&remote, "bg.md")),
        "bg.md never pushed: {}",
        server.log()
    );

    // A commit pushed elsewhere comes in on the next period, and the API serves it.
    let scratch = tempfile::tempdir().unwrap();
    let clone = remote.clone_into(scratch.path());
    std::fs::write(clone.join("elsewhere.md"), "# Elsewhere\n").unwrap();
    git_in(&clone, &["add", "-A"]);
    git_in(&clone, &["commit", "--quiet", "-m", "from elsewhere"]);
    git_in(&clone, &["push", "--quiet", "origin", "main"]);
    assert!(
        crate::support::eventually(Duration::from_secs(30), || {
            server.get("/api/v1/notes/elsewhere.md").status() == 200
        }),
        "elsewhere.md never pulled: {}",
        server.log()
    );
    assert_eq!(a.read("elsewhere.md"), "# Elsewhere\n");
    let (status, body) = json(server.get("/api/v1/sync"));
    assert_eq!(status, 200);
    assert_eq!(body["outcome"], "ok", "{body}");
}
