//! Saves change only what changed: a web editor save, an MCP update, a move's link
//! rewrite and the spec'd PUT keep the front matter's text (indentation, quoting,
//! comments, key order, other keys), the body's line endings and the last newline.
//! `last_modified` is refreshed by the writes outside the spec only in a note that has
//! one; the spec'd PUT sets it (and the keys the spec names) and nothing else.

use serde_json::{Value, json};

use crate::mcp_client::{http, ok, runtime};
use crate::support::{Server, Workspace, json};
use crate::web_pages::same_site_post;

/// Front matters as people write them, with bodies that end with or without a newline.
const NOTES: [(&str, &str); 8] = [
    (
        "lists.md",
        "---\ntitle: Lists\ntags:\n  - one\n  - two\naliases: [L, \"Lists, all\"]\n---\n# Lists\n\nText.\n",
    ),
    (
        "comments.md",
        "---\n# written by hand\ntitle:   'Quoted: yes'   # the title\ndate: 01-02-2024\n\nmeta:\n    nested: true\n    deep:\n      - x\n---\n\nBody without a last newline",
    ),
    (
        "crlf.md",
        "---\r\ntitle: \"Windows\"\r\nlast_modified: 01-02-2024:10:00\r\n---\r\nline one\r\nline two\r\n",
    ),
    ("plain.md", "No front matter at all.\n\n- a list\n"),
    (
        "order.md",
        "---\ntags: [b, a]\nzeta: 1\ntitle: Order\ncssclass: wide\n---\n\n\nTwo blank lines before.\n",
    ),
    ("empty-yaml.md", "---\n---\nbody\n"),
    ("bom.md", "\u{feff}---\ntitle: Bom\n---\nbody\n"),
    (
        "stamped.md",
        "---\ntitle: Stamped\ndate: 01-02-2024\nlast_modified: 01-02-2024:10:00 # kept fresh\ntags:\n- x\n---\nOld body.\n",
    ),
];

fn workspace() -> Workspace {
    let ws = Workspace::new();
    for (path, text) in NOTES {
        ws.write(path, text);
    }
    ws
}

fn bytes(ws: &Workspace, path: &str) -> Vec<u8> {
    std::fs::read(ws.notes().join(path)).unwrap()
}

/// The editor's form fields for `path`, as a browser would send them unchanged.
fn editor_form(server: &Server, path: &str) -> Vec<(String, String)> {
    let response = server.get(&format!("/edit/{path}"));
    assert_eq!(response.status(), 200, "{path}");
    let html = scraper::Html::parse_document(&response.text().unwrap());
    let fields = scraper::Selector::parse("form.editor input[name], form.editor textarea").unwrap();
    html.select(&fields)
        .map(|field| {
            let name = field.value().attr("name").unwrap().to_string();
            let value = match field.value().name() {
                // A browser sends a textarea's line breaks as CRLF.
                "textarea" => field.text().collect::<String>().replace('\n', "\r\n"),
                _ => field.value().attr("value").unwrap_or_default().to_string(),
            };
            (name, value)
        })
        .collect()
}

fn save(server: &Server, form: &[(String, String)]) {
    let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let response = same_site_post(server, "/save", &fields);
    assert_eq!(response.status(), 303, "{:?}", response.text());
}

fn with(form: &[(String, String)], name: &str, value: &str) -> Vec<(String, String)> {
    form.iter()
        .map(|(k, v)| {
            (
                k.clone(),
                if k == name {
                    value.to_string()
                } else {
                    v.clone()
                },
            )
        })
        .collect()
}

/// `text` with its `last_modified` value (up to the line's end) replaced by the stored
/// one, which must be a fresh `DD-MM-YYYY:HH:MM` stamp; the stored text is returned.
fn stamp_refreshed(stored: &str, before: &str) -> String {
    let at = stored
        .find("last_modified: ")
        .expect("a last_modified line")
        + 15;
    let stamp = &stored[at..at + 16];
    assert!(
        stamp.as_bytes().iter().enumerate().all(|(i, b)| match i {
            2 | 5 => *b == b'-',
            10 => *b == b':',
            13 => *b == b':',
            _ => b.is_ascii_digit(),
        }),
        "{stored:?}"
    );
    assert_ne!(stamp, "01-02-2024:10:00", "{stored:?}");
    let old_at = before.find("last_modified: ").unwrap() + 15;
    let old_end = old_at + before[old_at..].find(['\r', '\n']).unwrap();
    format!("{}{stamp}{}", &before[..old_at], &before[old_end..])
}

#[test]
fn a_web_save_without_a_change_leaves_every_file_byte_identical() {
    let ws = workspace();
    let server = ws.serve();
    for (path, text) in NOTES {
        let form = editor_form(&server, path);
        save(&server, &form);
        assert_eq!(bytes(&ws, path), text.as_bytes(), "{path}");
    }
}

