//! No fail-open: a folder that had a token stays closed when the last one is revoked
//! (anonymous API, MCP and web requests get 401 or the login page, saying how to make a
//! token or turn tokens off), across restarts, until `notes token off`; and a server
//! listening off loopback refuses every request while no token is in force, whenever
//! the file lost its tokens, saying why in its log once.

use std::time::{Duration, Instant};

use crate::support::{RawResponse, Server, Workspace, note, stdout};

/// The 401 of a closed folder with no token (`http::auth::CLOSED`).
const CLOSED: &str = "No token exists, and this server asks for one: create one with \
     `notes token create` and send it as Authorization: Bearer <token>, or turn tokens off \
     on purpose with `notes token off`";
/// The 401 off loopback with no token (`http::auth::EXPOSED`).
const EXPOSED: &str = "No token exists, and this server listens on an address other \
     machines reach: every request is refused until one is created with \
     `notes token create` (or the server is started with --no-auth behind a proxy that \
     authenticates)";
/// What `token revoke` of the last token and `token list` say then.
const NO_TOKEN_LEFT: &str = "No token left: `notes serve` now refuses every request that \
     needs one until `notes token create` makes one, or `notes token off` turns tokens off \
     on purpose.";
/// The switch that makes the server treat its loopback address as reachable from other
/// machines (`http::TEST_OFF_LOOPBACK`).
const OFF_LOOPBACK: &str = "NOTES_TEST_OFF_LOOPBACK";

const MCP_INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write("a.md", &note("Alpha", &[], "alpha words\n"));
    ws
}

fn create(ws: &Workspace, name: &str) -> String {
    let out = ws.run(&["token", "create", "--name", name]);
    assert!(out.status.success(), "{out:?}");
    stdout(&out).trim().to_string()
}

fn get(server: &Server, target: &str, token: Option<&str>) -> RawResponse {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = bearer
        .iter()
        .map(|b| ("Authorization", b.as_str()))
        .collect();
    server.raw("GET", target, &headers, b"")
}

fn put(server: &Server, path: &str) -> RawResponse {
    server.raw(
        "PUT",
        &format!("/api/v1/notes/{path}"),
        &[("Content-Type", "application/json")],
        br#"{"body":"written"}"#,
    )
}

fn mcp(server: &Server) -> RawResponse {
    server.raw(
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        MCP_INIT.as_bytes(),
    )
}

/// Every anonymous way in is refused with `message`, and nothing is written.
fn assert_refused(ws: &Workspace, server: &Server, message: &str) {
    for response in [
        get(server, "/api/v1/notes", None),
        get(server, "/api/v1/notes/a.md", None),
        put(server, "new.md"),
        mcp(server),
    ] {
        response.assert_error(401, message);
        assert!(
            response
                .header("www-authenticate")
                .is_some_and(|v| v.starts_with("Bearer")),
            "{}",
            response.head
        );
    }
    assert!(
        !ws.notes().join("new.md").exists(),
        "a refused PUT wrote its note"
    );
    // The web interface leads to the login page, which says the same.
    let page = get(server, "/note/a.md", None);
    assert_eq!(page.status, 303, "{}", page.head);
    assert_eq!(page.header("location"), Some("/login?next=%2Fnote%2Fa.md"));
    let login = get(server, "/login", None);
    assert_eq!(login.status, 200);
    assert!(
        login.body.contains("notes token create"),
        "the login page says how: {}",
        login.body
    );
    assert!(!login.body.contains("alpha words"));
}

