//! `notes serve`: bind, announce the URL, serve until SIGINT or SIGTERM.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;

use crate::cli::ServeArgs;
use crate::http::{self, State};
use crate::ops::search::indexer::{Indexer, SharedIndex};
use crate::ops::{Notebook, fsutil};

/// Threads for file and index work.
const BLOCKING_THREADS: usize = 16;

pub fn run(notebook: Notebook, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let notes_dir = notebook.notes_dir().to_path_buf();
    std::fs::create_dir_all(&notes_dir)
        .with_context(|| format!("cannot create notes dir {}", notes_dir.display()))?;
    let cleaned =
        fsutil::clean_temp_files(&notes_dir) + fsutil::clean_temp_files(notebook.public_dir());
    if cleaned > 0 {
        crate::log::warn(&format!(
            "removed {cleaned} temp file(s) left by an interrupted write"
        ));
    }
    crate::memory::limit_arenas();
    // File work runs on the blocking pool; a bounded pool keeps memory and context
    // switches in check under many connections (requests queue instead).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let addr = listener.local_addr()?;
        if !http::is_loopback(&addr) {
            crate::log::warn(&format!(
                "listening on {addr}, reachable from other machines: the API has no \
                 authentication, put an authenticating proxy in front of it"
            ));
        }
        // The indexer catches up with the files in its own thread: the first requests
        // never wait for it.
        let search = SharedIndex::default();
        // Opening is quick; searches work from the first request on. When it fails, the
        // indexer logs why and retries.
        if let Ok(index) = notebook.open_index() {
            search.set(index);
        }
        let indexer = Indexer::start(&notes_dir, search.clone());
        notebook.on_change(indexer.listener());
        let state = Arc::new(State {
            notebook,
            max_body: args.max_body,
            request_timeout: std::time::Duration::from_secs(args.request_timeout.max(1)),
            search,
        });
        println!("notes: serving {} on http://{addr}", notes_dir.display());
        http::serve(state, listener, shutdown_signal()).await;
        // Lets a pass in progress finish its commit.
        tokio::task::spawn_blocking(move || drop(indexer))
            .await
            .ok();
        crate::log::info("stopped");
        Ok(ExitCode::SUCCESS)
    })
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(term) => term,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}
