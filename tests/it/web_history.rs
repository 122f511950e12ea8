//! History, trash and undo in the web interface, over HTTP without a browser: the
//! history page lists a note's versions and shows each, its diff marks added and
//! removed lines as escaped text, the restore form brings a version back byte for byte,
//! the trash lists deleted notes and restores them, a delete offers an Undo, unknown
//! notes and versions are HTML 404 pages, and cross-site restores are refused.

use crate::support::{Server, Workspace, assert_cross_site_refused, json};
use crate::web_pages::{location, page, post, same_site_post};

/// The `value`s of the elements `css` selects, in document order.
fn values(html: &str, css: &str) -> Vec<String> {
    let doc = scraper::Html::parse_document(html);
    let selector = scraper::Selector::parse(css).unwrap();
    doc.select(&selector)
        .filter_map(|e| e.value().attr("value").map(str::to_string))
        .collect()
}

/// The texts of the elements `css` selects, in document order.
fn texts(html: &str, css: &str) -> Vec<String> {
    let doc = scraper::Html::parse_document(html);
    let selector = scraper::Selector::parse(css).unwrap();
    doc.select(&selector)
        .map(|e| e.text().collect::<String>())
        .collect()
}

/// Writes `text` as a note through the API.
fn put(server: &Server, path: &str, text: &str) {
    let response = server.put_markdown(&format!("/api/v1/notes/{path}"), text);
    assert!(response.status().is_success(), "{:?}", response.text());
}

/// The version ids the history page of `path` lists, newest first.
fn version_ids(server: &Server, path: &str) -> Vec<String> {
    let (status, html) = page(server.get(&format!("/history/{path}")));
    assert_eq!(status, 200, "{html}");
    values(&html, "input[name=to]")
}

/// The hidden fields of the restore form `css` selects: (path, version, undo).
fn restore_fields(html: &str, css: &str) -> Vec<(String, String)> {
    let doc = scraper::Html::parse_document(html);
    let form = scraper::Selector::parse(css).unwrap();
    let input = scraper::Selector::parse("input[type=hidden]").unwrap();
    let form = doc
        .select(&form)
        .next()
        .unwrap_or_else(|| panic!("no {css} in {html}"));
    assert_eq!(form.value().attr("action"), Some("/restore"), "{html}");
    form.select(&input)
        .map(|i| {
            let v = i.value();
            (
                v.attr("name").unwrap().to_string(),
                v.attr("value").unwrap().to_string(),
            )
        })
        .collect()
}

fn post_fields(
    server: &Server,
    path: &str,
    fields: &[(String, String)],
) -> reqwest::blocking::Response {
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    same_site_post(server, path, &pairs)
}

#[test]
fn the_history_page_lists_versions_newest_first_and_shows_each() {
    let ws = Workspace::new();
    let server = ws.serve();
    // Each version as stored (the service adds its own front matter fields).
    let texts_written: Vec<String> = (1..=3)
        .map(|n| {
            put(
                &server,
                "plans/a b.md",
                &format!("---\ntitle: Plan\n---\nStep {n} & <b>bold</b>\n"),
            );
            ws.read("plans/a b.md")
        })
        .collect();
    let (_, note) = page(server.get("/note/plans/a%20b.md"));
    assert!(note.contains("href=\"/history/plans/a%20b.md\""), "{note}");

    let (status, html) = page(server.get("/history/plans/a%20b.md"));
    assert_eq!(status, 200);
    assert!(html.contains("3 versions"), "{html}");
    let ids = values(&html, "input[name=to]");
    assert_eq!(ids.len(), 3, "{html}");
    assert_eq!(
        texts(&html, "table.versions tbody tr td:nth-child(4)")
            .iter()
            .filter(|t| t.starts_with("Saved"))
            .count(),
        3
    );
    // Newest first: each version's own page shows its text, escaped.
    for (id, text) in ids.iter().zip(texts_written.iter().rev()) {
        let (status, shown) = page(server.get(&format!("/history/plans/a%20b.md?version={id}")));
        assert_eq!(status, 200);
        assert_eq!(
            texts(&shown, "pre.version-text"),
            [text.as_str()],
            "{shown}"
        );
        assert!(!shown.contains("<b>bold"), "{shown}");
    }
    // A short prefix names a version too.
    let (status, shown) =
        page(server.get(&format!("/history/plans/a%20b.md?version={}", &ids[2][..8])));
    assert_eq!(status, 200);
    assert!(shown.contains("Step 1"), "{shown}");
}

