//! The runtime of `serve`: one multi-threaded tokio runtime (its own per-core event
//! loops bought no row 15 %, bench/SERVER.md) with a bounded pool of threads for file
//! and index work; a signal watcher on its own thread; the background indexer; and the
//! shutdown that drains them in order.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::sync::watch;

use crate::http::{self, State};
use crate::ops::Notebook;
use crate::ops::search::indexer::{Covered, Indexer, SharedIndex};

/// Threads for file and index work.
const BLOCKING_THREADS: usize = 16;

/// What a server is told beyond its notes and its socket.
pub struct Settings {
    /// Largest request body accepted, in bytes.
    pub max_body: u64,
    /// Largest attachment upload accepted, in bytes.
    pub max_upload: u64,
    /// See `State::request_timeout`.
    pub request_timeout: Duration,
    /// Host names served beyond IP literals, `localhost` and the base URL's host.
    pub allow_hosts: Vec<String>,
    /// Most connections open at once; `None` sizes it from the open-file limit.
    pub max_connections: Option<usize>,
    /// How long open requests get to finish once a shutdown begins.
    pub shutdown_timeout: Duration,
    /// `--no-auth`: listening off loopback with no token is on purpose.
    pub no_auth: bool,
    /// `--sync-every`: the period of the background sync, when on.
    pub sync_every: Option<Duration>,
}

/// Serves `notebook` on `listener` until SIGINT or SIGTERM, then drains and returns.
pub fn run(
    notebook: Notebook,
    listener: std::net::TcpListener,
    settings: Settings,
) -> anyhow::Result<()> {
    let notes_dir = notebook.notes_dir().to_path_buf();
    let base_url = notebook.config().base_url.clone();
    crate::memory::limit_arenas();
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let secure = base_url
        .as_deref()
        .and_then(|url| url.get(..8))
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"));
    let listening = http::auth::Listening {
        addr,
        no_auth: settings.no_auth,
        secure,
    };
    let auth = http::auth::Auth::new(&notebook, listening)
        .map_err(|e| anyhow::anyhow!("{}", e.detailed()))?;
    if !http::is_loopback(&addr) && !auth.required(&notebook) {
        crate::log::warn(&format!(
            "listening on {addr} with --no-auth, reachable from other machines: the API \
             has no authentication, put an authenticating proxy in front of it"
        ));
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // The signal watcher has a thread of its own, so a shutdown starts, and ends on
    // time, even while every event loop is busy.
    let (stop, stopped) = tokio::sync::watch::channel(None);
    watch_signals(stop, settings.shutdown_timeout).context("cannot watch for SIGTERM")?;
    // A bounded pool keeps memory and context switches in check under many
    // connections (requests queue instead).
    let main_loop = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
        .context("cannot start the async runtime")?;
    let served = main_loop.block_on(async move {
        // The indexer catches up with the files in its own thread: the first requests
        // never wait for it.
        // Opening is quick; searches work from the first request on. When it fails, the
        // indexer logs why and retries, or rebuilds a damaged index.
        let search = SharedIndex::open(&notes_dir);
        // The history hears of every pass: at the start (the notes on disk that
        // differ from their latest version) and of each change the watcher sees.
        let (covered, history_work) = std::sync::mpsc::channel();
        let indexer = Indexer::start(
            &notes_dir,
            search.clone(),
            crate::memory::give_back,
            move |work| {
                let _ = covered.send(work);
            },
        );
        // Every write is told to the indexer, and counted for the background sync.
        let writes = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let to_index = indexer.listener();
        let counted = writes.clone();
        notebook.on_change(Box::new(move |changed| {
            counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            to_index(changed);
        }));
        notebook.serve_index(search.clone());
        // The list follows the folder by its own watch, read at the start of each list.
        notebook.watch_list();
        // Sized now, with the index and the watcher open.
        let max_connections = settings
            .max_connections
            .unwrap_or_else(|| http::default_max_connections(threads));
        let connections = http::Connections::new(max_connections);
        let state = Arc::new(State {
            notebook,
            max_body: settings.max_body,
            max_upload: settings.max_upload,
            request_timeout: settings.request_timeout,
            hosts: Arc::new(http::guard::AllowedHosts::new(
                settings.allow_hosts.iter().map(String::as_str),
                base_url.as_deref(),
            )),
            auth,
            kept_list: Default::default(),
        });
        record_outside_edits(state.clone(), search, history_work);
        if let Some(every) = settings.sync_every {
            let syncing = state.clone();
            let spawned = std::thread::Builder::new()
                .name("sync".into())
                .spawn(move || crate::ops::sync::keep_in_sync(&syncing.notebook, every, &writes));
            if let Err(e) = spawned {
                crate::log::error(&format!("sync: cannot start: {e}"));
            }
        }
        let listener = tokio::net::TcpListener::from_std(listener)?;
        println!("notes: serving {} on http://{addr}", notes_dir.display());
        let settling = state.clone();
        super::serve(
            state,
            listener,
            connections,
            stop_requested(stopped.clone()),
        )
        .await;
        // A pass in progress finishes its commit, if it can before the deadline (else
        // the index catches up at the next start).
        let deadline = stopped
            .borrow()
            .unwrap_or_else(Instant::now)
            .max(Instant::now() + WIND_DOWN);
        let wind_down = tokio::task::spawn_blocking(move || {
            drop(indexer);
            // The history's changes staged in memory go to disk: git reads them all
            // after the stop (they are durable in its log already).
            if let Err(e) = settling.notebook.settle_history() {
                crate::log::warn(&format!("history: {}", e.detailed()));
            }
        });
        if tokio::time::timeout_at(deadline.into(), wind_down)
            .await
            .is_err()
        {
            crate::log::warn("work still running at the shutdown timeout was abandoned");
        }
        crate::log::info("stopped");
        anyhow::Ok(())
    });
    // A long parse or an index commit still running on the blocking threads must not
    // keep the process alive past the shutdown timeout.
    main_loop.shutdown_background();
    served
}

/// Resolves with the drain deadline once a shutdown has begun.
async fn stop_requested(mut stopped: watch::Receiver<Option<Instant>>) -> Instant {
    let deadline = stopped
        .wait_for(Option::is_some)
        .await
        .ok()
        .and_then(|deadline| *deadline);
    match deadline {
        Some(deadline) => deadline,
        // The signal watcher is gone: nothing can ask for a shutdown any more.
        None => std::future::pending().await,
    }
}

/// On SIGTERM or Ctrl-C, starts the shutdown with its deadline. If the process is still
/// alive a second after that deadline (an event loop stuck in work that never yields),
/// or when a second signal comes, it exits from here.
fn watch_signals(stop: watch::Sender<Option<Instant>>, timeout: Duration) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            runtime.block_on(async move {
                shutdown_signal().await;
                let deadline = Instant::now() + timeout;
                let _ = stop.send(Some(deadline));
                crate::log::info(&format!(
                    "shutting down: new connections are refused, open requests get {} s",
                    timeout.as_secs()
                ));
                tokio::select! {
                    () = tokio::time::sleep_until((deadline + LAST_RESORT).into()) => {
                        crate::log::warn("still running after the shutdown timeout: exiting");
                    }
                    () = shutdown_signal() => {
                        crate::log::warn("second signal: exiting now");
                    }
                }
                std::process::exit(0);
            });
        })?;
    Ok(())
}

