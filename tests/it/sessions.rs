//! Web sessions: the cookie is named after the server's port (two servers on one host
//! keep separate sessions), `__Host-` and `Secure` behind an https base URL; sessions
//! end when idle and at an absolute limit (shortened here by the test-only
//! `NOTES_TEST_SESSION_LIMITS`); the cap on sessions is per token, so many logins with
//! one token end only that token's oldest sessions.

use std::time::{Duration, Instant};

use crate::support::{Server, Workspace, note, stdout};

/// The most sessions one token keeps (`http::auth::sessions::PER_TOKEN`).
const PER_TOKEN: usize = 100;

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write("a.md", &note("Alpha", &[], "alpha words\n"));
    ws
}

fn create(ws: &Workspace, args: &[&str]) -> String {
    let mut all = vec!["token", "create"];
    all.extend_from_slice(args);
    let out = ws.run(&all);
    assert!(out.status.success(), "{out:?}");
    stdout(&out).trim().to_string()
}

fn port(server: &Server) -> &str {
    server.addr().rsplit_once(':').unwrap().1
}

/// Logs in with `token`; the `Set-Cookie` value.
fn log_in(server: &Server, token: &str) -> String {
    let body = serde_urlencoded::to_string([("token", token), ("next", "/")]).unwrap();
    let response = server.raw(
        "POST",
        "/login",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        body.as_bytes(),
    );
    assert_eq!(response.status, 303, "{}", response.body);
    response.header("set-cookie").expect("a cookie").to_string()
}

/// `name=value` of a `Set-Cookie` value, as a browser sends it back.
fn pair(set_cookie: &str) -> String {
    set_cookie.split(';').next().unwrap().to_string()
}

/// Whether the cookie header `cookie` opens a web page and the API.
fn opens(server: &Server, cookie: &str) -> bool {
    let page = server.raw("GET", "/note/a.md", &[("Cookie", cookie)], b"");
    let api = server.raw("GET", "/api/v1/notes", &[("Cookie", cookie)], b"");
    match (page.status, api.status) {
        (200, 200) => true,
        (303, 401) => false,
        other => panic!("page and API disagree: {other:?}"),
    }
}

#[test]
fn the_cookie_carries_the_port_and_two_servers_keep_their_sessions_apart() {
    let (one, two) = (workspace(), workspace());
    let (token_one, token_two) = (create(&one, &[]), create(&two, &[]));
    let (server_one, server_two) = (one.serve(), two.serve());
    let set_one = log_in(&server_one, &token_one);
    let set_two = log_in(&server_two, &token_two);
    for (set, server) in [(&set_one, &server_one), (&set_two, &server_two)] {
        let expected = format!("notes_session_{}=", port(server));
        assert!(set.starts_with(&expected), "{set}");
        for part in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=604800"] {
            assert!(set.contains(part), "{set}");
        }
        assert!(!set.contains("Secure") && !set.contains("Domain"), "{set}");
    }
    // A browser sends both cookies to both ports (cookies are not port-isolated):
    // each server finds its own, and one's session does not open the other.
    let both = format!("{}; {}", pair(&set_one), pair(&set_two));
    assert!(opens(&server_one, &both));
    assert!(opens(&server_two, &both));
    let moved = pair(&set_one).replacen(port(&server_one), port(&server_two), 1);
    assert!(!opens(&server_two, &moved));
    // Logging out clears the cookie of that name and ends the session.
    let out = server_one.raw("POST", "/logout", &[("Cookie", &both)], b"");
    let cleared = out.header("set-cookie").unwrap();
    assert!(
        cleared.starts_with(&format!("notes_session_{}=;", port(&server_one)))
            && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    assert!(!opens(&server_one, &both));
    assert!(opens(&server_two, &both));
}

#[test]
fn sessions_end_when_idle_and_at_their_absolute_limit() {
    let ws = workspace();
    let token = create(&ws, &[]);
    let mut cli = ws.cli();
    // 2 s idle, 5 s absolute.
    cli.env("NOTES_TEST_SESSION_LIMITS", "2000,5000");
    let server = ws.serve_through(cli, &[]);
    let set = log_in(&server, &token);
    let idle = pair(&set);
    let busy = pair(&log_in(&server, &token));
    let start = Instant::now();
    assert!(opens(&server, &idle) && opens(&server, &busy));
    // The busy session is used every 300 ms: past the idle limit it still works.
    while start.elapsed() < Duration::from_millis(3500) {
        assert!(opens(&server, &busy), "at {:?}", start.elapsed());
        std::thread::sleep(Duration::from_millis(300));
    }
    assert!(
        !opens(&server, &idle),
        "unused for 3.5 s, past the 2 s idle limit"
    );
    while start.elapsed() < Duration::from_millis(5300) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        !opens(&server, &busy),
        "past the 5 s absolute limit, however busy"
    );
    // A new login works as ever; its cookie lasts as long as the session can.
    assert!(opens(&server, &pair(&log_in(&server, &token))));
    assert!(
        set.contains("Max-Age=5;") || set.ends_with("Max-Age=5"),
        "{set}"
    );
}

#[test]
fn many_logins_with_one_token_end_only_that_tokens_oldest_sessions() {
    let ws = workspace();
    let a = create(&ws, &["--name", "a", "--read-only"]);
    let b = create(&ws, &["--name", "b"]);
    let server = ws.serve();
    // B's session is the oldest of all: a cap for everyone would end it first.
    let kept = pair(&log_in(&server, &b));
    let first = pair(&log_in(&server, &a));
    let second = pair(&log_in(&server, &a));
    for _ in 2..=PER_TOKEN {
        log_in(&server, &a);
    }
    assert!(
        opens(&server, &kept),
        "another token's session is left alone"
    );
    assert!(!opens(&server, &first), "A's oldest went at A's cap");
    assert!(opens(&server, &second));
}

#[test]
fn behind_https_the_cookie_is_host_prefixed_and_secure() {
    let ws = workspace();
    let token = create(&ws, &[]);
    let server = ws.serve_with(&["--base-url", "https://notes.example.org"]);
    let set = log_in(&server, &token);
    let name = format!("__Host-notes_session_{}=", port(&server));
    assert!(set.starts_with(&name), "{set}");
    assert!(
        set.contains("; Secure") && set.contains("; Path=/;"),
        "{set}"
    );
    assert!(!set.to_ascii_lowercase().contains("domain"), "{set}");
    assert!(opens(&server, &pair(&set)));
    // The same id under the plain name is not this server's cookie.
    let plain = pair(&set).replacen("__Host-", "", 1);
    assert!(!opens(&server, &plain));
}
