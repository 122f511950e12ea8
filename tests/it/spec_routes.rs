//! The spec's routes answer exactly the spec for every request: a method the spec does
//! not name gets the spec's 405 and its exact message (on a note, after the path rules
//! 1-3 and before any body is read), and query parameters change nothing, whatever
//! the service adds on routes of its own.

use crate::support::{RawResponse, Server, Workspace, note};

const NOTE_405: &str = "Method not allowed. Supported: GET, PUT, DELETE";
const ROUTE_405: &str = "Method not allowed";

/// Methods no spec'd route takes (HEAD is left out: it is decided elsewhere).
const UNNAMED: [&str; 5] = ["PATCH", "POST", "OPTIONS", "TRACE", "FOO"];

/// A section edit, the body a PATCH on a note would once have been taken for.
const EDIT: &str = r#"{"op": "append", "heading": ["A"], "text": "x"}"#;

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write("n.md", "# A\nbody\n");
    ws.write("a/b.md", &note("B", &["t"], "# A\nin a folder\n"));
    ws.write("public-one.md", &note("Out", &[], "published\n"));
    let published = ws.run(&["publish", "public-one.md"]);
    assert!(published.status.success(), "{published:?}");
    ws
}

/// Asserts a 405 ErrorResponse with `message` and exactly the spec's three fields.
fn assert_405(r: &RawResponse, message: &str, context: &str) {
    assert_eq!(r.status, 405, "{context}\n{}\n{}", r.head, r.body);
    r.assert_error(405, message);
    let body = r.json();
    assert_eq!(body["error"], "Method Not Allowed", "{context}");
    assert_eq!(body.as_object().unwrap().len(), 3, "{context}: {body}");
}

/// The `Allow` header of a response, if any.
fn allow(r: &RawResponse) -> Option<String> {
    r.head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("allow")
            .then(|| value.trim().to_string())
    })
}

#[test]
fn a_method_the_spec_does_not_name_on_a_note_is_the_specs_405() {
    let ws = workspace();
    let server = ws.serve();
    let before = ws.snapshot();
    for target in [
        "/api/v1/notes/n.md",
        "/api/v1/notes/a/b.md",
        "/api/v1/notes/a%2Fb.md",
        "/api/v1/notes/missing.md",
        "/api/v1/notes/new/folder/x.md",
    ] {
        for method in UNNAMED {
            for (content_type, body) in [
                ("application/json", EDIT),
                ("text/markdown", "# replaced\n"),
                ("application/x-www-form-urlencoded", "path=n.md"),
            ] {
                let r = server.raw(
                    method,
                    target,
                    &[("Content-Type", content_type)],
                    body.as_bytes(),
                );
                let context = format!("{method} {target} ({content_type})");
                assert_405(&r, NOTE_405, &context);
                assert_eq!(allow(&r).as_deref(), Some("GET, PUT, DELETE"), "{context}");
            }
        }
    }
    assert_eq!(ws.snapshot(), before, "a refused method changed the notes");
}

