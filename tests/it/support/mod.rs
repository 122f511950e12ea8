//! Shared test harness: a temp notes folder with its CLI (`fixtures`), the real binary
//! serving it on a free loopback port and killed on drop (`server`), HTTP requests and
//! response checks (`client`), the files on disk for "nothing changed" checks
//! (`snapshot`), small images made on the spot (`images`), and headless Chromium for
//! the tests that open pages in a browser (`browser`), git remotes for the sync tests
//! (`remotes`: bare repositories, `git daemon`, `sshd`; `https_remote`: `git
//! http-backend` over TLS).

mod browser;
mod client;
mod fixtures;
mod https_remote;
mod images;
mod remotes;
mod server;
mod snapshot;

use std::time::{Duration, Instant};

pub use browser::*;
pub use client::*;
pub use fixtures::*;
pub use https_remote::*;
pub use images::*;
pub use remotes::*;
pub use server::*;
pub use snapshot::*;

/// Makes a token with the CLI (`notes token create ARGS`); its secret.
pub fn create_token(ws: &Workspace, args: &[&str]) -> String {
    let mut all = vec!["token", "create"];
    all.extend_from_slice(args);
    let out = ws.run(&all);
    assert!(out.status.success(), "{out:?}");
    stdout(&out).trim().to_string()
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