/// The least time the indexer gets to stop once the requests are drained: an idle
/// indexer stops at once.
const WIND_DOWN: Duration = Duration::from_millis(250);

/// How long past the shutdown deadline the signal watcher waits before it ends the
/// process itself.
const LAST_RESORT: Duration = Duration::from_secs(1);

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

/// How long the history's pass over every note waits for the index's merges.
const MERGES_WAIT: Duration = Duration::from_secs(120);

/// Records, on a thread of its own, the notes edited outside the service that the
/// indexer's passes cover, until the indexer stops; a pass over every note also
/// builds the list there first.
fn record_outside_edits(
    state: Arc<State>,
    search: SharedIndex,
    work: std::sync::mpsc::Receiver<Covered>,
) {
    let spawned = std::thread::Builder::new()
        .name("history-outside".into())
        .spawn(move || {
            for covered in work {
                let recorded = match covered {
                    Covered::Everything => {
                        // After the merges a first start's pass began: they map the
                        // index's files, and this pass allocates for every note; one
                        // after the other, the two peaks do not add up.
                        if let Ok(index) = search.get() {
                            index.merges.wait_until_at_most(0, MERGES_WAIT);
                        }
                        // The list of every note is built here, once the index has
                        // caught up, not by the first request that asks for it (a
                        // read of every note: seconds at 100k notes).
                        let _ = state.notebook.list();
                        // What a batch frees lies between what the pass keeps (the
                        // history's index grows by every note recorded): given back
                        // as it goes, the heap stays near what is in use (at 100k
                        // notes, 116 → 95 MiB at the peak).
                        let recorded = state
                            .notebook
                            .record_outside_edits(&crate::memory::give_back);
                        // A pass over every note allocates for all of them at once.
                        crate::memory::give_back();
                        recorded
                    }
                    Covered::Changed { notes, files } => state
                        .notebook
                        .record_outside(&notes)
                        .and_then(|n| Ok(n + state.notebook.record_outside_files(&files)?)),
                };
                match recorded {
                    Ok(0) => {}
                    Ok(n) => crate::log::info(&format!(
                        "history: recorded {n} note(s) or file(s) changed outside the service"
                    )),
                    Err(e) => crate::log::error(&format!(
                        "history: cannot record the notes changed outside the service: {}",
                        e.detailed()
                    )),
                }
            }
        });
    if let Err(e) = spawned {
        crate::log::error(&format!("history: cannot start the recorder: {e}"));
    }
}
