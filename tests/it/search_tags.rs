//! Tags as Obsidian reads them: `#tags` in the body (not in code), a front matter
//! string of several, a leading `#`, nested tags found through their parents, a front
//! matter after a byte-order mark; in the API's search, its results and the web list.

use std::time::Duration;

use crate::support::{Workspace, eventually, json, search_paths};

const WAIT: Duration = Duration::from_secs(30);

fn sorted(mut paths: Vec<String>) -> Vec<String> {
    paths.sort();
    paths
}

#[test]
fn body_tags_nested_tags_and_tag_strings_are_found() {
    let ws = Workspace::new();
    ws.write(
        "body.md",
        "---\ntitle: Body\n---\nTo do #inbox today.\n\n`#notatag`\n",
    );
    ws.write(
        "nested.md",
        "---\ntitle: Nested\ntags: [project/alpha]\n---\nx\n",
    );
    ws.write("string.md", "---\ntitle: String\ntags: foo, bar\n---\nx\n");
    ws.write("hash.md", "---\ntitle: Hash\ntags: [\"#inbox\"]\n---\nx\n");
    ws.write("bom.md", "\u{feff}---\ntitle: Bom\ntags: [bom]\n---\nx\n");
    ws.write("code.md", "---\ntitle: Code\n---\n```\n#inbox\n```\n");
    let server = ws.serve();
    assert!(eventually(WAIT, || search_paths(&server, "tag:inbox")
        .len()
        == 2));
    assert_eq!(
        sorted(search_paths(&server, "tag:inbox")),
        ["body.md", "hash.md"]
    );
    assert_eq!(
        sorted(search_paths(&server, "tag:#inbox")),
        ["body.md", "hash.md"]
    );
    assert_eq!(search_paths(&server, "tag:project"), ["nested.md"]);
    assert_eq!(search_paths(&server, "tag:project/alpha"), ["nested.md"]);
    assert!(search_paths(&server, "tag:alpha").is_empty());
    assert_eq!(search_paths(&server, "tag:foo"), ["string.md"]);
    assert_eq!(search_paths(&server, "tag:bar"), ["string.md"]);
    assert_eq!(search_paths(&server, "tag:bom"), ["bom.md"]);
    assert!(search_paths(&server, "tag:notatag").is_empty());

    // The search result shows the tags as read; the note's own JSON keeps the spec's.
    let (status, body) = json(server.get("/api/v1/search?q=tag:inbox%20today"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["results"][0]["tags"],
        serde_json::json!(["inbox"]),
        "{body}"
    );
    let (_, note) = json(server.get("/api/v1/notes/string.md"));
    assert_eq!(note["frontMatter"]["tags"], serde_json::json!(["foo, bar"]));
    assert_eq!(json(server.get("/api/v1/notes/bom.md")).1["title"], "Bom");

    // The web list files a nested tag under its parent, and a string of tags as many.
    let page = server.get("/?tag=project").text().unwrap();
    assert!(page.contains("/note/nested.md"), "{page}");
    let page = server.get("/?tag=bar").text().unwrap();
    assert!(page.contains("/note/string.md"), "{page}");
    // Body tags file a note too, and never from code.
    let page = server.get("/?tag=inbox").text().unwrap();
    assert!(page.contains("/note/body.md"), "{page}");
    assert!(page.contains("/note/hash.md"), "{page}");
    assert!(!page.contains("/note/code.md"), "{page}");
    // No tag filter for a tag written in code (the list's excerpt may show the code).
    assert!(!server.get("/").text().unwrap().contains("?tag=notatag"));
}
