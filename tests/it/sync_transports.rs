//! Sync over the transports a user has: `ssh://` through a local `sshd` with the
//! user's own ssh set-up (a home folder's `~/.ssh/config`, key and known hosts),
//! `git://` through `git daemon`, `https://` through `git http-backend` over TLS with
//! the user's credential helper, and failures: an unreachable remote is one
//! line and changes nothing, and credentials in a remote's URL are never shown.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::support::{
    GitDaemon, HttpsRemote, Sshd, Workspace, eventually, git, git_present, init_bare, json,
    notebook_files, programs, show, stderr, stdout, sync_ok_with, sync_with,
};

/// Puts `text` at `note` through the CLI.
fn put(ws: &Workspace, note: &str, text: &str) {
    let out = ws.run_stdin(&["put", "--quiet", note], text.as_bytes());
    assert!(out.status.success(), "put {note}: {}", stderr(&out));
}

/// Two notebooks on one remote at `url`: a note made on each side reaches the other,
/// and an edit goes each way; `cli` makes the command a side runs with (its
/// environment: the user's home for ssh). `bare` is the remote's folder, read with git.
fn an_edit_syncs_both_ways(url: &str, bare: &Path, cli: impl Fn(&Workspace) -> Command) {
    let a = Workspace::new();
    let b = Workspace::new();
    put(&a, "a.md", "# A\n\nfrom a\n");
    put(&a, "ideas/b.md", "# B\n\nfirst\n");
    let status = sync_ok_with(cli(&a), &["--remote", url]);
    assert_eq!(status["remote"], url, "{status}");
    assert!(status["last_sync"].is_string(), "{status}");
    // The remote's main holds the notes at its root, nothing of `.notes/`.
    assert_eq!(show(bare, "a.md").as_deref(), Some(a.read("a.md").as_str()));
    assert_eq!(
        show(bare, "ideas/b.md").as_deref(),
        Some(a.read("ideas/b.md").as_str())
    );
    let tree = git(bare, &["ls-tree", "-r", "--name-only", "main"]);
    assert!(!tree.contains(".notes"), "{tree}");

    put(&b, "from-b.md", "# From B\n\nhello\n");
    sync_ok_with(cli(&b), &["--remote", url]);
    assert_eq!(b.read("a.md"), a.read("a.md"));
    assert_eq!(b.read("ideas/b.md"), a.read("ideas/b.md"));

    // B edits, A pulls it.
    put(&b, "a.md", "# A\n\nfrom a\n\nedited on b\n");
    sync_ok_with(cli(&b), &[]);
    let pulled = sync_ok_with(cli(&a), &[]);
    assert!(a.read("a.md").contains("edited on b"), "{pulled}");
    assert_eq!(a.read("from-b.md"), b.read("from-b.md"));

    // A edits, B pulls it.
    put(&a, "ideas/b.md", "# B\n\nfirst\n\nedited on a\n");
    sync_ok_with(cli(&a), &[]);
    sync_ok_with(cli(&b), &[]);
    assert!(b.read("ideas/b.md").contains("edited on a"));
    assert_eq!(notebook_files(&a), notebook_files(&b));

    let status = sync_ok_with(cli(&b), &["--status"]);
    assert_eq!(status["remote"], url, "{status}");
    assert_eq!(status["error"], Value::Null, "{status}");
    assert_eq!(status["conflicts"], serde_json::json!([]), "{status}");
}

/// A bare remote served by an sshd of its own on loopback, with its `ssh://` URL; the
/// programs found (git, sshd, ssh, ssh-keygen, then `extra`). `None` when a program is
/// missing and the test may skip.
struct SshRemote {
    sshd: Sshd,
    bare: PathBuf,
    url: String,
    found: Vec<PathBuf>,
    /// Dropped last: the server's files and the remote live in it.
    _scratch: tempfile::TempDir,
}

impl SshRemote {
    fn start(extra: &[(&str, &str)]) -> Option<SshRemote> {
        let mut names = vec![
            ("git", "git"),
            ("sshd", "openssh-server"),
            ("ssh", "openssh-client"),
            ("ssh-keygen", "openssh-client"),
        ];
        names.extend_from_slice(extra);
        let found = programs(&names)?;
        let scratch = tempfile::tempdir().unwrap();
        let sshd = Sshd::start(&found[1], &found[3], &scratch.path().join("sshd"));
        let bare = scratch.path().join("notebook.git");
        init_bare(&bare);
        let url = sshd.url(&bare);
        Some(SshRemote {
            sshd,
            bare,
            url,
            found,
            _scratch: scratch,
        })
    }
}