#[test]
fn the_diff_shows_added_and_removed_lines_as_escaped_text() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(&server, "d.md", "---\ntitle: D\n---\nline one\nkeep\n");
    let first_lines = ws.read("d.md").lines().count();
    put(
        &server,
        "d.md",
        "---\ntitle: D\n---\nkeep\n<script>alert(1)</script>\n",
    );
    let ids = version_ids(&server, "d.md");

    // Compare with previous: the newest against the one before.
    let (status, html) = page(server.get(&format!("/history/d.md?to={}", ids[0])));
    assert_eq!(status, 200);
    assert_eq!(
        texts(&html, "table.diff tr.add td.text"),
        ["<script>alert(1)</script>"],
        "{html}"
    );
    assert_eq!(
        texts(&html, "table.diff tr.del td.text"),
        ["line one"],
        "{html}"
    );
    assert!(!html.contains("<script>alert"), "{html}");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );

    // Two chosen versions, the other way round: what was added is now removed.
    let (_, html) = page(server.get(&format!("/history/d.md?from={}&to={}", ids[0], ids[1])));
    assert_eq!(
        texts(&html, "table.diff tr.del td.text"),
        ["<script>alert(1)</script>"],
        "{html}"
    );
    assert_eq!(
        texts(&html, "table.diff tr.add td.text"),
        ["line one"],
        "{html}"
    );

    // The first version, from nothing: every line added.
    let (_, html) = page(server.get(&format!("/history/d.md?to={}", ids[1])));
    assert_eq!(
        texts(&html, "table.diff tr.add").len(),
        first_lines,
        "{html}"
    );
    assert!(texts(&html, "table.diff tr.del").is_empty(), "{html}");

    // A version against itself.
    let (_, html) = page(server.get(&format!("/history/d.md?from={0}&to={0}", ids[0])));
    assert!(html.contains("the same text"), "{html}");
}

#[test]
fn restoring_a_version_through_the_form_is_byte_exact() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(
        &server,
        "r.md",
        "---\ntitle: R\n---\nfirst  \r\n\ttabbed — ünïcode\n\nno newline at the end",
    );
    let first = std::fs::read(ws.notes().join("r.md")).unwrap();
    put(&server, "r.md", "---\ntitle: R\n---\nsecond\n");
    let ids = version_ids(&server, "r.md");
    let (_, html) = page(server.get(&format!("/history/r.md?version={}", ids[1])));
    let fields = restore_fields(&html, ".shown form.restore");
    assert_eq!(
        fields,
        [
            ("path".into(), "r.md".into()),
            ("version".into(), ids[1].clone())
        ]
    );

    let response = post_fields(&server, "/restore", &fields);
    assert_eq!(response.status(), 303);
    assert_eq!(location(&response), "/note/r.md?done=restored");
    assert_eq!(std::fs::read(ws.notes().join("r.md")).unwrap(), first);
    let (_, note) = page(server.get("/note/r.md?done=restored"));
    assert!(note.contains("Version restored"), "{note}");

    // The restore is a new version; the one it replaced is still there.
    let (_, html) = page(server.get("/history/r.md"));
    assert_eq!(values(&html, "input[name=to]").len(), 3, "{html}");
    assert!(
        texts(&html, "table.versions tbody tr:first-child td")[3].starts_with("Restored"),
        "{html}"
    );
}

#[test]
fn the_trash_lists_a_deleted_note_and_restores_it() {
    let ws = Workspace::new();
    let server = ws.serve();
    let (_, empty) = page(server.get("/trash"));
    assert!(empty.contains("The trash is empty."), "{empty}");
    let (_, home) = page(server.get("/"));
    assert!(home.contains("href=\"/trash\""), "{home}");

    put(
        &server,
        "old/gone.md",
        "---\ntitle: Gone\n---\nbring me back\n",
    );
    let kept = std::fs::read(ws.notes().join("old/gone.md")).unwrap();
    let response = same_site_post(&server, "/delete", &[("path", "old/gone.md")]);
    assert_eq!(response.status(), 303);
    assert!(!ws.notes().join("old/gone.md").exists());

    let (status, trash) = page(server.get("/trash"));
    assert_eq!(status, 200);
    // The title of its last text, with its path.
    assert_eq!(texts(&trash, ".trash li .title"), ["Gone"], "{trash}");
    assert_eq!(
        texts(&trash, ".trash li .what .path"),
        ["old/gone.md"],
        "{trash}"
    );
    assert!(
        texts(&trash, ".trash li .meta")[0].starts_with("Deleted "),
        "{trash}"
    );
    let fields = restore_fields(&trash, ".trash li form.restore");
    let response = post_fields(&server, "/restore", &fields);
    assert_eq!(response.status(), 303);
    assert_eq!(location(&response), "/note/old/gone.md?done=restored");
    assert_eq!(std::fs::read(ws.notes().join("old/gone.md")).unwrap(), kept);
    let (_, trash) = page(server.get("/trash"));
    assert!(trash.contains("The trash is empty."), "{trash}");
}

