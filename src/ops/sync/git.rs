//! The transport: the `git` command line, run on the history store
//! (`git --git-dir .notes/history.git`) with `GIT_TERMINAL_PROMPT=0`, so every
//! transport works with the user's own ssh keys, agent, `~/.ssh/config`,
//! `known_hosts` and credential helpers. Also the remote's URL (the store's own git
//! config, remote `origin`) and its display with credentials stripped.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::error::{Error, Result};

/// The remote's name in the store's git config.
pub(super) const REMOTE: &str = "origin";
/// Where the remote's `main` is fetched.
pub(super) const REMOTE_REF: &str = "refs/sync/remote";
/// The last merge commit a sync made (pushed, or to be pushed by the next sync).
pub(super) const LOCAL_REF: &str = "refs/sync/local";

/// The longest a fetch or a push may take.
const GIT_TIMEOUT: Duration = Duration::from_secs(300);

/// What a push ended with.
pub(super) enum Pushed {
    Done,
    /// Another machine pushed first: fetch, merge and try again.
    Rejected,
}

/// The program run: `git` from `PATH`.
fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .arg("--git-dir")
        .arg(dir)
        // The store is packed by the service (`ops/history/pack`), never by git.
        .args(["-c", "gc.auto=0", "-c", "maintenance.auto=false"])
        .env("GIT_TERMINAL_PROMPT", "0")
        // The messages parsed below are git's English ones.
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

struct Ran {
    ok: bool,
    stdout: String,
    stderr: String,
}

