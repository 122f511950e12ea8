//! A published note opened from the public folder by `file://` in headless Chromium
//! with the network off (every host name unresolvable, every request sent to a proxy
//! that is a closed port, loopback included): its two images show, its PDF link leads
//! to a file beside the page, and the stylesheet applies. Nothing is served: the
//! folder stands on its own, as on any static host. Screenshot `22-public-offline`.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use serde_json::json;

use crate::support::{
    BrowserResult, Workspace, browser_programs, in_browser, note, png, screenshot, stderr,
};

/// Chromium flags that leave it no network: no name resolves, and every request (to
/// loopback too, which a proxy otherwise skips) goes to a proxy on a port nothing
/// listens on.
fn network_off() -> Vec<String> {
    let closed = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    vec![
        "--host-resolver-rules=MAP * ~NOTFOUND".to_string(),
        format!("--proxy-server=http://127.0.0.1:{closed}"),
        "--proxy-bypass-list=<-loopback>".to_string(),
    ]
}

#[test]
fn a_published_note_with_two_images_and_a_pdf_opens_from_file_with_the_network_off() {
    let Some(programs) = browser_programs() else {
        return;
    };
    let ws = Workspace::new();
    let ridge = png(320, 120, [40, 110, 200]);
    let map = png(120, 120, [220, 120, 40]);
    let pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n".to_vec();
    ws.write(
        "trips/alps.md",
        &note(
            "Alps",
            &["trips"],
            "The ridge at dawn:\n\n![the ridge](img/ridge.png)\n\n\
             The map: ![[map.png]]\n\nThe [route as a PDF](route.pdf).\n",
        ),
    );
    std::fs::create_dir_all(ws.notes().join("trips/img")).unwrap();
    std::fs::write(ws.notes().join("trips/img/ridge.png"), &ridge).unwrap();
    std::fs::write(ws.notes().join("trips/map.png"), &map).unwrap();
    std::fs::write(ws.notes().join("trips/route.pdf"), &pdf).unwrap();
    let out = ws.run(&["publish", "trips/alps.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = ws.public().join("alps.html");
    let url = reqwest::Url::from_file_path(&page).expect("a file URL");

    // A listener the browser must never reach: the proof that the network is off.
    let watch = TcpListener::bind("127.0.0.1:0").unwrap();
    watch.set_nonblocking(true).unwrap();
    let watched = format!("http://127.0.0.1:{}/", watch.local_addr().unwrap().port());

    in_browser(
        programs_ref(&programs),
        ws.root.path(),
        "22-public-offline",
        &network_off(),
        async |client| {
            // Loopback is unreachable too; the error page is all there is.
            let _ = client.goto(&watched).await;
            let contacted = watch.accept();
            if contacted.is_ok() {
                return Err("the browser reached the network".into());
            }

            client.goto(url.as_str()).await?;
            client.find(Locator::Css("article h1")).await?;
            // Both images loaded from media/, at their own size.
            let widths = wait_for(client, json!([320, 120]), IMAGE_WIDTHS).await?;
            if widths != json!([320, 120]) {
                return Err(format!("the images did not load: {widths}").into());
            }
            // The PDF link leads to the copy beside the page, byte for byte.
            let href = client
                .find(Locator::Css("article a[href$='.pdf']"))
                .await?
                .prop("href")
                .await?
                .ok_or("the PDF link has no href")?;
            let target = reqwest::Url::parse(&href)?
                .to_file_path()
                .map_err(|()| format!("not a file URL: {href}"))?;
            if !target.starts_with(ws.public().join("media")) {
                return Err(format!("the PDF link leads to {href}").into());
            }
            if std::fs::read(&target)? != pdf {
                return Err(format!("{} is not the PDF", target.display()).into());
            }
            // The stylesheet applied: the column and the page's padding are its own.
            let style = client
                .execute(
                    "const main = getComputedStyle(document.querySelector('main')); \
                     const body = getComputedStyle(document.body); \
                     return [main.maxWidth, body.paddingLeft];",
                    vec![],
                )
                .await?;
            if style != json!(["672px", "20px"]) {
                return Err(format!("the stylesheet did not apply: {style}").into());
            }
            screenshot(client, "22-public-offline").await?;
            Ok(())
        },
    );
}

/// The natural width of each image of the article, `-1` while one is still loading.
const IMAGE_WIDTHS: &str = "return [...document.querySelectorAll('article img')] \
                            .map(i => i.complete ? i.naturalWidth : -1)";

/// Runs `script` until it answers `expected` or five seconds pass; its last answer.
async fn wait_for(
    client: &Client,
    expected: serde_json::Value,
    script: &str,
) -> BrowserResult<serde_json::Value> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let seen = client.execute(script, vec![]).await?;
        if seen == expected || Instant::now() > deadline {
            return Ok(seen);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn programs_ref(
    (chromium, driver): &(std::path::PathBuf, std::path::PathBuf),
) -> (&std::path::Path, &std::path::Path) {
    (chromium, driver)
}
