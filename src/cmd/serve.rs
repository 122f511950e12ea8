//! `notes serve`: own the notes folder, prepare the folders, bind, and hand over to the
//! HTTP server until SIGINT or SIGTERM.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use crate::cli::{HistoryMode, ServeArgs};
use crate::http::server::{self, Settings};
use crate::ops::owner::{Claim, Ownership};
use crate::ops::{Notebook, fsutil};

pub(super) fn run(notebook: Notebook, args: ServeArgs) -> anyhow::Result<ExitCode> {
    if args.history == HistoryMode::Off {
        notebook.turn_history_off();
    }
    let notes_dir = notebook.notes_dir();
    // Other machines reach the service only with a token, or on purpose. This is the
    // start's check, before anything is created; the server holds the rule at every
    // request after (`http::auth`).
    if !crate::http::is_loopback(&args.listen) && !args.no_auth {
        let tokens = notebook
            .tokens()
            .map_err(|e| anyhow::anyhow!("{}", e.detailed()))?;
        if tokens.tokens.is_empty() {
            anyhow::bail!(super::messages::no_token_off_loopback(&args.listen));
        }
    }
    std::fs::create_dir_all(notes_dir)
        .with_context(|| format!("cannot create notes dir {}", notes_dir.display()))?;
    // Before anything touches the folder: the clean-up and repair below would undo the
    // work in progress of a server already running on it, and two indexers fight.
    let ownership = claim(notes_dir)?;
    let cleaned =
        fsutil::clean_temp_files(notes_dir) + fsutil::clean_temp_files(notebook.public_dir());
    if cleaned > 0 {
        crate::log::warn(&format!(
            "removed {cleaned} temp file(s) left by an interrupted write"
        ));
    }
    // The move first: it may move a public note's entry, which the repair then checks.
    super::finish_interrupted_move(&notebook);
    super::publish::repair_at_start(&notebook);
    notebook.start_history_upkeep(args.history_keep);
    let listener = std::net::TcpListener::bind(args.listen)
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    if let Some(ownership) = &ownership {
        let announced = listener
            .local_addr()
            .and_then(|addr| ownership.announce(addr));
        if let Err(e) = announced {
            crate::log::warn(&format!("cannot write {}: {e}", ownership.path().display()));
        }
    }
    server::run(
        notebook,
        listener,
        Settings {
            max_body: args.max_body,
            max_upload: args.max_upload,
            request_timeout: Duration::from_secs(args.request_timeout.max(1)),
            allow_hosts: args.allow_hosts,
            max_connections: args.max_connections.map(|n| n as usize),
            shutdown_timeout: Duration::from_secs(args.shutdown_timeout),
            no_auth: args.no_auth,
            sync_every: args.sync_every,
        },
    )?;
    drop(ownership);
    Ok(ExitCode::SUCCESS)
}

/// Takes the folder's lock, or refuses to start when another server holds it. A file
/// system without locks gets a warning and no guard.
fn claim(notes_dir: &std::path::Path) -> anyhow::Result<Option<Ownership>> {
    match Ownership::claim(notes_dir) {
        Ok(Claim::Owned(ownership)) => Ok(Some(ownership)),
        Ok(Claim::Taken(owner)) => anyhow::bail!(
            "notes folder {} is already served by {owner}",
            notes_dir.display()
        ),
        Err(e) => {
            crate::log::warn(&format!(
                "cannot lock {}: {e}; a second server on this folder would not be refused",
                crate::ops::owner::lock_path(notes_dir).display()
            ));
            Ok(None)
        }
    }
}
