//! Attachments in a real browser: in the editor of a note, an image pasted from the
//! clipboard, a file dropped on the text and one picked with the button are uploaded
//! through the files API and their Markdown goes in at the cursor; a file past the limit
//! is refused in the page (before it is sent, and on the server's 413); after
//! saving, the note page shows the image and lists the files; published, the public
//! page carries the image. Screenshots: the editor after the paste, the note page, the
//! public page.

use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use serde_json::json;

use super::{BLUE_PNG, Result, Shots, body_text, browser, click, in_browser, wait_text};
use crate::support::Workspace;

#[test]
fn files_pasted_dropped_and_picked_in_the_editor_show_on_the_note_and_public_pages() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    ws.write("trips/alps.md", "---\ntitle: Alps\n---\nThe ridge:\n");
    // The dropped file's name is taken: the upload must pick the next one.
    ws.write("trips/packing list.txt", "boots\n");
    let server = ws.serve_with(&["--max-upload", "4096"]);
    in_browser(
        &ws,
        &server,
        (&chromium, &chromedriver),
        async |client, _| upload_flow(client, &server.base, &ws).await,
    );
}

async fn upload_flow(client: &Client, base: &str, ws: &Workspace) -> Result {
    let shots = Shots::new();
    let url = |path: &str| format!("{}{path}", base.trim_end_matches('/'));

    client.goto(&url("/edit/trips/alps.md")).await?;
    wait_text(client, "h1", "Edit").await?;
    let shown = client
        .execute("return !document.querySelector('.upload').hidden", vec![])
        .await?;
    assert_eq!(shown, json!(true), "the script did not show the upload bar");
    client
        .execute(
            "const t = document.querySelector('textarea[name=body]'); t.focus(); \
             t.setSelectionRange(t.value.length, t.value.length);",
            vec![],
        )
        .await?;

    // Paste a PNG from the clipboard: it has no name of its own.
    let handled = client
        .execute(
            "const file = new File([new Uint8Array(arguments[0])], 'image.png', \
                 {type: 'image/png'}); \
             const data = new DataTransfer(); data.items.add(file); \
             const paste = new ClipboardEvent('paste', \
                 {clipboardData: data, bubbles: true, cancelable: true}); \
             document.querySelector('textarea[name=body]').dispatchEvent(paste); \
             return paste.defaultPrevented;",
            vec![json!(BLUE_PNG.to_vec())],
        )
        .await?;
    assert_eq!(
        handled,
        json!(true),
        "the paste was not taken by the editor"
    );
    wait_text(client, ".uploads .done", "trips/attachments/alps-1.png").await?;
    let text = body_text(client).await?;
    assert!(
        text.ends_with("The ridge:\n\n![alps-1.png](attachments/alps-1.png)\n\n"),
        "{text:?}"
    );
    wait_for_images(client, ".preview .content img", 1).await?;
    image_on_its_own_line(client, ".preview .content").await?;
    // A taller window, so the shot shows the text, the preview and the upload's line.
    client.set_window_size(1280, 1150).await?;
    shots.take(client, "19-editor-after-paste").await?;
    client.set_window_size(1280, 900).await?;

    // A paste carrying text as well as a picture of it (as office programs copy) is
    // left to the browser: the text is pasted, nothing is uploaded.
    let taken = client
        .execute(
            "const data = new DataTransfer(); \
             data.items.add(new File([new Uint8Array(arguments[0])], 'image.png', \
                 {type: 'image/png'})); \
             data.setData('text/plain', 'a cell'); \
             const paste = new ClipboardEvent('paste', \
                 {clipboardData: data, bubbles: true, cancelable: true}); \
             document.querySelector('textarea[name=body]').dispatchEvent(paste); \
             return [paste.defaultPrevented, document.querySelectorAll('.uploads li').length];",
            vec![json!(BLUE_PNG.to_vec())],
        )
        .await?;
    assert_eq!(taken, json!([false, 1]), "a paste with text was uploaded");

    // Drop a file on the text; then one past the limit, refused in the page.
    drop_file(client, "packing list.txt", b"socks\n").await?;
    wait_text(client, ".uploads .done", "trips/packing list-2.txt").await?;
    drop_file(client, "big.bin", &[0u8; 5000]).await?;
    let refused = wait_text(client, ".uploads .failed", "big.bin").await?;
    assert!(
        refused.contains("File too large (limit 4 KiB)"),
        "{refused}"
    );
    // Past the server's limit when the page does not know it: the 413 says the same.
    client
        .execute(
            "document.querySelector('.upload').setAttribute('data-max-upload', '0')",
            vec![],
        )
        .await?;
    drop_file(client, "bigger.bin", &[0u8; 5000]).await?;
    let refused = wait_text(client, ".uploads .failed", "bigger.bin").await?;
    assert!(
        refused.contains("File too large (limit 4 KiB)"),
        "{refused}"
    );

    // Picked with the button's file picker.
    let picked = ws.root.path().join("route.gpx");
    std::fs::write(&picked, "<gpx/>\n")?;
    client
        .find(Locator::Css(".upload input[type=file]"))
        .await?
        .send_keys(&picked.display().to_string())
        .await?;
    wait_text(client, ".uploads .done", "trips/route.gpx").await?;
    let text = body_text(client).await?;
    assert!(
        text.ends_with(
            "![alps-1.png](attachments/alps-1.png)\n\n[packing list-2.txt](packing%20list-2.txt) \
             [route.gpx](route.gpx)"
        ),
        "{text:?}"
    );
    assert_eq!(ws.read("trips/route.gpx"), "<gpx/>\n");
    assert_eq!(
        std::fs::read(ws.notes().join("trips/attachments/alps-1.png"))?,
        BLUE_PNG
    );
    assert_eq!(ws.read("trips/packing list-2.txt"), "socks\n");
    assert_eq!(ws.read("trips/packing list.txt"), "boots\n");
    assert!(!ws.notes().join("trips/big.bin").exists());
    assert!(!ws.notes().join("trips/bigger.bin").exists());

    // Saved, the note shows the image and lists its files.
    click(client, "form.editor button[type=submit]").await?;
    wait_text(client, ".notice", "Changes saved.").await?;
    wait_for_images(client, "article img", 1).await?;
    image_on_its_own_line(client, "article .content").await?;
    let listed = wait_text(client, ".attachments li", "trips/attachments/alps-1.png").await?;
    assert!(listed.contains("101 B"), "{listed}");
    wait_text(client, ".attachments li", "trips/packing list-2.txt").await?;
    wait_text(client, ".attachments li", "trips/route.gpx").await?;
    let links = client
        .find_all(Locator::Css(".attachments a[href^='/file/']"))
        .await?;
    assert_eq!(links.len(), 3);
    shots.take(client, "20-note-with-attachments").await?;

    // Published: the public page shows its own copy of the image.
    click(client, "button[value=publish]").await?;
    wait_text(client, ".notice", "Published").await?;
    public_page_has_the_image(client, &shots).await
}

