//! When no note has every word of a query, the notes with some of them come back,
//! best first and marked as partial: in the API's JSON, on the web search page and in
//! `notes search` (a line on stderr, the field in `--json`). Exclusions and `tag:`
//! stay hard filters; a query some note matches whole is not partial.

use std::time::Duration;

use crate::support::{Workspace, eventually, json, note, search_paths, stderr, stdout};

const WAIT: Duration = Duration::from_secs(30);
const PARTIAL_LINE: &str = "No note has every word; closest matches:";

fn vault() -> Workspace {
    let ws = Workspace::new();
    ws.write(
        "embed.md",
        &note(
            "Embed files",
            &["help"],
            "You can embed an image file in a note with an exclamation mark.\n",
        ),
    );
    ws.write(
        "links.md",
        &note("Internal links", &["help"], "Link to a note by its name.\n"),
    );
    ws.write(
        "images.md",
        &note(
            "Image gallery",
            &["photos"],
            "Pictures of the trip, image after image.\n",
        ),
    );
    ws
}

#[test]
fn the_api_returns_the_closest_notes_marked_partial() {
    let ws = vault();
    let server = ws.serve();
    assert!(eventually(WAIT, || search_paths(&server, "embed").len() == 1));

    let (status, body) = json(server.get("/api/v1/search?q=how+to+embed+an+image"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["partial"], true, "{body}");
    let paths: Vec<&str> = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["path"].as_str())
        .collect();
    assert_eq!(paths.first(), Some(&"embed.md"), "{body}");
    assert!(paths.contains(&"images.md"), "{body}");
    assert_eq!(body["total"], paths.len(), "{body}");

    // Every word in one note: the strict answer, with no `partial` key at all.
    let (status, body) = json(server.get("/api/v1/search?q=embed+image"));
    assert_eq!(status, 200, "{body}");
    assert!(body.get("partial").is_none(), "{body}");
    assert_eq!(search_paths(&server, "embed image"), ["embed.md"]);

    // Exclusions and tags filter the partial answer too.
    assert_eq!(
        search_paths(&server, "how embed image -exclamation"),
        ["images.md"]
    );
    assert_eq!(
        search_paths(&server, "how embed image tag:help"),
        ["embed.md"]
    );
    // Nothing at all: no results and not partial.
    let (status, body) = json(server.get("/api/v1/search?q=zebra+quokka"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["total"], 0, "{body}");
    assert!(body.get("partial").is_none(), "{body}");
    // A single word is never partial.
    let (_, body) = json(server.get("/api/v1/search?q=zebra"));
    assert!(body.get("partial").is_none(), "{body}");
}

#[test]
fn the_openapi_document_describes_partial() {
    let doc: serde_json::Value =
        serde_json::from_str(include_str!("../../assets/openapi.json")).unwrap();
    let partial = &doc["components"]["schemas"]["SearchResponse"]["properties"]["partial"];
    assert_eq!(partial["type"], "boolean", "{partial}");
    assert_eq!(partial["const"], true, "{partial}");
}

#[test]
fn the_web_page_says_the_matches_are_partial() {
    let ws = vault();
    let server = ws.serve();
    assert!(eventually(WAIT, || search_paths(&server, "embed").len() == 1));
    let page = server
        .get("/search?q=how+to+embed+an+image")
        .text()
        .unwrap();
    assert!(page.contains(PARTIAL_LINE), "{page}");
    assert!(page.contains("href=\"/note/embed.md\""), "{page}");
    let page = server.get("/search?q=embed+image").text().unwrap();
    assert!(!page.contains(PARTIAL_LINE), "{page}");
}

#[test]
fn the_cli_says_so_on_stderr_and_in_json() {
    let ws = vault();
    let out = ws.run(&["search", "how", "to", "embed", "an", "image"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), format!("{PARTIAL_LINE}\n"));
    let first = stdout(&out);
    assert!(
        first.lines().next().unwrap().contains("embed.md"),
        "{first}"
    );

    let out = ws.run(&["search", "--json", "how to embed an image"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let body: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(body["partial"], true, "{body}");
    assert_eq!(body["results"][0]["path"], "embed.md", "{body}");

    let out = ws.run(&["search", "embed", "image"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let out = ws.run(&["search", "--json", "embed image"]);
    let body: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(body.get("partial").is_none(), "{body}");
}
