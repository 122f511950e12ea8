//! Attachments over `/api/v1/files`: byte-exact round trips, media types, ranges, the
//! upload limit, preconditions, delete, the list, and every path that must be refused
//! (notes, hidden names, traversal, symlinks out), with the safety headers of active
//! content.

use crate::support::{Workspace, assert_cross_site_refused, assert_error, json};

/// `len` bytes that are not text and repeat only every 251 bytes.
fn binary(len: usize) -> Vec<u8> {
    crate::files_cache::binary(len, 0)
}

fn put(server: &crate::support::Server, path: &str, body: Vec<u8>) -> reqwest::blocking::Response {
    server
        .request("PUT", &format!("/api/v1/files/{path}"))
        .header("Content-Type", "application/octet-stream")
        .body(body)
        .send()
        .unwrap()
}

pub(crate) fn header<'a>(r: &'a reqwest::blocking::Response, name: &str) -> &'a str {
    r.headers().get(name).map_or("", |v| v.to_str().unwrap())
}

/// Each `(Range, start, end)` of `url` answers 206 with exactly `bytes[start..end]`,
/// its `Content-Range` and `Content-Length`; then a range starting at the end answers
/// 416 naming the size.
pub(crate) fn assert_ranges(
    server: &crate::support::Server,
    url: &str,
    bytes: &[u8],
    cases: &[(&str, usize, usize)],
) {
    let len = bytes.len();
    for &(range, start, end) in cases {
        let r = server
            .request("GET", url)
            .header("Range", range)
            .send()
            .unwrap();
        assert_eq!(r.status(), 206, "{range}");
        assert_eq!(
            header(&r, "content-range"),
            format!("bytes {start}-{}/{len}", end - 1),
            "{range}"
        );
        assert_eq!(header(&r, "content-length"), (end - start).to_string());
        assert!(r.bytes().unwrap() == bytes[start..end], "{range}");
    }
    let r = server
        .request("GET", url)
        .header("Range", format!("bytes={len}-"))
        .send()
        .unwrap();
    assert_eq!(header(&r, "content-range"), format!("bytes */{len}"));
    assert_error(
        r,
        416,
        &format!("Range not satisfiable: the file has {len} bytes"),
    );
}

#[test]
fn ten_megabytes_go_in_and_come_out_byte_exact() {
    let ws = Workspace::new();
    let server = ws.serve();
    let bytes = binary(10 * 1024 * 1024);
    let r = put(&server, "media/big.bin", bytes.clone());
    let etag = header(&r, "etag").to_string();
    let (status, body) = json(r);
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["path"], "media/big.bin");
    assert_eq!(body["size"], 10 * 1024 * 1024);
    assert_eq!(body["contentType"], "application/octet-stream");
    assert!(
        body["lastModified"].as_str().unwrap().ends_with('Z'),
        "{body}"
    );
    assert_eq!(
        std::fs::read(ws.notes().join("media/big.bin")).unwrap(),
        bytes
    );

    let r = server.get("/api/v1/files/media/big.bin");
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "application/octet-stream");
    assert_eq!(header(&r, "content-length"), (10 * 1024 * 1024).to_string());
    assert_eq!(header(&r, "accept-ranges"), "bytes");
    assert_eq!(header(&r, "etag"), etag);
    assert_eq!(header(&r, "x-content-type-options"), "nosniff");
    assert!(!header(&r, "last-modified").is_empty());
    assert!(r.bytes().unwrap() == bytes, "the bytes read differ");

    // The same tag: nothing to send.
    let r = server
        .request("GET", "/api/v1/files/media/big.bin")
        .header("If-None-Match", &etag)
        .send()
        .unwrap();
    assert_eq!(r.status(), 304);
    assert!(r.bytes().unwrap().is_empty());

    // Replacing answers 200 and a new tag.
    let r = put(&server, "media/big.bin", b"small now".to_vec());
    assert_eq!(r.status(), 200);
    assert_ne!(header(&r, "etag"), etag);
    let r = server.get("/api/v1/files/media/big.bin");
    assert_eq!(r.bytes().unwrap().as_ref(), b"small now");
}