#[test]
fn an_ssh_remote_through_a_local_sshd_syncs_an_edit_both_ways() {
    let Some(remote) = SshRemote::start(&[]) else {
        return;
    };
    let (sshd, bare, url) = (&remote.sshd, remote.bare.clone(), remote.url.clone());
    an_edit_syncs_both_ways(&url, &bare, |ws| sshd.as_user(ws.cli()));
    // Every sync went through this sshd, with the user's key.
    let log = sshd.log();
    assert!(
        log.matches("Accepted publickey").count() >= 6,
        "sshd log:\n{log}"
    );
}

#[test]
fn an_ssh_key_held_by_the_users_agent_is_used() {
    let extra = [
        ("ssh-agent", "openssh-client"),
        ("ssh-add", "openssh-client"),
    ];
    let Some(remote) = SshRemote::start(&extra) else {
        return;
    };
    let (sshd, bare, url) = (&remote.sshd, remote.bare.clone(), remote.url.clone());
    let agent = sshd.key_in_agent(&remote.found[4], &remote.found[5]);
    let a = Workspace::new();
    put(&a, "a.md", "# A\n\nthrough the agent\n");
    // Without the agent the key is nowhere: the sync fails and changes nothing.
    let (out, _) = sync_with(sshd.as_user(a.cli()), &["--remote", &url]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(show(&bare, "a.md").is_none());
    sync_ok_with(
        sshd.as_user_with_agent(a.cli(), &agent),
        &["--remote", &url],
    );
    assert_eq!(
        show(&bare, "a.md").as_deref(),
        Some(a.read("a.md").as_str())
    );
    let b = Workspace::new();
    sync_ok_with(
        sshd.as_user_with_agent(b.cli(), &agent),
        &["--remote", &url],
    );
    assert_eq!(b.read("a.md"), a.read("a.md"));
}

#[test]
fn an_ssh_key_the_server_refuses_is_one_line_and_changes_nothing() {
    let Some(remote) = SshRemote::start(&[]) else {
        return;
    };
    let (sshd, bare, url) = (&remote.sshd, remote.bare.clone(), remote.url.clone());
    let ws = Workspace::new();
    put(&ws, "a.md", "# A\n");
    sync_ok_with(sshd.as_user(ws.cli()), &["--remote", &url]);
    let pushed = show(&bare, "a.md");
    put(&ws, "a.md", "# A\n\nlocal edit\n");
    let before = notebook_files(&ws);

    sshd.revoke_key();
    let (out, status) = sync_with(sshd.as_user(ws.cli()), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(stderr(&out).trim().lines().count(), 1, "{}", stderr(&out));
    if let Some(status) = status {
        assert_eq!(status["outcome"], "failed", "{status}");
    }
    assert_eq!(notebook_files(&ws), before);
    assert_eq!(show(&bare, "a.md"), pushed);
    let log = sshd.log();
    assert!(
        log.contains("Connection closed by authenticating user"),
        "{log}"
    );
    let (_, status) = sync_with(sshd.as_user(ws.cli()), &["--status"]);
    let status = status.unwrap();
    assert_eq!(status["outcome"], "failed", "{status}");
    assert_eq!(status["remote"], url, "{status}");
}

#[test]
fn a_git_daemon_remote_syncs_an_edit_both_ways() {
    if !git_present() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let base = scratch.path().join("served");
    let bare = base.join("notebook.git");
    init_bare(&bare);
    let daemon = GitDaemon::start(&base, &scratch.path().join("daemon.log"));
    let url = daemon.url("notebook.git");
    an_edit_syncs_both_ways(&url, &bare, |ws| ws.cli());
    let log = daemon.log();
    assert!(log.contains("Request receive-pack"), "{log}");
    assert!(log.contains("Request upload-pack"), "{log}");
}

/// The CLI of `ws` with no proxy and an empty home (no credential helper of the
/// machine's user), for the `https://` remotes.
fn https_cli(ws: &Workspace, home: &Path) -> Command {
    let mut cli = ws.cli();
    cli.env("HOME", home);
    for proxy in ["http_proxy", "https_proxy", "all_proxy", "no_proxy"] {
        cli.env_remove(proxy).env_remove(proxy.to_ascii_uppercase());
    }
    cli
}

#[test]
fn an_unreachable_https_remote_is_one_line_and_changes_nothing() {
    if !git_present() {
        return;
    }
    let ws = Workspace::new();
    let home = ws.root.path().join("home");
    std::fs::create_dir(&home).unwrap();
    put(&ws, "a.md", "# A\n\nkept\n");
    put(&ws, "ideas/b.md", "# B\n");
    let before = notebook_files(&ws);
    let url = "https://127.0.0.1:1/x.git";

    let out = https_cli(&ws, &home)
        .args(["sync", "--remote", url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let line = stderr(&out);
    assert_eq!(line.trim().lines().count(), 1, "{line}");
    assert!(line.contains("127.0.0.1"), "{line}");
    assert_eq!(notebook_files(&ws), before);

    // Again, with the status as JSON; and a plain `notes sync` with the stored remote.
    for args in [&["--remote", url][..], &[][..]] {
        let (out, status) = sync_with(https_cli(&ws, &home), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stdout(&out));
        assert_eq!(stderr(&out).trim().lines().count(), 1, "{}", stderr(&out));
        if let Some(status) = status {
            assert_eq!(status["outcome"], "failed", "{status}");
        }
        assert_eq!(notebook_files(&ws), before);
    }
    let (out, status) = sync_with(https_cli(&ws, &home), &["--status"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let status = status.unwrap();
    assert_eq!(status["remote"], url, "{status}");
    assert_eq!(status["outcome"], "failed", "{status}");
    assert!(status["error"].is_string(), "{status}");
}

#[test]
fn an_https_remote_with_the_users_credential_helper_syncs_an_edit_both_ways() {
    let Some(remote) = HttpsRemote::start() else {
        return;
    };
    an_edit_syncs_both_ways(&remote.url, &remote.bare, |ws| remote.as_user(ws.cli()));
    let log = remote.log();
    assert!(log.contains("git-receive-pack"), "{log}");
    assert!(log.contains("git-upload-pack"), "{log}");
}

#[test]
fn a_password_the_https_server_refuses_is_one_line_and_changes_nothing() {
    let Some(remote) = HttpsRemote::start() else {
        return;
    };
    let ws = Workspace::new();
    put(&ws, "a.md", "# A\n");
    sync_ok_with(remote.as_user(ws.cli()), &["--remote", &remote.url]);
    let pushed = show(&remote.bare, "a.md");
    assert!(pushed.is_some());
    put(&ws, "a.md", "# A\n\nlocal edit\n");
    let before = notebook_files(&ws);

    remote.store_password("wrong-pass");
    let (out, status) = sync_with(remote.as_user(ws.cli()), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let line = stderr(&out);
    assert_eq!(line.trim().lines().count(), 1, "{line}");
    assert!(line.contains("Authentication failed"), "{line}");
    assert!(!line.contains("wrong-pass"), "{line}");
    assert!(!line.contains(remote.password()), "{line}");
    if let Some(status) = status {
        assert_eq!(status["outcome"], "failed", "{status}");
    }
    assert_eq!(notebook_files(&ws), before);
    assert_eq!(show(&remote.bare, "a.md"), pushed);
}

#[test]
fn credentials_in_a_remote_url_are_never_shown() {
    if !git_present() {
        return;
    }
    let secret = "s3cr3t-t0ken";
    let url = format!("https://alice:{secret}@127.0.0.1:1/x.git");
    let ws = Workspace::new();
    let home = ws.root.path().join("home");
    std::fs::create_dir(&home).unwrap();
    put(&ws, "a.md", "# A\n");
    let mut seen = Vec::new();
    let mut run = |args: &[&str], json: bool| {
        let mut cli = https_cli(&ws, &home);
        cli.arg("sync").args(args);
        if json {
            cli.arg("--json");
        }
        let out = cli.output().unwrap();
        let text = format!("{}{}", stdout(&out), stderr(&out));
        seen.push((format!("sync {args:?} json={json}"), text.clone()));
        (out, text)
    };
    let (out, text) = run(&["--remote", &url], false);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("127.0.0.1:1"),
        "the error names the remote: {text}"
    );
    run(&["--remote", &url], true);
    run(&[], false);
    run(&[], true);
    let (out, text) = run(&["--status"], true);
    assert!(out.status.success(), "{text}");
    let status: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let shown = status["remote"].as_str().unwrap();
    assert!(shown.contains("127.0.0.1:1/x.git"), "{status}");
    run(&["--status"], false);

    // The server: the status route, a sync asked for, a background sync, its log.
    let mut server = ws.serve_through(https_cli(&ws, &home), &["--sync-every", "1s"]);
    let (code, status) = json(server.get("/api/v1/sync"));
    assert_eq!(code, 200, "{status}");
    seen.push(("GET /api/v1/sync".into(), status.to_string()));
    let response = server.request("POST", "/api/v1/sync").send().unwrap();
    let (code, body) = json(response);
    assert_eq!(code, 502, "{body}");
    seen.push(("POST /api/v1/sync".into(), body.to_string()));
    // A background sync runs within a couple of seconds and fails too.
    let before = status["last_sync"].clone();
    let background = eventually(Duration::from_secs(10), || {
        let (_, now) = json(server.get("/api/v1/sync"));
        now["outcome"] == "failed" && now["last_sync"] != before
    });
    assert!(background, "{}", server.log());
    let (_, status) = json(server.get("/api/v1/sync"));
    seen.push(("GET /api/v1/sync after".into(), status.to_string()));
    assert!(server.terminate(), "{}", server.log());
    seen.push(("server log".into(), server.log()));
    for (what, text) in &seen {
        assert!(!text.contains(secret), "{what} shows the secret:\n{text}");
    }
}
