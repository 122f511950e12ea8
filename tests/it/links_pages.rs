//! Links between notes where people read them: the web interface's note pages (a
//! resolved link goes to `/note/PATH#anchor`, a missing one to `/new?path=…`, "Linked
//! from" lists the linking lines) and the public pages (a public note's page, or plain
//! text that names no private note), refreshed when a linked note is published,
//! republished or unpublished.

use std::time::Duration;

use crate::support::{Server, Workspace, eventually, json, note};

/// The elements `css` picks in `html`: each one's attributes and text.
fn select(html: &str, css: &str) -> Vec<(Vec<(String, String)>, String)> {
    let doc = scraper::Html::parse_document(html);
    let selector = scraper::Selector::parse(css).unwrap();
    doc.select(&selector)
        .map(|e| {
            let attrs = e
                .value()
                .attrs()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect();
            (attrs, e.text().collect::<String>())
        })
        .collect()
}

/// The texts of the elements `css` picks.
fn texts(html: &str, css: &str) -> Vec<String> {
    select(html, css)
        .into_iter()
        .map(|(_, text)| text)
        .collect()
}

/// `(href, text)` of every link `css` picks.
fn links(html: &str, css: &str) -> Vec<(String, String)> {
    select(html, css)
        .into_iter()
        .map(|(attrs, text)| {
            let href = attrs
                .into_iter()
                .find(|(name, _)| name == "href")
                .map(|(_, value)| value)
                .unwrap_or_default();
            (href, text)
        })
        .collect()
}

fn page(server: &Server, path: &str) -> String {
    let response = server.get(path);
    assert_eq!(response.status(), 200, "{path}");
    response.text().unwrap()
}

const ALPHA: &str = "See [[recipes/bread#The dough]] and [[bread|the *loaf*]].\n\n\
Also [[Nowhere yet]], [[Sourdough BREAD]] and [rel](recipes/bread.md#the-dough).\n\n\
![[recipes/bread]]\n\n## Notes\n\n[[#Notes]] here.\n";