#[test]
fn a_patch_on_a_note_is_refused_before_its_body_is_read() {
    let ws = workspace();
    let server = ws.serve_with(&["--max-body", "1024"]);
    let before = ws.snapshot();
    // Declared far beyond the limit and never sent: a route that read it would answer
    // 413, or wait for it until the request's deadline.
    let huge = (1u64 << 40).to_string();
    let declared = [
        ("Content-Type", "application/json"),
        ("Content-Length", huge.as_str()),
    ];
    let started = std::time::Instant::now();
    // (Not POST: the raw client adds its own Content-Length to a POST.)
    for method in ["PATCH", "OPTIONS", "FOO"] {
        let r = server.raw(method, "/api/v1/notes/n.md", &declared, b"");
        assert_405(
            &r,
            NOTE_405,
            &format!("{method} with Content-Length {huge}"),
        );
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "the refusals waited for the body"
    );
    // Sent, and larger than the limit: still the 405, not 413.
    let big = vec![b'x'; 4096];
    let r = server.raw(
        "PATCH",
        "/api/v1/notes/n.md",
        &[("Content-Type", "application/json")],
        &big,
    );
    assert_405(&r, NOTE_405, "PATCH with a body over --max-body");
    // Bodies that are not JSON, not a section edit, or not even UTF-8.
    for body in [&b"{not json"[..], b"[]", b"\xff\xfe\x00", b""] {
        let r = server.raw(
            "PATCH",
            "/api/v1/notes/n.md",
            &[("Content-Type", "application/json")],
            body,
        );
        assert_405(&r, NOTE_405, &format!("PATCH with {body:?}"));
    }
    // A chunked body that never ends.
    let r = server.raw(
        "PATCH",
        "/api/v1/notes/n.md",
        &[("Transfer-Encoding", "chunked")],
        b"ffff\r\nxx",
    );
    assert_405(&r, NOTE_405, "PATCH with a chunked body cut short");
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn the_path_rules_come_before_the_method_rule() {
    let ws = workspace();
    let server = ws.serve();
    let huge = (1u64 << 40).to_string();
    let json = ("Content-Type", "application/json");
    for method in UNNAMED {
        // A body, and (not for POST, whose length the raw client sets) a body declared
        // and never sent: the path is judged first all the same.
        let mut requests = vec![(vec![json], EDIT.as_bytes())];
        if method != "POST" {
            requests.push((vec![json, ("Content-Length", huge.as_str())], b""));
        }
        for (headers, body) in requests {
            for target in [
                "/api/v1/notes/../x.md",
                "/api/v1/notes/..%2Fx.md",
                "/api/v1/notes/../x.txt",
            ] {
                server
                    .raw(method, target, &headers, body)
                    .assert_error(400, "Invalid path");
            }
            for target in ["/api/v1/notes/x.txt", "/api/v1/notes/a/b"] {
                server
                    .raw(method, target, &headers, body)
                    .assert_error(400, "Only .md files are supported");
            }
            // Rule 1: the empty path is the list, whose 405 is its own.
            for target in ["/api/v1/notes/", "/api/v1/notes"] {
                let r = server.raw(method, target, &headers, body);
                assert_405(&r, ROUTE_405, &format!("{method} {target}"));
            }
        }
    }
}

#[test]
fn a_method_the_spec_does_not_name_on_the_list_and_the_public_routes_is_405() {
    let ws = workspace();
    let server = ws.serve();
    let before = ws.snapshot();
    let public_before = ws.public_files();
    let cases: [(&str, &[&str], &str); 4] = [
        (
            "/api/v1/notes",
            &["PATCH", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "FOO"],
            "GET",
        ),
        (
            "/api/v1/notes/",
            &["PATCH", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "FOO"],
            "GET",
        ),
        (
            "/api/public/list",
            &["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO"],
            "GET",
        ),
        (
            "/api/public/toggle",
            &["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO"],
            "POST",
        ),
    ];
    for (target, methods, allowed) in cases {
        for &method in methods {
            let r = server.raw(
                method,
                target,
                &[("Content-Type", "application/x-www-form-urlencoded")],
                b"path=n.md",
            );
            let context = format!("{method} {target}");
            assert_405(&r, ROUTE_405, &context);
            assert_eq!(allow(&r).as_deref(), Some(allowed), "{context}");
        }
    }
    assert_eq!(ws.snapshot(), before);
    assert_eq!(
        ws.public_files(),
        public_before,
        "a refused toggle published"
    );
}

/// Status, content type and body of a request, for comparisons.
fn answer(
    server: &Server,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, String) {
    let r = server.raw(method, target, headers, body);
    let content_type = r
        .head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-type")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_default();
    (r.status, content_type, r.body)
}

/// What clients add by habit or by accident: the extensions' parameters, paging words,
/// a cache buster, a form field's name.
const QUERIES: [&str; 9] = [
    "limit=1",
    "offset=1",
    "limit=1&offset=1",
    "outline",
    "outline=1",
    "after=a.md",
    "path=other.md",
    "_=123",
    "limit=0&after=zzz&_=",
];

#[test]
fn query_parameters_change_nothing_on_the_reads() {
    let ws = workspace();
    let server = ws.serve();
    let markdown = [("Accept", "text/markdown")];
    let reads: [(&str, &[(&str, &str)]); 7] = [
        ("/api/v1/notes", &[]),
        ("/api/v1/notes/", &[]),
        ("/api/v1/notes/n.md", &[]),
        ("/api/v1/notes/a/b.md", &[]),
        ("/api/v1/notes/a/b.md", &markdown),
        ("/api/v1/notes/missing.md", &[]),
        ("/api/public/list", &[]),
    ];
    for (target, headers) in reads {
        let plain = answer(&server, "GET", target, headers, b"");
        assert!(matches!(plain.0, 200 | 404), "{target}: {plain:?}");
        for query in QUERIES {
            let with = answer(&server, "GET", &format!("{target}?{query}"), headers, b"");
            assert_eq!(with, plain, "GET {target}?{query} {headers:?}");
        }
    }
    // The list is every note, and `total` counts them, whatever the query.
    let r = server.raw("GET", "/api/v1/notes?limit=1&offset=1", &[], b"");
    let list = r.json();
    assert_eq!(list["notes"].as_array().unwrap().len(), 3, "{list}");
    assert_eq!(list["total"], 3);
}

#[test]
fn query_parameters_change_nothing_on_the_writes() {
    let ws = workspace();
    let server = ws.serve();
    let json = [("Content-Type", "application/json")];
    // `content` is stored as given: the answers of two equal PUTs are equal.
    let put = br##"{"content": "---\ntitle: W\ndate: 01-02-2024\nlast_modified: 01-02-2024:10:30\ntags: []\n---\n# W\n"}"##;
    let first = answer(&server, "PUT", "/api/v1/notes/w.md", &json, put);
    assert_eq!(first.0, 201, "{first:?}");
    let plain = answer(&server, "PUT", "/api/v1/notes/w.md", &json, put);
    assert_eq!(plain.0, 200, "{plain:?}");
    for query in QUERIES {
        let with = answer(
            &server,
            "PUT",
            &format!("/api/v1/notes/w.md?{query}"),
            &json,
            put,
        );
        assert_eq!(with, plain, "PUT ?{query}");
    }
    // Errors too: an invalid body, an unsupported type.
    for (headers, body) in [
        (&json[..], &b"{not json"[..]),
        (&[("Content-Type", "image/png")][..], &b"x"[..]),
    ] {
        let plain = answer(&server, "PUT", "/api/v1/notes/w.md", headers, body);
        assert!(matches!(plain.0, 400 | 415), "{plain:?}");
        for query in QUERIES {
            let target = format!("/api/v1/notes/w.md?{query}");
            assert_eq!(
                answer(&server, "PUT", &target, headers, body),
                plain,
                "{query}"
            );
        }
    }
    // DELETE: the same confirmation, then the same 404.
    for (n, query) in QUERIES.iter().enumerate() {
        let path = format!("d{n}.md");
        ws.write(&path, "x");
        let r = server.raw("DELETE", &format!("/api/v1/notes/{path}?{query}"), &[], b"");
        assert_eq!(r.status, 200, "{query}: {}", r.body);
        assert_eq!(
            r.json(),
            serde_json::json!({"message": "Note deleted successfully", "path": path}),
            "{query}"
        );
        assert!(!ws.notes().join(&path).exists());
        let plain = answer(
            &server,
            "DELETE",
            &format!("/api/v1/notes/{path}"),
            &[],
            b"",
        );
        let with = answer(
            &server,
            "DELETE",
            &format!("/api/v1/notes/{path}?{query}"),
            &[],
            b"",
        );
        assert_eq!(plain.0, 404);
        assert_eq!(with, plain, "{query}");
    }
}

#[test]
fn the_toggle_takes_its_path_from_the_form_body_only() {
    let ws = workspace();
    ws.write("other.md", &note("Other", &[], "x\n"));
    let server = ws.serve();
    let form = [("Content-Type", "application/x-www-form-urlencoded")];
    // The query names another note: the body's is toggled, the answer is the same.
    let public = answer(&server, "POST", "/api/public/toggle", &form, b"path=n.md");
    assert_eq!(public.0, 200, "{public:?}");
    assert!(public.2.contains("\"public\""), "{public:?}");
    let private = answer(&server, "POST", "/api/public/toggle", &form, b"path=n.md");
    assert!(private.2.contains("\"private\""), "{private:?}");
    for query in QUERIES {
        let target = format!("/api/public/toggle?{query}");
        let on = answer(&server, "POST", &target, &form, b"path=n.md");
        assert_eq!(on, public, "{query}");
        let off = answer(&server, "POST", &target, &form, b"path=n.md");
        assert_eq!(off, private, "{query}");
    }
    assert!(
        !ws.public().join("other.html").exists(),
        "the query's note was published"
    );
    // No field in the body: the spec's 400, even when the query names a note.
    for body in [&b""[..], b"other=1", b"path="] {
        let plain = answer(&server, "POST", "/api/public/toggle", &form, body);
        assert_eq!(plain.0, 400, "{plain:?}");
        for query in ["path=other.md", "path=n.md&_=1"] {
            let target = format!("/api/public/toggle?{query}");
            assert_eq!(
                answer(&server, "POST", &target, &form, body),
                plain,
                "{query}"
            );
        }
    }
    let r = server.raw("POST", "/api/public/toggle?path=other.md", &form, b"");
    r.assert_error(400, "Path is required");
    assert!(
        !ws.public().join("other.html").exists(),
        "the query's note was published"
    );
    let list = server.raw("GET", "/api/public/list", &[], b"").json();
    let paths: Vec<&str> = list["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["public-one.md"]);
}
