//! Who may talk to `serve`: the Host check (DNS rebinding), the cross-site check of
//! writes, and the headers every response carries. Each attack is replayed against the
//! real binary and must leave the disk as it was.

use crate::support::{RawResponse, Workspace, assert_cross_site_refused, note};

const PRIVATE: &str = "private/diary.md";

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write(PRIVATE, &note("Diary", &[], "secret words\n"));
    ws
}

/// The message of a refused `Host`.
fn assert_host_refused(response: &RawResponse, host: &str) {
    assert_eq!(response.status, 403, "{}\n{}", response.head, response.body);
    let body = response.json();
    assert_eq!(body["error"], "Forbidden");
    assert_eq!(body["code"], 403);
    let message = body["message"].as_str().unwrap();
    assert!(message.contains(&format!("{host:?}")), "{message}");
    assert!(message.contains("--allow-host"), "{message}");
    assert!(!response.body.contains("secret words"));
}

/// Every kind of route, read and write, under a host a rebinding page would send.
#[test]
fn rebound_host_names_are_refused_on_every_route() {
    let ws = workspace();
    let server = ws.serve();
    let before = ws.snapshot();
    let host = "attacker.example:8080";
    let with_host = [("Host", host)];
    for (method, target, body) in [
        ("GET", "/api/v1/notes", &b""[..]),
        ("GET", "/api/v1/notes/private/diary.md", b""),
        ("PUT", "/api/v1/notes/evil.md", b"{\"body\":\"x\"}"),
        ("DELETE", "/api/v1/notes/private/diary.md", b""),
        ("POST", "/api/public/toggle", b"path=private/diary.md"),
        ("GET", "/api/public/list", b""),
        ("GET", "/api/v1/search?q=secret", b""),
        ("GET", "/api/v1/openapi.json", b""),
        ("GET", "/public/", b""),
        ("GET", "/", b""),
        ("GET", "/note/private/diary.md", b""),
        ("GET", "/raw/private/diary.md", b""),
        ("POST", "/delete", b"path=private/diary.md"),
        ("GET", "/nope", b""),
    ] {
        let mut headers = with_host.to_vec();
        if method != "GET" {
            headers.push(("Content-Type", "application/x-www-form-urlencoded"));
        }
        let response = server.raw(method, target, &headers, body);
        assert_host_refused(&response, host);
    }
    // Names that only look local.
    for host in [
        "localhost.attacker.example",
        "127.0.0.1.nip.io:8080",
        "notes.home.arpa",
    ] {
        let response = server.raw("GET", "/api/v1/notes", &[("Host", host)], b"");
        assert_host_refused(&response, host);
    }
    assert_eq!(ws.snapshot(), before);
    assert!(!ws.public().exists());
}

#[test]
fn local_names_and_allowed_hosts_are_served() {
    let ws = workspace();
    let server = ws.serve_with(&[
        "--allow-host",
        "notes.home.arpa",
        "--base-url",
        "https://pub.example.org",
    ]);
    for host in [
        "127.0.0.1",
        "[::1]:9",
        "localhost:8080",
        "LocalHost",
        "app.localhost",
        "notes.home.arpa",
        "NOTES.HOME.ARPA.:8080",
        "pub.example.org",
    ] {
        let response = server.raw("GET", "/api/v1/notes", &[("Host", host)], b"");
        assert_eq!(response.status, 200, "{host}: {}", response.body);
    }
    // X-Forwarded-Host does not make a name allowed.
    let response = server.raw(
        "GET",
        "/api/v1/notes",
        &[("Host", "evil.example"), ("X-Forwarded-Host", "localhost")],
        b"",
    );
    assert_host_refused(&response, "evil.example");
    drop(server);

    // The same list from the environment, comma-separated.
    let mut cmd = ws.cli();
    cmd.env("NOTES_ALLOW_HOSTS", "a.example, b.example");
    let server = ws.serve_through(cmd, &[]);
    for host in ["a.example", "b.example:1"] {
        let response = server.raw("GET", "/api/v1/notes", &[("Host", host)], b"");
        assert_eq!(response.status, 200, "{host}: {}", response.body);
    }
    let response = server.raw("GET", "/api/v1/notes", &[("Host", "c.example")], b"");
    assert_host_refused(&response, "c.example");
}

/// Method, target, headers and body of a request.
type Request<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, &'a [u8]);

