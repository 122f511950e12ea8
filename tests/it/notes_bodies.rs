//! How a PUT body arrives: the Content-Type choosing the form (415 otherwise), UTF-8
//! required, chunked transfer, and the size limit (413) — a refused body writes nothing.

use crate::support::{Workspace, assert_error, json};

#[test]
fn content_type_selects_the_form() {
    let ws = Workspace::new();
    let server = ws.serve();
    for (ct, expect) in [
        ("text/plain", 201),
        ("text/markdown; charset=utf-8", 200),
        ("application/json; charset=utf-8", 200),
        ("Application/JSON", 200),
    ] {
        let body = if ct.to_ascii_lowercase().contains("json") {
            "{}"
        } else {
            "text"
        };
        let r = server
            .request("PUT", "/api/v1/notes/ct.md")
            .header("Content-Type", ct)
            .body(body)
            .send()
            .unwrap();
        assert_eq!(json(r).0, expect, "{ct}");
    }
    let before = ws.snapshot();
    for ct in [
        "text/html",
        "application/x-www-form-urlencoded",
        "image/png",
        "application/xml",
    ] {
        let r = server
            .request("PUT", "/api/v1/notes/ct.md")
            .header("Content-Type", ct)
            .body("x")
            .send()
            .unwrap();
        assert_error(
            r,
            415,
            "Unsupported Content-Type. Use application/json or text/markdown",
        );
    }
    let r = server.raw("PUT", "/api/v1/notes/new.md", &[], b"x");
    r.assert_error(
        415,
        "Unsupported Content-Type. Use application/json or text/markdown",
    );
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn non_utf8_markdown_is_refused() {
    let ws = Workspace::new();
    let server = ws.serve();
    let before = ws.snapshot();
    let r = server
        .request("PUT", "/api/v1/notes/bin.md")
        .header("Content-Type", "text/markdown")
        .body(vec![0xff, 0xfe, 0x00, 0x41])
        .send()
        .unwrap();
    assert_error(r, 400, "Failed to read body");
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn chunked_uploads_work() {
    let ws = Workspace::new();
    let server = ws.serve();
    let body = b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
    let r = server.raw(
        "PUT",
        "/api/v1/notes/chunked.md",
        &[
            ("Content-Type", "text/markdown"),
            ("Transfer-Encoding", "chunked"),
        ],
        body,
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["body"], "hello world");
}

#[test]
fn bodies_over_the_limit_get_413() {
    let ws = Workspace::new();
    let server = ws.serve_with(&["--max-body", "1000"]);
    let before = ws.snapshot();
    let big = "x".repeat(1001);
    let r = server.put_markdown("/api/v1/notes/big.md", &big);
    assert_error(
        r,
        413,
        "Request body is larger than the limit of 1000 bytes",
    );
    let mut chunked = Vec::new();
    for _ in 0..3 {
        chunked.extend_from_slice(format!("{:x}\r\n{}\r\n", 400, "y".repeat(400)).as_bytes());
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let r = server.raw(
        "PUT",
        "/api/v1/notes/big.md",
        &[
            ("Content-Type", "text/markdown"),
            ("Transfer-Encoding", "chunked"),
        ],
        &chunked,
    );
    r.assert_error(413, "Request body is larger than the limit of 1000 bytes");
    assert_eq!(ws.snapshot(), before);
    let (status, _) = json(server.put_markdown("/api/v1/notes/fits.md", &"z".repeat(1000)));
    assert_eq!(status, 201);
}
