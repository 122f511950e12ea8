//! The web interface over HTTP, without a browser: pages render and escape note data,
//! form posts redirect (303), cross-site posts and bad paths are refused without
//! writing anything, and the interface never shadows the API or the public pages.

use std::time::Duration;

use crate::support::{
    Server, Workspace, assert_cross_site_refused, body_of_type, eventually, json, no_redirects,
};

const HOSTILE: &str = "---\ntitle: \"<script>alert('t')</script> & co\"\ntags: [\"<img src=x onerror=alert(1)>\", plain]\n---\n# Body\n\nText <script>alert('b')</script> and a [link](javascript:alert(1)).\n";

/// Form fields or headers, as name-value pairs.
type Pairs<'a> = &'a [(&'a str, &'a str)];

/// The `Origin` a browser sends for a form on this server's own pages.
fn origin(server: &Server) -> String {
    server.base.trim_end_matches('/').to_string()
}

/// POSTs a form the way a browser on this site does.
pub(crate) fn post(
    server: &Server,
    path: &str,
    fields: &[(&str, &str)],
    headers: &[(&str, &str)],
) -> reqwest::blocking::Response {
    let mut request = no_redirects()
        .post(server.url(path))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(serde_urlencoded::to_string(fields).unwrap());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().unwrap()
}

pub(crate) fn same_site_post(
    server: &Server,
    path: &str,
    fields: &[(&str, &str)],
) -> reqwest::blocking::Response {
    let origin = origin(server);
    post(
        server,
        path,
        fields,
        &[("Origin", &origin), ("Sec-Fetch-Site", "same-origin")],
    )
}

/// Status and body of an HTML page, checking its content type.
pub(crate) fn page(response: reqwest::blocking::Response) -> (u16, String) {
    body_of_type(response, "text/html; charset=utf-8")
}

