//! Shared test harness: a temp notes folder, the real binary serving it on a free
//! loopback port (killed on drop), an HTTP client, and the CLI with a fixed environment.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, FixedOffset, Utc};

/// A time zone far from UTC (UTC+14, no daylight saving), so local-time mistakes show.
pub const TZ: &str = "XST-14";

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

    pub fn serve_with(&self, extra: &[&str]) -> Server {
        self.serve_through(self.cli(), extra)
    }

    /// Starts `notes serve` on this workspace through `cli` (the CLI command, set up
    /// further, e.g. with resource limits).
    pub fn serve_through(&self, mut cli: Command, extra: &[&str]) -> Server {
        let log = self.root.path().join("server.log");
        let mut child = cli
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("start notes serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| {
                let _ = child.kill();
                panic!(
                    "server did not announce its URL: {line:?}\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                )
            })
            .to_string();
        Server {
            child,
            base,
            log,
            client: reqwest::blocking::Client::builder()
                .no_proxy()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
        }
    }
}

/// Every file under `dir` with its bytes, sorted; but the server log and the search
/// index, which the server writes in the background on its own schedule (its start-up
/// catch-up, merges), whatever requests it gets.
pub fn snapshot_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = walkdir(dir)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_default();
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == "server.log") || path.ends_with(".notes/index")
            {
                continue;
            }
            if path.is_dir() {
                out.extend(walkdir(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// A running `notes serve`, killed on drop.
pub struct Server {
    child: Child,
    pub base: String,
    pub log: PathBuf,
    pub client: reqwest::blocking::Client,
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn get(&self, path: &str) -> reqwest::blocking::Response {
        self.client.get(self.url(path)).send().unwrap()
    }

    pub fn request(&self, method: &str, path: &str) -> reqwest::blocking::RequestBuilder {
        self.client.request(
            reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
            self.url(path),
        )
    }

    pub fn put_json(&self, path: &str, body: &str) -> reqwest::blocking::Response {
        self.request("PUT", path)
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap()
    }

    pub fn put_markdown(&self, path: &str, body: &str) -> reqwest::blocking::Response {
        self.request("PUT", path)
            .header("Content-Type", "text/markdown")
            .body(body.to_string())
            .send()
            .unwrap()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits up to `timeout` for the process to end; its exit status, if it did.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends SIGTERM and waits for the process to end; returns whether it exited by itself.
    pub fn terminate(&mut self) -> bool {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads a response as JSON, checking the spec's JSON content type on the way.
pub fn json(response: reqwest::blocking::Response) -> (u16, serde_json::Value) {
    let (status, text) = body_of_type(response, "application/json; charset=utf-8");
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, value)
}

/// Status and body of a response, asserting its exact content type.
pub fn body_of_type(response: reqwest::blocking::Response, expected: &str) -> (u16, String) {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let body = response.text().unwrap();
    assert_eq!(content_type, expected, "status {status}, body {body}");
    (status, body)
}

/// Asserts an ErrorResponse with the given status and message.
pub fn assert_error(response: reqwest::blocking::Response, status: u16, message: &str) {
    let (got, body) = json(response);
    assert_eq!(got, status, "{body}");
    assert_eq!(body["code"], status, "{body}");
    assert_eq!(body["message"], message, "{body}");
    let reason = reqwest::StatusCode::from_u16(status)
        .unwrap()
        .canonical_reason()
        .unwrap();
    assert_eq!(body["error"], reason, "{body}");
    assert_eq!(body.as_object().unwrap().len(), 3, "{body}");
}

/// Polls `check` every 50 ms until it holds or `timeout` passes.
pub fn eventually(timeout: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if check() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A response read off the wire by `raw`.
pub struct RawResponse {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Server {
    /// Sends one request byte for byte, with the target path exactly as given (no client
    /// normalisation of `..` or `%2e`), and reads the whole response.
    pub fn raw(
        &self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> RawResponse {
        use std::io::{Read, Write};
        let addr = self.base.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        // The `Host` the test gives, else the server's address.
        let mut request = format!("{method} {target} HTTP/1.1\r\nConnection: close\r\n");
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request.push_str(&format!("Host: {addr}\r\n"));
        }
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        let chunked = headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("transfer-encoding"));
        if !chunked && (!body.is_empty() || method == "PUT" || method == "POST") {
            request.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        let text = String::from_utf8_lossy(&response).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        RawResponse {
            status,
            head: head.to_string(),
            body: body.to_string(),
        }
    }
}

impl RawResponse {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// Asserts an ErrorResponse with this status and message.
    pub fn assert_error(&self, status: u16, message: &str) {
        assert_eq!(self.status, status, "{}\n{}", self.head, self.body);
        let body = self.json();
        assert_eq!(body["code"], status);
        assert_eq!(body["message"], message, "{}", self.body);
        assert!(
            self.head
                .to_ascii_lowercase()
                .contains("content-type: application/json; charset=utf-8"),
            "{}",
            self.head
        );
    }
}

/// The paths `GET /api/v1/search?q=…` returns, in rank order.
pub fn search_paths(server: &Server, query: &str) -> Vec<String> {
    let url = format!("/api/v1/search?q={}&limit=100", percent_encode(query));
    let (status, body) = json(server.get(&url));
    assert_eq!(status, 200, "{body}");
    body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect()
}

/// Percent-encodes everything but unreserved characters, for query strings.
pub fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

impl Server {
    /// POSTs an `application/x-www-form-urlencoded` body.
    pub fn post_form(&self, path: &str, body: &str) -> reqwest::blocking::Response {
        self.request("POST", path)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body.to_string())
            .send()
            .unwrap()
    }

    /// Toggles a note's publication through `POST /api/public/toggle`.
    pub fn toggle(&self, note: &str) -> (u16, serde_json::Value) {
        let body = serde_urlencoded::to_string([("path", note)]).unwrap();
        json(self.post_form("/api/public/toggle", &body))
    }
}

impl Workspace {
    /// Every file under `public/`, relative path → bytes.
    pub fn public_files(&self) -> std::collections::BTreeMap<String, Vec<u8>> {
        walkdir(&self.public())
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
}

/// A note's text with a front matter (title, a fixed date, tags as YAML flow text).
pub fn note_text(title: &str, tags: &str, body: &str) -> String {
    format!("---\ntitle: {title}\ndate: 03-02-2026\ntags: {tags}\n---\n\n{body}")
}

/// The paths `GET /api/public/list` returns, in its order.
pub fn public_paths(server: &Server) -> Vec<String> {
    let (status, body) = json(server.get("/api/public/list"));
    assert_eq!(status, 200, "{body}");
    body["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap().to_string())
        .collect()
}

/// A command's standard output, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A command's standard error, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
