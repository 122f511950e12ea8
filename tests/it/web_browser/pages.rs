//! The pages as a person sees them, at desktop (1280x900) and phone width: the login
//! page styled like the others, a read-only session without write controls, Log out;
//! a list that holds eight notes or more per screen; a note's buttons on one row; one
//! type face for text and tables; the trash by titles; the API page; a save refused by
//! a conflict, kept with its diff, then saved over the current version. Screenshots
//! under `tests/artifacts/web/` (`30-…` to `39-…`).

use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};

use super::{Result, Shots, body_text, browser, click, in_browser, type_into, wait_text};
use crate::support::{Workspace, note, stdout};

async fn number(client: &Client, script: &str) -> Result<f64> {
    let value = client.execute(script, vec![]).await?;
    value
        .as_f64()
        .ok_or_else(|| format!("not a number: {value} from {script}").into())
}

/// Whether an element matching `css` is on the page.
async fn present(client: &Client, css: &str) -> Result<bool> {
    Ok(!client.find_all(Locator::Css(css)).await?.is_empty())
}

/// Waits until the browser is at `path`.
async fn wait_path(client: &Client, path: &str) -> Result {
    let deadline = Instant::now() + Duration::from_secs(15);
    while client.current_url().await?.path() != path {
        if Instant::now() > deadline {
            return Err(format!("not at {path}: {}", client.current_url().await?).into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

async fn log_in(client: &Client, base: &str, token: &str) -> Result {
    client.goto(&format!("{base}/login")).await?;
    wait_text(client, "h1", "Log in").await?;
    type_into(client, "#token", token).await?;
    click(client, "form[action='/login'] button").await?;
    wait_text(client, "h1", "All notes").await?;
    Ok(())
}

#[test]
fn sessions_see_what_they_may_do_and_log_out_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    ws.write("work/plan.md", &note("Plan", &["work"], "The plan.\n"));
    let full = stdout(&ws.run(&["token", "create", "--name", "full"]))
        .trim()
        .to_string();
    let reader = stdout(&ws.run(&["token", "create", "--name", "reader", "--read-only"]))
        .trim()
        .to_string();
    let server = ws.serve();
    let base = server.base.trim_end_matches('/').to_string();
    in_browser(
        &ws,
        &server,
        (&chromium, &chromedriver),
        async |client, _| {
            let shots = Shots::new();
            // The login page: framed like every page, a card with a full-width field,
            // nothing offered but the login.
            for (size, (w, h)) in [("desktop", (1280, 900)), ("phone", (390, 844))] {
                client.set_window_size(w, h).await?;
                client.goto(&format!("{base}/note/work/plan.md")).await?;
                wait_text(client, "h1", "Log in").await?;
                let bar = number(
                    client,
                    "return document.querySelector('header.bar').getBoundingClientRect().bottom",
                )
                .await?;
                let heading = number(
                    client,
                    "return document.querySelector('.login h1').getBoundingClientRect().top",
                )
                .await?;
                assert!(
                    heading >= bar + 24.0,
                    "{size}: the heading touches the bar ({heading} vs {bar})"
                );
                let field = number(
                    client,
                    "return document.querySelector('#token').getBoundingClientRect().width",
                )
                .await?;
                let card = number(
                    client,
                    "return document.querySelector('.login').getBoundingClientRect().width",
                )
                .await?;
                assert!(
                    field >= card * 0.75,
                    "{size}: the token field is {field}px of {card}px"
                );
                let font = client
                    .execute(
                        "return getComputedStyle(document.querySelector('#token')).fontFamily",
                        vec![],
                    )
                    .await?;
                assert!(
                    font.as_str().is_some_and(|f| f.contains("system-ui")),
                    "{font}"
                );
                for hidden in [
                    "a.button.new",
                    "footer.site a[href='/trash']",
                    "form.logout",
                ] {
                    assert!(
                        !present(client, hidden).await?,
                        "{size}: a visitor sees {hidden}"
                    );
                }
                shots.take(client, &format!("30-login-{size}")).await?;
            }
            client.set_window_size(1280, 900).await?;

            // Read-only: reading, no control that changes a note.
            log_in(client, &base, &reader).await?;
            assert!(!present(client, "a.button.new").await?);
            client.goto(&format!("{base}/note/work/plan.md")).await?;
            wait_text(client, "article h1", "Plan").await?;
            for hidden in [
                ".toolbar a[href^='/edit/']",
                ".toolbar a[href^='/move/']",
                "button[value=publish]",
                "details.delete",
            ] {
                assert!(!present(client, hidden).await?, "read-only sees {hidden}");
            }
            assert!(present(client, ".toolbar a[href^='/history/']").await?);
            shots.take(client, "31-read-only-note").await?;
            // Log out: back to the login page, and the pages ask for it again.
            click(client, "form.logout button").await?;
            wait_path(client, "/login").await?;
            client.goto(&format!("{base}/")).await?;
            wait_path(client, "/login").await?;

            // A full token: every control.
            log_in(client, &base, &full).await?;
            assert!(present(client, "a.button.new").await?);
            client.goto(&format!("{base}/note/work/plan.md")).await?;
            wait_text(client, "article h1", "Plan").await?;
            assert!(present(client, ".toolbar a[href^='/edit/']").await?);
            assert!(present(client, "form.logout button").await?);
            shots.take(client, "32-full-session-note").await?;
            Ok(())
        },
    );
}

/// A note with a table and a paragraph, and tags.
fn listed(n: usize) -> String {
    note(
        &format!("Meeting {n:02}"),
        &["work", "weekly"],
        &format!(
            "Notes of meeting {n}: budget, hiring and the roadmap for the next quarter.\n\n\
             | Who | What |\n|---|---|\n| Ann | Budget |\n"
        ),
    )
}

#[test]
fn lists_notes_and_buttons_fit_the_screen_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    for n in 1..=20 {
        ws.write(&format!("meetings/2026/meeting-{n:02}.md"), &listed(n));
    }
    let server = ws.serve();
    // Published, so the note page shows every button it can.
    assert_eq!(server.toggle("meetings/2026/meeting-01.md").0, 200);
    // A deleted note, for the trash.
    assert!(
        server
            .put_markdown("/api/v1/notes/old.md", &note("Old ideas", &[], "x\n"))
            .status()
            .is_success()
    );
    let deleted = server
        .request("DELETE", "/api/v1/notes/old.md")
        .send()
        .unwrap();
    assert_eq!(deleted.status(), 200);
    let base = server.base.trim_end_matches('/').to_string();
    in_browser(
        &ws,
        &server,
        (&chromium, &chromedriver),
        async |client, _| {
            let shots = Shots::new();
            client.set_window_size(1280, 900).await?;
            client.goto(&format!("{base}/")).await?;
            wait_text(client, ".notes .title", "Meeting").await?;
            let shown = number(
                client,
                "return [...document.querySelectorAll('.notes.listing > li')].filter(li => { \
                 const r = li.getBoundingClientRect(); \
                 return r.top >= 0 && r.bottom <= window.innerHeight; }).length",
            )
            .await?;
            wait_text(client, ".notes .excerpt", "budget, hiring").await?;
            shots.take(client, "33-list-desktop").await?;
            let boxes = client
                .execute(
                    "const li = document.querySelector('.notes.listing > li'); \
                 return [window.innerHeight, li.getBoundingClientRect().top, \
                     ...[...li.children].map(c => c.getBoundingClientRect().height), \
                     li.getBoundingClientRect().height]",
                    vec![],
                )
                .await?;
            assert!(
                shown >= 8.0,
                "only {shown} notes fit a 1280x900 screen: {boxes}"
            );
            client.set_window_size(390, 844).await?;
            let width = number(client, "return document.documentElement.scrollWidth").await?;
            assert!(
                width <= 390.0,
                "the list scrolls sideways at 390px: {width}px"
            );
            shots.take(client, "34-list-phone").await?;

            // The note page: every button on one row at 1280px; text and table in one face.
            client.set_window_size(1280, 900).await?;
            client
                .goto(&format!("{base}/note/meetings/2026/meeting-01.md"))
                .await?;
            wait_text(client, "article h1", "Meeting 01").await?;
            let tops = client
            .execute(
                "return [...document.querySelectorAll('.toolbar > .button, .toolbar > form > .button, \
                     .toolbar > details > summary')].map(b => b.getBoundingClientRect().top)",
                vec![],
            )
            .await?;
            let tops: Vec<f64> = tops
                .as_array()
                .map(|a| a.iter().filter_map(|t| t.as_f64()).collect())
                .unwrap_or_default();
            assert!(tops.len() >= 8, "the toolbar lacks buttons: {tops:?}");
            let widths = client
            .execute(
                "return [document.querySelector('.toolbar').getBoundingClientRect().width, \
                     ...[...document.querySelectorAll('.toolbar > .button, .toolbar > form > .button, \
                     .toolbar > details > summary')].map(b => Math.round(b.getBoundingClientRect().width))]",
                vec![],
            )
            .await?;
            // One row: the same top, to the pixel's rounding.
            assert!(
                tops.iter().all(|t| (t - tops[0]).abs() < 1.0),
                "the buttons wrap: {tops:?}, widths {widths}"
            );
            let faces = client
                .execute(
                    "const f = s => getComputedStyle(document.querySelector(s)).fontFamily; \
                 return [f('.content p'), f('.content table'), f('.content td')]",
                    vec![],
                )
                .await?;
            assert_eq!(faces[0], faces[1], "text and tables differ: {faces}");
            assert_eq!(faces[0], faces[2], "text and cells differ: {faces}");
            assert!(
                faces[0]
                    .as_str()
                    .is_some_and(|f| f.starts_with("system-ui")),
                "{faces}"
            );
            shots.take(client, "35-note-toolbar-desktop").await?;
            client.set_window_size(390, 844).await?;
            shots.take(client, "36-note-toolbar-phone").await?;
            client.set_window_size(1280, 900).await?;
            // The editor's preview in the same face.
            client
                .goto(&format!("{base}/edit/meetings/2026/meeting-01.md"))
                .await?;
            wait_text(client, ".preview .content td", "Budget").await?;
            let preview = client
            .execute("return getComputedStyle(document.querySelector('.preview .content p')).fontFamily", vec![])
            .await?;
            assert_eq!(preview, faces[0]);

            // The trash by titles; the API page from the footer.
            client.goto(&format!("{base}/trash")).await?;
            wait_text(client, ".trash li .title", "Old ideas").await?;
            wait_text(client, ".trash li .what .path", "old.md").await?;
            shots.take(client, "37-trash-titles").await?;
            click(client, "footer.site a[href='/docs/api']").await?;
            wait_text(client, "h1", "HTTP API").await?;
            wait_text(client, "table.api td", "Create or replace a note").await?;
            shots.take(client, "38-api-page").await?;
            Ok(())
        },
    );
}

#[test]
fn a_conflicting_save_keeps_the_text_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    ws.write(
        "trip.md",
        "---\ntitle: Trip\n---\nDay one: Lyon.\nDay two: Annecy.\n",
    );
    let server = ws.serve();
    let base = server.base.trim_end_matches('/').to_string();
    in_browser(
        &ws,
        &server,
        (&chromium, &chromedriver),
        async |client, _| {
            let shots = Shots::new();
            client.set_window_size(1280, 900).await?;
            client.goto(&format!("{base}/edit/trip.md")).await?;
            wait_text(client, "h1", "Edit").await?;
            // Changed elsewhere while the editor is open.
            std::thread::sleep(Duration::from_millis(50));
            ws.write(
                "trip.md",
                "---\ntitle: Trip\n---\nDay one: Lyon.\nDay two: Geneva.\n",
            );
            client
                .find(Locator::Css("textarea[name=body]"))
                .await?
                .send_keys("Day three: Chamonix.\n")
                .await?;
            click(client, "form.editor button[type=submit]").await?;
            wait_text(client, ".error", "changed elsewhere").await?;
            let url = client.current_url().await?;
            assert!(
                url.path() == "/edit/trip.md"
                    && url.query().is_some_and(|q| q.starts_with("conflict=")),
                "{url}"
            );
            assert!(body_text(client).await?.contains("Day three: Chamonix."));
            wait_text(client, "table.diff tr.del", "Geneva").await?;
            wait_text(client, "table.diff tr.add", "Chamonix").await?;
            assert!(present(client, ".conflict a[href='/note/trip.md']").await?);
            shots.take(client, "39-conflict-desktop").await?;
            client.set_window_size(390, 844).await?;
            shots.take(client, "39-conflict-phone").await?;
            client.set_window_size(1280, 900).await?;
            // Reloading shows the same page (the unsaved-text guard may ask first).
            client
                .execute("setTimeout(() => location.reload(), 0)", vec![])
                .await?;
            tokio::time::sleep(Duration::from_millis(300)).await;
            if client.get_alert_text().await.is_ok() {
                client.accept_alert().await?;
            }
            wait_text(client, "table.diff tr.add", "Chamonix").await?;
            assert!(body_text(client).await?.contains("Day three: Chamonix."));
            // Saved over the current version, on purpose.
            click(client, "form.editor button[type=submit]").await?;
            wait_text(client, ".notice", "Changes saved.").await?;
            let text = ws.read("trip.md");
            assert!(
                text.contains("Day two: Annecy.\nDay three: Chamonix.\n"),
                "{text}"
            );
            Ok(())
        },
    );
}
