//! Deleting a note over HTTP: the confirmation, the file gone, then 404.

use serde_json::json;

use crate::support::{Workspace, assert_error, json, keys};

#[test]
fn delete_confirms_and_removes() {
    let ws = Workspace::new();
    ws.write("a/gone.md", "bye");
    let server = ws.serve();
    let (status, body) = json(
        server
            .request("DELETE", "/api/v1/notes/a/gone.md")
            .send()
            .unwrap(),
    );
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"message": "Note deleted successfully", "path": "a/gone.md"})
    );
    assert_eq!(keys(&body), ["message", "path"]);
    assert!(!ws.notes().join("a/gone.md").exists());
    assert_error(
        server
            .request("DELETE", "/api/v1/notes/a/gone.md")
            .send()
            .unwrap(),
        404,
        "Note not found",
    );
}