#[test]
fn web_note_pages_link_notes_headings_and_missing_notes() {
    let ws = Workspace::new();
    ws.write("a.md", &note("Alpha", &[], ALPHA));
    ws.write(
        "recipes/bread.md",
        &note("Sourdough Bread", &[], "## The dough\n\nFlour.\n"),
    );
    let server = ws.serve();

    let alpha = page(&server, "/note/a.md");
    let content = links(&alpha, "div.content a");
    assert_eq!(
        content,
        [
            (
                "/note/recipes/bread.md#the-dough".to_string(),
                "recipes/bread > The dough".to_string()
            ),
            ("/note/recipes/bread.md".into(), "the loaf".into()),
            ("/new?path=Nowhere%20yet.md".into(), "Nowhere yet".into()),
            // A title is no link target (Obsidian's rule): made, like any missing note.
            (
                "/new?path=Sourdough%20BREAD.md".into(),
                "Sourdough BREAD".into()
            ),
            ("/note/recipes/bread.md#the-dough".into(), "rel".into()),
            ("/note/recipes/bread.md".into(), "Sourdough Bread".into()),
            ("#notes".into(), "Notes".into()),
        ],
        "{alpha}"
    );
    assert_eq!(
        links(&alpha, "div.content a.missing"),
        [
            ("/new?path=Nowhere%20yet.md".into(), "Nowhere yet".into()),
            (
                "/new?path=Sourdough%20BREAD.md".into(),
                "Sourdough BREAD".into()
            )
        ]
    );
    assert_eq!(
        texts(&alpha, "div.content a.embed .embed-title"),
        ["Sourdough Bread"]
    );
    assert_eq!(texts(&alpha, "div.content em"), ["loaf"]);
    // The anchor a link gives a heading is the id the heading has on its page.
    assert_eq!(select(&alpha, "div.content h2[id=notes]").len(), 1);
    let bread = page(&server, "/note/recipes/bread.md");
    assert_eq!(select(&bread, "div.content h2[id=the-dough]").len(), 1);

    // A missing note's link opens the editor with its path filled in.
    let editor = page(&server, "/new?path=Nowhere%20yet.md");
    let path_field = select(&editor, "input[name=path]");
    assert!(
        path_field[0]
            .0
            .contains(&("value".to_string(), "Nowhere yet.md".to_string())),
        "{editor}"
    );
    let editor = page(&server, "/new?folder=ideas");
    assert!(
        select(&editor, "input[name=path]")[0]
            .0
            .contains(&("value".to_string(), "ideas/".to_string())),
        "{editor}"
    );

    // "Linked from": each linking line once, as text, with its line number; the links
    // of a note to itself are not listed.
    assert_eq!(
        links(&bread, "section.backlinks li a.title"),
        [
            ("/note/a.md".to_string(), "Alpha".to_string()),
            ("/note/a.md".into(), "Alpha".into()),
            ("/note/a.md".into(), "Alpha".into()),
        ],
        "{bread}"
    );
    assert_eq!(
        texts(&bread, "section.backlinks li p.line"),
        [
            "See recipes/bread > The dough and the loaf.",
            "Also Nowhere yet, Sourdough BREAD and rel.",
            "recipes/bread",
        ],
        "{bread}"
    );
    let meta = texts(&bread, "section.backlinks li span.meta");
    assert_eq!(
        meta,
        ["a.md · line 7", "a.md · line 9", "a.md · line 11"],
        "{bread}"
    );
    assert_eq!(
        texts(&alpha, "section.backlinks p"),
        ["No other note links here."]
    );

    // Edits made outside the service show at once: a new note linking to the bread.
    ws.write(
        "z/late.md",
        &note("Late", &[], "Intro.\n\n- bake [[bread]] <b>today</b>\n"),
    );
    let mut seen = String::new();
    assert!(
        eventually(Duration::from_secs(10), || {
            seen = page(&server, "/note/recipes/bread.md");
            texts(&seen, "section.backlinks li p.line").len() == 4
        }),
        "{seen}"
    );
    assert_eq!(
        links(&seen, "section.backlinks li a.title")[3],
        ("/note/z/late.md".to_string(), "Late".to_string())
    );
    assert_eq!(
        texts(&seen, "section.backlinks li p.line")[3],
        "bake bread <b>today</b>"
    );
    assert!(!seen.contains("<b>today"), "{seen}");

    // The service's own writes show on the next view, with no wait.
    let put = server.put_markdown(
        "/api/v1/notes/own.md",
        "---\ntitle: Own\n---\nMine: [[bread#The dough]]\n",
    );
    assert_eq!(put.status(), 201);
    let own = page(&server, "/note/recipes/bread.md");
    // By path: a.md's three lines, own.md, z/late.md.
    assert_eq!(
        links(&own, "section.backlinks li a.title")[3],
        ("/note/own.md".to_string(), "Own".to_string()),
        "{own}"
    );
    assert_eq!(
        texts(&own, "section.backlinks li p.line")[3..],
        ["Mine: bread > The dough", "bake bread <b>today</b>"]
    );

    // The editor's preview renders links the same way, from the note's folder.
    for (path, body, expected) in [
        ("a.md", "[[bread]]", "/note/recipes/bread.md"),
        (
            "recipes/x.md",
            "[r](bread.md#The%20dough)",
            "/note/recipes/bread.md#the-dough",
        ),
        ("", "[[Nowhere yet]]", "/new?path=Nowhere%20yet.md"),
        ("", "[[#A part]]\n\n## A part\n", "#a-part"),
    ] {
        let form =
            serde_urlencoded::to_string([("title", "T"), ("body", body), ("path", path)]).unwrap();
        let preview = server.post_form("/preview", &form);
        assert_eq!(preview.status(), 200);
        let fragment = preview.text().unwrap();
        assert_eq!(
            links(&fragment, "a").first().map(|(href, _)| href.as_str()),
            Some(expected),
            "{path} {body}: {fragment}"
        );
    }
}

#[test]
fn note_pages_show_while_the_index_is_rebuilt_and_backlinks_return() {
    let ws = Workspace::new();
    ws.write("a.md", &note("Alpha", &[], "See [[b]].\n"));
    ws.write("b.md", &note("Bee", &[], "Plain.\n"));
    assert!(ws.run(&["reindex"]).status.success());
    crate::search_api::damage_index(&ws);
    // Another process holds the index's writer: the server cannot rebuild the index
    // while this lock is held, so it stays "being rebuilt".
    let dir = tantivy::directory::MmapDirectory::open(ws.notes().join(".notes/index")).unwrap();
    let lock =
        tantivy::directory::Directory::acquire_lock(&dir, &tantivy::directory::INDEX_WRITER_LOCK)
            .unwrap();
    let server = ws.serve();
    assert_eq!(server.get("/api/v1/links/b.md").status(), 503);
    let waiting = page(&server, "/note/b.md");
    assert_eq!(texts(&waiting, "div.content p"), ["Plain."], "{waiting}");
    assert_eq!(
        texts(&waiting, "section.backlinks p"),
        ["Backlinks are being indexed; reload in a moment to see them."]
    );
    assert!(select(&waiting, "section.backlinks li").is_empty());

    drop(lock);
    let mut seen = String::new();
    assert!(
        eventually(Duration::from_secs(20), || {
            seen = page(&server, "/note/b.md");
            !links(&seen, "section.backlinks li a.title").is_empty()
        }),
        "{seen}\n{}",
        server.log()
    );
    assert_eq!(
        links(&seen, "section.backlinks li a.title"),
        [("/note/a.md".to_string(), "Alpha".to_string())]
    );
    assert_eq!(texts(&seen, "section.backlinks li p.line"), ["See b."]);
}

