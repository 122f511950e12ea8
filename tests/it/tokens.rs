//! Tokens over HTTP: none asked before the first token exists, then every API and web
//! route needs one (public pages excepted); 401 for a missing or wrong token, 403 for
//! a read-only token writing or a folder token outside its folder, on every write
//! route; tokens created and revoked while the server runs count from the next request.

use serde_json::Value;

use crate::support::{RawResponse, Server, Workspace, create_token, note};

const WORK: &str = "work/plan.md";
const OTHER: &str = "other/diary.md";

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write(WORK, &note("Plan", &[], "work words\n"));
    ws.write(OTHER, &note("Diary", &[], "secret words\n"));
    ws.write("work/img.txt", "file in work\n");
    ws.write("other/img.txt", "file in other\n");
    let published = ws.run(&["publish", WORK]);
    assert!(published.status.success(), "{published:?}");
    ws
}

fn send(
    server: &Server,
    method: &str,
    target: &str,
    token: Option<&str>,
    body: &str,
) -> RawResponse {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![];
    if let Some(b) = &bearer {
        headers.push(("Authorization", b.as_str()));
    }
    if body.starts_with('{') {
        headers.push(("Content-Type", "application/json"));
    } else if !body.is_empty() {
        headers.push(("Content-Type", "application/x-www-form-urlencoded"));
    }
    server.raw(method, target, &headers, body.as_bytes())
}

fn paths(body: &Value, key: &str) -> Vec<String> {
    body[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn no_token_is_asked_before_one_exists_and_every_route_needs_one_after() {
    let ws = workspace();
    let server = ws.serve();
    assert_eq!(send(&server, "GET", "/api/v1/notes", None, "").status, 200);
    assert_eq!(send(&server, "GET", "/", None, "").status, 200);
    // Created while serving: the next request needs it.
    let secret = create_token(&ws, &["--name", "laptop"]);
    for target in [
        "/api/v1/notes",
        "/api/v1/notes/work/plan.md",
        "/api/v1/search?q=words",
        "/api/v1/files",
        "/api/v1/openapi.json",
        "/api/public/list",
        "/mcp",
    ] {
        let refused = send(&server, "GET", target, None, "");
        assert_eq!(refused.status, 401, "{target}: {}", refused.head);
        assert!(
            refused
                .head
                .to_ascii_lowercase()
                .contains("www-authenticate: bearer"),
            "{}",
            refused.head
        );
        let body = refused.json();
        assert_eq!(body["code"], 401);
        assert_eq!(body["error"], "Unauthorized");
        let wrong = send(&server, "GET", target, Some("notes_0123"), "");
        assert_eq!(wrong.status, 401, "{target}");
        assert!(wrong.head.contains("invalid_token"), "{}", wrong.head);
    }
    assert_eq!(
        send(&server, "GET", "/api/v1/notes", Some(&secret), "").status,
        200
    );
    let read = send(
        &server,
        "GET",
        "/api/v1/notes/work/plan.md",
        Some(&secret),
        "",
    );
    assert_eq!(read.status, 200);
    assert!(read.body.contains("work words"));
    // Writes with a wrong token change nothing.
    let before = ws.snapshot();
    let put = send(
        &server,
        "PUT",
        "/api/v1/notes/x.md",
        Some("bad"),
        "{\"body\":\"x\"}",
    );
    assert_eq!(put.status, 401);
    assert_eq!(ws.snapshot(), before);
    // Public pages stay open.
    assert_eq!(send(&server, "GET", "/public/", None, "").status, 200);
}

#[test]
fn revoking_while_serving_counts_from_the_next_request() {
    let ws = workspace();
    let keep = create_token(&ws, &["--name", "keep"]);
    let gone = create_token(&ws, &["--name", "gone"]);
    let server = ws.serve();
    assert_eq!(
        send(&server, "GET", "/api/v1/notes", Some(&gone), "").status,
        200
    );
    let out = ws.run(&["token", "revoke", "gone"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        send(&server, "GET", "/api/v1/notes", Some(&gone), "").status,
        401
    );
    assert_eq!(
        send(&server, "GET", "/api/v1/notes", Some(&keep), "").status,
        200
    );
    // The last one revoked: the server stays closed (`tokens_closed.rs`).
    assert!(ws.run(&["token", "revoke", "keep"]).status.success());
    assert_eq!(send(&server, "GET", "/api/v1/notes", None, "").status, 401);
    assert_eq!(
        send(&server, "GET", "/api/v1/notes", Some(&keep), "").status,
        401
    );
}

/// Every write route, as (method, target, body); each names a note or file outside the
/// folder `work` (or moves one out of it).
fn writes_outside() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        ("PUT", "/api/v1/notes/other/new.md", "{\"body\":\"x\"}"),
        ("DELETE", "/api/v1/notes/other/diary.md", ""),
        ("PUT", "/api/v1/files/other/new.txt", "data"),
        ("DELETE", "/api/v1/files/other/img.txt", ""),
        (
            "POST",
            "/api/v1/move",
            "{\"from\":\"other/diary.md\",\"to\":\"work/d.md\"}",
        ),
        (
            "POST",
            "/api/v1/move",
            "{\"from\":\"work/plan.md\",\"to\":\"other/p.md\"}",
        ),
        ("POST", "/api/public/toggle", "path=other/diary.md"),
        (
            "POST",
            "/api/v1/restore",
            "{\"path\":\"other/diary.md\",\"version\":\"HEAD\"}",
        ),
        ("POST", "/save", "mode=new&path=other/n.md&title=N&body=x"),
        ("POST", "/delete", "path=other/diary.md"),
        ("POST", "/publish", "path=other/diary.md&action=publish"),
        ("POST", "/move", "from=other/diary.md&to=work/d.md"),
        ("POST", "/restore", "path=other/diary.md&version=HEAD"),
    ]
}

/// The same routes inside `work`.
fn writes_inside() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        ("PUT", "/api/v1/notes/work/new.md", "{\"body\":\"x\"}"),
        ("PUT", "/api/v1/files/work/new.txt", "data"),
        ("POST", "/api/public/toggle", "path=work/plan.md"),
        (
            "POST",
            "/api/v1/move",
            "{\"from\":\"work/plan.md\",\"to\":\"work/moved.md\"}",
        ),
        ("DELETE", "/api/v1/files/work/img.txt", ""),
        ("DELETE", "/api/v1/notes/work/new.md", ""),
    ]
}

