//! The service around the notes API: unknown routes answer JSON errors, `serve`
//! creates the notes folder and stops cleanly on SIGTERM.

use crate::support::{Workspace, assert_error, json};

#[test]
fn unknown_routes_are_json_errors() {
    let ws = Workspace::new();
    let server = ws.serve();
    for path in [
        "/nope",
        "/api",
        "/api/v1",
        "/api/v1/notesx",
        "/api/v2/notes",
    ] {
        assert_error(server.get(path), 404, "Not found");
    }
}

#[test]
fn serve_creates_the_folder_and_stops_on_sigterm() {
    let ws = Workspace::new();
    std::fs::remove_dir(ws.notes()).unwrap();
    let mut server = ws.serve();
    assert!(server.base.starts_with("http://127.0.0.1:"));
    assert!(ws.notes().is_dir());
    let (status, _) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
    assert!(server.terminate(), "server did not exit cleanly on SIGTERM");
}
