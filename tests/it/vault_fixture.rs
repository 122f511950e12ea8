//! An Obsidian-style vault as people have them (tests/fixtures/vault: nested folders,
//! images in `Attachments/`, embeds by bare name and by path, `\|` in tables, aliases,
//! callouts, math, block ids, CJK notes, notes without front matter, a BOM, CRLF) served
//! as it is: `check` reports only the link that is really broken, every image on every
//! page loads, publishing copies every image a public note shows, search finds CJK words,
//! aliases and nested tags, and starting, reading and searching change no file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use scraper::{Html, Selector};
use serde_json::Value;

use crate::support::{Client, Workspace, eventually, files_under, search_paths};

const WAIT: Duration = Duration::from_secs(30);

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vault")
}

/// The workspace with a copy of the vault as its notes folder.
fn vault() -> Workspace {
    let ws = Workspace::new();
    let from = fixture();
    for file in files_under(&from) {
        let to = ws.notes().join(file.strip_prefix(&from).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&file, &to).unwrap();
    }
    ws
}

/// Every note of the vault, by path from its root.
fn note_paths() -> Vec<String> {
    let from = fixture();
    let mut paths: Vec<String> = files_under(&from)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| {
            p.strip_prefix(&from)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    paths.sort();
    paths
}

/// Every file of the vault (the service's own `.notes/` left out) with the SHA-256 of
/// its bytes.
fn vault_hashes(ws: &Workspace) -> Vec<(String, String)> {
    use sha2::Digest;
    let root = ws.notes();
    let mut files: Vec<(String, String)> = files_under(&root)
        .into_iter()
        .map(|p| {
            p.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|rel| !rel.starts_with(".notes/"))
        .map(|rel| {
            let digest = sha2::Sha256::digest(std::fs::read(root.join(&rel)).unwrap());
            let hex = digest.iter().map(|b| format!("{b:02x}")).collect();
            (rel, hex)
        })
        .collect();
    files.sort();
    files
}

fn url_path(path: &str) -> String {
    path.split('/')
        .map(|s| {
            percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The `src` of every `<img>` of `html`.
fn image_sources(html: &str) -> Vec<String> {
    let img = Selector::parse("img").unwrap();
    Html::parse_document(html)
        .select(&img)
        .filter_map(|e| e.value().attr("src").map(str::to_string))
        .collect()
}

/// `src` as an absolute path of the server, from the page at `page`.
fn resolve(page: &str, src: &str) -> String {
    if src.starts_with('/') {
        return src.to_string();
    }
    let base = &page[..page.rfind('/').unwrap() + 1];
    let mut parts: Vec<&str> = base.trim_end_matches('/').split('/').collect();
    for seg in src.split('/') {
        match seg {
            ".." => {
                parts.pop();
            }
            "." => {}
            seg => parts.push(seg),
        }
    }
    parts.join("/")
}

fn assert_image(server: &Client, url: &str, context: &str) {
    let response = server.get(url);
    let status = response.status().as_u16();
    let kind = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    assert_eq!(status, 200, "{context}: {url}");
    assert!(kind.starts_with("image/"), "{context}: {url} is {kind}");
}

#[test]
fn an_obsidian_vault_is_served_as_it_is() {
    let ws = vault();
    let before = vault_hashes(&ws);
    let server = ws.serve();
    assert!(eventually(WAIT, || !search_paths(&server, "garden").is_empty()));

    // Every image of every page loads.
    let mut images = 0;
    for path in note_paths() {
        let page = format!("/note/{}", url_path(&path));
        let response = server.get(&page);
        assert_eq!(response.status().as_u16(), 200, "{page}");
        let html = response.text().unwrap();
        for src in image_sources(&html) {
            assert_image(&server, &resolve(&page, &src), &page);
            images += 1;
        }
        assert!(!html.contains("\\|"), "{page}: a table's escaped bar shows");
    }
    assert_eq!(images, 8, "images shown in all");

    // A bare name several notes share leads to the nearest; an alias to its note.
    let leads_to = |from: &str, target: &str| -> Option<String> {
        let response = server.get(&format!("/api/v1/links/{}", url_path(from)));
        let body: Value = response.json().unwrap();
        body["outgoing"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["target"].as_str().is_some_and(|t| t.starts_with(target)))
            .and_then(|l| l["path"].as_str().map(str::to_string))
    };
    assert_eq!(
        leads_to("Projects/Roadmap.md", "Index").as_deref(),
        Some("Projects/Index.md")
    );
    assert_eq!(
        leads_to("Meetings/2026/Kickoff.md", "Index").as_deref(),
        Some("Meetings/Index.md")
    );
    assert_eq!(
        leads_to("Journal/2026-11-01.md", "Alpha").as_deref(),
        Some("Projects/Alpha.md")
    );
    assert_eq!(
        leads_to("Journal/2026-11-03.md", "First steps").as_deref(),
        Some("Getting started.md")
    );
    assert_eq!(
        leads_to("Areas/Home.md", "Running").as_deref(),
        Some("Areas/Health/Running.md")
    );

    // Search: CJK words, aliases, nested and body tags.
    let found = |q: &str| {
        let mut paths = search_paths(&server, q);
        paths.sort();
        paths
    };
    assert_eq!(found("图谱"), ["中文/关系.md", "中文/知识图谱.md"]);
    // An alias ranks as a title: before the note whose link shows the word.
    assert_eq!(
        search_paths(&server, "Library"),
        ["Reading list/Books.md", "Inbox/Idea.md"]
    );
    assert_eq!(
        found("tag:project"),
        [
            "Projects/Alpha.md",
            "Projects/Beta.md",
            "Projects/Roadmap.md"
        ]
    );
    assert_eq!(found("tag:inbox"), ["Welcome.md"]);
    assert_eq!(found("tag:health"), ["Areas/Health/Running.md"]);
    assert_eq!(found("tag:active"), ["Projects/Alpha.md"]);
    assert!(found("tag:not-a-tag").is_empty());
    assert!(found("author only").is_empty(), "comments are not searched");

    // `check` reports the one link that is broken, and no file missing or unused.
    let out = ws.run(&["check", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let broken: Vec<(&str, &str)> = report["broken"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["path"].as_str().unwrap(), b["target"].as_str().unwrap()))
        .collect();
    assert_eq!(broken, [("Welcome.md", "Nowhere")], "{report}");
    assert_eq!(report["missingFiles"], serde_json::json!([]), "{report}");
    assert_eq!(report["orphanFiles"], serde_json::json!([]), "{report}");

    // Start, reads, a search and the check changed no file of the vault.
    assert_eq!(vault_hashes(&ws), before);

    // Publishing copies every image a public note shows.
    for note in ["Welcome.md", "Projects/Alpha.md", "Recipes/Soup.md"] {
        let (status, body) = server.toggle(note);
        assert_eq!(status, 200, "{note}: {body}");
    }
    let record = ws.record();
    let mut shown = 0;
    for entry in record["notes"]
        .as_object()
        .into_iter()
        .flat_map(|m| m.values())
    {
        let file = entry["file"].as_str().unwrap();
        let html = ws.public_text(file);
        for src in image_sources(&html) {
            let copied = ws
                .public()
                .join(resolve(&format!("/{file}"), &src).trim_start_matches('/'));
            assert!(copied.is_file(), "{file}: {src} not copied");
            shown += 1;
        }
    }
    assert_eq!(shown, 4, "images on public pages\n{record}");
}