#[test]
fn a_read_only_token_reads_and_is_refused_on_every_write_route() {
    let ws = workspace();
    let ro = create_token(&ws, &["--read-only"]);
    let server = ws.serve();
    assert_eq!(
        send(
            &server,
            "GET",
            "/api/v1/notes/other/diary.md",
            Some(&ro),
            ""
        )
        .status,
        200
    );
    assert_eq!(
        send(&server, "GET", "/api/v1/search?q=secret", Some(&ro), "").status,
        200
    );
    let before = ws.snapshot();
    for (method, target, body) in writes_outside().into_iter().chain(writes_inside()) {
        let refused = send(&server, method, target, Some(&ro), body);
        assert_eq!(refused.status, 403, "{method} {target}: {}", refused.body);
        let json = refused.json();
        assert_eq!(json["error"], "Forbidden");
        assert!(
            json["message"].as_str().unwrap().contains("read-only"),
            "{json}"
        );
    }
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn a_folder_token_reaches_its_folder_only() {
    let ws = workspace();
    let work = create_token(&ws, &["--prefix", "work"]);
    let server = ws.serve();
    let before = ws.snapshot();
    for (method, target, body) in writes_outside() {
        let refused = send(&server, method, target, Some(&work), body);
        assert_eq!(refused.status, 403, "{method} {target}: {}", refused.body);
        assert_eq!(refused.json()["code"], 403);
    }
    assert_eq!(ws.snapshot(), before, "a refused write changed the disk");
    for target in [
        "/api/v1/notes/other/diary.md",
        "/api/v1/notes/work/..%2Fother/diary.md",
        "/api/v1/files/other/img.txt",
        "/api/v1/history/other/diary.md",
        "/api/v1/links/other/diary.md",
        "/api/v1/files?under=other",
        "/api/v1/trash",
        "/",
        "/note/work/plan.md",
    ] {
        let refused = send(&server, "GET", target, Some(&work), "");
        assert_eq!(refused.status, 403, "{target}: {}", refused.body);
    }
    for target in [
        "/api/v1/notes/work/plan.md",
        "/api/v1/files/work/img.txt",
        "/api/v1/links/work/plan.md",
    ] {
        assert_eq!(
            send(&server, "GET", target, Some(&work), "").status,
            200,
            "{target}"
        );
    }
    // Its history is reached (recorded in the background: 200 once there, 404 before).
    let history = send(
        &server,
        "GET",
        "/api/v1/history/work/plan.md",
        Some(&work),
        "",
    );
    assert!(matches!(history.status, 200 | 404), "{}", history.body);
    // Listings show the folder only.
    let list = send(&server, "GET", "/api/v1/notes", Some(&work), "").json();
    assert_eq!(paths(&list, "notes"), ["work/plan.md"]);
    assert_eq!(list["total"], 1);
    let files = send(&server, "GET", "/api/v1/files", Some(&work), "").json();
    assert_eq!(paths(&files, "files"), ["work/img.txt"]);
    assert!(crate::support::eventually(
        std::time::Duration::from_secs(10),
        || {
            let found = send(&server, "GET", "/api/v1/search?q=words", Some(&work), "").json();
            paths(&found, "results") == ["work/plan.md"] && found["total"] == 1
        }
    ));
    // Writes inside its folder go through.
    for (method, target, body) in writes_inside() {
        let done = send(&server, method, target, Some(&work), body);
        assert!(
            (200..300).contains(&done.status),
            "{method} {target}: {} {}",
            done.status,
            done.body
        );
    }
}

#[test]
fn an_unreadable_tokens_file_refuses_every_request() {
    let ws = workspace();
    let secret = create_token(&ws, &[]);
    let server = ws.serve();
    std::fs::write(ws.notes().join(".notes/tokens.json"), "{broken").unwrap();
    // A hand edit counts within one tick of the server's coarse clock (≤ 10 ms).
    std::thread::sleep(std::time::Duration::from_millis(25));
    let refused = send(&server, "GET", "/api/v1/notes", Some(&secret), "");
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert!(refused.body.contains("tokens.json"));
    assert_eq!(send(&server, "GET", "/public/", None, "").status, 200);
}

#[test]
fn serve_off_loopback_needs_a_token_or_no_auth() {
    let ws = workspace();
    let out = ws.run(&["serve", "--listen", "0.0.0.0:0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = crate::support::stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("refusing to listen on 0.0.0.0:0"), "{err}");
    assert!(
        err.contains("notes token create") && err.contains("--no-auth"),
        "{err}"
    );
    assert!(err.starts_with("error: "), "{err}");
    // Refused before anything is made: a folder that did not exist still does not.
    let missing = ws.root.path().join("never-made");
    let out = ws
        .cli()
        .env("NOTES_DIR", &missing)
        .args(["serve", "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!missing.exists());
    // With --no-auth, or with a token, it starts.
    assert!(starts_off_loopback(&ws, &["--no-auth"]));
    let _secret = create_token(&ws, &[]);
    assert!(starts_off_loopback(&ws, &[]));
}

/// Whether `serve --listen 0.0.0.0:0 extra…` announces that it serves; it is stopped
/// at once (nothing connects to it).
fn starts_off_loopback(ws: &Workspace, extra: &[&str]) -> bool {
    use std::io::BufRead;
    let mut child = ws
        .cli()
        .args(["serve", "--listen", "0.0.0.0:0"])
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let _ = std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
    let _ = child.kill();
    let _ = child.wait();
    line.contains("serving")
}

#[test]
fn a_folder_token_sees_no_backlink_or_link_target_outside_its_folder() {
    let ws = workspace();
    ws.write(
        "work/links.md",
        &note(
            "Links",
            &[],
            "see [diary](../other/diary.md) and [plan](plan.md)\n",
        ),
    );
    ws.write(
        "other/spy.md",
        &note("Spy", &[], "secret line about [links](../work/links.md)\n"),
    );
    ws.write(
        "work/near.md",
        &note("Near", &[], "near line about [links](links.md)\n"),
    );
    let full = create_token(&ws, &["--name", "full"]);
    let work = create_token(&ws, &["--name", "work", "--prefix", "work"]);
    let server = ws.serve();
    let target = "/api/v1/links/work/links.md";
    let links = |secret: &str| -> Value {
        // The index may still be catching up with the notes written before the start.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let r = send(&server, "GET", target, Some(secret), "");
            assert_eq!(r.status, 200, "{}", r.body);
            let body: Value = serde_json::from_str(&r.body).unwrap();
            if body["incoming"].as_array().unwrap().len() >= 2
                || std::time::Instant::now() > deadline
                || secret != full
            {
                return body;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    let all = links(&full);
    assert_eq!(
        paths(&all, "incoming"),
        ["other/spy.md", "work/near.md"],
        "{all}"
    );
    assert_eq!(all["outgoing"][0]["path"], "other/diary.md");

    let scoped = links(&work);
    assert_eq!(paths(&scoped, "incoming"), ["work/near.md"], "{scoped}");
    assert!(!scoped.to_string().contains("secret line"), "{scoped}");
    // A target outside the folder is shown as written, never where it leads.
    assert_eq!(
        scoped["outgoing"][0]["target"],
        all["outgoing"][0]["target"]
    );
    assert!(scoped["outgoing"][0]["path"].is_null(), "{scoped}");
    assert_eq!(scoped["outgoing"][1]["path"], "work/plan.md");
}
