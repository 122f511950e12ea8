//! The web interface's login once tokens exist: pages redirect to `/login`, the form
//! trades a token for an `HttpOnly; SameSite=Strict` session cookie (`Secure` behind
//! an https base URL), the cookie opens the pages, `/logout` ends the session, and a
//! revoked token's sessions end with it. The form posts pass the cross-site check.

use crate::support::{RawResponse, Server, Workspace, note, stdout};

fn workspace() -> (Workspace, String) {
    let ws = Workspace::new();
    ws.write("a.md", &note("Alpha", &[], "alpha words\n"));
    let out = ws.run(&["token", "create", "--name", "web"]);
    (ws, stdout(&out).trim().to_string())
}

fn log_in(server: &Server, token: &str) -> RawResponse {
    let body = serde_urlencoded::to_string([("token", token), ("next", "/note/a.md")]).unwrap();
    server.raw(
        "POST",
        "/login",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        body.as_bytes(),
    )
}

/// `notes_session=…` from a response's `Set-Cookie`.
fn session(response: &RawResponse) -> String {
    let cookie = response.header("set-cookie").expect("a cookie");
    cookie.split(';').next().unwrap().to_string()
}

#[test]
fn pages_lead_to_the_login_and_the_cookie_opens_them() {
    let (ws, token) = workspace();
    let server = ws.serve();
    let page = server.raw("GET", "/note/a.md", &[], b"");
    assert_eq!(page.status, 303);
    assert_eq!(page.header("location"), Some("/login?next=%2Fnote%2Fa.md"));
    let form = server.raw("GET", "/login?next=%2Fnote%2Fa.md", &[], b"");
    assert_eq!(form.status, 200);
    assert!(form.body.contains("name=\"token\"") && form.body.contains("value=\"/note/a.md\""));
    assert!(!form.body.contains("alpha words"));

    let wrong = log_in(&server, "notes_wrong");
    assert_eq!(wrong.status, 401);
    assert!(wrong.header("set-cookie").is_none());

    let ok = log_in(&server, &token);
    assert_eq!(ok.status, 303, "{}", ok.body);
    assert_eq!(ok.header("location"), Some("/note/a.md"));
    let cookie = ok.header("set-cookie").unwrap();
    for part in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(part), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain http: {cookie}");
    assert!(!cookie.contains(&token));
    let id = session(&ok);
    let opened = server.raw("GET", "/note/a.md", &[("Cookie", &id)], b"");
    assert_eq!(opened.status, 200);
    assert!(opened.body.contains("alpha words"));
    // The cookie works for the API the pages' script calls, too.
    assert_eq!(
        server
            .raw("GET", "/api/v1/notes", &[("Cookie", &id)], b"")
            .status,
        200
    );

    // Logging out ends the session.
    let out = server.raw("POST", "/logout", &[("Cookie", &id)], b"");
    assert_eq!(out.status, 303);
    assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
    assert_eq!(
        server
            .raw("GET", "/note/a.md", &[("Cookie", &id)], b"")
            .status,
        303
    );
}

#[test]
fn a_revoked_token_ends_its_sessions() {
    let (ws, token) = workspace();
    let other = stdout(&ws.run(&["token", "create", "--name", "other"]))
        .trim()
        .to_string();
    let server = ws.serve();
    let id = session(&log_in(&server, &token));
    let kept = session(&log_in(&server, &other));
    assert_eq!(server.raw("GET", "/", &[("Cookie", &id)], b"").status, 200);
    assert!(ws.run(&["token", "revoke", "web"]).status.success());
    assert_eq!(server.raw("GET", "/", &[("Cookie", &id)], b"").status, 303);
    assert_eq!(
        server.raw("GET", "/", &[("Cookie", &kept)], b"").status,
        200
    );
}

#[test]
fn cookies_are_secure_behind_https_and_logins_are_same_site_only() {
    let (ws, token) = workspace();
    let server = ws.serve_with(&["--base-url", "https://notes.example.org"]);
    let ok = log_in(&server, &token);
    assert!(ok.header("set-cookie").unwrap().contains("; Secure"));
    // A login form posted from another site is refused before the token is looked at.
    let body = serde_urlencoded::to_string([("token", token.as_str())]).unwrap();
    let cross = server.raw(
        "POST",
        "/login",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", "https://evil.example"),
        ],
        body.as_bytes(),
    );
    assert_eq!(cross.status, 403);
    assert!(cross.header("set-cookie").is_none());
    // A folder token cannot open the web interface.
    let folder = stdout(&ws.run(&["token", "create", "--prefix", "work"]))
        .trim()
        .to_string();
    let refused = log_in(&server, &folder);
    assert_eq!(refused.status, 403);
    assert!(refused.header("set-cookie").is_none());
}

#[test]
fn the_login_page_redirects_home_when_no_token_exists() {
    let ws = Workspace::new();
    ws.write("a.md", &note("Alpha", &[], "x\n"));
    let server = ws.serve();
    let page = server.raw("GET", "/login", &[], b"");
    assert_eq!(page.status, 303);
    assert_eq!(page.header("location"), Some("/"));
}

/// The login in a real browser: a page asked for leads to the login form (screenshot
/// `login.png`), the token typed there opens that page, and the cookie is out of the
/// page's scripts' reach (`HttpOnly`).
#[test]
fn logging_in_in_a_real_browser() {
    use fantoccini::Locator;
    let Some(programs) = crate::support::browser_programs() else {
        return;
    };
    let (ws, token) = workspace();
    let server = ws.serve();
    let base = server.base.clone();
    crate::support::in_browser(
        (&programs.0, &programs.1),
        ws.root.path(),
        "login",
        &[],
        async |client| {
            client.goto(&format!("{base}/note/a.md")).await?;
            let url = client.current_url().await?;
            assert_eq!(url.path(), "/login", "{url}");
            crate::support::screenshot(client, "login").await?;
            client
                .find(Locator::Css("#token"))
                .await?
                .send_keys(&token)
                .await?;
            client
                .find(Locator::Css("form[action='/login'] button"))
                .await?
                .click()
                .await?;
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
            loop {
                // The page may be replaced between the find and the read: try again.
                let text = match client.find(Locator::Css("body")).await {
                    Ok(body) => body.text().await.unwrap_or_default(),
                    Err(_) => String::new(),
                };
                if text.contains("alpha words") {
                    break;
                }
                if std::time::Instant::now() > deadline {
                    return Err(format!("the note did not open after the login: {text}").into());
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            assert_eq!(client.current_url().await?.path(), "/note/a.md");
            let cookies = client.execute("return document.cookie", vec![]).await?;
            assert!(
                !cookies
                    .as_str()
                    .unwrap_or_default()
                    .contains("notes_session"),
                "{cookies}"
            );
            Ok(())
        },
    );
}