/// The notes of the public-page tests: a public note linking to a public one, a
/// private one and a missing one, in every syntax.
fn public_workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write(
        "linker.md",
        &note(
            "Linker",
            &[],
            "Go to [[target#Part two]], the [[plans|a label]], [[plans]] again, \
             [[missing note]], [doc](blog/target.md#part-two) and [priv](secret/plans.md).\n\n\
             ![[plans]]\n\n![[target]]\n",
        ),
    );
    ws.write(
        "blog/target.md",
        &note("Target", &[], "## Part two\n\nText.\n"),
    );
    ws.write(
        "secret/plans.md",
        &note("Hidden Agenda", &[], "Nobody may know.\n"),
    );
    ws.write("other.md", &note("Other", &[], "No links here.\n"));
    ws
}

/// What the linker's page must never show while the plans are private.
fn assert_no_leak(html: &str) {
    for private in ["secret", "Hidden Agenda", "plans.md", "plans.html", "/new"] {
        assert!(!html.contains(private), "{private:?} leaks: {html}");
    }
    assert!(select(html, "a.missing").is_empty(), "{html}");
}

fn toggle(server: &Server, path: &str, expected: &str) {
    let (status, body) = server.toggle(path);
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some(expected)),
        "{body}"
    );
}

#[test]
fn public_pages_link_public_notes_and_name_no_private_one() {
    let ws = public_workspace();
    let server = ws.serve();
    toggle(&server, "blog/target.md", "public");
    toggle(&server, "linker.md", "public");
    let html = ws.public_text("linker.html");
    assert_eq!(
        links(&html, "div.content a"),
        [
            (
                "target.html#part-two".to_string(),
                "target > Part two".to_string()
            ),
            ("target.html#part-two".into(), "doc".into()),
            ("target.html".into(), "Target".into()),
        ],
        "{html}"
    );
    assert_eq!(
        texts(&html, "div.content p")[0],
        "Go to target > Part two, the a label, plans again, missing note, doc and priv."
    );
    assert_eq!(texts(&html, "div.content p")[1], "plans");
    assert_eq!(texts(&html, "a.embed .embed-title"), ["Target"]);
    assert_no_leak(&html);
    // The anchor is the target page's id for that heading.
    let target = ws.public_text("target.html");
    assert_eq!(select(&target, "h2[id=part-two]").len(), 1, "{target}");
    // The page as served is the file.
    assert_eq!(page(&server, "/public/linker.html"), html);
}

#[test]
fn linking_public_pages_follow_publish_republish_and_unpublish() {
    let ws = public_workspace();
    let server = ws.serve();
    toggle(&server, "other.md", "public");
    toggle(&server, "linker.md", "public");
    assert_no_leak(&ws.public_text("linker.html"));
    let other = std::fs::metadata(ws.public().join("other.html")).unwrap();

    // Published: the linker's page now links to the plans' page and shows their title.
    toggle(&server, "secret/plans.md", "public");
    let html = ws.public_text("linker.html");
    assert_eq!(
        links(&html, "div.content a"),
        [
            ("plans.html".to_string(), "a label".to_string()),
            ("plans.html".into(), "plans".into()),
            ("plans.html".into(), "priv".into()),
            ("plans.html".into(), "Hidden Agenda".into()),
        ],
        "{html}"
    );
    assert!(ws.public_text("index.html").contains("Hidden Agenda"));
    // A page that does not link to the plans is not written again.
    let after = std::fs::metadata(ws.public().join("other.html")).unwrap();
    assert_eq!(
        (after.modified().unwrap(), inode(&after)),
        (other.modified().unwrap(), inode(&other))
    );

    // Republished under a new title: the card says it.
    let text = note("Open Agenda", &[], "Everybody may know.\n");
    let (status, _) = json(server.put_markdown("/api/v1/notes/secret/plans.md", &text));
    assert_eq!(status, 200);
    assert!(ws.public_text("linker.html").contains("Hidden Agenda"));
    let response = server.post_form("/publish", "path=secret%2Fplans.md&action=republish");
    assert_eq!(response.status(), 200);
    let html = ws.public_text("linker.html");
    assert_eq!(
        texts(&html, "a.embed .embed-title"),
        ["Open Agenda"],
        "{html}"
    );

    // Unpublished: plain text again, nothing of the plans left on the page.
    toggle(&server, "secret/plans.md", "private");
    let html = ws.public_text("linker.html");
    assert!(select(&html, "div.content a").is_empty(), "{html}");
    assert!(html.contains("the a label, plans again"), "{html}");
    for gone in ["plans.html", "Open Agenda", "Hidden Agenda", "secret"] {
        assert!(!html.contains(gone), "{gone:?}: {html}");
    }
    assert!(!ws.public_text("index.html").contains("Open Agenda"));
    assert!(!ws.notes().join(".public-pending.json").exists());
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}
