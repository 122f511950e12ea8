//! Edits made offline and sent later (`POST /api/v1/merge/{path}`): saved when the note
//! has not changed since their base, merged three-way when it has, both versions kept
//! between markers when the same lines changed; the conflicted notes listed (`GET
//! /api/v1/conflicts`), shown with a banner, and resolved on `/resolve/<path>`.

use reqwest::blocking::Response;
use serde_json::{Value, json};

use crate::support::{Server, Workspace, create_token, json as json_of};
use crate::web_pages::{location, page as html_of, same_site_post};

fn merge(server: &Server, path: &str, body: Value) -> Response {
    server
        .request("POST", &format!("/api/v1/merge/{path}"))
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .unwrap()
}

fn outcome(response: Response) -> (u16, String) {
    let etag = response.headers().get("etag").cloned();
    let (status, body) = json_of(response);
    assert_eq!(
        etag.unwrap().to_str().unwrap(),
        body["etag"].as_str().unwrap(),
        "{body}"
    );
    (status, body["outcome"].as_str().unwrap().to_string())
}

fn page(server: &Server, path: &str) -> String {
    let (status, html) = html_of(server.get(path));
    assert_eq!(status, 200, "{path}: {html}");
    html
}

const BASE: &str =
    "---\ntitle: Trip\ntags: [travel]\n---\n\nDay one: Lyon.\nDay two: Annecy.\nDay three: rest.\n";

#[test]
fn an_offline_edit_is_saved_merged_or_kept_beside_the_other() {
    let ws = Workspace::new();
    let server = ws.serve();

    // A note made offline.
    let (status, landed) = outcome(merge(
        &server,
        "trip.md",
        json!({"base": null, "text": BASE}),
    ));
    assert_eq!((status, landed.as_str()), (201, "saved"));
    assert_eq!(ws.read("trip.md"), BASE);

    // Unchanged since its base: saved as sent.
    let first = BASE.replace("Lyon", "Lyon, by train");
    let (status, landed) = outcome(merge(
        &server,
        "trip.md",
        json!({"base": BASE, "text": first}),
    ));
    assert_eq!((status, landed.as_str()), (200, "saved"));
    assert_eq!(ws.read("trip.md"), first);

    // Changed since, elsewhere in the text: both changes.
    let second = BASE.replace("Day three: rest.", "Day three: Chamonix.");
    let (_, landed) = outcome(merge(
        &server,
        "trip.md",
        json!({"base": BASE, "text": second}),
    ));
    assert_eq!(landed, "merged");
    assert_eq!(
        ws.read("trip.md"),
        BASE.replace("Lyon", "Lyon, by train")
            .replace("Day three: rest.", "Day three: Chamonix.")
    );

    // The same again: nothing to do.
    let (_, landed) = outcome(merge(
        &server,
        "trip.md",
        json!({"base": BASE, "text": second}),
    ));
    assert_eq!(landed, "merged");
    let now = ws.read("trip.md");
    let (_, landed) = outcome(merge(
        &server,
        "trip.md",
        json!({"base": BASE, "text": now}),
    ));
    assert_eq!(landed, "unchanged");

    // The editor's fields, from the base: the same line as the server changed.
    let (_, landed) = outcome(merge(
        &server,
        "trip.md",
        json!({"base": BASE, "title": "Trip", "tags": ["travel"],
               "body": "Day one: Lyon, by bike.\r\nDay two: Annecy.\r\nDay three: rest.\r\n"}),
    ));
    assert_eq!(landed, "conflict");
    let text = ws.read("trip.md");
    assert!(
        text.contains(
            "<<<<<<< ours\nDay one: Lyon, by train.\n=======\nDay one: Lyon, by bike.\n>>>>>>> theirs\n"
        ),
        "{text}"
    );
    assert!(text.contains("Day three: Chamonix.\n"), "{text}");

    let (status, list) = json_of(server.get("/api/v1/conflicts"));
    assert_eq!(status, 200);
    assert_eq!(
        list,
        json!({"conflicts": [{"path": "trip.md", "title": "Trip"}]})
    );
    // Any save without the markers resolves it.
    let put = server.put_markdown("/api/v1/notes/trip.md", "Day one: Lyon.\n");
    assert_eq!(put.status(), 200);
    let (_, list) = json_of(server.get("/api/v1/conflicts"));
    assert_eq!(list, json!({"conflicts": []}));
}