#[test]
fn a_web_save_of_the_body_changes_only_the_body_and_a_stamp_the_note_had() {
    let ws = workspace();
    let server = ws.serve();
    let form = editor_form(&server, "comments.md");
    save(&server, &with(&form, "body", "New body."));
    assert_eq!(
        ws.read("comments.md"),
        NOTES[1]
            .1
            .replace("Body without a last newline", "New body.")
    );

    let form = editor_form(&server, "crlf.md");
    save(&server, &with(&form, "body", "line one\r\nline 2\r\n"));
    let stored = ws.read("crlf.md");
    let expected = NOTES[2].1.replace("line two", "line 2");
    assert_eq!(stored, stamp_refreshed(&stored, &expected));

    // A title or tags changed in the form change that key's lines only.
    let form = editor_form(&server, "stamped.md");
    save(
        &server,
        &with(&with(&form, "title", "Renamed"), "tags", "x, y"),
    );
    let stored = ws.read("stamped.md");
    let expected = NOTES[7]
        .1
        .replace("title: Stamped", "title: Renamed")
        .replace(
            "last_modified: 01-02-2024:10:00 # kept fresh",
            "last_modified: 01-02-2024:10:00",
        )
        .replace("- x\n", "- x\n- y\n");
    assert_eq!(stored, stamp_refreshed(&stored, &expected));

    // A note without front matter gets one only for a key given in the form.
    let form = editor_form(&server, "plain.md");
    save(&server, &with(&form, "body", "Changed.\r\n"));
    assert_eq!(ws.read("plain.md"), "Changed.\n");
    let form = editor_form(&server, "plain.md");
    save(&server, &with(&form, "tags", "t"));
    assert_eq!(ws.read("plain.md"), "---\ntags:\n- t\n---\n\nChanged.\n");
}

#[test]
fn mcp_updates_keep_the_text_given_and_refresh_only_a_stamp_the_note_had() {
    let ws = workspace();
    let server = ws.serve();
    runtime().block_on(async {
        let client = http(&server).await;
        for (path, text) in NOTES {
            let read = ok(&client, "read_note", json!({"path": path})).await;
            let content = read["content"].as_str().unwrap().to_string();
            let same = json!({"path": path, "content": content, "version": read["version"]});
            ok(&client, "update_note", same).await;
            assert_eq!(bytes(&ws, path), text.as_bytes(), "{path}");
        }
        let edit = |path: &'static str, from: &'static str, to: &'static str| {
            let client = &client;
            async move {
                let read = ok(client, "read_note", json!({"path": path})).await;
                let content = read["content"].as_str().unwrap().replace(from, to);
                let args = json!({"path": path, "content": content, "version": read["version"]});
                ok(client, "update_note", args).await;
            }
        };
        edit("lists.md", "Text.", "More text.").await;
        assert_eq!(
            ws.read("lists.md"),
            NOTES[0].1.replace("Text.", "More text.")
        );
        edit("stamped.md", "Old body.", "New body.").await;
        let stored = ws.read("stamped.md");
        let expected = NOTES[7]
            .1
            .replace("Old body.", "New body.")
            .replace(" # kept fresh", "");
        assert_eq!(stored, stamp_refreshed(&stored, &expected));

        // A new note is stored as given: no front matter is made for it.
        let args = json!({"path": "new.md", "content": "# New\n\nno yaml"});
        ok(&client, "create_note", args).await;
        assert_eq!(ws.read("new.md"), "# New\n\nno yaml");
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_move_rewrites_only_the_bytes_of_the_links() {
    let ws = workspace();
    let linking = "---\n# mine\ntitle:  'Linking'\ntags:\n  - a\n---\nSee [the target](lists.md) and [[lists]].\r\nEnd";
    ws.write("linking.md", linking);
    let server = ws.serve();
    let response = server
        .request("POST", "/api/v1/move")
        .header("Content-Type", "application/json")
        .body(json!({"from": "lists.md", "to": "sub/renamed.md"}).to_string())
        .send()
        .unwrap();
    assert_eq!(response.status(), 200, "{:?}", response.text());
    // Both links led to the note: each gets its new name in its own form, and nothing
    // else of the file changes.
    let stored = ws.read("linking.md");
    assert_eq!(
        stored,
        linking
            .replace("(lists.md)", "(sub/renamed.md)")
            .replace("[[lists]]", "[[renamed]]")
    );
}

#[test]
fn the_spec_put_sets_its_keys_and_keeps_the_rest_of_the_yaml() {
    let ws = workspace();
    let server = ws.serve();
    // text/markdown: last_modified set (added after date when missing), nothing else.
    let text = NOTES[1].1;
    let response = server.put_markdown("/api/v1/notes/comments.md", text);
    assert_eq!(response.status(), 200);
    let stored = ws.read("comments.md");
    let expected = text.replace(
        "date: 01-02-2024\n",
        "date: 01-02-2024\nlast_modified: 01-02-2024:10:00\n",
    );
    assert_eq!(stored, stamp_refreshed(&stored, &expected));

    // JSON fields: the four spec'd keys set, other keys, comments and layout kept.
    let body = json!({"body": "Fresh.\n", "frontMatter": {"title": "Lists", "date": "03-04-2025", "tags": ["one", "two"]}});
    let (status, note) = json(server.put_json("/api/v1/notes/lists.md", &body.to_string()));
    assert_eq!(status, 200, "{note}");
    assert_eq!(note["frontMatter"]["date"], "03-04-2025");
    let stored = ws.read("lists.md");
    let expected = NOTES[0]
        .1
        .replace(
            "title: Lists\n",
            "title: Lists\ndate: 03-04-2025\nlast_modified: 01-02-2024:10:00\n",
        )
        .replace("# Lists\n\nText.\n", "Fresh.\n");
    assert_eq!(stored, stamp_refreshed(&stored, &expected));
    let keys: Vec<Value> = note["frontMatter"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| json!(k))
        .collect();
    assert_eq!(
        keys,
        [
            json!("title"),
            json!("date"),
            json!("last_modified"),
            json!("tags")
        ]
    );
}