/// A page on another site posting to the toggle, in every shape the toggle accepts.
#[test]
fn cross_site_writes_are_refused() {
    let ws = workspace();
    let server = ws.serve();
    let before = ws.snapshot();
    let form = ("Content-Type", "application/x-www-form-urlencoded");
    let text = ("Content-Type", "text/plain");
    let evil = ("Origin", "https://evil.example");
    let cross = ("Sec-Fetch-Site", "cross-site");
    let same_site = ("Sec-Fetch-Site", "same-site");
    let cases: Vec<Request> = vec![
        (
            "POST",
            "/api/public/toggle",
            vec![form, evil, cross],
            b"path=private/diary.md",
        ),
        (
            "POST",
            "/api/public/toggle",
            vec![text, evil],
            b"path=private/diary.md",
        ),
        (
            "POST",
            "/api/public/toggle?path=private/diary.md",
            vec![cross],
            b"",
        ),
        (
            "POST",
            "/api/public/toggle",
            vec![form, ("Origin", "null")],
            b"path=private/diary.md",
        ),
        (
            "POST",
            "/api/public/toggle",
            vec![form, ("Origin", "http://127.0.0.1:1")],
            b"path=private/diary.md",
        ),
        (
            "PUT",
            "/api/v1/notes/private/diary.md",
            vec![text, evil],
            b"overwritten",
        ),
        (
            "PUT",
            "/api/v1/notes/new.md",
            vec![("Content-Type", "application/json"), same_site],
            b"{}",
        ),
        ("DELETE", "/api/v1/notes/private/diary.md", vec![cross], b""),
        ("PATCH", "/api/v1/notes/private/diary.md", vec![evil], b""),
        (
            "POST",
            "/save",
            vec![form, evil],
            b"mode=edit&path=private/diary.md&title=x&body=y",
        ),
        (
            "POST",
            "/publish",
            vec![form, cross],
            b"path=private/diary.md&action=publish",
        ),
    ];
    for (method, target, headers, body) in cases {
        let response = server.raw(method, target, &headers, body);
        assert_cross_site_refused(response.status, &response.json(), &response.head);
    }
    assert_eq!(ws.snapshot(), before);
    assert!(!ws.public().exists());
    // Reads stay open to such requests: a page may link to a note.
    let response = server.raw("GET", "/api/v1/notes", &[evil, cross], b"");
    assert_eq!(response.status, 200);
}

/// A page of the service itself, and clients that send no browser headers, work as
/// before.
#[test]
fn same_origin_and_script_writes_pass() {
    let ws = workspace();
    let server = ws.serve();
    let origin = format!("http://{}", server.addr());
    let response = server.raw(
        "PUT",
        "/api/v1/notes/mine.md",
        &[
            ("Content-Type", "text/markdown"),
            ("Origin", &origin),
            ("Sec-Fetch-Site", "same-origin"),
        ],
        b"# Mine\n",
    );
    assert_eq!(response.status, 201, "{}", response.body);
    let response = server.raw(
        "POST",
        "/api/public/toggle",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        b"path=mine.md",
    );
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(response.json()["status"], "public");
}

/// `nosniff` on every response; a policy without inline script on pages.
#[test]
fn every_response_carries_the_safety_headers() {
    let ws = workspace();
    let server = ws.serve();
    assert_eq!(server.toggle(PRIVATE).0, 200);
    for target in [
        "/api/v1/notes",
        "/api/v1/notes/private/diary.md",
        "/api/v1/notes/missing.md",
        "/api/v1/notes/x.txt",
        "/api/public/list",
        "/api/v1/openapi.json",
        "/public/",
        "/public/diary.html",
        "/public/static/style.css",
        "/public/missing.html",
        "/",
        "/note/private/diary.md",
        "/assets/app.css",
        "/nope",
    ] {
        let response = server.raw("GET", target, &[], b"");
        let head = response.head.to_ascii_lowercase();
        assert!(
            head.contains("x-content-type-options: nosniff"),
            "{target}: {head}"
        );
        let page = target.starts_with("/public/") || target == "/" || target.starts_with("/note/");
        if page {
            let csp = head
                .lines()
                .find_map(|l| l.strip_prefix("content-security-policy: "))
                .unwrap_or_else(|| panic!("{target}: no policy in {head}"));
            assert!(csp.contains("frame-ancestors 'none'"), "{target}: {csp}");
            assert!(!csp.contains("unsafe-inline"), "{target}: {csp}");
            assert!(
                csp.contains("default-src 'none'") || csp.contains("default-src 'self'"),
                "{target}: {csp}"
            );
        }
    }
}