/// Opens the public page from the note page and checks that its image is the published
/// copy in `media/` and that it loads.
async fn public_page_has_the_image(client: &Client, shots: &Shots) -> Result {
    click(client, ".toolbar a[href^='/public/']").await?;
    wait_text(client, "h1", "Alps").await?;
    assert!(
        client.current_url().await?.path().ends_with(".html"),
        "not a public page: {}",
        client.current_url().await?
    );
    let images = client.find_all(Locator::Css("img")).await?;
    assert_eq!(images.len(), 1, "the public page has no image");
    let src = images[0].attr("src").await?.unwrap_or_default();
    assert!(
        src.starts_with("media/"),
        "the public image is not a published copy: {src}"
    );
    wait_for_images(client, "img", 1).await?;
    shots.take(client, "21-public-page-with-image").await?;
    Ok(())
}

/// The first image in `css` stands on a line of its own, below the text before it, in
/// a paragraph of its own: the same in the editor's preview and on the note's page.
async fn image_on_its_own_line(client: &Client, css: &str) -> Result {
    let placed = client
        .execute(
            "const box = document.querySelector(arguments[0]);              const img = box.querySelector('img');              const text = [...box.querySelectorAll('p')].find(p => p.textContent.includes('The ridge:'));              return [img.closest('p') !== text,                      img.getBoundingClientRect().top >= text.getBoundingClientRect().bottom - 1];",
            vec![json!(css)],
        )
        .await?;
    assert_eq!(
        placed,
        json!([true, true]),
        "{css}: the image is inline with the text before it"
    );
    Ok(())
}

/// Drops a file built in the page on the editor's text, as a drag from the desktop.
async fn drop_file(client: &Client, name: &str, bytes: &[u8]) -> Result {
    let handled = client
        .execute(
            "const file = new File([new Uint8Array(arguments[1])], arguments[0]); \
             const data = new DataTransfer(); data.items.add(file); \
             const text = document.querySelector('textarea[name=body]'); \
             const init = {dataTransfer: data, bubbles: true, cancelable: true}; \
             text.dispatchEvent(new DragEvent('dragover', init)); \
             const drop = new DragEvent('drop', init); \
             text.dispatchEvent(drop); \
             return drop.defaultPrevented;",
            vec![json!(name), json!(bytes.to_vec())],
        )
        .await?;
    assert_eq!(handled, json!(true), "the drop of {name} was not taken");
    Ok(())
}

/// Waits until `count` images match `css`, all loaded with a width (fetched and
/// decoded: a broken image has none).
async fn wait_for_images(client: &Client, css: &str, count: usize) -> Result {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let widths = client
            .execute(
                "return [...document.querySelectorAll(arguments[0])] \
                     .map(i => i.complete ? i.naturalWidth : -1)",
                vec![json!(css)],
            )
            .await?;
        let loaded = widths
            .as_array()
            .map(|w| w.iter().filter(|w| w.as_i64() == Some(48)).count());
        if loaded == Some(count) && widths.as_array().map(Vec::len) == Some(count) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("{css}: images not loaded: {widths}").into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
