//! What the web pages offer follows the session's rights: a read-only session sees no
//! control that changes a note (no New note, Edit, Move, Publish, Delete, Restore,
//! Undo), its editor pages are 403 pages, and a write form it posts anyway is refused
//! with the interface's HTML page, not JSON; a visitor not logged in sees only the
//! login and the public pages; a session sees "Log out", which ends it (a cross-site
//! post of it is refused). The login page is framed like every page, and the footer's
//! API link leads to a readable page of the API.

use crate::support::{RawResponse, Server, Workspace, create_token, note};

/// The session cookie (`name=value`) of a login with `token`.
fn log_in(server: &Server, token: &str) -> String {
    let body = serde_urlencoded::to_string([("token", token), ("next", "/")]).unwrap();
    let response = server.raw(
        "POST",
        "/login",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        body.as_bytes(),
    );
    assert_eq!(response.status, 303, "{}", response.body);
    let cookie = response.header("set-cookie").expect("a cookie");
    cookie.split(';').next().unwrap().to_string()
}

fn get(server: &Server, path: &str, cookie: &str) -> RawResponse {
    let page = server.raw("GET", path, &[("Cookie", cookie)], b"");
    assert!(
        page.header("content-type")
            .is_some_and(|t| t.starts_with("text/html")),
        "{path}: {}\n{}",
        page.head,
        page.body
    );
    page
}

fn post_form(server: &Server, path: &str, cookie: &str, form: &[(&str, &str)]) -> RawResponse {
    let body = serde_urlencoded::to_string(form).unwrap();
    server.raw(
        "POST",
        path,
        &[
            ("Cookie", cookie),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        body.as_bytes(),
    )
}

/// The marks of the controls that change notes, as they appear in the pages' HTML.
const WRITE_CONTROLS: [&str; 8] = [
    "href=\"/new\"",
    "href=\"/new?",
    "href=\"/edit/",
    "href=\"/move/",
    "action=\"/publish\"",
    "action=\"/delete\"",
    "action=\"/restore\"",
    "action=\"/save\"",
];

fn assert_no_write_controls(page: &RawResponse, what: &str) {
    for mark in WRITE_CONTROLS {
        assert!(
            !page.body.contains(mark),
            "{what} offers {mark}:\n{}",
            page.body
        );
    }
}

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write(
        "work/plan.md",
        &note("Plan", &["work"], "The plan for the week.\n"),
    );
    ws.write("gone.md", &note("Gone soon", &[], "To the trash.\n"));
    ws
}

#[test]
fn a_read_only_session_sees_no_write_controls_and_its_posts_get_an_html_page() {
    let ws = workspace();
    let full = create_token(&ws, &["--name", "full"]);
    let ro = create_token(&ws, &["--name", "reader", "--read-only"]);
    let server = ws.serve();
    // A deleted note, for the trash and the history's restore buttons; written through
    // the service first, so the history holds its text.
    let bearer = format!("Bearer {full}");
    let written = server.raw(
        "PUT",
        "/api/v1/notes/gone.md",
        &[
            ("Authorization", &bearer),
            ("Content-Type", "text/markdown"),
        ],
        note("Gone soon", &[], "To the trash.\n").as_bytes(),
    );
    assert_eq!(written.status, 200, "{}", written.body);
    let deleted = server.raw(
        "DELETE",
        "/api/v1/notes/gone.md",
        &[("Authorization", &format!("Bearer {full}"))],
        b"",
    );
    assert_eq!(deleted.status, 200, "{}", deleted.body);

    let reader = log_in(&server, &ro);
    for path in [
        "/",
        "/note/work/plan.md",
        "/trash",
        "/history/gone.md",
        "/history/work/plan.md",
        "/search?q=plan",
    ] {
        let page = get(&server, path, &reader);
        assert_eq!(page.status, 200, "{path}: {}", page.body);
        assert_no_write_controls(&page, path);
        assert!(
            page.body.contains("action=\"/logout\""),
            "{path}: no Log out"
        );
    }
    let note = get(&server, "/note/work/plan.md", &reader);
    for kept in [
        "href=\"/raw/work/plan.md\"",
        "href=\"/history/work/plan.md\"",
    ] {
        assert!(note.body.contains(kept), "reading links go too: {kept}");
    }
    // The editor pages say why they are closed, as pages.
    for path in ["/new", "/edit/work/plan.md", "/move/work/plan.md"] {
        let page = get(&server, path, &reader);
        assert_eq!(page.status, 403, "{path}");
        assert!(
            page.body.contains("read-only token"),
            "{path}: {}",
            page.body
        );
        assert!(!page.body.contains("<textarea"), "{path}");
    }
    // A save posted anyway (an old tab): the door refuses it, with a page.
    let save = post_form(
        &server,
        "/save",
        &reader,
        &[
            ("mode", "edit"),
            ("path", "work/plan.md"),
            ("body", "changed"),
        ],
    );
    assert_eq!(save.status, 403, "{}", save.body);
    assert!(
        save.header("content-type")
            .is_some_and(|t| t.starts_with("text/html")),
        "{}",
        save.head
    );
    assert!(save.body.contains("<h1>Forbidden</h1>"), "{}", save.body);
    assert!(save.body.contains("read-only"), "{}", save.body);
    assert!(save.body.contains("action=\"/logout\""));
    assert_no_write_controls(&save, "the refusal page");
    assert!(ws.read("work/plan.md").contains("The plan for the week."));
    // The API keeps its JSON refusal.
    let api = server.raw(
        "DELETE",
        "/api/v1/notes/work/plan.md",
        &[("Cookie", &reader)],
        b"",
    );
    assert_eq!(api.status, 403);
    assert_eq!(api.json()["code"], 403);

    // A full session is offered everything, and Log out.
    let writer = log_in(&server, &full);
    let home = get(&server, "/", &writer);
    assert!(home.body.contains("href=\"/new\""));
    assert!(home.body.contains("action=\"/logout\""));
    let note = get(&server, "/note/work/plan.md", &writer);
    for mark in [
        "href=\"/edit/work/plan.md\"",
        "href=\"/move/work/plan.md\"",
        "action=\"/publish\"",
        "action=\"/delete\"",
    ] {
        assert!(note.body.contains(mark), "a full session misses {mark}");
    }
    assert!(
        get(&server, "/trash", &writer)
            .body
            .contains("action=\"/restore\"")
    );
    assert_eq!(get(&server, "/edit/work/plan.md", &writer).status, 200);
}