#[test]
fn a_bad_merge_request_is_refused_and_writes_nothing() {
    let ws = Workspace::new();
    ws.write("a.md", "one\n");
    let server = ws.serve();
    let before = ws.snapshot();
    for (body, why) in [
        (json!({"base": "one\n"}), "no text"),
        (json!({"base": 3, "text": "x"}), "base"),
        (json!({"text": 3}), "text"),
        (json!({"body": "x", "tags": "a"}), "tags"),
        (json!({"text": "x", "body": 5}), "body"),
        (json!(["x"]), "array"),
    ] {
        let response = merge(&server, "a.md", body);
        let (status, error) = json_of(response);
        assert_eq!(status, 400, "{why}: {error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .starts_with("Invalid JSON"),
            "{error}"
        );
    }
    let response = server
        .request("POST", "/api/v1/merge/a.md")
        .header("Content-Type", "text/plain")
        .body("x")
        .send()
        .unwrap();
    assert_eq!(response.status(), 415);
    let (status, _) = json_of(merge(&server, "a.txt", json!({"text": "x"})));
    assert_eq!(status, 400);
    let (status, body) = json_of(server.get("/api/v1/merge/a.md"));
    assert_eq!(status, 405, "{body}");
    assert_eq!(ws.snapshot(), before);
}

#[test]
fn merges_and_the_conflict_list_keep_to_the_token_scope() {
    let ws = Workspace::new();
    ws.write("work/a.md", "one\n");
    ws.write("home/b.md", "<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n");
    let full = create_token(&ws, &["--name", "full"]);
    let work = create_token(&ws, &["--name", "work", "--prefix", "work"]);
    let reader = create_token(&ws, &["--name", "reader", "--read-only"]);
    let server = ws.serve();
    let send = |token: &str, path: &str, text: &str| {
        server
            .request("POST", &format!("/api/v1/merge/{path}"))
            .bearer_auth(token)
            .header("Content-Type", "application/json")
            .body(json!({"base": "one\n", "text": text}).to_string())
            .send()
            .unwrap()
            .status()
    };
    assert_eq!(send(&reader, "work/a.md", "two\n"), 403);
    assert_eq!(send(&work, "home/b.md", "two\n"), 403);
    assert_eq!(send(&work, "work/a.md", "two\n"), 200);
    // A conflict in each folder.
    assert_eq!(send(&full, "work/a.md", "three\n"), 200);
    let conflicts = |token: &str| {
        let (status, body) = json_of(
            server
                .request("GET", "/api/v1/conflicts")
                .bearer_auth(token)
                .send()
                .unwrap(),
        );
        assert_eq!(status, 200);
        body["conflicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["path"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(conflicts(&full), ["work/a.md"]);
    assert_eq!(conflicts(&work), ["work/a.md"]);
    assert_eq!(ws.read("home/b.md").lines().count(), 5);
}

#[test]
fn a_conflicted_note_shows_a_banner_and_is_resolved_on_its_page() {
    let ws = Workspace::new();
    let server = ws.serve();
    let theirs = BASE.replace("Annecy", "Geneva");
    assert_eq!(
        merge(&server, "trip.md", json!({"base": null, "text": BASE})).status(),
        201
    );
    let ours = BASE.replace("Annecy", "Turin");
    assert_eq!(
        server.put_markdown("/api/v1/notes/trip.md", &ours).status(),
        200
    );
    let (_, landed) = outcome(merge(
        &server,
        "trip.md",
        json!({"base": BASE, "text": theirs}),
    ));
    assert_eq!(landed, "conflict");

    let note = page(&server, "/note/trip.md");
    assert!(note.contains("This note holds two versions"), "{note}");
    assert!(note.contains("href=\"/resolve/trip.md\""), "{note}");
    let resolve = page(&server, "/resolve/trip.md");
    assert!(
        resolve.contains("This server&#39;s version") || resolve.contains("This server's version"),
        "{resolve}"
    );
    assert!(resolve.contains("Day two: Turin."), "{resolve}");
    assert!(resolve.contains("Day two: Geneva."), "{resolve}");
    let etag = resolve
        .split("name=\"etag\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .replace("&quot;", "\"");

    // A stale page's choice is refused; the page's own version is kept.
    let stale = same_site_post(
        &server,
        "/resolve",
        &[
            ("path", "trip.md"),
            ("etag", "\"stale\""),
            ("choice", "theirs"),
        ],
    );
    assert_eq!(stale.status(), 412);
    let kept = same_site_post(
        &server,
        "/resolve",
        &[("path", "trip.md"), ("etag", &etag), ("choice", "theirs")],
    );
    assert_eq!(kept.status(), 303);
    assert_eq!(location(&kept), "/note/trip.md?done=saved");
    let text = ws.read("trip.md");
    assert!(
        text.contains("Day two: Geneva.\n") && !text.contains("Turin"),
        "{text}"
    );
    assert!(!text.contains("<<<<<<<"), "{text}");
    let (_, list) = json_of(server.get("/api/v1/conflicts"));
    assert_eq!(list, json!({"conflicts": []}));
    assert!(!page(&server, "/note/trip.md").contains("This note holds two versions"));
}
