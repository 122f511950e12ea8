//! A temp workspace (`notes/` and `public/` side by side), note files written straight
//! to it, and the CLI run with a fixed environment over it.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use chrono::{DateTime, FixedOffset, Utc};

use super::{Server, files_under, snapshot_of};

/// A time zone far from UTC (UTC+14, no daylight saving), so local-time mistakes show.
const TZ: &str = "XST-14";

/// The current time in `TZ`.
pub fn local_now() -> DateTime<FixedOffset> {
    Utc::now().with_timezone(&FixedOffset::east_opt(14 * 3600).unwrap())
}

/// `DD-MM-YYYY` today in `TZ`.
pub fn today() -> String {
    local_now().format("%d-%m-%Y").to_string()
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_notes")
}

/// A note's text: front matter with `title`, a fixed date and `tags`, then `body`.
pub fn note(title: &str, tags: &[&str], body: &str) -> String {
    format!(
        "---\ntitle: {title}\ndate: 03-02-2026\ntags: [{}]\n---\n\n{body}",
        tags.join(", ")
    )
}

/// A command's standard output, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A command's standard error, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A temp workspace: `notes/` and `public/` folders side by side.
pub struct Workspace {
    pub root: tempfile::TempDir,
}

impl Workspace {
    pub fn new() -> Self {
        let root = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(root.path().join("notes")).unwrap();
        Workspace { root }
    }

    pub fn notes(&self) -> PathBuf {
        self.root.path().join("notes")
    }

    pub fn public(&self) -> PathBuf {
        self.root.path().join("public")
    }

    /// Writes a note file directly, bypassing the service.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.notes().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.notes().join(rel)).unwrap()
    }

    /// Every file under the workspace with its bytes, for "nothing changed" checks.
    pub fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        snapshot_of(self.root.path())
    }

    /// Every file under `public/`, relative path → bytes.
    pub fn public_files(&self) -> std::collections::BTreeMap<String, Vec<u8>> {
        files_under(&self.public())
            .into_iter()
            .map(|p| {
                let rel = p.strip_prefix(self.public()).unwrap();
                (
                    rel.to_string_lossy().replace('\\', "/"),
                    std::fs::read(&p).unwrap(),
                )
            })
            .collect()
    }

    /// A file of `public/` as text.
    pub fn public_text(&self, rel: &str) -> String {
        std::fs::read_to_string(self.public().join(rel)).unwrap()
    }

    /// `.public.json`, parsed.
    pub fn record(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.notes().join(".public.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// The CLI with this workspace's folders and a fixed environment.
    pub fn cli(&self) -> Command {
        self.command(bin())
    }

    /// Any program, with the environment the CLI gets.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("TZ", TZ)
            .env("NO_COLOR", "1")
            .env("NOTES_DIR", self.notes())
            .env("NOTES_PUBLIC_DIR", self.public())
            .env_remove("NOTES_LISTEN")
            .env_remove("NOTES_BASE_URL")
            .current_dir(self.root.path());
        cmd
    }

    /// Runs the CLI with `args` and returns its output.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cli().args(args).output().expect("run notes")
    }

    /// Runs the CLI with `args`, feeding `input` on standard input.
    pub fn run_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        use std::io::Write;
        let mut child = self
            .cli()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run notes");
        // The command may refuse its arguments before reading its input.
        let _ = child.stdin.take().unwrap().write_all(input);
        child.wait_with_output().unwrap()
    }

    /// Starts `notes serve` on this workspace.
    pub fn serve(&self) -> Server {
        self.serve_with(&[])
    }

    /// Starts `notes serve` with a file version trusted as soon as it is read (the
    /// service's settle span, a second, set to zero): for tests of what is kept.
    pub fn serve_settled(&self) -> Server {
        let mut cli = self.cli();
        cli.env("NOTES_TEST_SETTLE_MS", "0");
        self.serve_through(cli, &[])
    }

    pub fn serve_with(&self, extra: &[&str]) -> Server {
        self.serve_through(self.cli(), extra)
    }

    /// Starts `notes serve` on this workspace through `cli` (the CLI command, set up
    /// further, e.g. with resource limits), its log in `server.log`.
    pub fn serve_through(&self, cli: Command, extra: &[&str]) -> Server {
        Server::start(cli, extra, self.root.path().join("server.log"))
    }
}
