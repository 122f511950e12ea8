//! What the benchmarks share: the real `notes serve` on a free loopback port.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Starts the bench-built binary serving `notes_dir` (pages to `public_dir`) on
/// 127.0.0.1 with a free port; returns the process and its base URL.
pub fn start_server(notes_dir: &Path, public_dir: &Path, log: Stdio) -> (Child, String) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_notes"))
        .arg("--notes-dir")
        .arg(notes_dir)
        .arg("--public-dir")
        .arg(public_dir)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("start notes serve");
    let mut line = String::new();
    BufReader::new(server.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read the announced URL");
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .expect("server URL")
        .to_string();
    (server, base)
}