#[test]
fn a_visitor_sees_only_the_login_and_log_out_ends_the_session() {
    let ws = workspace();
    let full = create_token(&ws, &["--name", "full"]);
    let server = ws.serve();
    let login = get(&server, "/login", "");
    assert_eq!(login.status, 200);
    assert_no_write_controls(&login, "the login page");
    for hidden in [
        "href=\"/trash\"",
        "action=\"/logout\"",
        "action=\"/search\"",
        "href=\"/docs/api\"",
    ] {
        assert!(
            !login.body.contains(hidden),
            "a visitor is offered {hidden}"
        );
    }
    assert!(login.body.contains("href=\"/public/\""));
    // Framed like every page, with a form of labelled fields.
    assert!(login.body.contains("href=\"/assets/app.css\""));
    assert!(login.body.contains("<header class=\"bar\">"));
    assert!(login.body.contains("<section class=\"login\">"));
    assert!(login.body.contains("<label class=\"field\" for=\"token\">"));

    let session = log_in(&server, &full);
    let home = get(&server, "/", &session);
    assert!(
        home.body
            .contains("<form class=\"logout\" method=\"post\" action=\"/logout\">")
    );
    // Logging out from another site is refused; from the page, it ends the session.
    let cross = server.raw(
        "POST",
        "/logout",
        &[("Cookie", &session), ("Origin", "http://evil.example")],
        b"",
    );
    assert_eq!(cross.status, 403);
    assert_eq!(get(&server, "/", &session).status, 200);
    let out = server.raw(
        "POST",
        "/logout",
        &[("Cookie", &session), ("Sec-Fetch-Site", "same-origin")],
        b"",
    );
    assert_eq!(out.status, 303);
    assert_eq!(out.header("location"), Some("/login"));
    assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
    assert_eq!(
        server.raw("GET", "/", &[("Cookie", &session)], b"").status,
        303
    );
}

#[test]
fn without_tokens_everything_is_offered_and_no_log_out() {
    let ws = workspace();
    let server = ws.serve();
    let home = get(&server, "/", "");
    assert!(home.body.contains("href=\"/new\""));
    assert!(home.body.contains("href=\"/trash\""));
    assert!(!home.body.contains("action=\"/logout\""));
    assert_eq!(get(&server, "/edit/work/plan.md", "").status, 200);
}

#[test]
fn the_footer_leads_to_a_readable_page_of_the_api() {
    let ws = workspace();
    let server = ws.serve();
    let home = get(&server, "/", "");
    assert!(
        home.body.contains("<a href=\"/docs/api\">API</a>"),
        "{}",
        home.body
    );
    assert!(!home.body.contains("href=\"/api/v1/openapi.json\""));
    let page = get(&server, "/docs/api", "");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<h1>HTTP API</h1>"));
    assert!(page.body.contains("href=\"/api/v1/openapi.json\""));
    assert!(page.body.contains("Authorization: Bearer &lt;token&gt;"));
    for route in [
        "/api/v1/notes/{path}",
        "/api/v1/search",
        "/api/public/toggle",
    ] {
        assert!(
            page.body.contains(&format!("<code>{route}</code>")),
            "{route}"
        );
    }
    assert!(page.body.contains("Create or replace a note"));
    let refused = server.raw("POST", "/docs/api", &[("Accept", "text/html")], b"");
    assert_eq!(refused.status, 405);
    assert_eq!(refused.header("allow"), Some("GET, HEAD"));
}
