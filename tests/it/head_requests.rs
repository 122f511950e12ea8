//! `HEAD` on every API route that answers `GET` (RFC 9110): the same status and headers,
//! no body. The note routes still answer 405 to every other method but PUT and DELETE.

use crate::support::{Workspace, note};

/// The lowercased head of `method target`, and its body.
fn answer(server: &crate::support::Client, method: &str, target: &str) -> (u16, String, String) {
    let r = server.raw(method, target, &[], b"");
    (r.status, r.head.to_ascii_lowercase(), r.body)
}

/// The value of header `name` in a lowercased head.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|line| line.strip_prefix(&format!("{name}: ")))
        .map(str::trim)
}

#[test]
fn head_answers_as_get_without_the_body() {
    let ws = Workspace::new();
    ws.write("a.md", &note("A", &["x"], "searchable words\n"));
    let server = ws.serve();
    assert!(crate::support::eventually(
        std::time::Duration::from_secs(30),
        || !crate::support::search_paths(&server, "searchable").is_empty()
    ));
    for target in [
        "/api/v1/notes",
        "/api/v1/notes/a.md",
        "/api/v1/search?q=searchable",
        "/api/v1/openapi.json",
        "/api/public/list",
    ] {
        let (get_status, get_head, get_body) = answer(&server, "GET", target);
        let (status, head, body) = answer(&server, "HEAD", target);
        assert_eq!(get_status, 200, "{target}: {get_head}");
        assert_eq!(status, 200, "{target}: {head}");
        assert!(body.is_empty(), "{target}: {body}");
        assert!(!get_body.is_empty(), "{target}");
        for name in ["content-type", "etag", "cache-control"] {
            assert_eq!(
                header(&head, name),
                header(&get_head, name),
                "{target}: {name}"
            );
        }
        if let Some(length) = header(&head, "content-length") {
            assert_eq!(length, get_body.len().to_string(), "{target}");
        }
    }
    // A missing note: the same 404 head.
    let (status, head, body) = answer(&server, "HEAD", "/api/v1/notes/missing.md");
    assert_eq!(status, 404, "{head}");
    assert!(header(&head, "content-type").is_some_and(|t| t.starts_with("application/json")));
    assert!(body.is_empty());
    // The spec's 405 on the note routes is unchanged for the other methods.
    for method in ["POST", "PATCH", "OPTIONS"] {
        let r = server.raw(method, "/api/v1/notes/a.md", &[], b"");
        assert_eq!(r.status, 405, "{method}: {}", r.head);
        assert_eq!(
            r.json()["message"],
            "Method not allowed. Supported: GET, PUT, DELETE"
        );
    }
}