/// Runs `command`, killed past `GIT_TIMEOUT`.
fn run(mut command: Command) -> Result<Ran> {
    let child = command.spawn().map_err(|e| {
        Error::SyncFailed(format!(
            "cannot run git (is it installed and on PATH?): {e}"
        ))
    })?;
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = match rx.recv_timeout(GIT_TIMEOUT) {
        Ok(output) => output.map_err(|e| Error::SyncFailed(format!("git failed: {e}")))?,
        Err(_) => {
            if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
            return Err(Error::SyncFailed(format!(
                "git took longer than {} s",
                GIT_TIMEOUT.as_secs()
            )));
        }
    };
    Ok(Ran {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

/// Fetches the remote's `main` into `REMOTE_REF`; `false` when the remote has no
/// `main` yet (an empty repository).
pub(super) fn fetch(dir: &Path) -> Result<bool> {
    let mut command = git(dir);
    command.args([
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        REMOTE,
        &format!("+refs/heads/main:{REMOTE_REF}"),
    ]);
    let ran = run(command)?;
    if ran.ok {
        return Ok(true);
    }
    if ran.stderr.contains("couldn't find remote ref") {
        return Ok(false);
    }
    Err(Error::SyncFailed(format!(
        "cannot fetch from {}: {}",
        shown_remote(dir).unwrap_or_default(),
        one_line(&ran.stderr)
    )))
}

/// The remote's `main` as it is now (`git ls-remote`: no objects move, so git checks
/// no connectivity); `None` when it cannot be told (no branch, no answer).
pub(super) fn remote_tip(dir: &Path) -> Option<git2::Oid> {
    let mut command = git(dir);
    command.args(["ls-remote", "--quiet", REMOTE, "refs/heads/main"]);
    let ran = run(command).ok().filter(|ran| ran.ok)?;
    let id = ran.stdout.split_whitespace().next()?;
    git2::Oid::from_str(id).ok()
}

/// Pushes commit `commit` to the remote's `main`, never forced.
pub(super) fn push(dir: &Path, commit: git2::Oid) -> Result<Pushed> {
    let mut command = git(dir);
    command.args([
        "push",
        "--porcelain",
        "--quiet",
        REMOTE,
        &format!("{commit}:refs/heads/main"),
    ]);
    let ran = run(command)?;
    if ran.ok {
        return Ok(Pushed::Done);
    }
    let rejected = ran
        .stdout
        .lines()
        .any(|line| line.starts_with('!') && lost_race(line))
        || ran.stderr.lines().any(lost_race);
    if rejected {
        return Ok(Pushed::Rejected);
    }
    Err(Error::SyncFailed(format!(
        "cannot push to {}: {}",
        shown_remote(dir).unwrap_or_default(),
        one_line(&format!("{}\n{}", ran.stderr, ran.stdout))
    )))
}

/// Whether a push's refusal says another push got there first: not a fast-forward
/// (`[rejected]`), or the remote could not move its branch because another push held
/// or moved it meanwhile (`[remote rejected] (failed to update ref)`, `cannot lock
/// ref`). A hook's or a host's refusal is not a race: it is reported.
fn lost_race(line: &str) -> bool {
    line.contains("[rejected]")
        || (line.contains("[remote rejected]")
            && [
                "failed to update ref",
                "cannot lock ref",
                "failed to lock",
                "incorrect old value",
            ]
            .iter()
            .any(|why| line.contains(why)))
}

/// The remote's URL as stored (credentials included: git needs them).
pub(super) fn remote_url(dir: &Path) -> Option<String> {
    let repo = git2::Repository::open_bare(dir).ok()?;
    let config = repo.config().ok()?;
    let url = config.get_string(&format!("remote.{REMOTE}.url")).ok()?;
    (!url.trim().is_empty()).then_some(url)
}

/// The remote's URL with its credentials stripped.
pub(super) fn shown_remote(dir: &Path) -> Option<String> {
    remote_url(dir).map(|url| redact(&url))
}

/// Stores `url` as the remote (a relative path is made absolute first: the server may
/// run from another folder).
pub(super) fn set_remote(dir: &Path, url: &str) -> Result<()> {
    let url = url.trim();
    if url.is_empty() || url.starts_with('-') || url.contains('\n') {
        return Err(Error::SyncInvalidRemote(redact(url)));
    }
    let stored = if is_local_path(url) {
        std::path::absolute(url)
            .map_err(|_| Error::SyncInvalidRemote(redact(url)))?
            .to_string_lossy()
            .into_owned()
    } else {
        url.to_string()
    };
    let repo = git2::Repository::open_bare(dir)
        .map_err(|e| Error::HistoryFailed(crate::error::Cause::new("cannot open the store", e)))?;
    let mut config = repo
        .config()
        .and_then(|c| c.open_level(git2::ConfigLevel::Local))
        .map_err(|e| Error::HistoryFailed(crate::error::Cause::new("cannot open its config", e)))?;
    config
        .set_str(&format!("remote.{REMOTE}.url"), &stored)
        .map_err(|e| Error::HistoryFailed(crate::error::Cause::new("cannot write its config", e)))
}

/// A path rather than a URL: no `scheme://`, and not scp's `host:path`.
fn is_local_path(url: &str) -> bool {
    if url.contains("://") {
        return false;
    }
    let head = url.split('/').next().unwrap_or(url);
    !head.contains(':')
}

/// `text` with the user information of every URL in it removed
/// (`https://user:secret@host/x` → `https://host/x`).
pub(crate) fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c == '/' || c.is_whitespace() || c == '\'' || c == '"')
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(user_end) => out.push_str(&authority[user_end + 1..]),
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The line of git's output that says what went wrong, credentials stripped.
fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let line = lines
        .iter()
        .find(|l| l.starts_with("fatal:"))
        .or_else(|| lines.iter().find(|l| l.starts_with("error:")))
        .or(lines.last())
        .copied()
        .unwrap_or("git failed");
    let line = line
        .strip_prefix("fatal: ")
        .or_else(|| line.strip_prefix("error: "))
        .unwrap_or(line);
    redact(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_that_lost_a_race_is_told_from_a_refusal() {
        assert!(lost_race(
            "!\tabc:refs/heads/main\t[rejected] (fetch first)"
        ));
        assert!(lost_race(
            "!\tabc:refs/heads/main\t[remote rejected] (failed to update ref)"
        ));
        assert!(!lost_race(
            "!\tabc:refs/heads/main\t[remote rejected] (pre-receive hook declined)"
        ));
    }

    #[test]
    fn credentials_are_stripped() {
        assert_eq!(redact("https://u:p@host/x.git"), "https://host/x.git");
        assert_eq!(redact("https://tok@host"), "https://host");
        assert_eq!(
            redact("unable to access 'https://a:b@h/r/': refused"),
            "unable to access 'https://h/r/': refused"
        );
        assert_eq!(redact("/srv/notes.git"), "/srv/notes.git");
        assert_eq!(redact("git@host:notes.git"), "git@host:notes.git");
    }

    #[test]
    fn paths_and_urls_are_told_apart() {
        assert!(is_local_path("../remote.git"));
        assert!(is_local_path("/srv/r.git"));
        assert!(!is_local_path("file:///srv/r.git"));
        assert!(!is_local_path("git@host:r.git"));
        assert!(!is_local_path("ssh://h/r.git"));
    }

    #[test]
    fn the_fatal_line_is_kept() {
        assert_eq!(
            one_line("hint: x\nfatal: 'nowhere' does not appear to be a git repository\n"),
            "'nowhere' does not appear to be a git repository"
        );
    }
}
