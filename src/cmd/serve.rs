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
    let listener = std::net::TcpListener::bind(args.listen)
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    if !http::is_loopback(&addr) {
        crate::log::warn(&format!(
            "listening on {addr}, reachable from other machines: the API has no \
             authentication, put an authenticating proxy in front of it"
        ));
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let main_loop = runtime(threads).context("cannot start the async runtime")?;
    main_loop.block_on(async move {
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
        // One event loop per core, each accepting from the same socket and keeping its
        // connections to itself, as nginx's workers do: a request never crosses cores.
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let mut loops = Vec::new();
        for n in 1..threads {
            let state = state.clone();
            let listener = listener.try_clone()?;
            let mut stopped = stopped.clone();
            let thread = std::thread::Builder::new()
                .name(format!("http-{n}"))
                .spawn(move || -> anyhow::Result<()> {
                    runtime(threads)?.block_on(async move {
                        let listener = tokio::net::TcpListener::from_std(listener)?;
                        let stop = async move {
                            let _ = stopped.wait_for(|stop| *stop).await;
                        };
                        http::serve(state, listener, stop).await;
                        Ok(())
                    })
                })?;
            loops.push(thread);
        }
        let listener = tokio::net::TcpListener::from_std(listener)?;
        println!("notes: serving {} on http://{addr}", notes_dir.display());
        let stop = async move {
            shutdown_signal().await;
            let _ = stop.send(true);
        };
        http::serve(state, listener, stop).await;
        // The other loops drain their requests too; then a pass in progress finishes
        // its commit.
        tokio::task::spawn_blocking(move || {
            for thread in loops {
                let _ = thread.join();
            }
            drop(indexer);
        })
        .await
        .ok();
        crate::log::info("stopped");
        Ok(ExitCode::SUCCESS)
    })
}

/// The event loop of one serving thread, with its share of the threads for file and
/// index work. A bounded pool keeps memory and context switches in check under many
/// connections (requests queue instead).
fn runtime(threads: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads((BLOCKING_THREADS / threads).max(2))
        .build()
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
