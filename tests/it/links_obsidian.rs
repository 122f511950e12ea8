//! Obsidian's link rules through the binary: images embedded by bare name or by a path
//! from the root load on the web page, publishing copies them to `public/media/`,
//! `notes check` finds them; `[[Note\|label]]` in a table renders and a move rewrites
//! it keeping the `\|`; aliases resolve and titles do not.

use std::time::Duration;

use serde_json::Value;

use crate::support::{Workspace, eventually, png, stdout};

const WAIT: Duration = Duration::from_secs(10);

/// `attr` of every element `css` picks in `html`.
fn attrs(html: &str, css: &str, attr: &str) -> Vec<String> {
    let doc = scraper::Html::parse_document(html);
    let selector = scraper::Selector::parse(css).unwrap();
    doc.select(&selector)
        .filter_map(|e| e.value().attr(attr).map(str::to_string))
        .collect()
}

/// `(href, text)` of every link `css` picks.
fn links(html: &str, css: &str) -> Vec<(String, String)> {
    let doc = scraper::Html::parse_document(html);
    let selector = scraper::Selector::parse(css).unwrap();
    doc.select(&selector)
        .map(|e| {
            let href = e.value().attr("href").unwrap_or_default().to_string();
            (href, e.text().collect())
        })
        .collect()
}

fn write_bytes(ws: &Workspace, rel: &str, bytes: &[u8]) {
    let path = ws.notes().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn check(ws: &Workspace) -> Value {
    let out = ws.run(&["check", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)))
}

const PAGE: &str = "---\ntitle: Page\n---\n\
Bare: ![[pic.png]]\n\n\
From the root: ![[Attachments/root.png|100x50]]\n\n\
Markdown from the root: ![a](img/rel.png)\n\n\
Sized: ![[pic.png|120]]\n";

#[test]
fn images_by_bare_name_or_root_path_load_publish_and_check_clean() {
    let ws = Workspace::new();
    ws.write("notes/deep/page.md", PAGE);
    write_bytes(&ws, "Attachments/pic.png", &png(2, 2, [200, 0, 0]));
    write_bytes(&ws, "Attachments/root.png", &png(3, 3, [0, 200, 0]));
    write_bytes(&ws, "img/rel.png", &png(4, 4, [0, 0, 200]));

    let report = check(&ws);
    for key in ["broken", "missingFiles", "orphanFiles"] {
        assert_eq!(report[key], serde_json::json!([]), "{key}: {report}");
    }

    let server = ws.serve();
    let html = server.get("/note/notes/deep/page.md").text().unwrap();
    let srcs = attrs(&html, "div.content img", "src");
    assert_eq!(
        srcs,
        [
            "/file/Attachments/pic.png",
            "/file/Attachments/root.png",
            "/file/img/rel.png",
            "/file/Attachments/pic.png"
        ],
        "{html}"
    );
    for src in &srcs {
        let response = server.get(src);
        assert_eq!(response.status(), 200, "{src}");
        assert_eq!(response.headers()["content-type"], "image/png", "{src}");
    }
    assert_eq!(attrs(&html, "div.content img", "width"), ["100", "120"]);
    assert_eq!(attrs(&html, "div.content img", "height"), ["50"]);
    assert!(
        !html.contains("/new?path"),
        "no size becomes a missing note: {html}"
    );

    // An attachment added while the server runs is found by name on the next view.
    ws.write("later.md", "![[late.png]]\n");
    assert!(eventually(WAIT, || {
        let html = server.get("/note/later.md").text().unwrap();
        attrs(&html, "div.content img", "src") == ["/file/late.png"]
    }));
    write_bytes(&ws, "Attachments/deeper/late.png", &png(1, 1, [1, 2, 3]));
    assert!(
        eventually(WAIT, || {
            let html = server.get("/note/later.md").text().unwrap();
            attrs(&html, "div.content img", "src") == ["/file/Attachments/deeper/late.png"]
        }),
        "the listing of files follows a new file"
    );

    let (code, body) = server.toggle("notes/deep/page.md");
    assert_eq!(code, 200, "{body}");
    let public = ws.public_files();
    let media: Vec<&String> = public.keys().filter(|k| k.starts_with("media/")).collect();
    assert_eq!(media.len(), 3, "{media:?}");
    let page = ws.public_text("page.html");
    for name in &media {
        assert!(page.contains(name.as_str()), "{name}: {page}");
    }
}

#[test]
fn escaped_pipes_in_a_table_render_and_a_move_keeps_them() {
    let ws = Workspace::new();
    ws.write("Target Note.md", "# Target\n");
    ws.write(
        "table.md",
        "| Link | Size |\n|---|---|\n| [[Target Note\\|shown]] | x |\n",
    );
    let server = ws.serve();
    let html = server.get("/note/table.md").text().unwrap();
    assert_eq!(
        links(&html, "div.content table a"),
        [("/note/Target%20Note.md".to_string(), "shown".to_string())],
        "{html}"
    );
    let response = server
        .request("POST", "/api/v1/move")
        .header("Content-Type", "application/json")
        .body(r#"{"from": "Target Note.md", "to": "sub/Renamed.md"}"#)
        .send()
        .unwrap();
    assert_eq!(response.status(), 200, "{}", response.text().unwrap());
    assert_eq!(
        ws.read("table.md"),
        "| Link | Size |\n|---|---|\n| [[Renamed\\|shown]] | x |\n"
    );
    assert_eq!(check(&ws)["broken"], serde_json::json!([]));
}

#[test]
fn aliases_resolve_and_titles_do_not() {
    let ws = Workspace::new();
    ws.write(
        "people/x.md",
        "---\ntitle: Pretty Title\naliases:\n  - Nickname\n---\nBody.\n",
    );
    ws.write("from.md", "[[nickname]] and [[Pretty Title]]\n");
    let report = check(&ws);
    let broken: Vec<&str> = report["broken"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["target"].as_str().unwrap())
        .collect();
    assert_eq!(broken, ["Pretty Title"], "{report}");

    let server = ws.serve();
    let html = server.get("/note/from.md").text().unwrap();
    assert_eq!(
        links(&html, "div.content a"),
        [
            ("/note/people/x.md".to_string(), "nickname".to_string()),
            (
                "/new?path=Pretty%20Title.md".to_string(),
                "Pretty Title".to_string()
            ),
        ]
    );
    assert_eq!(
        attrs(&html, "div.content a.missing", "href"),
        ["/new?path=Pretty%20Title.md"]
    );
    // Backlinks find the link by the alias.
    let mut incoming = Value::Null;
    assert!(eventually(WAIT, || {
        let response = server.get("/api/v1/links/people/x.md");
        incoming = response.json::<Value>().unwrap()["incoming"].clone();
        incoming.as_array().is_some_and(|a| a.len() == 1)
    }));
    assert_eq!(incoming[0]["path"], "from.md");
}
