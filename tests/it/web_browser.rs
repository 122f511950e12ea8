//! The web interface in a real browser: headless Chromium driven through chromedriver
//! (WebDriver, with fantoccini) from the empty public index and the 404 page, along a
//! wikilink to a note with backlinks, through create → edit → view rendered → publish →
//! open the public page → search → delete, and a note's history, trash and undo, saving
//! a screenshot of each page under
//! `tests/artifacts/web/` (desktop, phone width, and dark).
//!
//! Outside CI the test is skipped, loudly, when Chromium or chromedriver is missing;
//! with `CI=true` it must run.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::json;

use crate::support::{Driver, Server, Workspace, browser_programs as browser};

/// Callouts, math, task lists and block links.
mod obsidian;
/// Offline: the service worker's copies, offline search, queued saves merged back.
mod offline;
/// Sessions, the list, the note's buttons, type, trash, API page, conflicts.
mod pages;
/// Attachments: uploads in the editor, the image on the note and public pages.
mod upload;

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A browser session: headless Chromium with the flags that work here (as root, in a
/// container), a fresh profile, no network beyond loopback.
async fn session(driver: &Driver, chromium: &Path, profile: &Path) -> Result<Client> {
    crate::support::session(driver, chromium, profile, &[]).await
}

/// Screenshots of every step.
struct Shots {
    dir: PathBuf,
}

impl Shots {
    fn new() -> Shots {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/artifacts/web");
        std::fs::create_dir_all(&dir).expect("artifacts dir");
        Shots { dir }
    }

    async fn take(&self, client: &Client, name: &str) -> Result {
        let png = client.screenshot().await?;
        std::fs::write(self.dir.join(format!("{name}.png")), png)?;
        Ok(())
    }
}

/// Waits until an element matching `css` shows `needle` in its text; returns that text.
async fn wait_text(client: &Client, css: &str, needle: &str) -> Result<String> {
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut seen = Vec::new();
    loop {
        seen.clear();
        for element in client.find_all(Locator::Css(css)).await? {
            let text = element.text().await.unwrap_or_default();
            // CSS may change the case of what is shown (badges are upper case).
            if text.to_lowercase().contains(&needle.to_lowercase()) {
                return Ok(text);
            }
            seen.push(text);
        }
        if Instant::now() > deadline {
            return Err(format!(
                "no {css} with {needle:?} on {} (saw {seen:?})",
                client.current_url().await?
            )
            .into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn click(client: &Client, css: &str) -> Result {
    client.find(Locator::Css(css)).await?.click().await?;
    Ok(())
}

async fn type_into(client: &Client, css: &str, text: &str) -> Result {
    let field = client.find(Locator::Css(css)).await?;
    field.clear().await?;
    field.send_keys(text).await?;
    Ok(())
}

/// The body's background and margins: the same on every page of the interface.
async fn body_look(client: &Client) -> Result<String> {
    let look = client
        .execute(
            "const s = getComputedStyle(document.body); \
             return [s.backgroundColor, s.marginTop, s.paddingTop].join(' ')",
            vec![],
        )
        .await?;
    Ok(look.as_str().unwrap_or_default().to_string())
}

/// Emulates the dark colour scheme through chromedriver's DevTools bridge.
fn prefer_dark(driver: &Driver, session: &str) -> Result {
    use std::io::{Read, Write};
    let body = json!({
        "cmd": "Emulation.setEmulatedMedia",
        "params": {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
    })
    .to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", driver.port))?;
    write!(
        stream,
        "POST /session/{session}/goog/cdp/execute HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        driver.port,
        body.len()
    )?;
    // Only the status line matters; chromedriver may keep the connection open.
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..n]);
    }
    let answer = String::from_utf8_lossy(&answer);
    if !answer.starts_with("HTTP/1.1 200") {
        return Err(format!("dark mode emulation failed: {answer}").into());
    }
    Ok(())
}

const BODY: &str = "Two slow days, no alarm clock.\n\n## Saturday\n\n- Market at **9**\n- [x] Book the table\n- [ ] Call Ann\n\n## Sunday\n\n| When | What |\n|---|---|\n| 10:00 | Bike ride |\n| 16:00 | `tea` & cake |\n\n> Leave the laptop at home.\n";

#[test]
fn a_note_from_creation_to_deletion_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    ws.write(
        "recipes/tarte-tatin.md",
        "---\ntitle: Tarte Tatin\naliases: [Tarte Tatin]\ntags: [recipes, baking]\n---\nCaramelise the apples first.\n\n\
         For [[work/standup|the team]]: ![[Stand-up notes]]\n",
    );
    ws.write(
        "work/standup.md",
        "---\ntitle: Stand-up notes\naliases: [Stand-up notes]\ntags: [work]\n---\nShip the web interface.\n\n\
         Cake: [[Tarte Tatin]] for the party, costs in [[Party budget]].\n",
    );
    let server = ws.serve();
    in_browser(
        &ws,
        &server,
        (&chromium, &chromedriver),
        async |client, driver| journey(client, driver, &server.base, &ws).await,
    );
}

/// Runs `flow` in a fresh browser session; a failure panics with a screenshot
/// (`failure.png`), the server's log and the end of chromedriver's.
fn in_browser(
    ws: &Workspace,
    server: &Server,
    (chromium, chromedriver): (&Path, &Path),
    flow: impl AsyncFnOnce(&Client, &Driver) -> Result,
) {
    let log = ws.root.path().join("chromedriver.log");
    let driver = Driver::start(chromedriver, &log);
    let profile = ws.root.path().join("chromium-profile");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = runtime.block_on(async {
        let client = session(&driver, chromium, &profile).await?;
        let outcome = flow(&client, &driver).await;
        if outcome.is_err() {
            let _ = Shots::new().take(&client, "failure").await;
        }
        let _ = client.close().await;
        outcome
    });
    if let Err(err) = outcome {
        panic!(
            "browser flow failed: {err}\nserver log:\n{}\nchromedriver log tail:\n{}",
            server.log(),
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

async fn journey(client: &Client, driver: &Driver, base: &str, ws: &Workspace) -> Result {
    let shots = Shots::new();
    let url = |path: &str| format!("{}{path}", base.trim_end_matches('/'));

    // Before anything is published, the public index says so, styled like the pages.
    client.goto(&url("/public/")).await?;
    wait_text(client, "h1", "Public notes").await?;
    wait_text(client, "p.empty", "Nothing is published yet.").await?;
    let font = client
        .execute(
            "return getComputedStyle(document.querySelector('h1')).fontFamily",
            vec![],
        )
        .await?;
    assert!(
        font.as_str().is_some_and(|f| f.contains("system-ui")),
        "the empty public index has no stylesheet: h1 in {font}"
    );
    shots.take(client, "00-public-empty").await?;

    // An address nothing answers: the interface's 404 page, framed like every page.
    client.goto(&url("/nope")).await?;
    wait_text(client, ".failure h1", "Not Found").await?;
    let not_found_body = body_look(client).await?;
    shots.take(client, "00-not-found").await?;

    // The list of notes.
    client.goto(&url("/")).await?;
    wait_text(client, "h1", "All notes").await?;
    wait_text(client, ".notes .title", "Tarte Tatin").await?;
    assert_eq!(
        not_found_body,
        body_look(client).await?,
        "the 404 page's body differs from the list's (a tinted strip?)"
    );
    shots.take(client, "01-home").await?;

    // A wikilink leads from one note to another, which lists it under "Linked from";
    // a link to a note not written yet is marked as missing.
    client.goto(&url("/note/work/standup.md")).await?;
    wait_text(client, "article h1", "Stand-up notes").await?;
    wait_text(client, ".content a.missing", "Party budget").await?;
    click(client, ".content a[href='/note/recipes/tarte-tatin.md']").await?;
    wait_text(client, "article h1", "Tarte Tatin").await?;
    assert!(
        client
            .current_url()
            .await?
            .path()
            .ends_with("/note/recipes/tarte-tatin.md")
    );
    wait_text(client, ".content a.embed", "Stand-up notes").await?;
    let backlink = wait_text(client, ".backlinks li", "Stand-up notes").await?;
    assert!(
        backlink.contains("Cake: Tarte Tatin for the party, costs in Party budget."),
        "{backlink}"
    );
    shots.take(client, "01a-note-links-and-backlinks").await?;
    client.goto(&url("/note/work/standup.md")).await?;
    click(client, ".content a.missing").await?;
    wait_text(client, "h1", "New note").await?;
    let path = client
        .find(Locator::Css("input[name=path]"))
        .await?
        .prop("value")
        .await?;
    assert_eq!(path.as_deref(), Some("Party budget.md"));

    // Create a note in a sub-folder, with the live preview on.
    click(client, "a.button.new").await?;
    wait_text(client, "h1", "New note").await?;
    type_into(client, "input[name=title]", "Weekend plans").await?;
    type_into(client, "input[name=path]", "life/").await?;
    type_into(client, "input[name=tags]", "home, todo").await?;
    type_into(client, "textarea[name=body]", BODY).await?;
    wait_text(client, ".preview .content h2", "Saturday").await?;
    shots.take(client, "02-editor-new").await?;
    click(client, "form.editor button[type=submit]").await?;
    wait_text(client, ".notice", "Note created.").await?;
    wait_text(client, "article h1", "Weekend plans").await?;
    assert!(ws.notes().join("life/weekend-plans.md").is_file());

    // Edit it: the change shows rendered.
    click(client, ".toolbar a.button.primary").await?;
    wait_text(client, "h1", "Edit").await?;
    let body = client.find(Locator::Css("textarea[name=body]")).await?;
    body.send_keys("\nBring **croissants** for everyone.\n")
        .await?;
    wait_text(client, ".preview .content", "croissants").await?;
    shots.take(client, "03-editor-edit").await?;
    click(client, "form.editor button[type=submit]").await?;
    wait_text(client, ".notice", "Changes saved.").await?;
    let strong = wait_text(client, ".content strong", "croissants").await?;
    assert_eq!(strong, "croissants");
    wait_text(client, ".content table td", "Bike ride").await?;
    wait_text(client, ".content h2", "Sunday").await?;
    shots.take(client, "04-note-rendered").await?;

    // Publish, then open the public page.
    click(client, "button[value=publish]").await?;
    wait_text(client, ".notice", "Published").await?;
    wait_text(client, "article .badge", "Public").await?;
    shots.take(client, "05-note-published").await?;
    let note_url = client.current_url().await?;
    click(client, "a[href^='/public/']").await?;
    wait_text(client, "h1", "Weekend plans").await?;
    wait_text(client, ".content", "croissants").await?;
    assert!(
        client
            .current_url()
            .await?
            .path()
            .ends_with("/public/weekend-plans.html")
    );
    shots.take(client, "06-public-page").await?;

    // The home page shows the badge and filters by tag.
    client.goto(&url("/")).await?;
    wait_text(client, ".notes li", "Public").await?;
    click(client, ".tagbar a[href='/?tag=todo']").await?;
    wait_text(client, "h1", "#todo").await?;
    let titles = client.find_all(Locator::Css(".notes .title")).await?;
    assert_eq!(titles.len(), 1);
    shots.take(client, "07-home-tag-filter").await?;

    // Search from the top bar, then from the search page's own box (its only one); the
    // index catches up in the background.
    let deadline = Instant::now() + Duration::from_secs(20);
    type_into(client, ".bar input[name=q]", "croissants\n").await?;
    loop {
        wait_text(client, "h1", "Search").await?;
        let boxes = client.find_all(Locator::Css("input[name=q]")).await?;
        assert_eq!(boxes.len(), 1, "the search page shows one search box");
        let marks = client.find_all(Locator::Css(".results mark")).await?;
        if !marks.is_empty() {
            assert_eq!(marks[0].text().await?.to_lowercase(), "croissants");
            break;
        }
        if Instant::now() > deadline {
            return Err("search never found the new note".into());
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        type_into(client, "main input[name=q]", "croissants\n").await?;
    }
    wait_text(client, ".results .title", "Weekend plans").await?;
    shots.take(client, "08-search").await?;

    // Phone width.
    client.set_window_size(390, 844).await?;
    client.goto(&url("/")).await?;
    wait_text(client, "h1", "All notes").await?;
    shots.take(client, "09-phone-home").await?;
    client.goto(note_url.as_str()).await?;
    wait_text(client, "article h1", "Weekend plans").await?;
    shots.take(client, "10-phone-note").await?;
    let width: i64 = client
        .execute("return document.documentElement.scrollWidth", vec![])
        .await?
        .as_i64()
        .unwrap_or(0);
    assert!(
        width <= 390,
        "the note page scrolls sideways at 390px: {width}px"
    );
    click(client, ".toolbar a.button.primary").await?;
    wait_text(client, "h1", "Edit").await?;
    shots.take(client, "11-phone-editor").await?;

    // Dark.
    client.set_window_size(1280, 900).await?;
    if let Some(id) = client.session_id().await? {
        prefer_dark(driver, &id)?;
    }
    client.goto(note_url.as_str()).await?;
    wait_text(client, "article h1", "Weekend plans").await?;
    shots.take(client, "12-dark-note").await?;
    client.goto(&url("/")).await?;
    wait_text(client, "h1", "All notes").await?;
    shots.take(client, "13-dark-home").await?;

    // Move / rename: the public note keeps its page, under its new name.
    client.goto(note_url.as_str()).await?;
    wait_text(client, "article h1", "Weekend plans").await?;
    click(client, "a[href^='/move/']").await?;
    wait_text(client, "h1", "Move").await?;
    let to = client.find(Locator::Css("input[name=to]")).await?;
    to.clear().await?;
    to.send_keys("life/weekend.md").await?;
    shots.take(client, "13a-move").await?;
    click(client, "form.editor button[type=submit]").await?;
    wait_text(client, "article h1", "Weekend plans").await?;
    let moved_url = client.current_url().await?;
    assert!(
        moved_url.path().ends_with("/note/life/weekend.md"),
        "after the move the browser is at {moved_url}"
    );
    assert!(ws.notes().join("life/weekend.md").is_file());
    assert!(!ws.notes().join("life/weekend-plans.md").exists());
    assert!(ws.public().join("weekend.html").is_file());
    assert!(!ws.public().join("weekend-plans.html").exists());

    // Delete, after confirming.
    client.goto(moved_url.as_str()).await?;
    wait_text(client, "article h1", "Weekend plans").await?;
    click(client, "details.delete summary").await?;
    wait_text(client, "form.confirm", "goes to the trash").await?;
    shots.take(client, "14-delete-confirm").await?;
    click(client, "form.confirm button").await?;
    wait_text(client, ".notice", "Note deleted.").await?;
    wait_text(client, "h1", "All notes").await?;
    shots.take(client, "15-after-delete").await?;
    assert!(!ws.notes().join("life/weekend.md").exists());
    assert!(!ws.public().join("weekend.html").exists());
    Ok(())
}

/// Where the editor's Save button is, against the window: `[top, bottom, window height,
/// page height]` in CSS pixels.
async fn save_button_box(client: &Client) -> Result<Vec<f64>> {
    let answer = client
        .execute(
            "const b = document.querySelector('form.editor .actions button[type=submit]') \
                 .getBoundingClientRect(); \
             return [b.top, b.bottom, window.innerHeight, \
                 document.documentElement.scrollHeight]",
            vec![],
        )
        .await?;
    let numbers = answer
        .as_array()
        .map(|a| a.iter().filter_map(|n| n.as_f64()).collect::<Vec<_>>())
        .unwrap_or_default();
    if numbers.len() != 4 {
        return Err(format!("no Save button box: {answer}").into());
    }
    Ok(numbers)
}

/// The Save button is inside the window, at the top of the editor's page and halfway
/// down, although the page is longer than the window.
async fn assert_save_in_view(client: &Client, size: &str) -> Result {
    for scroll in ["0", "document.documentElement.scrollHeight / 2"] {
        client
            .execute(&format!("window.scrollTo(0, {scroll})"), vec![])
            .await?;
        let [top, bottom, window, page] = save_button_box(client).await?[..] else {
            unreachable!("four numbers");
        };
        assert!(
            page > window * 1.5,
            "{size}: the page ({page}px) is not longer than the window ({window}px)"
        );
        assert!(
            top >= 0.0 && bottom <= window,
            "{size}, scrolled to {scroll}: Save at {top}..{bottom}px, window {window}px"
        );
    }
    client.execute("window.scrollTo(0, 0)", vec![]).await?;
    Ok(())
}

/// Waits for the dialog a page raises before it is left, and returns its text.
async fn wait_leave_dialog(client: &Client) -> Result<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match client.get_alert_text().await {
            Ok(text) => return Ok(text),
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(err) => return Err(format!("no dialog before leaving: {err}").into()),
        }
    }
}

/// The text of the editor's body field.
async fn body_text(client: &Client) -> Result<String> {
    let value = client
        .find(Locator::Css("textarea[name=body]"))
        .await?
        .prop("value")
        .await?;
    Ok(value.unwrap_or_default())
}

/// A note of 200 lines, with a heading every 20.
fn long_note() -> String {
    let mut text = String::from("---\ntitle: A long note\n---\n");
    for n in 1..=200 {
        if n % 20 == 1 {
            text.push_str(&format!("## Part {}\n\n", n / 20 + 1));
        }
        text.push_str(&format!("Line {n}: notes on what happened that day.\n\n"));
    }
    text
}

/// The editor keeps Save in view on a long note, saves on Ctrl+S, asks before
/// unsaved changes are left (and not when saving), and a note changed after its
/// publication says so, with the button that updates its public page.
#[test]
fn the_editor_keeps_unsaved_work_and_public_pages_say_when_they_are_out_of_date() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    ws.write("long.md", &long_note());
    ws.write(
        "garden.md",
        "---\ntitle: Garden\n---\nPlant the tulips in October.\n",
    );
    let server = ws.serve();
    assert_eq!(server.toggle("garden.md").0, 200);
    // Past the file system clock's tick (it may lag the system's), the note changes.
    std::thread::sleep(Duration::from_millis(50));
    ws.write(
        "garden.md",
        "---\ntitle: Garden\n---\nPlant the tulips in October, the garlic in November.\n",
    );
    in_browser(
        &ws,
        &server,
        (&chromium, &chromedriver),
        async |client, _| editor_flow(client, &server.base, &ws).await,
    );
}

async fn editor_flow(client: &Client, base: &str, ws: &Workspace) -> Result {
    let shots = Shots::new();
    let url = |path: &str| format!("{}{path}", base.trim_end_matches('/'));
    let original = ws.read("long.md");

    // Save stays in view on a long note, at desktop and at phone size.
    client.goto(&url("/edit/long.md")).await?;
    wait_text(client, "h1", "Edit").await?;
    wait_text(client, ".preview .content", "Line 200").await?;
    assert_save_in_view(client, "1280x900").await?;

    // Unsaved text: leaving asks; staying keeps the text.
    let body = client.find(Locator::Css("textarea[name=body]")).await?;
    body.send_keys("A line not saved yet.").await?;
    wait_text(client, ".preview .content", "not saved yet").await?;
    shots.take(client, "16-editor-unsaved").await?;
    click(client, "nav.crumbs a").await?;
    let question = wait_leave_dialog(client).await?;
    client.dismiss_alert().await?;
    assert!(
        client.current_url().await?.path().starts_with("/edit/"),
        "dismissed ({question:?}), yet the editor was left"
    );
    assert!(body_text(client).await?.ends_with("A line not saved yet."));
    assert_eq!(ws.read("long.md"), original);

    // Ctrl+S saves it, without asking.
    body.send_keys(&(Key::Control + "s")).await?;
    wait_text(client, ".notice", "Changes saved.").await?;
    wait_text(client, "article h1", "A long note").await?;
    assert!(ws.read("long.md").contains("A line not saved yet."));

    // Nothing changed: leaving asks nothing.
    client.goto(&url("/edit/long.md")).await?;
    wait_text(client, "h1", "Edit").await?;
    click(client, "nav.crumbs a").await?;
    wait_text(client, "article h1", "A long note").await?;

    // A changed title asks too; accepting leaves and drops the change.
    let saved = ws.read("long.md");
    client.goto(&url("/edit/long.md")).await?;
    wait_text(client, "h1", "Edit").await?;
    type_into(client, "input[name=title]", "A title not kept").await?;
    click(client, ".actions a.button").await?;
    wait_leave_dialog(client).await?;
    client.accept_alert().await?;
    wait_text(client, "article h1", "A long note").await?;
    assert_eq!(ws.read("long.md"), saved);

    // At phone size too.
    client.set_window_size(390, 844).await?;
    client.goto(&url("/edit/long.md")).await?;
    wait_text(client, "h1", "Edit").await?;
    assert_save_in_view(client, "390x844").await?;
    client.set_window_size(1280, 900).await?;

    // A public note changed since its publication says so; the button updates the page.
    client.goto(&url("/note/garden.md")).await?;
    let hint = wait_text(client, ".stale", "The public page is out of date").await?;
    assert!(hint.contains("published on"), "{hint}");
    shots.take(client, "17-note-public-out-of-date").await?;
    assert!(!ws.public_text("garden.html").contains("garlic"));
    click(client, ".stale button[value=republish]").await?;
    wait_text(client, ".notice", "Public page updated.").await?;
    assert!(client.find_all(Locator::Css(".stale")).await?.is_empty());
    assert!(ws.public_text("garden.html").contains("garlic"));
    Ok(())
}

/// A 48x24 blue PNG.
const BLUE_PNG: [u8; 101] = [
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 48, 0, 0, 0, 24, 8, 2,
    0, 0, 0, 51, 159, 233, 139, 0, 0, 0, 44, 73, 68, 65, 84, 120, 218, 237, 206, 1, 9, 0, 0, 8, 3,
    176, 199, 49, 157, 137, 13, 99, 13, 193, 193, 2, 44, 213, 115, 74, 132, 132, 132, 132, 132,
    132, 132, 132, 132, 132, 132, 132, 126, 133, 22, 70, 164, 129, 91, 236, 211, 236, 156, 0, 0, 0,
    0, 73, 69, 78, 68, 174, 66, 96, 130,
];

#[test]
fn a_note_page_shows_the_images_beside_the_note() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    ws.write(
        "trips/alps.md",
        "---\ntitle: Alps\n---\nThe ridge: ![the ridge](img/ridge.png), again: ![[img/ridge.png]]\n",
    );
    std::fs::create_dir_all(ws.notes().join("trips/img")).unwrap();
    std::fs::write(ws.notes().join("trips/img/ridge.png"), BLUE_PNG).unwrap();
    let server = ws.serve();
    in_browser(
        &ws,
        &server,
        (&chromium, &chromedriver),
        async |client, _| {
            client
                .goto(&format!(
                    "{}/note/trips/alps.md",
                    server.base.trim_end_matches('/')
                ))
                .await?;
            wait_text(client, "article h1", "Alps").await?;
            // Both images loaded, at their own size: the browser fetched them from /file/.
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let widths = client
                    .execute(
                        "return [...document.querySelectorAll('article img')] \
                             .map(i => i.complete ? i.naturalWidth : -1)",
                        vec![],
                    )
                    .await?;
                if widths == json!([48, 48]) {
                    break;
                }
                assert!(Instant::now() < deadline, "images not shown: {widths}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Shots::new().take(client, "18-note-images").await?;
            Ok(())
        },
    );
}

/// A note edited twice in the editor: its History page shows the diff of the last edit,
/// the first version is restored from there; a deleted note comes back with Undo, and
/// from the Trash.
#[test]
fn history_diff_restore_undo_and_trash_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    let server = ws.serve();
    in_browser(
        &ws,
        &server,
        (&chromium, &chromedriver),
        async |client, _| history_flow(client, &server.base, &ws).await,
    );
}

async fn history_flow(client: &Client, base: &str, ws: &Workspace) -> Result {
    let shots = Shots::new();
    let url = |path: &str| format!("{}{path}", base.trim_end_matches('/'));

    // Written in the editor, then edited twice.
    client.goto(&url("/new")).await?;
    type_into(client, "input[name=title]", "Packing list").await?;
    type_into(client, "input[name=path]", "trips/packing.md").await?;
    type_into(
        client,
        "textarea[name=body]",
        "- passport\n- <b>charger</b>\n",
    )
    .await?;
    click(client, "form.editor button[type=submit]").await?;
    wait_text(client, ".notice", "Note created.").await?;
    let first = ws.read("trips/packing.md");
    for line in ["- sunscreen\n", "- <script>alert(1)</script>\n"] {
        client.goto(&url("/edit/trips/packing.md")).await?;
        wait_text(client, "h1", "Edit").await?;
        client
            .find(Locator::Css("textarea[name=body]"))
            .await?
            .send_keys(line)
            .await?;
        click(client, "form.editor button[type=submit]").await?;
        wait_text(client, ".notice", "Changes saved.").await?;
    }
    assert!(
        ws.read("trips/packing.md")
            .contains("<script>alert(1)</script>")
    );

    // History, from the note page: three versions, the last edit's diff.
    click(client, "a[href='/history/trips/packing.md']").await?;
    wait_text(client, "h1", "History of").await?;
    assert_eq!(
        client
            .find_all(Locator::Css("table.versions tbody tr"))
            .await?
            .len(),
        3
    );
    click(
        client,
        "table.versions tbody tr:first-child .row-actions a:nth-child(2)",
    )
    .await?;
    let added = wait_text(client, "table.diff tr.add", "<script>").await?;
    assert!(added.contains("alert(1)"), "{added}");
    // Besides the front matter's stamp (when the minute turned), no line went.
    for removed in client.find_all(Locator::Css("table.diff tr.del")).await? {
        let text = removed.text().await?;
        assert!(text.contains("last_modified"), "removed: {text}");
    }
    shots.take(client, "23-history-diff").await?;

    // Two chosen versions: the oldest against the newest.
    click(
        client,
        "table.versions tbody tr:last-child input[name=from]",
    )
    .await?;
    click(client, "form.compare button").await?;
    wait_text(client, "table.diff tr.add", "sunscreen").await?;

    // Restore the first version: the note is its text again, byte for byte.
    click(
        client,
        "table.versions tbody tr:last-child form.restore button",
    )
    .await?;
    wait_text(client, ".notice", "Version restored").await?;
    wait_text(client, "article h1", "Packing list").await?;
    assert_eq!(ws.read("trips/packing.md"), first);

    // Delete, then Undo.
    click(client, "details.delete summary").await?;
    click(client, "form.confirm button").await?;
    wait_text(client, ".notice", "Note deleted.").await?;
    assert!(!ws.notes().join("trips/packing.md").exists());
    shots.take(client, "24-delete-undo").await?;
    click(client, ".notice.undo button").await?;
    wait_text(client, ".notice", "Delete undone").await?;
    assert_eq!(ws.read("trips/packing.md"), first);

    // Delete again: the Trash lists it and restores it.
    click(client, "details.delete summary").await?;
    click(client, "form.confirm button").await?;
    wait_text(client, ".notice", "Note deleted.").await?;
    click(client, "footer.site a[href='/trash']").await?;
    wait_text(client, ".trash li .title", "Packing list").await?;
    wait_text(client, ".trash li .what .path", "trips/packing.md").await?;
    shots.take(client, "25-trash").await?;
    click(client, ".trash li form.restore button").await?;
    wait_text(client, ".notice", "Version restored").await?;
    assert_eq!(ws.read("trips/packing.md"), first);
    client.goto(&url("/trash")).await?;
    wait_text(client, ".empty-state", "The trash is empty.").await?;
    Ok(())
}