#[test]
fn revoking_the_last_token_leaves_the_server_closed_until_tokens_are_turned_off() {
    let ws = workspace();
    let only = create(&ws, "only");
    let server = ws.serve();
    assert_eq!(get(&server, "/api/v1/notes", Some(&only)).status, 200);

    let out = ws.run(&["token", "revoke", "only"]);
    assert!(out.status.success(), "{out:?}");
    assert_refused(&ws, &server, CLOSED);
    assert_eq!(stdout(&out), format!("revoked only\n{NO_TOKEN_LEFT}\n"));
    // The revoked token is refused as any wrong one.
    assert_eq!(get(&server, "/api/v1/notes", Some(&only)).status, 401);
    // The log says so once, however many requests are refused.
    let said = "no token is left in .notes/tokens.json";
    assert_eq!(server.log().matches(said).count(), 1, "{}", server.log());

    let listed = ws.run(&["token", "list"]);
    assert_eq!(stdout(&listed), format!("{NO_TOKEN_LEFT}\n"));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&ws.run(&["token", "list", "--json"]))).unwrap();
    assert_eq!(json, serde_json::json!({"tokens": [], "closed": true}));

    // A restart keeps it closed, and says so in the log from the start.
    drop(server);
    let server = ws.serve();
    assert_refused(&ws, &server, CLOSED);
    assert!(server.log().contains(said), "{}", server.log());

    // A new token opens the way for its holder only.
    let next = create(&ws, "next");
    assert_eq!(get(&server, "/api/v1/notes", Some(&next)).status, 200);
    assert_eq!(get(&server, "/api/v1/notes", None).status, 401);

    // Turned off on purpose: every token revoked, anonymous requests served again.
    let off = ws.run(&["token", "off", "--json"]);
    assert!(off.status.success(), "{off:?}");
    let off: serde_json::Value = serde_json::from_str(&stdout(&off)).unwrap();
    assert_eq!(off["closed"], false);
    assert_eq!(off["revoked"][0]["name"], "next");
    assert_eq!(off["revoked"].as_array().unwrap().len(), 1);
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&ws.run(&["token", "list", "--json"]))).unwrap();
    assert_eq!(json, serde_json::json!({"tokens": [], "closed": false}));
    assert_eq!(get(&server, "/api/v1/notes", None).status, 200);
    assert_eq!(put(&server, "new.md").status, 201);
    assert_eq!(mcp(&server).status, 200);
    assert_eq!(get(&server, "/note/a.md", None).status, 200);
    let plain = ws.run(&["token", "off"]);
    assert_eq!(
        stdout(&plain),
        "Tokens are off: `notes serve` answers without a token on loopback; \
         `notes token create` turns them on again.\n"
    );
}

/// A tokens file written before the closed state existed (version 1) whose tokens were
/// all revoked is closed too: it was only ever written because a token was made.
#[test]
fn an_old_tokens_file_without_tokens_is_closed() {
    let ws = workspace();
    ws.write(".notes/tokens.json", "{\"version\":1,\"tokens\":[]}\n");
    let server = ws.serve();
    assert_refused(&ws, &server, CLOSED);
    // The next change writes the current version, keeping the state.
    let made = create(&ws, "new");
    let text = ws.read(".notes/tokens.json");
    assert!(
        text.contains("\"version\": 2") && text.contains("\"closed\": true"),
        "{text}"
    );
    assert_eq!(get(&server, "/api/v1/notes", Some(&made)).status, 200);
}

/// Off loopback, no token in force is a refusal at every request, not only a refusal
/// to start: the file emptied by `token off` or removed by hand while serving.
#[test]
fn off_loopback_every_request_needs_a_token_in_force() {
    let ws = workspace();
    let mut off_loopback = ws.cli();
    off_loopback.env(OFF_LOOPBACK, "1");
    // No token: the server does not start (waited for 30 s at most).
    let log = ws.root.path().join("refused.log");
    let mut child = off_loopback
        .args(["serve", "--listen", "127.0.0.1:0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        status.is_some_and(|s| !s.success()),
        "started with no token: {status:?}"
    );
    let err = std::fs::read_to_string(&log).unwrap();
    assert!(
        err.contains("refusing to listen") && err.contains("notes token create"),
        "{err}"
    );

    let secret = create(&ws, "remote");
    let mut cli = ws.cli();
    cli.env(OFF_LOOPBACK, "1");
    let server = ws.serve_through(cli, &[]);
    assert_eq!(get(&server, "/api/v1/notes", Some(&secret)).status, 200);

    // Tokens turned off while serving: off loopback that is not an open door.
    assert!(ws.run(&["token", "off"]).status.success());
    assert_refused(&ws, &server, EXPOSED);
    let said = "reachable from other machines, and no token exists";
    assert_eq!(server.log().matches(said).count(), 1, "{}", server.log());

    // A token again, then the file removed by hand: refused again, and said again.
    let again = create(&ws, "again");
    assert_eq!(get(&server, "/api/v1/notes", Some(&again)).status, 200);
    std::fs::remove_file(ws.notes().join(".notes/tokens.json")).unwrap();
    // A hand edit counts within a tick of the coarse clock (at most 10 ms).
    std::thread::sleep(Duration::from_millis(50));
    assert_refused(&ws, &server, EXPOSED);
    assert_eq!(get(&server, "/api/v1/notes", Some(&again)).status, 401);
    assert_eq!(server.log().matches(said).count(), 2, "{}", server.log());
    drop(server);

    // --no-auth says it is on purpose (a proxy authenticates): served.
    let mut cli = ws.cli();
    cli.env(OFF_LOOPBACK, "1");
    let server = ws.serve_through(cli, &["--no-auth"]);
    assert_eq!(get(&server, "/api/v1/notes", None).status, 200);
}
