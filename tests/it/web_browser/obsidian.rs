//! Obsidian-flavoured Markdown in a real browser: a callout with its title and colour, a
//! folded callout that opens on a click, math laid out as MathML (a fraction's numerator
//! above its denominator), disabled task boxes, and a `[[#^id]]` link that lands on its
//! block; on the note page (light and dark) and on the public page. Screenshots:
//! `19-obsidian-note`, `20-obsidian-dark`, `21-obsidian-public`.

use fantoccini::Client;
use serde_json::json;

use super::{Result, Shots, browser, click, in_browser, prefer_dark, wait_text};
use crate::support::Workspace;

const BODY: &str = "Jump [[#^garden|to the garden]].\n\n\
                    > [!tip] Where to begin\n> Read the first steps and keep ==one note per idea==.\n\n\
                    > [!warning]- Folded away\n> Hidden until opened.\n\n\
                    Energy is $E = mc^2$, and a sum:\n\n\
                    $$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$\n\n\
                    - [ ] water the plants\n- [x] write the welcome note\n";

/// Filler that puts the block below the first screen.
fn body() -> String {
    let filler = "A paragraph of filler text that pushes the garden further down.\n\n".repeat(30);
    format!("{BODY}\n{filler}The garden grows one note at a time. ^garden\n")
}

#[test]
fn callouts_math_task_lists_and_block_links_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    ws.write("garden.md", &format!("---\ntitle: Garden\n---\n{}", body()));
    let server = ws.serve();
    let (status, body) = server.toggle("garden.md");
    assert_eq!(status, 200, "{body}");
    let base = server.base.trim_end_matches('/').to_string();
    in_browser(
        &ws,
        &server,
        (&chromium, &chromedriver),
        async |client, driver| {
            let shots = Shots::new();
            client.goto(&format!("{base}/note/garden.md")).await?;
            wait_text(client, "article h1", "Garden").await?;
            check_page(client).await?;
            // The callouts, the math and the task list in view.
            client.execute("window.scrollTo(0, 380)", vec![]).await?;
            shots.take(client, "19-obsidian-note").await?;
            if let Some(id) = client.session_id().await? {
                prefer_dark(driver, &id)?;
            }
            client.goto(&format!("{base}/note/garden.md")).await?;
            wait_text(client, "article h1", "Garden").await?;
            shots.take(client, "20-obsidian-dark").await?;

            client.goto(&format!("{base}/public/garden.html")).await?;
            wait_text(client, "h1", "Garden").await?;
            check_page(client).await?;
            client.execute("window.scrollTo(0, 0)", vec![]).await?;
            shots.take(client, "21-obsidian-public").await?;
            Ok(())
        },
    );
}

/// What every page of the note shows, checked in the page.
async fn check_page(client: &Client) -> Result {
    wait_text(client, ".callout-tip .callout-title", "Where to begin").await?;
    let look = client
        .execute(
            "const tip = document.querySelector('.callout-tip'); \
             const quote = getComputedStyle(tip); \
             const folded = document.querySelector('details.callout-warning'); \
             const hidden = folded.querySelector('.callout-content p'); \
             const boxes = [...document.querySelectorAll('li > input[type=checkbox]')]; \
             const frac = document.querySelector('math[display=block] mfrac'); \
             const [top, bottom] = frac ? [...frac.children].map(c => c.getBoundingClientRect()) : []; \
             return { \
               rule: quote.borderLeftStyle + ' ' + (quote.borderLeftColor !== quote.color), \
               folded: folded.open, \
               hiddenShown: hidden.checkVisibility(), \
               boxes: boxes.map(b => [b.disabled, b.checked]), \
               inline: document.querySelector('p math msup') !== null, \
               stacked: frac ? top.bottom <= bottom.top + 1 && top.height > 0 : false, \
               shown: document.body.innerText.includes('[!tip]') || document.body.innerText.includes('^garden'), \
             };",
            vec![],
        )
        .await?;
    let expected = json!({
        "rule": "solid true",
        "folded": false,
        "hiddenShown": false,
        "boxes": [[true, false], [true, true]],
        "inline": true,
        "stacked": true,
        "shown": false,
    });
    if look != expected {
        return Err(format!("page looks wrong: {look}").into());
    }
    // The folded callout opens on a click on its title.
    click(client, "details.callout-warning > summary").await?;
    wait_text(
        client,
        "details.callout-warning .callout-content",
        "Hidden until opened",
    )
    .await?;
    // The link to the block lands on it: the block is the target, on screen.
    let links = client
        .execute(
            "return [...document.querySelectorAll('article a, main a')].map(a => a.getAttribute('href'))",
            vec![],
        )
        .await?;
    // `#^garden` on the note page, `garden.html#^garden` on the public one.
    let to_block = |l: &serde_json::Value| l.as_str().is_some_and(|l| l.ends_with("#^garden"));
    if !links.as_array().is_some_and(|l| l.iter().any(to_block)) {
        return Err(format!("no link to #^garden: {links}").into());
    }
    click(client, "a[href$='#^garden']").await?;
    let landed = client
        .execute(
            "const t = document.querySelector(':target'); \
             if (!t) return 'no target'; \
             const r = t.getBoundingClientRect(); \
             return t.id + ' ' + (r.top >= 0 && r.top < innerHeight) + ' ' + t.textContent;",
            vec![],
        )
        .await?;
    if landed != json!("^garden true The garden grows one note at a time.") {
        return Err(format!("the block link did not land: {landed}").into());
    }
    Ok(())
}