#[test]
fn a_delete_offers_an_undo_that_brings_the_note_back() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(&server, "u.md", "---\ntitle: U\n---\nfirst\n");
    put(
        &server,
        "u.md",
        "---\ntitle: U\n---\nthe text just deleted\n",
    );
    let kept = std::fs::read(ws.notes().join("u.md")).unwrap();
    let newest = version_ids(&server, "u.md")[0].clone();

    let response = same_site_post(&server, "/delete", &[("path", "u.md")]);
    assert_eq!(response.status(), 303);
    let list = location(&response);
    assert_eq!(list, format!("/?done=deleted&undo=u.md&version={newest}"));
    let (_, home) = page(server.get(&list));
    assert!(home.contains("Note deleted."), "{home}");
    let fields = restore_fields(&home, ".notice.undo form");
    assert_eq!(
        fields,
        [
            ("path".into(), "u.md".into()),
            ("version".into(), newest),
            ("undo".into(), "1".into())
        ]
    );
    let response = post_fields(&server, "/restore", &fields);
    assert_eq!(location(&response), "/note/u.md?done=undone");
    assert_eq!(std::fs::read(ws.notes().join("u.md")).unwrap(), kept);
    let (_, note) = page(server.get("/note/u.md?done=undone"));
    assert!(note.contains("Delete undone"), "{note}");

    // An Undo offer is only ever a note path and a version id.
    let (_, home) = page(server.get("/?done=deleted&undo=..%2Fx.md&version=abcd1234"));
    assert!(!home.contains("action=\"/restore\""), "{home}");
    let (_, home) = page(server.get("/?done=deleted&undo=u.md&version=%3Cb%3E"));
    assert!(!home.contains("action=\"/restore\""), "{home}");
}

#[test]
fn unknown_notes_and_versions_are_html_404_pages() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(&server, "k.md", "---\ntitle: K\n---\nkept\n");
    let before = std::fs::read(ws.notes().join("k.md")).unwrap();
    let (status, body) = page(server.get("/history/missing.md"));
    assert_eq!(status, 404);
    assert!(body.contains("There is no note at this path"), "{body}");
    for query in [
        "version=ffffffff",
        "to=ffffffff",
        "from=ffffffff",
        "version=zz",
        "to=%3Cb%3E",
    ] {
        let (status, body) = page(server.get(&format!("/history/k.md?{query}")));
        assert_eq!(status, 404, "{query}");
        assert!(body.contains("no such version"), "{query}: {body}");
    }
    let (status, body) = page(same_site_post(
        &server,
        "/restore",
        &[("path", "k.md"), ("version", "ffffffff")],
    ));
    assert_eq!(status, 404);
    assert!(body.contains("no such version"), "{body}");
    let (status, _) = page(same_site_post(
        &server,
        "/restore",
        &[("path", "../k.md"), ("version", "ffffffff")],
    ));
    assert_eq!(status, 400);
    let (status, body) = page(same_site_post(&server, "/restore", &[("path", "k.md")]));
    assert_eq!(status, 400);
    assert!(body.contains("Choose the version"), "{body}");
    assert_eq!(std::fs::read(ws.notes().join("k.md")).unwrap(), before);

    let response = server.request("GET", "/restore").send().unwrap();
    assert_eq!(response.headers()["allow"].to_str().unwrap(), "POST");
    assert_eq!(page(response).0, 405);
    let response = same_site_post(&server, "/trash", &[]);
    assert_eq!(response.headers()["allow"].to_str().unwrap(), "GET, HEAD");
    assert_eq!(page(response).0, 405);
}

#[test]
fn a_cross_site_restore_is_refused_and_changes_nothing() {
    let ws = Workspace::new();
    let server = ws.serve();
    put(&server, "c.md", "---\ntitle: C\n---\nold\n");
    put(&server, "c.md", "---\ntitle: C\n---\nnew\n");
    let now = std::fs::read(ws.notes().join("c.md")).unwrap();
    let old = version_ids(&server, "c.md")[1].clone();
    let fields = [("path", "c.md"), ("version", old.as_str()), ("undo", "1")];
    for headers in [
        &[("Origin", "http://evil.example")][..],
        &[("Sec-Fetch-Site", "cross-site")][..],
        &[("Origin", "null")][..],
    ] {
        let (status, body) = json(post(&server, "/restore", &fields, headers));
        assert_cross_site_refused(status, &body, &format!("{headers:?}"));
    }
    assert_eq!(std::fs::read(ws.notes().join("c.md")).unwrap(), now);
    assert_eq!(version_ids(&server, "c.md").len(), 2);
}
