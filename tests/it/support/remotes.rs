//! Git remotes for the sync tests: bare repositories, plain git as a third party, a
//! `git daemon` and an `sshd` on 127.0.0.1 with keys of their own (each killed on
//! drop), and `notes sync` runs with their JSON status. A missing tool skips a test
//! loudly, and fails it with `CI=true`.

use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Workspace, stderr, stdout};

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// `name` on `PATH` or in `/usr/sbin` (where Debian puts `sshd`).
fn find(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The programs `names` (each with the Debian package that has it), or `None` after
/// saying loudly which are missing; with `CI=true` a missing one fails the test.
pub fn programs(names: &[(&str, &str)]) -> Option<Vec<PathBuf>> {
    let found: Vec<_> = names.iter().map(|(name, _)| find(name)).collect();
    if found.iter().all(Option::is_some) {
        return Some(found.into_iter().flatten().collect());
    }
    let missing: Vec<_> = names
        .iter()
        .zip(&found)
        .filter(|(_, f)| f.is_none())
        .map(|((name, package), _)| format!("{name} ({package})"))
        .collect();
    let missing = missing.join(", ");
    assert!(
        !in_ci(),
        "CI=true but {missing} is not installed: the sync tests must run in CI"
    );
    eprintln!(
        "\n==================== SYNC TEST SKIPPED ====================\n\
         not found: {missing}. Install them to run this test:\n\
         apt-get install -y git openssh-server openssh-client\n\
         ===========================================================\n"
    );
    None
}

/// `git` alone (every sync test needs it).
pub fn git_present() -> bool {
    programs(&[("git", "git")]).is_some()
}

/// Plain git as a third party would run it: no system or user configuration, a fixed
/// identity.
pub fn git_command() -> Command {
    let mut cmd = Command::new("git");
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Third Party")
        .env("GIT_AUTHOR_EMAIL", "third@example.invalid")
        .env("GIT_COMMITTER_NAME", "Third Party")
        .env("GIT_COMMITTER_EMAIL", "third@example.invalid")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null());
    cmd
}

/// Runs `git args` in `dir`; its output, whatever the outcome.
pub fn git_out(dir: &Path, args: &[&str]) -> Output {
    git_command()
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("run git")
}

/// Runs `git args` in `dir`, which must succeed; its standard output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_out(dir, args);
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        stderr(&out)
    );
    stdout(&out)
}

/// An empty bare repository at `path` whose `HEAD` names `main`.
pub fn init_bare(path: &Path) {
    let out = git_command()
        .args(["init", "--quiet", "--bare", "--initial-branch=main"])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "git init: {}", stderr(&out));
}

/// A working clone of `url` at `dest`, on `main`.
pub fn clone(url: &str, dest: &Path) {
    let out = git_command()
        .args(["clone", "--quiet", url])
        .arg(dest)
        .output()
        .unwrap();
    assert!(out.status.success(), "git clone {url}: {}", stderr(&out));
}

/// Commits everything in the clone `dir` and pushes it to `origin`'s `main`.
pub fn commit_and_push(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "--quiet", "--allow-empty", "-m", message]);
    git(dir, &["push", "--quiet", "origin", "HEAD:main"]);
}

/// The text of `path` on `main` of the repository `repo` (bare or not), if it is there.
pub fn show(repo: &Path, path: &str) -> Option<String> {
    let out = git_out(repo, &["show", &format!("main:{path}")]);
    out.status.success().then(|| stdout(&out))
}

