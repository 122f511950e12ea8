//! Filter-level cases of the API's routing, through `warp::test` (no process, no
//! socket): which route answers, the 405s and their `Allow`, the body limit, and a
//! write read back. The door's checks (Host, cross-site, tokens) are the server's and
//! are tested over HTTP in `tests/it`.

use std::sync::Arc;

use warp::http::StatusCode;

use crate::http::{State, auth, guard};
use crate::ops::search::indexer::SharedIndex;
use crate::ops::{Config, Notebook};

/// A state over a fresh notes folder, with `max_body` bytes of body allowed.
fn state(dir: &std::path::Path, max_body: u64) -> Arc<State> {
    let notebook = Notebook::new(Config {
        notes_dir: dir.to_path_buf(),
        public_dir: dir.join("public"),
        base_url: None,
    });
    let listening = auth::Listening {
        addr: "127.0.0.1:8080".parse().expect("an address"),
        no_auth: false,
        secure: false,
    };
    let auth = auth::Auth::new(&notebook, listening).expect("no tokens file");
    notebook.serve_index(SharedIndex::open(dir));
    Arc::new(State {
        notebook,
        max_body,
        max_upload: max_body,
        request_timeout: std::time::Duration::from_secs(5),
        hosts: Arc::new(guard::AllowedHosts::new(std::iter::empty(), None)),
        auth,
        kept_list: Default::default(),
    })
}

/// The answer of every route (`http::routes`, with its recover) to `request`.
async fn answer(
    state: &Arc<State>,
    request: warp::test::RequestBuilder,
) -> (StatusCode, Option<String>, serde_json::Value) {
    let response = request
        .header("host", "127.0.0.1:8080")
        .reply(&crate::http::routes(state.clone()))
        .await;
    let allow = response
        .headers()
        .get("allow")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = serde_json::from_slice(response.body()).unwrap_or(serde_json::Value::Null);
    (response.status(), allow, body)
}

#[tokio::test]
async fn methods_a_route_does_not_take_get_405_with_allow() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = state(dir.path(), 1 << 20);
    for (method, path, allow) in [
        ("PATCH", "/api/v1/notes/a.md", "GET, PUT, DELETE"),
        ("POST", "/api/v1/notes", "GET"),
        ("GET", "/api/public/toggle", "POST"),
        ("DELETE", "/api/public/list", "GET"),
        ("GET", "/api/v1/move", "POST"),
        ("PUT", "/api/v1/search", "GET"),
        ("POST", "/api/v1/files/a.png", "GET, HEAD, PUT, DELETE"),
        ("DELETE", "/api/v1/files", "GET"),
        ("PUT", "/api/v1/history/a.md", "GET"),
        ("GET", "/api/v1/restore", "POST"),
        ("POST", "/api/v1/trash", "GET"),
        ("DELETE", "/api/v1/sections/a.md", "GET, PATCH"),
        ("POST", "/api/v1/pages/notes", "GET"),
        ("POST", "/api/v1/openapi.json", "GET"),
    ] {
        let (status, allowed, body) =
            answer(&state, warp::test::request().method(method).path(path)).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert_eq!(allowed.as_deref(), Some(allow), "{method} {path}");
        assert_eq!(body["code"], 405, "{method} {path}: {body}");
    }
}

#[tokio::test]
async fn unknown_api_routes_are_404_error_responses() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = state(dir.path(), 1 << 20);
    for path in ["/api/v1/nope", "/api/v2/notes", "/api/v1/notes/missing.md"] {
        let (status, _, body) = answer(&state, warp::test::request().path(path)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(body["code"], 404, "{path}: {body}");
        assert!(body["message"].is_string(), "{path}: {body}");
    }
}

#[tokio::test]
async fn every_body_reading_route_refuses_a_body_past_the_limit() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = state(dir.path(), 64);
    let big = vec![b'x'; 65];
    for (method, path, content_type) in [
        ("PUT", "/api/v1/notes/a.md", "text/markdown"),
        (
            "POST",
            "/api/public/toggle",
            "application/x-www-form-urlencoded",
        ),
        ("POST", "/api/v1/move", "application/json"),
        ("POST", "/api/v1/restore", "application/json"),
        ("PATCH", "/api/v1/sections/a.md", "application/json"),
        ("PUT", "/api/v1/files/a.png", "image/png"),
    ] {
        let request = warp::test::request()
            .method(method)
            .path(path)
            .header("content-type", content_type)
            .body(big.clone());
        let (status, _, body) = answer(&state, request).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{method} {path}");
        assert_eq!(body["code"], 413, "{method} {path}: {body}");
    }
    assert!(!dir.path().join("a.md").exists());
    assert!(!dir.path().join("a.png").exists());
}

#[tokio::test]
async fn a_note_put_through_the_filters_reads_back() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = state(dir.path(), 1 << 20);
    let put = warp::test::request()
        .method("PUT")
        .path("/api/v1/notes/folder/a.md")
        .header("content-type", "text/markdown")
        .body("# Title\n\nText.\n");
    let (status, _, body) = answer(&state, put).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, _, body) = answer(
        &state,
        warp::test::request().path("/api/v1/notes/folder/a.md"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["body"], "# Title\n\nText.\n", "{body}");
    let (status, _, body) = answer(&state, warp::test::request().path("/api/v1/notes")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["total"], 1, "{body}");
}