#[test]
fn media_types_come_from_the_extension_and_active_content_is_sandboxed() {
    let ws = Workspace::new();
    let server = ws.serve();
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";
    let html = b"<html><body><script>alert(1)</script></body></html>";
    for (name, body, served, sandboxed) in [
        ("a/img.png", &b"\x89PNG\r\n\x1a\n"[..], "image/png", false),
        ("doc.pdf", &b"%PDF-1.4\n"[..], "application/pdf", false),
        ("draw.svg", &svg[..], "image/svg+xml", true),
        ("page.html", &html[..], "text/plain; charset=utf-8", true),
        // Not known to be passive: sandboxed too.
        (
            "blob.qqqz",
            &b"\0\x01\x02"[..],
            "application/octet-stream",
            true,
        ),
    ] {
        let (status, listed) = json(put(&server, name, body.to_vec()));
        assert_eq!(status, 201, "{name}: {listed}");
        let r = server.get(&format!("/api/v1/files/{name}"));
        assert_eq!(r.status(), 200, "{name}");
        assert_eq!(header(&r, "content-type"), served, "{name}");
        assert_eq!(header(&r, "x-content-type-options"), "nosniff", "{name}");
        let csp = header(&r, "content-security-policy").to_string();
        assert_eq!(csp == "sandbox", sandboxed, "{name}: {csp:?}");
        assert_eq!(r.bytes().unwrap().as_ref(), body, "{name}");
    }
    // The list names the file's own type (HTML is only sent as text).
    let (_, listed) = json(server.get("/api/v1/files"));
    let types: Vec<_> = listed["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["contentType"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        types,
        [
            "image/png",
            "application/octet-stream",
            "application/pdf",
            "image/svg+xml",
            "text/html"
        ]
    );
}

#[test]
fn byte_ranges_and_head() {
    let ws = Workspace::new();
    let server = ws.serve();
    let bytes = binary(600_000);
    assert_eq!(put(&server, "r.bin", bytes.clone()).status(), 201);
    assert_ranges(
        &server,
        "/api/v1/files/r.bin",
        &bytes,
        &[
            ("bytes=100-199", 100, 200),
            ("bytes=-10", 599_990, 600_000),
            ("bytes=599000-", 599_000, 600_000),
            // Larger than what is read at once: streamed.
            ("bytes=1000-400999", 1000, 401_000),
            // A suffix longer than the file is the whole file (RFC 9110, 14.1.2).
            ("bytes=-700000", 0, 600_000),
        ],
    );

    // Of several parts, the satisfiable one alone is answered; several: the whole file.
    assert_ranges(
        &server,
        "/api/v1/files/r.bin",
        &bytes,
        &[("bytes=700000-,-2", 599_998, 600_000)],
    );
    let whole = server
        .request("GET", "/api/v1/files/r.bin")
        .header("range", "bytes=210-,2494-6115,-2")
        .send()
        .unwrap();
    assert_eq!(whole.status().as_u16(), 200);
    assert!(whole.headers().get("content-range").is_none());
    assert_eq!(whole.bytes().unwrap().as_ref(), &bytes[..]);

    let r = server.raw("HEAD", "/api/v1/files/r.bin", &[], b"");
    assert_eq!(r.status, 200, "{}", r.head);
    let head = r.head.to_ascii_lowercase();
    assert!(head.contains("content-length: 600000"), "{head}");
    assert!(head.contains("accept-ranges: bytes"), "{head}");
    assert!(r.body.is_empty());
}