/// The notes of a notebook (every file outside dot-folders and dot-files), path →
/// bytes: what must be equal on two machines after a sync.
pub fn notebook_files(ws: &Workspace) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![ws.notes()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(ws.notes()).unwrap();
                files.insert(
                    rel.to_string_lossy().into_owned(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    files
}

/// Runs `cli sync args… --json`: the output and, when standard output is JSON, the status.
pub fn sync_with(mut cli: Command, args: &[&str]) -> (Output, Option<Value>) {
    let out = cli
        .arg("sync")
        .args(args)
        .arg("--json")
        .stdin(Stdio::null())
        .output()
        .expect("run notes sync");
    let status = serde_json::from_slice(&out.stdout).ok();
    (out, status)
}

/// `notes sync args…` on `ws`, which must succeed with the outcome `ok`; the status.
pub fn sync_ok(ws: &Workspace, args: &[&str]) -> Value {
    sync_ok_with(ws.cli(), args)
}

/// `cli sync args…`, which must succeed with the outcome `ok`; the status.
pub fn sync_ok_with(cli: Command, args: &[&str]) -> Value {
    let (out, status) = sync_with(cli, args);
    assert!(
        out.status.success(),
        "notes sync {args:?} failed: {}{}",
        stderr(&out),
        stdout(&out)
    );
    let status = status.unwrap_or_else(|| panic!("not JSON: {}", stdout(&out)));
    assert_eq!(status["outcome"], "ok", "{status}");
    status
}

/// A free loopback port (free when asked: a server started on it may still lose it,
/// so the servers here retry on another).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A server a test started, with its log (its standard error, in a file); killed on
/// drop.
pub struct Served {
    child: Child,
    log: PathBuf,
}

impl Served {
    /// `child` once its log at `log` says `ready`; `None` when it exits first (a port
    /// taken). Panics after 20 s.
    pub(super) fn when_ready(mut child: Child, log: &Path, ready: &str) -> Option<Served> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if std::fs::read_to_string(log).is_ok_and(|text| text.contains(ready)) {
                return Some(Served {
                    child,
                    log: log.to_path_buf(),
                });
            }
            if let Ok(Some(_)) = child.try_wait() {
                return None;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "no {ready:?} within 20 s:\n{}",
                    std::fs::read_to_string(log).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `git daemon` serving the bare repositories under a folder on 127.0.0.1, with
/// pushes allowed; killed on drop.
pub struct GitDaemon {
    served: Served,
    pub port: u16,
}

impl GitDaemon {
    /// Serves the repositories under `base`; its log at `log`.
    pub fn start(base: &Path, log: &Path) -> GitDaemon {
        for _ in 0..5 {
            let port = free_port();
            let child = git_command()
                .arg("daemon")
                .arg(format!("--base-path={}", base.display()))
                .args(["--export-all", "--enable=receive-pack", "--reuseaddr"])
                .args(["--listen=127.0.0.1", "--verbose", "--informative-errors"])
                .arg(format!("--port={port}"))
                .arg(base)
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(log).unwrap())
                .spawn()
                .expect("start git daemon");
            if let Some(served) = Served::when_ready(child, log, "Ready to rumble") {
                return GitDaemon { served, port };
            }
        }
        panic!(
            "git daemon did not start:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
    }

    /// The URL of the repository `name` under the base folder.
    pub fn url(&self, name: &str) -> String {
        format!("git://127.0.0.1:{}/{name}", self.port)
    }

    pub fn log(&self) -> String {
        self.served.log()
    }
}

/// Runs `program args` (a setup step that must succeed).
pub(super) fn run(program: &Path, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        program.display(),
        stderr(&out)
    );
    stdout(&out)
}

/// OpenSSH's server on 127.0.0.1 with its own host key and configuration, letting in
/// the current user with one key; and a home folder for the client side set up as a
/// user's would be (`~/.ssh/config` naming the host, port, key and known hosts).
/// Killed on drop.
pub struct Sshd {
    served: Served,
    authorized: PathBuf,
    /// The client's `HOME`: give it to the programs that connect.
    pub home: PathBuf,
}

/// The name the client's ssh configuration gives the server.
pub const SSH_HOST: &str = "syncbox";

impl Sshd {
    /// Starts `sshd` (the program found by `programs`) with its files under `dir`.
    pub fn start(sshd: &Path, ssh_keygen: &Path, dir: &Path) -> Sshd {
        std::fs::create_dir_all(dir).unwrap();
        // As root, sshd wants its privilege separation folder, which Debian's service
        // makes at start and a container may lack.
        let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
        if root && !Path::new("/run/sshd").is_dir() {
            std::fs::create_dir_all("/run/sshd").unwrap();
            std::fs::set_permissions("/run/sshd", std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let user = run(Path::new("id"), &["-un"]).trim().to_string();
        let home = dir.join("home");
        let dot_ssh = home.join(".ssh");
        std::fs::create_dir_all(&dot_ssh).unwrap();
        std::fs::set_permissions(&dot_ssh, std::fs::Permissions::from_mode(0o700)).unwrap();
        let host_key = dir.join("host_ed25519");
        let user_key = dot_ssh.join("id_ed25519");
        for (key, comment) in [(&host_key, "host"), (&user_key, "user")] {
            let key = key.to_str().unwrap();
            run(
                ssh_keygen,
                &["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", key],
            );
        }
        let authorized = dir.join("authorized_keys");
        std::fs::copy(user_key.with_extension("pub"), &authorized).unwrap();
        let host_public = std::fs::read_to_string(host_key.with_extension("pub")).unwrap();
        let host_public = host_public.split_whitespace().take(2).collect::<Vec<_>>();
        let log = dir.join("sshd.log");
        for _ in 0..5 {
            let port = free_port();
            let config = dir.join("sshd_config");
            std::fs::write(
                &config,
                format!(
                    "ListenAddress 127.0.0.1\n\
                     HostKey {host_key}\n\
                     AuthorizedKeysFile {authorized}\n\
                     PidFile none\n\
                     StrictModes no\n\
                     UsePAM no\n\
                     PubkeyAuthentication yes\n\
                     PasswordAuthentication no\n\
                     KbdInteractiveAuthentication no\n\
                     PermitRootLogin prohibit-password\n\
                     AllowUsers {user}\n\
                     LogLevel VERBOSE\n",
                    host_key = host_key.display(),
                    authorized = authorized.display(),
                ),
            )
            .unwrap();
            // The user's usual set-up: a host entry naming port, key and known hosts.
            std::fs::write(
                dot_ssh.join("config"),
                format!(
                    "Host {SSH_HOST}\n  \
                     HostName 127.0.0.1\n  \
                     Port {port}\n  \
                     User {user}\n  \
                     IdentityFile {key}\n  \
                     IdentitiesOnly yes\n  \
                     UserKnownHostsFile {known}\n  \
                     StrictHostKeyChecking yes\n  \
                     BatchMode yes\n",
                    key = user_key.display(),
                    known = dot_ssh.join("known_hosts").display(),
                ),
            )
            .unwrap();
            std::fs::write(
                dot_ssh.join("known_hosts"),
                format!("[127.0.0.1]:{port} {}\n", host_public.join(" ")),
            )
            .unwrap();
            // OpenSSH finds `~/.ssh` through the password database, not `HOME`; the
            // user's git configuration (in `HOME`) names the file instead.
            std::fs::write(
                home.join(".gitconfig"),
                format!(
                    "[core]\n\tsshCommand = ssh -F {}\n",
                    dot_ssh.join("config").display()
                ),
            )
            .unwrap();
            let child = Command::new(sshd)
                .args(["-D", "-e", "-f"])
                .arg(&config)
                .arg("-p")
                .arg(port.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .expect("start sshd");
            if let Some(served) = Served::when_ready(child, &log, "Server listening on") {
                return Sshd {
                    served,
                    authorized,
                    home,
                };
            }
        }
        panic!(
            "sshd did not start:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    /// The `ssh://` URL of the repository at the absolute path `repo`.
    pub fn url(&self, repo: &Path) -> String {
        format!("ssh://{SSH_HOST}{}", repo.display())
    }

    /// A command run as the user: `HOME` is the client's home folder.
    pub fn as_user(&self, mut cmd: Command) -> Command {
        cmd.env("HOME", &self.home)
            .env_remove("SSH_AUTH_SOCK")
            .env_remove("GIT_SSH")
            .env_remove("GIT_SSH_COMMAND");
        cmd
    }

    /// Moves the user's key out of `~/.ssh` into an ssh-agent of the user's (started
    /// from `ssh_agent`, loaded with `ssh_add`), and takes it out of the ssh
    /// configuration: the key is then the agent's alone. The agent lives as long as
    /// the value returned; `as_user_with_agent` gives its socket.
    pub fn key_in_agent(&self, ssh_agent: &Path, ssh_add: &Path) -> Agent {
        let dot_ssh = self.home.join(".ssh");
        let key = self.home.parent().unwrap().join("agent-key");
        std::fs::rename(dot_ssh.join("id_ed25519"), &key).unwrap();
        let config = std::fs::read_to_string(dot_ssh.join("config")).unwrap();
        let config: String = config
            .lines()
            .filter(|l| !l.trim_start().starts_with("IdentityFile"))
            .map(|l| format!("{}\n", l.replace("IdentitiesOnly yes", "IdentitiesOnly no")))
            .collect();
        std::fs::write(dot_ssh.join("config"), config).unwrap();
        let socket = self.home.parent().unwrap().join("agent.sock");
        let child = Command::new(ssh_agent)
            .arg("-D")
            .arg("-a")
            .arg(&socket)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ssh-agent");
        let agent = Agent { child, socket };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !agent.socket.exists() {
            assert!(Instant::now() < deadline, "ssh-agent did not start");
            std::thread::sleep(Duration::from_millis(10));
        }
        let out = Command::new(ssh_add)
            .arg(&key)
            .env("SSH_AUTH_SOCK", &agent.socket)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "ssh-add: {}", stderr(&out));
        std::fs::remove_file(&key).unwrap();
        agent
    }

    /// A command run as the user with the agent `agent` (`SSH_AUTH_SOCK`).
    pub fn as_user_with_agent(&self, cmd: Command, agent: &Agent) -> Command {
        let mut cmd = self.as_user(cmd);
        cmd.env("SSH_AUTH_SOCK", &agent.socket);
        cmd
    }

    /// Lets the user's key in no more (the server reads the file at each login).
    pub fn revoke_key(&self) {
        std::fs::write(&self.authorized, "").unwrap();
    }

    pub fn log(&self) -> String {
        self.served.log()
    }
}

/// A user's ssh-agent, killed on drop.
pub struct Agent {
    child: Child,
    socket: PathBuf,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