pub(crate) fn location(response: &reqwest::blocking::Response) -> String {
    response
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

fn assert_escaped(html: &str) {
    assert!(!html.contains("<script>alert"), "{html}");
    assert!(!html.contains("<img src=x"), "{html}");
    assert!(!html.contains("href=\"javascript:"), "{html}");
}

#[test]
fn pages_render_and_escape_note_data() {
    let ws = Workspace::new();
    ws.write("folder/hostile.md", HOSTILE);
    ws.write(
        "plain.md",
        "---\ntitle: Plain\ntags: [plain]\n---\nHello **world**\n",
    );
    let server = ws.serve();

    let (status, home) = page(server.get("/"));
    assert_eq!(status, 200);
    assert_escaped(&home);
    assert!(
        home.contains("&lt;script&gt;alert('t')&lt;/script&gt; &amp; co"),
        "{home}"
    );
    assert!(home.contains("href=\"/note/folder/hostile.md\""), "{home}");
    assert!(home.contains("href=\"/new\""), "{home}");
    assert!(home.contains("action=\"/search\""), "{home}");

    let (status, filtered) = page(server.get("/?tag=plain"));
    assert_eq!(status, 200);
    assert!(filtered.contains("Plain") && filtered.contains("hostile.md"));
    let (_, only) = page(server.get("/?tag=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"));
    assert!(
        only.contains("hostile.md") && !only.contains("plain.md"),
        "{only}"
    );
    assert_escaped(&only);

    let (status, note) = page(server.get("/note/folder/hostile.md"));
    assert_eq!(status, 200);
    assert_escaped(&note);
    assert!(
        note.contains("Text &lt;script&gt;alert('b')&lt;/script&gt;"),
        "{note}"
    );
    assert!(note.contains("href=\"/edit/folder/hostile.md\""), "{note}");
    assert!(note.contains("href=\"/raw/folder/hostile.md\""), "{note}");
    assert!(note.contains("action=\"/delete\""), "{note}");
    assert!(note.contains("action=\"/publish\""), "{note}");

    let (_, rendered) = page(server.get("/note/plain.md"));
    assert!(rendered.contains("<strong>world</strong>"), "{rendered}");

    let (status, editor) = page(server.get("/edit/folder/hostile.md"));
    assert_eq!(status, 200);
    assert_escaped(&editor);
    assert!(editor.contains("<textarea name=\"body\""), "{editor}");

    let raw = server.get("/raw/folder/hostile.md");
    assert_eq!(raw.status(), 200);
    assert_eq!(
        raw.headers()["content-type"].to_str().unwrap(),
        "text/plain; charset=utf-8"
    );
    assert_eq!(raw.text().unwrap(), HOSTILE);

    // Search shows the escaped snippet with the matches marked.
    assert!(
        eventually(Duration::from_secs(15), || {
            page(server.get("/search?q=alert")).1.contains("hostile.md")
        }),
        "search never found the note"
    );
    let (status, found) = page(server.get("/search?q=alert"));
    assert_eq!(status, 200);
    assert_escaped(&found);
    assert!(found.contains("<mark>"), "{found}");

    let (status, _) = page(server.get("/new"));
    assert_eq!(status, 200);
    let css = server.get("/assets/app.css");
    assert_eq!(css.status(), 200);
    assert!(css.text().unwrap().contains("prefers-color-scheme: dark"));
}

#[test]
fn pages_of_missing_notes_and_bad_paths_are_html_errors() {
    let ws = Workspace::new();
    let server = ws.serve();
    let (status, body) = page(server.get("/note/missing.md"));
    assert_eq!(status, 404);
    assert!(body.contains("There is no note at this path"), "{body}");
    // Sent as is: a client would resolve the encoded dots itself.
    let raw = server.raw("GET", "/note/%2e%2e/etc/passwd.md", &[], b"");
    assert_eq!(raw.status, 400, "{}", raw.body);
    assert!(raw.body.contains("not allowed"), "{}", raw.body);
    let (status, body) = page(server.get("/edit/notes.txt"));
    assert_eq!(status, 400);
    assert!(body.contains(".md"), "{body}");
    let response = server.request("GET", "/save").send().unwrap();
    assert_eq!(response.headers()["allow"].to_str().unwrap(), "POST");
    assert_eq!(page(response).0, 405);
}

#[test]
fn form_posts_redirect_after_post() {
    let ws = Workspace::new();
    let server = ws.serve();

    // Create in a sub-folder, the file name made from the title.
    let response = same_site_post(
        &server,
        "/save",
        &[
            ("mode", "new"),
            ("path", "ideas/"),
            ("title", "Été à Paris"),
            ("tags", "travel, #summer, travel"),
            ("body", "Line one\r\n\r\n- a\r\n- b\r\n"),
        ],
    );
    assert_eq!(response.status(), 303);
    assert_eq!(
        location(&response),
        "/note/ideas/%C3%A9t%C3%A9-%C3%A0-paris.md?done=created"
    );
    let text = ws.read("ideas/été-à-paris.md");
    assert!(text.contains("title: Été à Paris"), "{text}");
    assert!(text.contains("- travel\n- summer\n"), "{text}");
    assert!(text.ends_with("Line one\n\n- a\n- b\n"), "{text}");
    let (_, shown) = page(server.get(&location(&response)));
    assert!(shown.contains("Note created."), "{shown}");

    // Edit with the entity tag the editor carries: the creation date and unknown keys stay.
    ws.write(
        "n.md",
        "---\ntitle: Old\ndate: 01-02-2020\nauthor: Ann\n---\nold\n",
    );
    let (_, etag) = {
        let response = server.get("/api/v1/notes/n.md");
        let etag = response.headers()["etag"].to_str().unwrap().to_string();
        (json(response), etag)
    };
    let response = same_site_post(
        &server,
        "/save",
        &[
            ("mode", "edit"),
            ("path", "n.md"),
            ("title", "New"),
            ("tags", ""),
            ("body", "new body"),
            ("date", "01-02-2020"),
            ("etag", &etag),
        ],
    );
    assert_eq!(response.status(), 303);
    assert_eq!(location(&response), "/note/n.md?done=saved");
    let text = ws.read("n.md");
    assert!(text.contains("title: New\ndate: 01-02-2020\n"), "{text}");
    assert!(text.contains("author: Ann"), "{text}");

    // The same stale editor cannot overwrite the newer text.
    let before = ws.snapshot();
    let response = same_site_post(
        &server,
        "/save",
        &[
            ("mode", "edit"),
            ("path", "n.md"),
            ("title", "Stale"),
            ("body", "stale"),
            ("etag", &etag),
        ],
    );
    // It is kept, and shown on a page of its own (`web_conflicts.rs`).
    assert_eq!(response.status(), 303);
    assert!(
        location(&response).starts_with("/edit/n.md?conflict="),
        "{}",
        location(&response)
    );
    let (status, body) = page(server.get(&location(&response)));
    assert_eq!(status, 200);
    assert!(
        body.contains("changed elsewhere") && body.contains("stale"),
        "{body}"
    );
    assert_eq!(ws.snapshot(), before);

    // A new note never replaces an existing one.
    let (status, body) = page(same_site_post(
        &server,
        "/save",
        &[("mode", "new"), ("path", "n.md"), ("title", "Again")],
    ));
    assert_eq!(status, 409);
    assert!(body.contains("already exists"), "{body}");
    assert_eq!(ws.snapshot(), before);

    // Publish, republish, unpublish.
    let response = same_site_post(
        &server,
        "/publish",
        &[("path", "n.md"), ("action", "publish")],
    );
    assert_eq!(response.status(), 303);
    assert_eq!(location(&response), "/note/n.md?done=published");
    assert_eq!(server.get("/public/n.html").status(), 200);
    let (_, shown) = page(server.get("/note/n.md"));
    assert!(shown.contains("href=\"/public/n.html\""), "{shown}");
    assert!(page(server.get("/")).1.contains("Public"));
    let response = same_site_post(
        &server,
        "/publish",
        &[("path", "n.md"), ("action", "republish")],
    );
    assert_eq!(location(&response), "/note/n.md?done=republished");
    let response = same_site_post(
        &server,
        "/publish",
        &[("path", "n.md"), ("action", "unpublish")],
    );
    assert_eq!(location(&response), "/note/n.md?done=unpublished");
    assert!(!ws.public().join("n.html").exists());

    // Delete.
    let response = same_site_post(&server, "/delete", &[("path", "n.md")]);
    assert_eq!(response.status(), 303);
    // The list confirms it, with an Undo (tests/it/web_history.rs).
    assert!(
        location(&response).starts_with("/?done=deleted&undo=n.md&version="),
        "{}",
        location(&response)
    );
    assert!(!ws.notes().join("n.md").exists());
    let (_, home) = page(server.get("/?done=deleted"));
    assert!(home.contains("Note deleted."), "{home}");
}

#[test]
fn cross_site_posts_are_refused_and_write_nothing() {
    let ws = Workspace::new();
    ws.write("keep.md", "---\ntitle: Keep\n---\nkeep\n");
    let server = ws.serve();
    let before = ws.snapshot();
    let cases: [(&str, Pairs, Pairs); 5] = [
        (
            "/save",
            &[("mode", "new"), ("path", "evil.md"), ("title", "x")],
            &[("Origin", "http://evil.example")],
        ),
        (
            "/delete",
            &[("path", "keep.md")],
            &[("Sec-Fetch-Site", "cross-site")],
        ),
        (
            "/publish",
            &[("path", "keep.md"), ("action", "publish")],
            &[("Origin", "null")],
        ),
        (
            "/save",
            &[("mode", "edit"), ("path", "keep.md"), ("title", "x")],
            &[
                ("Origin", "http://127.0.0.1:1"),
                ("Sec-Fetch-Site", "same-site"),
            ],
        ),
        (
            "/delete",
            &[("path", "keep.md")],
            &[("Origin", "https://attacker.test")],
        ),
    ];
    for (path, fields, headers) in cases {
        let (status, body) = json(post(&server, path, fields, headers));
        assert_cross_site_refused(status, &body, &format!("{path} {headers:?}"));
    }
    assert_eq!(ws.snapshot(), before);
    assert!(!ws.public().exists());
}

#[test]
fn invalid_paths_in_forms_show_an_error_and_write_nothing() {
    let ws = Workspace::new();
    ws.write("keep.md", "---\ntitle: Keep\n---\nkeep\n");
    let server = ws.serve();
    let before = ws.snapshot();
    for (path, message) in [
        ("../escape.md", "not allowed"),
        ("/abs.md", "not allowed"),
        ("a/../../x.md", "not allowed"),
        ("notes.txt", "must end in “.md”"),
        (".notes/x.md", "not allowed"),
    ] {
        let (status, body) = page(same_site_post(
            &server,
            "/save",
            &[
                ("mode", "new"),
                ("path", path),
                ("title", "T"),
                ("body", "my precious text"),
            ],
        ));
        assert_eq!(status, 400, "{path}");
        assert!(body.contains(message), "{path}: {body}");
        // The editor comes back with the text typed, so nothing is lost.
        assert!(body.contains("my precious text"), "{body}");
    }
    for (form, fields) in [
        ("/delete", &[("path", "../keep.md")][..]),
        ("/delete", &[("path", "")]),
        ("/publish", &[("path", "keep.txt"), ("action", "publish")]),
    ] {
        let (status, _) = page(same_site_post(&server, form, fields));
        assert_eq!(status, 400, "{form} {fields:?}");
    }
    let (status, _) = page(same_site_post(&server, "/delete", &[("path", "gone.md")]));
    assert_eq!(status, 404);
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn the_interface_never_shadows_the_api_or_the_public_pages() {
    let ws = Workspace::new();
    ws.write("a.md", "---\ntitle: A\n---\nA\n");
    let server = ws.serve();
    let (status, list) = json(server.get("/api/v1/notes"));
    assert_eq!((status, list["total"].as_u64()), (200, Some(1)));
    let (status, _) = json(server.get("/api/v1/notes/a.md"));
    assert_eq!(status, 200);
    let (status, public) = json(server.get("/api/public/list"));
    assert_eq!(
        (status, public["notes"].as_array().map(Vec::len)),
        (200, Some(0))
    );
    let (status, _) = server.toggle("a.md");
    assert_eq!(status, 200);
    let index = server.get("/public/");
    assert_eq!(index.status(), 200);
    assert!(index.text().unwrap().contains("Public notes"));
    assert_eq!(server.get("/public/a.html").status(), 200);
    // Paths outside the interface keep the API's JSON 404; methods the API refuses
    // keep its JSON 405.
    for path in [
        "/nope",
        "/api",
        "/api/v1/notesx",
        "/notesx",
        "/notes/a.md",
        "/assetsx/app.css",
    ] {
        let (status, body) = json(server.get(path));
        assert_eq!(
            (status, body["message"].as_str()),
            (404, Some("Not found")),
            "{path}"
        );
    }
    let (status, _) = json(server.request("POST", "/api/v1/notes").send().unwrap());
    assert_eq!(status, 405);
    // `/note` names no note: it leads to the list.
    let response = no_redirects().get(server.url("/note/")).send().unwrap();
    assert_eq!(response.status(), 303);
    assert_eq!(location(&response), "/");
}

#[test]
fn the_list_comes_a_hundred_notes_a_page() {
    let ws = Workspace::new();
    // Minutes run 00 to 59 within one day, a day per hour: note i is i minutes newer.
    for i in 0..250 {
        let stamp = format!(
            "{:02}-01-2025:{:02}:{:02}",
            1 + i / 60 / 24,
            i / 60 % 24,
            i % 60
        );
        let tag = if i % 2 == 0 { "even" } else { "odd" };
        ws.write(
            &format!("n{i:03}.md"),
            &format!("---\ntitle: Note {i}\nlast_modified: {stamp}\ntags: [{tag}]\n---\n"),
        );
    }
    let server = ws.serve();
    let titles = |html: &str| -> Vec<usize> {
        html.split(">Note ")
            .skip(1)
            .map(|rest| rest.split('<').next().unwrap().parse().unwrap())
            .collect()
    };
    let (_, first) = page(server.get("/"));
    assert!(first.contains("250 notes"), "{first}");
    assert_eq!(titles(&first), (150..250).rev().collect::<Vec<_>>());
    assert!(first.contains("Page 1 of 3"));
    assert!(first.contains(r#"href="/?page=2""#));
    assert!(!first.contains(r#"rel="prev""#));
    let (_, last) = page(server.get("/?page=3"));
    assert_eq!(titles(&last), (0..50).rev().collect::<Vec<_>>());
    assert!(last.contains(r#"href="/?page=2""#) && !last.contains(r#"rel="next""#));
    // Past the end, or not a number: the nearest page.
    assert_eq!(titles(&page(server.get("/?page=99")).1), titles(&last));
    assert_eq!(titles(&page(server.get("/?page=x")).1), titles(&first));
    // The tag filter pages too, and its links keep it.
    let (_, odd) = page(server.get("/?tag=odd&page=2"));
    assert!(odd.contains("125 notes"), "{odd}");
    assert_eq!(
        titles(&odd),
        (0..50).rev().filter(|i| i % 2 == 1).collect::<Vec<_>>()
    );
    assert!(odd.contains(r#"href="/?tag=odd&amp;page=1""#), "{odd}");
}

/// What a browser sends for a page.
const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

fn browser_get(server: &Server, path: &str) -> reqwest::blocking::Response {
    no_redirects()
        .get(server.url(path))
        .header("Accept", BROWSER_ACCEPT)
        .send()
        .unwrap()
}

/// Outside the API, a browser asking for what is not there gets the interface's 404
/// page; the API, and clients that do not take HTML, keep the JSON ErrorResponse.
#[test]
fn unknown_addresses_are_a_page_for_a_browser_and_json_otherwise() {
    let ws = Workspace::new();
    ws.write("a.md", "---\ntitle: A\n---\nA\n");
    let server = ws.serve();
    assert_eq!(server.toggle("a.md").0, 200);
    for path in [
        "/nope",
        "/notes/a.md",
        "/assetsx/app.css",
        "/public/missing.html",
        "/public/static/",
        "/public/.hidden",
    ] {
        let (status, html) = page(browser_get(&server, path));
        assert_eq!(status, 404, "{path}");
        assert!(html.contains("<h1>Not Found</h1>"), "{path}: {html}");
        assert!(html.contains("There is no page at this address."), "{path}");
        // The page's body is not styled as an error message (the tinted strip).
        assert!(html.contains("class=\"app failed\""), "{path}: {html}");
        assert!(!html.contains("class=\"app error\""), "{path}");
        // No JSON, only the one page.
        assert!(!html.contains("\"message\""), "{path}");
        let response = no_redirects()
            .get(server.url(path))
            .header("Accept", "application/json")
            .send()
            .unwrap();
        let (status, body) = json(response);
        assert_eq!((status, body["message"].as_str()), (404, Some("Not found")));
        let (status, body) = json(server.get(path));
        assert_eq!((status, body["message"].as_str()), (404, Some("Not found")));
    }
    // The API keeps its answers for a browser too.
    for path in ["/api", "/api/nope", "/api/v1/notesx"] {
        let (status, body) = json(browser_get(&server, path));
        assert_eq!(
            (status, body["message"].as_str()),
            (404, Some("Not found")),
            "{path}"
        );
    }
    let (status, body) = json(browser_get(&server, "/api/v1/notes/missing.md"));
    assert_eq!(
        (status, body["message"].as_str()),
        (404, Some("Note not found"))
    );
    // What exists is served as before.
    assert_eq!(browser_get(&server, "/public/a.html").status(), 200);
}

/// Before anything is published, `/public/` shows a browser an index that says so (with
/// its stylesheet); an API client gets the spec's 404.
#[test]
fn an_empty_public_index_says_nothing_is_published_yet() {
    let ws = Workspace::new();
    ws.write("a.md", "---\ntitle: A\n---\nA\n");
    let server = ws.serve();
    for path in ["/public/", "/public/index.html"] {
        let response = browser_get(&server, path);
        let policy = response.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(policy.contains("default-src 'none'"), "{policy}");
        let (status, html) = page(response);
        assert_eq!(status, 200, "{path}");
        assert!(html.contains("<h1>Public notes</h1>"), "{html}");
        assert!(html.contains("Nothing is published yet."), "{html}");
        assert!(html.contains("static/style.css"), "{html}");
    }
    let style = server.get("/public/static/style.css");
    assert_eq!(style.status(), 200);
    assert_eq!(style.headers()["content-type"], "text/css; charset=utf-8");
    assert!(!style.text().unwrap().is_empty());
    let (status, body) = json(server.get("/public/"));
    assert_eq!((status, body["message"].as_str()), (404, Some("Not found")));
    // Nothing was written to show it.
    assert!(!ws.public().exists());
    // Once a note is published, the real index is served.
    assert_eq!(server.toggle("a.md").0, 200);
    let (status, html) = page(browser_get(&server, "/public/"));
    assert_eq!(status, 200);
    assert!(html.contains("a.html"), "{html}");
    assert!(!html.contains("Nothing is published yet."), "{html}");
}

/// The search page has one search box: its own, not the top bar's as well.
#[test]
fn the_search_page_has_one_search_box() {
    let ws = Workspace::new();
    ws.write("a.md", "---\ntitle: A\n---\nA\n");
    let server = ws.serve();
    for path in ["/search", "/search?q=A"] {
        let (status, html) = page(server.get(path));
        assert_eq!(status, 200);
        assert_eq!(html.matches("name=\"q\"").count(), 1, "{path}: {html}");
        assert_eq!(html.matches("role=\"search\"").count(), 1, "{path}");
    }
    let (_, html) = page(server.get("/search?q=A"));
    assert!(html.contains("value=\"A\""), "{html}");
    // Other pages keep the top bar's box.
    let (_, home) = page(server.get("/"));
    assert_eq!(home.matches("name=\"q\"").count(), 1, "{home}");
}

/// The hint of a public note whose page is out of date, as the note page shows it.
const OUT_OF_DATE: &str = "The public page is out of date";

/// A public note edited after its publication says its public page is out of date, with
/// the publication time and an "Update public page" button; the button's post (behind
/// the cross-site checks) writes the page again and the hint goes. An up-to-date or
/// private note shows no hint.
#[test]
fn a_note_changed_after_publishing_says_its_public_page_is_out_of_date() {
    let ws = Workspace::new();
    ws.write("n.md", "---\ntitle: N\n---\nfirst text\n");
    ws.write("private.md", "---\ntitle: P\n---\nprivate\n");
    let server = ws.serve();
    let republish: Pairs = &[("path", "n.md"), ("action", "republish")];

    let (_, private) = page(server.get("/note/private.md"));
    assert!(!private.contains(OUT_OF_DATE), "{private}");
    let response = same_site_post(&server, "/publish", &[("path", "n.md")]);
    assert_eq!(location(&response), "/note/n.md?done=published");
    let (status, fresh) = page(server.get("/note/n.md"));
    assert_eq!(status, 200);
    assert!(!fresh.contains(OUT_OF_DATE), "{fresh}");
    assert!(!fresh.contains("class=\"stale\""), "{fresh}");
    assert_eq!(fresh.matches("value=\"republish\"").count(), 1, "{fresh}");

    // Edit in the editor, past the file system clock's tick (it may lag the system's).
    std::thread::sleep(Duration::from_millis(50));
    let response = same_site_post(
        &server,
        "/save",
        &[
            ("mode", "edit"),
            ("path", "n.md"),
            ("title", "N"),
            ("body", "second text"),
        ],
    );
    assert_eq!(location(&response), "/note/n.md?done=saved");
    let (_, list) = json(server.get("/api/public/list"));
    let published_at = list["notes"][0]["published_at"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, stale) = page(server.get("/note/n.md"));
    assert_eq!(status, 200);
    let hint = stale
        .split("<div class=\"stale\" role=\"status\">")
        .nth(1)
        .and_then(|rest| rest.split("</div>").next())
        .unwrap_or_else(|| panic!("no hint: {stale}"));
    assert!(hint.contains(OUT_OF_DATE), "{hint}");
    assert!(
        hint.contains(&format!("<time datetime=\"{published_at}\">")),
        "{published_at}: {hint}"
    );
    assert!(hint.contains("action=\"/publish\""), "{hint}");
    assert!(hint.contains("name=\"path\" value=\"n.md\""), "{hint}");
    assert!(
        hint.contains("name=\"action\" value=\"republish\"") && hint.contains("Update public page"),
        "{hint}"
    );
    // One "Update public page" button on the page: the hint's.
    assert_eq!(stale.matches("value=\"republish\"").count(), 1, "{stale}");
    assert!(ws.public_text("n.html").contains("first text"));

    // The button's post from another site changes nothing.
    let before = ws.public_files();
    let (status, body) = json(post(
        &server,
        "/publish",
        republish,
        &[("Origin", "http://evil.example")],
    ));
    assert_cross_site_refused(status, &body, "republish");
    assert_eq!(ws.public_files(), before);
    assert!(page(server.get("/note/n.md")).1.contains(OUT_OF_DATE));

    // From the page itself it writes the page again, and the hint goes.
    let response = same_site_post(&server, "/publish", republish);
    assert_eq!(response.status(), 303);
    assert_eq!(location(&response), "/note/n.md?done=republished");
    let (status, updated) = page(server.get(&location(&response)));
    assert_eq!(status, 200);
    assert!(updated.contains("Public page updated."), "{updated}");
    assert!(!updated.contains(OUT_OF_DATE), "{updated}");
    assert!(ws.public_text("n.html").contains("second text"));

    // A change made outside the service counts as well.
    std::thread::sleep(Duration::from_millis(50));
    ws.write("n.md", "---\ntitle: N\n---\nthird text\n");
    assert!(page(server.get("/note/n.md")).1.contains(OUT_OF_DATE));
    // Unpublished, the note has no public page to be out of date.
    same_site_post(
        &server,
        "/publish",
        &[("path", "n.md"), ("action", "unpublish")],
    );
    assert!(!page(server.get("/note/n.md")).1.contains(OUT_OF_DATE));
}

/// The editor's Save button names its shortcut, and an editor shown again after a
/// refused save marks its text as not saved (the script then asks before leaving).
#[test]
fn the_editor_names_its_shortcut_and_marks_refused_text_as_unsaved() {
    let ws = Workspace::new();
    ws.write("n.md", "---\ntitle: N\n---\ntext\n");
    let server = ws.serve();
    let (_, editor) = page(server.get("/edit/n.md"));
    assert!(
        editor.contains("aria-keyshortcuts=\"Control+S Meta+S\""),
        "{editor}"
    );
    assert!(!editor.contains("data-unsaved"), "{editor}");
    let before = ws.snapshot();
    let (status, refused) = page(same_site_post(
        &server,
        "/save",
        &[("mode", "new"), ("path", "n.md"), ("title", "Again")],
    ));
    assert_eq!(status, 409);
    assert!(
        refused.contains("<form class=\"editor\" method=\"post\" action=\"/save\" data-unsaved>"),
        "{refused}"
    );
    assert_eq!(ws.snapshot(), before);
}