#[test]
fn uploads_past_the_limit_are_refused_and_leave_nothing() {
    let ws = Workspace::new();
    let server = ws.serve_with(&["--max-upload", "1000"]);
    let before = ws.snapshot();
    assert_error(
        put(&server, "big.bin", binary(2000)),
        413,
        "Request body is larger than the limit of 1000 bytes",
    );
    // Without a Content-Length, the stream is cut at the limit just the same.
    let mut chunked = Vec::new();
    for _ in 0..3 {
        chunked.extend_from_slice(b"320\r\n");
        chunked.extend_from_slice(&[b'x'; 800]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let r = server.raw(
        "PUT",
        "/api/v1/files/chunked.bin",
        &[("Transfer-Encoding", "chunked")],
        &chunked,
    );
    r.assert_error(413, "Request body is larger than the limit of 1000 bytes");
    assert_eq!(ws.snapshot(), before, "a refused upload left something");
    assert_eq!(put(&server, "ok.bin", binary(1000)).status(), 201);
}

#[test]
fn notes_and_hostile_paths_are_refused() {
    let ws = Workspace::new();
    let outside = ws.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.png"), "secret").unwrap();
    std::fs::create_dir_all(ws.notes()).unwrap();
    std::os::unix::fs::symlink(&outside, ws.notes().join("out")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.png"), ws.notes().join("s.png")).unwrap();
    ws.write("n.md", "# a note\n");
    ws.write(".hidden/x.png", "hidden");
    let server = ws.serve();
    let before = ws.snapshot();
    for method in ["GET", "PUT", "DELETE"] {
        for target in ["/api/v1/files/n.md", "/api/v1/files/a/new.md"] {
            server
                .raw(method, target, &[], b"x")
                .assert_error(400, "This path is a note (.md): use the notes routes");
        }
        for target in [
            "/api/v1/files/../x.png",
            "/api/v1/files/a/../../x.png",
            "/api/v1/files/%2e%2e/x.png",
            "/api/v1/files/.hidden/x.png",
            "/api/v1/files/a/.x.png",
            "/api/v1/files/.notes/serve.lock",
            "/api/v1/files//etc/passwd",
            "/api/v1/files/a%00.png",
            "/api/v1/files/out/secret.png",
            "/api/v1/files/out/new.png",
            "/api/v1/files/s.png",
        ] {
            server
                .raw(method, target, &[], b"x")
                .assert_error(400, "Invalid path");
        }
    }
    assert_eq!(ws.snapshot(), before, "a refused request changed the notes");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    assert_eq!(
        std::fs::read(outside.join("secret.png")).unwrap(),
        b"secret"
    );
    // Hidden files and notes are not in the list either, nor what a symlink leads out to.
    let (status, body) = json(server.get("/api/v1/files"));
    assert_eq!(status, 200);
    assert_eq!(body["files"], serde_json::json!([]));
    assert_error(server.get("/api/v1/files?under=out"), 400, "Invalid path");
    assert_error(
        server.get("/api/v1/files?under=.hidden"),
        400,
        "Invalid path",
    );
    assert_error(server.get("/api/v1/files?under=../x"), 400, "Invalid path");
}

#[test]
fn folders_and_other_methods() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.notes().join("dir/sub")).unwrap();
    let server = ws.serve();
    assert_error(server.get("/api/v1/files/dir"), 404, "File not found");
    assert_error(put(&server, "dir/sub", b"x".to_vec()), 400, "Invalid path");
    assert!(ws.notes().join("dir/sub").is_dir());
    let r = server.raw("POST", "/api/v1/files/a.png", &[], b"x");
    r.assert_error(405, "Method not allowed");
    assert!(
        r.head
            .to_ascii_lowercase()
            .contains("allow: get, head, put, delete")
    );
    let r = server.raw("DELETE", "/api/v1/files", &[], b"");
    r.assert_error(405, "Method not allowed");
}

#[test]
fn preconditions_delete_and_cross_site_writes() {
    let ws = Workspace::new();
    let server = ws.serve();
    let r = put(&server, "p.png", b"one".to_vec());
    let etag = header(&r, "etag").to_string();
    let create_only = |body: &str| {
        server
            .request("PUT", "/api/v1/files/p.png")
            .header("If-None-Match", "*")
            .body(body.to_string())
            .send()
            .unwrap()
    };
    assert_error(
        create_only("two"),
        412,
        "The file already exists (If-None-Match: *)",
    );
    let stale = server
        .request("PUT", "/api/v1/files/p.png")
        .header("If-Match", "\"stale\"")
        .body("two")
        .send()
        .unwrap();
    assert_error(
        stale,
        412,
        "The file has changed since it was read (If-Match does not match)",
    );
    assert_eq!(std::fs::read(ws.notes().join("p.png")).unwrap(), b"one");
    let r = server
        .request("PUT", "/api/v1/files/p.png")
        .header("If-Match", &etag)
        .body("two")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let current = header(&r, "etag").to_string();

    let r = server
        .request("DELETE", "/api/v1/files/p.png")
        .header("If-Match", &etag)
        .send()
        .unwrap();
    assert_error(
        r,
        412,
        "The file has changed since it was read (If-Match does not match)",
    );

    // A browser page of another site may not write or delete.
    for method in ["PUT", "DELETE"] {
        let r = server
            .request(method, "/api/v1/files/p.png")
            .header("Sec-Fetch-Site", "cross-site")
            .body("evil")
            .send()
            .unwrap();
        let (status, body) = json(r);
        assert_cross_site_refused(status, &body, method);
    }
    assert_eq!(std::fs::read(ws.notes().join("p.png")).unwrap(), b"two");

    let r = server
        .request("DELETE", "/api/v1/files/p.png")
        .header("If-Match", &current)
        .send()
        .unwrap();
    let (status, body) = json(r);
    assert_eq!(status, 200);
    assert_eq!(body, serde_json::json!({"deleted": "p.png"}));
    assert!(!ws.notes().join("p.png").exists());
    assert_error(server.get("/api/v1/files/p.png"), 404, "File not found");
    let r = server
        .request("DELETE", "/api/v1/files/p.png")
        .send()
        .unwrap();
    assert_error(r, 404, "File not found");
    // Created again only where nothing is.
    assert_eq!(create_only("three").status(), 201);
}

#[test]
fn the_list_is_sorted_and_filtered_by_folder() {
    let ws = Workspace::new();
    ws.write("b/z.pdf", "pdf");
    ws.write("a.png", "png!");
    ws.write("b/a/c.txt", "text");
    ws.write("b/note.md", "# note\n");
    ws.write("bb/x.bin", "x");
    let server = ws.serve();
    let (status, body) = json(server.get("/api/v1/files"));
    assert_eq!(status, 200);
    let paths: Vec<_> = body["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["a.png", "b/a/c.txt", "b/z.pdf", "bb/x.bin"]);
    let (status, body) = json(server.get("/api/v1/files?under=b"));
    assert_eq!(status, 200);
    let files = body["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{body}");
    assert_eq!(files[0]["path"], "b/a/c.txt");
    assert_eq!(files[0]["contentType"], "text/plain");
    assert_eq!(files[0]["size"], 4);
    assert_eq!(files[1]["path"], "b/z.pdf");
    let mut keys: Vec<_> = files[1].as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["contentType", "lastModified", "path", "size"]);
    let (status, body) = json(server.get("/api/v1/files?under=missing"));
    assert_eq!(status, 200);
    assert_eq!(body["files"], serde_json::json!([]));
}

#[test]
fn note_pages_show_attachments_from_the_browsers_file_route() {
    let ws = Workspace::new();
    ws.write(
        "trips/alps.md",
        "# Alps\n\n![the ridge](img/ridge.png) and [the map](docs/map%20v2.pdf).\n\n\
         ![[img/ridge.png]] and ![[docs/map v2.pdf]]\n",
    );
    let server = ws.serve();
    let png = binary(2000);
    assert_eq!(
        put(&server, "trips/img/ridge.png", png.clone()).status(),
        201
    );
    assert_eq!(
        put(&server, "trips/docs/map v2.pdf", binary(300)).status(),
        201
    );

    let whole = server.get("/note/trips/alps.md").text().unwrap();
    // The note's text, without the list of its attachments under it.
    let page = whole.split("</article>").next().unwrap();
    // A Markdown image and an embedded image both show, from /file/ with the path
    // relative to the note's folder; a linked or embedded PDF is a link to it.
    assert_eq!(
        page.matches("<img src=\"/file/trips/img/ridge.png\"")
            .count(),
        2,
        "{page}"
    );
    assert!(page.contains("alt=\"the ridge\""), "{page}");
    assert_eq!(
        page.matches("href=\"/file/trips/docs/map%20v2.pdf\"")
            .count(),
        2,
        "{page}"
    );

    // The route answers as the API does: bytes, type, and the same refusals.
    let r = server.get("/file/trips/img/ridge.png");
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "image/png");
    assert!(r.bytes().unwrap() == png);
    assert_eq!(
        server
            .request("HEAD", "/file/trips/docs/map%20v2.pdf")
            .send()
            .unwrap()
            .status(),
        200
    );
    assert_error(
        server.get("/file/trips/alps.md"),
        400,
        "This path is a note (.md): use the notes routes",
    );
    assert_eq!(server.get("/file/trips/img/gone.png").status(), 404);
    for target in [
        "/file/%2e%2e/etc/passwd",
        "/file/trips/../../x.png",
        "/file/.notes/serve.lock",
    ] {
        server
            .raw("GET", target, &[], b"")
            .assert_error(400, "Invalid path");
    }
    let r = server
        .request("PUT", "/file/trips/img/ridge.png")
        .body("x")
        .send()
        .unwrap();
    assert_eq!(r.status(), 405);
    assert_eq!(
        ws.notes()
            .join("trips/img/ridge.png")
            .metadata()
            .unwrap()
            .len(),
        2000
    );
}
