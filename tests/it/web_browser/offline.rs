//! The interface offline, in a real browser: logged in, the list and two notes opened;
//! then offline, the list and a note load from the service worker's copies under the
//! offline banner, offline search finds a note opened before, a note is edited and one
//! created, the page is reloaded (the draft and the queue survive), and meanwhile the
//! edited note changes on the same lines through the API; back online, the queue is
//! sent to the merge route, and the files on disk hold the new note and both versions
//! of the conflicting one, whose resolve page opens. Also: Chromium's installability
//! check passes, and the manifest and icons load. Screenshots `40-offline-banner`,
//! `41-queued-edit`, `42-resolve-view`.
//!
//! Going offline: `Network.emulateNetworkConditions` on the page's target does not
//! reach the service worker's own fetches (it runs in a target of its own: with it
//! alone, pages still load from the server) and leaves `navigator.onLine` true, so the
//! test also stops `notes serve`, and starts it again on the same port to come back.
//! A restart ends the web sessions (they live in the server's memory), so the test
//! logs in again: the queue waits in IndexedDB across that too. The edit's save thus
//! takes the worker's way (a form post that does not reach the server is queued); the
//! new note's takes the page's (a browser that knows it is offline), with
//! `navigator.onLine` made false for that page.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use serde_json::{Value, json};

use super::{Result, Shots, browser, click, session, type_into, wait_leave_dialog, wait_text};
use crate::support::{Driver, Server, Workspace, create_token, eventually, png};

const PLAN: &str = "---\ntitle: Trip plan\ndate: 03-02-2026\ntags: [travel]\n---\nLine one\nLine two\nLine three\n";
const PACKING: &str = "---\ntitle: Packing list\ndate: 03-02-2026\ntags: [travel]\n---\nToothbrush and a zephyrine scarf.\n\n![The bag](bag.png)\n";

/// One DevTools command through chromedriver's bridge; its `value`.
fn cdp(driver: &Driver, session: &str, cmd: &str, params: Value) -> Result<Value> {
    let body = json!({"cmd": cmd, "params": params}).to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", driver.port))?;
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    write!(
        stream,
        "POST /session/{session}/goog/cdp/execute HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        driver.port,
        body.len()
    )?;
    let mut answer = Vec::new();
    let mut chunk = [0u8; 8192];
    let deadline = Instant::now() + Duration::from_secs(20);
    // The head, then as many bytes as it announces.
    loop {
        if let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&answer[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            if length.is_some_and(|n| answer.len() >= end + 4 + n) {
                break;
            }
        }
        let n = stream.read(&mut chunk)?;
        if n == 0 || Instant::now() > deadline {
            break;
        }
        answer.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!("{cmd} failed: {text}").into());
    }
    let value: Value = serde_json::from_str(body)?;
    Ok(value["value"].clone())
}

