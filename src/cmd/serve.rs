//! `notes serve`: prepare the folders, bind, and hand over to the HTTP server until
//! SIGINT or SIGTERM.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

use crate::cli::ServeArgs;
use crate::http::server::{self, Settings};
use crate::ops::{Notebook, fsutil};

pub(super) fn run(notebook: Notebook, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let notes_dir = notebook.notes_dir();
    std::fs::create_dir_all(notes_dir)
        .with_context(|| format!("cannot create notes dir {}", notes_dir.display()))?;
    let cleaned =
        fsutil::clean_temp_files(notes_dir) + fsutil::clean_temp_files(notebook.public_dir());
    if cleaned > 0 {
        crate::log::warn(&format!(
            "removed {cleaned} temp file(s) left by an interrupted write"
        ));
    }
    super::publish::repair_at_start(&notebook);
    let listener = std::net::TcpListener::bind(args.listen)
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    server::run(
        notebook,
        listener,
        Settings {
            max_body: args.max_body,
            request_timeout: Duration::from_secs(args.request_timeout.max(1)),
            allow_hosts: args.allow_hosts,
            max_connections: args.max_connections.map(|n| n as usize),
            shutdown_timeout: Duration::from_secs(args.shutdown_timeout),
        },
    )?;
    Ok(ExitCode::SUCCESS)
}
