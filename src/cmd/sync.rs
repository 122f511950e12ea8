//! `notes sync`: store the remote, sync, or show the status. When a `notes serve` owns
//! the folder (`ops/owner`), that server is asked to sync (`POST /api/v1/sync` at the
//! URL in its lock file, with `NOTES_TOKEN` when set), so its writes and the sync's
//! take turns under its own locks.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};

use crate::cli::SyncArgs;
use crate::ops::Notebook;
use crate::ops::owner::{Claim, Ownership};
use crate::ops::sync::{SyncStatus, redact};

/// The environment variable holding the token a command shows a server.
const TOKEN_VAR: &str = "NOTES_TOKEN";
/// The longest a server's sync is waited for.
const SERVER_TIMEOUT: Duration = Duration::from_secs(600);

pub(super) fn run(notebook: &Notebook, args: SyncArgs) -> anyhow::Result<ExitCode> {
    let fail = |e: crate::error::Error| anyhow::anyhow!("{}", redact(&e.detailed()));
    if let Some(url) = &args.remote {
        notebook.set_sync_remote(url).map_err(fail)?;
    }
    let status = if args.status {
        notebook.sync_status().map_err(fail)?
    } else {
        match server_of(notebook)? {
            Some(url) => ask_server(&url)?,
            None => notebook.sync().map_err(fail)?,
        }
    };
    if args.json {
        return super::print_json(&status);
    }
    super::print(&plain(&status))
}

/// The URL of the server that owns the folder, if one runs.
fn server_of(notebook: &Notebook) -> anyhow::Result<Option<String>> {
    match Ownership::claim(notebook.notes_dir()) {
        // Nobody serves it: released at once, the sync runs here.
        Ok(Claim::Owned(_)) => Ok(None),
        Ok(Claim::Taken(owner)) => match owner.url {
            Some(url) => Ok(Some(url)),
            None => bail!("the notes folder's server ({owner}) is still starting: try again"),
        },
        // A folder without locks: no server can be known.
        Err(_) => Ok(None),
    }
}

/// `POST /api/v1/sync` on the server at `url` (`http://IP:PORT`, loopback).
fn ask_server(url: &str) -> anyhow::Result<SyncStatus> {
    let host = url
        .strip_prefix("http://")
        .map(|rest| rest.trim_end_matches('/'))
        .with_context(|| format!("the folder's server has an unknown address: {url}"))?;
    let mut stream = TcpStream::connect(host)
        .with_context(|| format!("cannot reach the folder's server at {url}"))?;
    stream.set_read_timeout(Some(SERVER_TIMEOUT))?;
    let token = std::env::var(TOKEN_VAR)
        .map(|t| format!("Authorization: Bearer {}\r\n", t.trim()))
        .unwrap_or_default();
    // HTTP/1.0: the answer ends with the connection, never chunked.
    write!(
        stream,
        "POST /api/v1/sync HTTP/1.0\r\nHost: {host}\r\nContent-Length: 0\r\n{token}\r\n"
    )?;
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .with_context(|| format!("no answer from the folder's server at {url}"))?;
    let answer = String::from_utf8_lossy(&answer);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    if status == 200 {
        return serde_json::from_str(body)
            .with_context(|| format!("the server at {url} answered what is not a sync status"));
    }
    let message = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            v.get("message")
                .and_then(|e| e.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| format!("status {status}"));
    if status == 401 {
        bail!("the server at {url} asks for a token: set {TOKEN_VAR} to a full token ({message})");
    }
    bail!("{}", redact(&message))
}

/// The status as lines.
fn plain(status: &SyncStatus) -> String {
    let mut out = String::new();
    let remote = status
        .remote
        .as_deref()
        .unwrap_or("(none: notes sync --remote URL)");
    out.push_str(&format!("remote: {}\n", super::escape::text(remote)));
    match (&status.last_sync, status.outcome.as_str()) {
        (Some(at), "ok") => out.push_str(&format!(
            "last sync: {at}, ok: {} pulled, {} pushed\n",
            status.pulled.unwrap_or(0),
            status.pushed.unwrap_or(0)
        )),
        (Some(at), outcome) => out.push_str(&format!(
            "last sync: {at}, {outcome}: {}\n",
            super::escape::text(status.error.as_deref().unwrap_or(""))
        )),
        (None, _) => out.push_str("last sync: never\n"),
    }
    if status.conflicts.is_empty() {
        out.push_str("conflicts: none\n");
    } else {
        out.push_str(&format!("conflicts: {}\n", status.conflicts.len()));
        for path in &status.conflicts {
            out.push_str(&format!("  {}\n", super::escape::text(path)));
        }
    }
    for refused in &status.refused {
        out.push_str(&format!("refused: {}\n", super::escape::text(refused)));
    }
    out
}