fn network(driver: &Driver, session: &str, offline: bool) -> Result {
    cdp(driver, session, "Network.enable", json!({}))?;
    cdp(
        driver,
        session,
        "Network.emulateNetworkConditions",
        json!({"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}),
    )?;
    Ok(())
}

/// Runs a script that calls its last argument with a result; waits until `done(value)`
/// holds of it.
async fn wait_script(
    client: &Client,
    script: &str,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Result<Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let value = client.execute_async(script, vec![]).await?;
        if done(&value) {
            return Ok(value);
        }
        if Instant::now() > deadline {
            return Err(format!("{what}: still {value}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The number of records in one store of the offline database.
fn count_script(store: &str) -> String {
    format!(
        "const done = arguments[arguments.length - 1]; \
         if (!self.NotesOffline) return done(-1); \
         NotesOffline.all('{store}').then(r => done(r.length), () => done(-1));"
    )
}

/// How many pages the worker keeps (0 when its cache is gone).
const PAGES_KEPT: &str = "const done = arguments[arguments.length - 1]; \
    caches.has('notes-pages').then(has => has ? caches.open('notes-pages').then(c => c.keys()) \
    .then(k => done(k.length)) : done(0));";

async fn log_in(client: &Client, base: &str, token: &str) -> Result {
    client.goto(&format!("{base}/login")).await?;
    wait_text(client, "h1", "Log in").await?;
    type_into(client, "#token", token).await?;
    click(client, "form[action='/login'] button").await?;
    wait_text(client, "h1", "All notes").await?;
    Ok(())
}

/// The current page's text.
async fn page_text(client: &Client) -> Result<String> {
    Ok(client.find(Locator::Css("body")).await?.text().await?)
}

/// Replaces the note at `path` through the API, as the holder of `token`.
fn put_as(server: &Server, token: &str, path: &str, text: &str) {
    let put = server.raw(
        "PUT",
        &format!("/api/v1/notes/{path}"),
        &[
            ("Authorization", &format!("Bearer {token}")),
            ("Content-Type", "text/markdown"),
        ],
        text.as_bytes(),
    );
    assert_eq!(put.status, 200, "{}", put.body);
}

#[test]
fn offline_reading_writing_and_merging_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    ws.write("plan.md", PLAN);
    ws.write("packing.md", PACKING);
    std::fs::write(ws.notes().join("bag.png"), png(40, 30, [200, 80, 20])).unwrap();
    let token = create_token(&ws, &["--name", "phone"]);
    let server = ws.serve();
    let log = ws.root.path().join("chromedriver.log");
    let driver = Driver::start(&chromedriver, &log);
    let profile = ws.root.path().join("chromium-profile");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut server = Some(server);
    let outcome = runtime.block_on(async {
        let client = session(&driver, &chromium, &profile).await?;
        let outcome = flow(&client, &driver, &ws, &mut server, &token).await;
        if outcome.is_err() {
            let _ = Shots::new().take(&client, "offline-failure").await;
        }
        let _ = client.close().await;
        outcome
    });
    if let Err(err) = outcome {
        let logs: String = ["server.log", "server-again.log"]
            .iter()
            .map(|name| std::fs::read_to_string(ws.root.path().join(name)).unwrap_or_default())
            .collect();
        panic!("browser flow failed: {err}\nserver logs:\n{logs}");
    }
}

async fn flow(
    client: &Client,
    driver: &Driver,
    ws: &Workspace,
    server: &mut Option<Server>,
    token: &str,
) -> Result {
    let shots = Shots::new();
    let base = server
        .as_ref()
        .unwrap()
        .base
        .trim_end_matches('/')
        .to_string();
    let listen = base.trim_start_matches("http://").to_string();
    let url = |path: &str| format!("{base}{path}");
    let id = client.session_id().await?.ok_or("no session id")?;

    // Online: log in; the worker takes control of the pages.
    log_in(client, &base, token).await?;
    wait_script(
        client,
        "const done = arguments[arguments.length - 1]; \
         navigator.serviceWorker.ready.then(r => done(!!r.active));",
        "the service worker is active",
        |v| v == &json!(true),
    )
    .await?;
    // The first page was loaded before the worker existed: open it again through it.
    client.goto(&url("/")).await?;
    wait_script(
        client,
        "const done = arguments[arguments.length - 1]; done(!!navigator.serviceWorker.controller);",
        "the service worker controls the page",
        |v| v == &json!(true),
    )
    .await?;

    // Installable: Chromium's own check (Lighthouse 12 has no PWA category any more),
    // and the manifest with its icons loads.
    let errors = cdp(driver, &id, "Page.getInstallabilityErrors", json!({}))?;
    assert_eq!(
        errors["installabilityErrors"],
        json!([]),
        "not installable: {errors}"
    );
    let manifest = cdp(driver, &id, "Page.getAppManifest", json!({}))?;
    assert_eq!(manifest["errors"], json!([]), "{manifest}");
    assert!(
        manifest["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("/manifest.webmanifest"))
    );
    let icons = client
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             fetch('/manifest.webmanifest').then(r => r.json()).then(m => \
               Promise.all(m.icons.map(i => fetch(i.src).then(r => r.status + ' ' + r.headers.get('content-type'))))) \
             .then(done, e => done(String(e)));",
            vec![],
        )
        .await?;
    for icon in icons.as_array().ok_or(format!("icons: {icons}"))? {
        let icon = icon.as_str().unwrap_or_default();
        assert!(
            icon.starts_with("200 image/"),
            "an icon did not load: {icon}"
        );
    }

    // Two notes opened: their pages, editors and texts are kept.
    client.goto(&url("/note/plan.md")).await?;
    wait_text(client, "main h1", "Trip plan").await?;
    client.goto(&url("/note/packing.md")).await?;
    wait_text(client, "main h1", "Packing list").await?;
    wait_script(client, &count_script("notes"), "note texts kept", |v| {
        v.as_i64().is_some_and(|n| n >= 2)
    })
    .await?;
    client.goto(&url("/")).await?;
    wait_text(client, "h1", "All notes").await?;
    let kept = client
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             caches.open('notes-pages').then(c => c.keys()).then(k => done(k.map(r => new URL(r.url).pathname)));",
            vec![],
        )
        .await?;
    for page in ["/", "/note/plan.md", "/edit/plan.md", "/new"] {
        assert!(
            kept.as_array().is_some_and(|k| k.contains(&json!(page))),
            "{page} not kept: {kept}"
        );
    }
    let api_kept = client
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             caches.keys().then(names => Promise.all(names.map(n => caches.open(n).then(c => c.keys())))) \
             .then(all => done(all.flat().map(r => new URL(r.url).pathname).filter(p => p.startsWith('/api/'))));",
            vec![],
        )
        .await?;
    assert_eq!(api_kept, json!([]), "an /api/ answer was kept");

    // Offline: the page's network and the server are both gone.
    network(driver, &id, true)?;
    // (Its blocking HTTP client is dropped off the async runtime.)
    let stopped = server.take();
    std::thread::spawn(move || drop(stopped))
        .join()
        .map_err(|_| "stopping the server failed")?;
    client.goto(&url("/")).await?;
    let banner = wait_text(client, ".offline-banner", "Offline — copy of").await?;
    assert!(banner.len() > "Offline — copy of ".len(), "{banner}");
    wait_text(client, "main", "Trip plan").await?;
    shots.take(client, "40-offline-banner").await?;
    client.goto(&url("/note/plan.md")).await?;
    wait_text(client, ".offline-banner", "Offline — copy of").await?;
    wait_text(client, "main", "Line two").await?;

    // A page never opened: the offline page.
    client.goto(&url("/note/never-opened.md")).await?;
    wait_text(client, "h1", "You are offline").await?;

    // A note's image is kept with it.
    client.goto(&url("/note/packing.md")).await?;
    wait_text(client, ".offline-banner", "Offline — copy of").await?;
    wait_script(
        client,
        "const done = arguments[arguments.length - 1]; const img = document.querySelector('main img'); \
         if (!img) return done(-1); \
         const width = () => done(img.naturalWidth); \
         img.complete ? width() : (img.onload = width, img.onerror = () => done(0));",
        "the image shows offline",
        |v| v == &json!(40),
    )
    .await?;

    // Offline search over the notes kept: case-insensitive, said to be offline results.
    client.goto(&url("/search?q=ZEPHYRINE")).await?;
    wait_text(client, ".offline-banner", "offline results").await?;
    wait_text(client, "ol.offline-results", "Packing list").await?;
    let said = page_text(client).await?;
    assert!(said.contains("Offline results"), "{said}");
    assert!(
        !said.contains("Trip plan"),
        "a note without the word was found"
    );

    // An edit offline: the draft is kept while typing and survives a reload.
    client.goto(&url("/edit/plan.md")).await?;
    wait_text(client, ".offline-banner", "Offline").await?;
    let edited = "Line one\nLine two, edited offline\nLine three\n";
    type_into(client, "textarea[name=body]", edited).await?;
    wait_script(client, &count_script("drafts"), "the draft kept", |v| {
        v.as_i64() == Some(1)
    })
    .await?;
    // The editor asks before the page with unsaved text is left; leaving is fine here.
    client
        .execute("setTimeout(() => location.reload(), 0)", vec![])
        .await?;
    wait_leave_dialog(client).await?;
    client.accept_alert().await?;
    wait_text(client, ".draft-offer", "was not saved").await?;
    click(client, ".draft-offer [data-restore]").await?;
    let body = client
        .find(Locator::Css("textarea[name=body]"))
        .await?
        .prop("value")
        .await?
        .unwrap_or_default();
    assert_eq!(body.replace("\r\n", "\n"), edited);
    click(client, "form.editor button[type=submit]").await?;
    wait_text(client, "p.queued", "Queued — will be sent when online").await?;
    wait_text(client, ".offline-status", "plan.md").await?;
    shots.take(client, "41-queued-edit").await?;

    // A new note offline.
    client.goto(&url("/new")).await?;
    wait_text(client, "h1", "New note").await?;
    client
        .execute(
            "Object.defineProperty(navigator, 'onLine', { get: () => false })",
            vec![],
        )
        .await?;
    type_into(client, "input[name=title]", "Written offline").await?;
    type_into(client, "textarea[name=body]", "Made in a tunnel.\n").await?;
    click(client, "form.editor button[type=submit]").await?;
    wait_text(client, "p.queued", "Queued — will be sent when online").await?;
    // The page queued it and stays on the editor.
    assert_eq!(client.current_url().await?.path(), "/new");
    assert!(
        !client
            .find_all(Locator::Css("form.editor[data-queued]"))
            .await?
            .is_empty()
    );

    // A reload offline: both saves are still queued.
    client.goto(&url("/")).await?;
    client.refresh().await?;
    wait_text(client, ".offline-status .queue", "written-offline.md").await?;
    wait_text(client, ".offline-status .queue", "plan.md").await?;
    wait_script(client, &count_script("outbox"), "two saves queued", |v| {
        v.as_i64() == Some(2)
    })
    .await?;

    // Meanwhile, the same line changes through the API.
    let (cli, log) = (ws.cli(), ws.root.path().join("server-again.log"));
    let again = std::thread::spawn(move || Server::start_at(cli, &listen, &[], log))
        .join()
        .map_err(|_| "starting the server again failed")?;
    let changed = PLAN.replace("Line two", "Line two, changed through the API");
    put_as(&again, token, "plan.md", &changed);
    *server = Some(again);

    // Online again. The restart ended the session: the page answers with the login,
    // and the worker deletes its copies; the queue stays.
    network(driver, &id, false)?;
    client.goto(&url("/note/plan.md")).await?;
    wait_text(client, "h1", "Log in").await?;
    wait_script(
        client,
        &count_script("notes"),
        "the note copies deleted",
        |v| v.as_i64() == Some(0),
    )
    .await?;
    let pages = client.execute_async(PAGES_KEPT, vec![]).await?;
    assert_eq!(pages, json!(0), "pages kept after the session ended");
    wait_script(client, &count_script("outbox"), "the queue kept", |v| {
        v.as_i64() == Some(2)
    })
    .await?;
    // Logged in again, the queue is sent.
    log_in(client, &base, token).await?;
    wait_text(client, ".offline-status .sent", "written-offline.md").await?;
    let conflict = wait_text(client, ".offline-status .sent li.conflict", "plan.md").await?;
    assert!(conflict.contains("both versions"), "{conflict}");
    wait_script(client, &count_script("outbox"), "the queue emptied", |v| {
        v.as_i64() == Some(0)
    })
    .await?;

    // The files on disk.
    assert!(
        eventually(Duration::from_secs(10), || ws
            .notes()
            .join("written-offline.md")
            .exists()),
        "the new note was not written"
    );
    let made = ws.read("written-offline.md");
    assert!(made.contains("Made in a tunnel."), "{made}");
    assert!(made.contains("Written offline"), "{made}");
    let plan = ws.read("plan.md");
    for side in [
        "Line two, edited offline",
        "Line two, changed through the API",
        "<<<<<<<",
        ">>>>>>>",
    ] {
        assert!(
            plan.contains(side),
            "{side:?} not in the merged note:\n{plan}"
        );
    }
    assert!(
        plan.contains("Line one") && plan.contains("Line three"),
        "{plan}"
    );

    // The resolve view opens from the link.
    click(client, ".offline-status a.resolve").await?;
    let deadline = Instant::now() + Duration::from_secs(15);
    while client.current_url().await?.path() != "/resolve/plan.md" {
        if Instant::now() > deadline {
            return Err(format!("not at the resolve page: {}", client.current_url().await?).into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let resolve = page_text(client).await?;
    assert!(
        resolve.contains("Line two, edited offline")
            && resolve.contains("Line two, changed through the API"),
        "the resolve page does not show both versions:\n{resolve}"
    );
    shots.take(client, "42-resolve-view").await?;
    Ok(())
}

/// Logging out with saves not sent asks first: cancelling keeps them and the session;
/// agreeing logs out and deletes the copies, the queue and the drafts.
#[test]
fn logging_out_asks_before_dropping_queued_saves_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    ws.write("packing.md", PACKING);
    let token = create_token(&ws, &["--name", "phone"]);
    let server = ws.serve();
    let base = server.base.trim_end_matches('/').to_string();
    super::in_browser(
        &ws,
        &server,
        (&chromium, &chromedriver),
        async |client, _| {
            log_in(client, &base, &token).await?;
            wait_script(
                client,
                "const done = arguments[arguments.length - 1]; \
                 navigator.serviceWorker.ready.then(r => done(!!r.active));",
                "the service worker is active",
                |v| v == &json!(true),
            )
            .await?;
            client.goto(&format!("{base}/note/packing.md")).await?;
            wait_text(client, "main h1", "Packing list").await?;
            wait_script(
                client,
                &count_script("notes"),
                "the note's text kept",
                |v| v.as_i64() == Some(1),
            )
            .await?;
            // Online, a kept page never hides a newer version.
            let newer = PACKING.replace("zephyrine scarf", "woollen hat");
            put_as(&server, &token, "packing.md", &newer);
            client.goto(&format!("{base}/note/packing.md")).await?;
            wait_text(client, "main", "woollen hat").await?;
            assert!(
                client
                    .find_all(Locator::Css(".offline-banner"))
                    .await?
                    .is_empty(),
                "an online page under the offline banner"
            );

            // A draft ends with the save the server confirms.
            client.goto(&format!("{base}/edit/packing.md")).await?;
            type_into(client, "textarea[name=body]", "Only the toothbrush.\n").await?;
            wait_script(client, &count_script("drafts"), "the draft kept", |v| {
                v.as_i64() == Some(1)
            })
            .await?;
            click(client, "form.editor button[type=submit]").await?;
            wait_text(client, "main", "Only the toothbrush.").await?;
            wait_script(client, &count_script("drafts"), "the draft ended", |v| {
                v.as_i64() == Some(0)
            })
            .await?;

            client
                .execute_async(
                    "const done = arguments[arguments.length - 1]; \
                     NotesOffline.enqueue('later.md', null, 'Not sent yet').then(() => done(true));",
                    vec![],
                )
                .await?;

            click(client, "form.logout button").await?;
            let question = wait_leave_dialog(client).await?;
            assert!(question.contains("will be lost"), "{question}");
            client.dismiss_alert().await?;
            wait_text(client, "main h1", "Packing list").await?;
            assert_eq!(
                client
                    .execute_async(&count_script("outbox"), vec![])
                    .await?,
                json!(1),
                "cancelling dropped the queue"
            );

            click(client, "form.logout button").await?;
            wait_leave_dialog(client).await?;
            client.accept_alert().await?;
            wait_text(client, "h1", "Log in").await?;
            for store in ["outbox", "notes", "drafts"] {
                wait_script(client, &count_script(store), store, |v| {
                    v.as_i64() == Some(0)
                })
                .await?;
            }
            assert_eq!(client.execute_async(PAGES_KEPT, vec![]).await?, json!(0));
            Ok(())
        },
    );
}
