//! A folder token (`notes token create --prefix work`) is judged on every path an
//! operation touches, not only the one in the URL: the attachments a publication
//! copies, the notes a move rewrites, the notes a search or a tag list counts, and
//! where a symlink inside the notes folder leads. Over HTTP and over MCP (`/mcp`).

use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp_client::{McpClient, ok, refused, runtime};
use crate::support::{RawResponse, Server, Workspace, eventually, note, snapshot_of, stdout};

/// The answer to any path a folder token may not reach.
const OUTSIDE: &str = "This token is limited to a folder, and this path is outside it";
/// The answer to a move that would rewrite a note outside the folder.
const MOVE_OUTSIDE: &str = "This token is limited to a folder, and this move would rewrite \
     links in notes outside it: nothing was moved";

/// A notes folder with a `work` folder and a `private` one, and the secret of a token
/// limited to `work`.
fn workspace() -> (Workspace, String) {
    let ws = Workspace::new();
    ws.write("work/a.md", &note("Alpha", &[], "work text\n"));
    ws.write("work/mine.csv", "day,hours\nmon,8\n");
    ws.write("private/salaries.csv", "name,salary\nann,100\n");
    ws.write(
        "private/secret.md",
        &note("Secret", &["hidden"], "secret words\n"),
    );
    let out = ws.run(&["token", "create", "--name", "work", "--prefix", "work"]);
    assert!(out.status.success(), "{out:?}");
    (ws, stdout(&out).trim().to_string())
}

/// Makes a full token, for the owner's side of a test.
fn full_token(ws: &Workspace) -> String {
    let out = ws.run(&["token", "create", "--name", "owner"]);
    assert!(out.status.success(), "{out:?}");
    stdout(&out).trim().to_string()
}

fn send(server: &Server, method: &str, target: &str, token: &str, body: &str) -> RawResponse {
    let bearer = format!("Bearer {token}");
    let mut headers = vec![("Authorization", bearer.as_str())];
    if body.starts_with('{') {
        headers.push(("Content-Type", "application/json"));
    } else if !body.is_empty() {
        headers.push(("Content-Type", "application/x-www-form-urlencoded"));
    }
    server.raw(method, target, &headers, body.as_bytes())
}

/// Asserts a 403 ErrorResponse with exactly `message`.
fn assert_forbidden(response: &RawResponse, message: &str, context: &str) {
    assert_eq!(response.status, 403, "{context}: {}", response.body);
    let body = response.json();
    assert_eq!(body["error"], "Forbidden", "{context}: {body}");
    assert_eq!(body["code"], 403, "{context}: {body}");
    assert_eq!(body["message"], message, "{context}: {body}");
}

/// `/mcp` of `server` with a token.
async fn mcp(server: &Server, token: &str) -> McpClient {
    use rmcp::ServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let mut config = StreamableHttpClientTransportConfig::with_uri(server.url("/mcp"));
    config.auth_header = Some(token.to_string());
    let transport = StreamableHttpClientTransport::with_client(client, config);
    tokio::time::timeout(Duration::from_secs(30), ().serve(transport))
        .await
        .expect("initialize in time")
        .expect("initialize with a token")
}

/// The notes and attachments on disk with their bytes (not the service's own files
/// in `.notes/`, such as the lock a move takes).
fn notes_files(ws: &Workspace) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    snapshot_of(ws.root.path())
        .into_iter()
        .filter(|(path, _)| !path.ancestors().any(|a| a.ends_with(".notes")))
        .collect()
}

/// The names in `public/media/`.
fn media(ws: &Workspace) -> Vec<String> {
    match std::fs::read_dir(ws.public().join("media")) {
        Ok(items) => items
            .map(|item| item.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_folder_token_publishes_no_attachment_it_may_not_read() {
    let (ws, work) = workspace();
    let server = ws.serve();
    let text = "[data](../private/salaries.csv) and [hours](mine.csv)\n";
    let put = send(
        &server,
        "PUT",
        "/api/v1/notes/work/pub.md",
        &work,
        &json!({"title": "Pub", "body": text}).to_string(),
    );
    assert_eq!(put.status, 201, "{}", put.body);
    // The token cannot read the file itself...
    let read = send(
        &server,
        "GET",
        "/api/v1/files/private/salaries.csv",
        &work,
        "",
    );
    assert_forbidden(&read, OUTSIDE, "GET the private file");
    // ...so publishing copies its own attachment only; the other is the link's text.
    let toggled = send(
        &server,
        "POST",
        "/api/public/toggle",
        &work,
        "path=work/pub.md",
    );
    assert_eq!(toggled.status, 200, "{}", toggled.body);
    assert_eq!(toggled.json()["status"], "public");
    let copies = media(&ws);
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert!(copies[0].ends_with("-mine.csv"), "{copies:?}");
    let page = ws.public_text("pub.html");
    assert!(page.contains(&format!("media/{}", copies[0])), "{page}");
    assert!(!page.contains("salaries"), "{page}");
    assert!(page.contains("data"), "{page}");

    // MCP's publish_note alike.
    ws.write("work/pub2.md", &note("Pub two", &[], text));
    runtime().block_on(async {
        let client = mcp(&server, &work).await;
        let done = ok(&client, "publish_note", json!({"path": "work/pub2.md"})).await;
        assert_eq!(done["status"], "public", "{done}");
        client.cancel().await.unwrap();
    });
    assert_eq!(media(&ws), copies, "MCP copied another file");
    let page = ws.public_text("pub2.html");
    assert!(!page.contains("salaries"), "{page}");

    // The owner's publication of the same text copies both.
    let owner = full_token(&ws);
    ws.write("work/pub3.md", &note("Pub three", &[], text));
    let toggled = send(
        &server,
        "POST",
        "/api/public/toggle",
        &owner,
        "path=work/pub3.md",
    );
    assert_eq!(toggled.status, 200, "{}", toggled.body);
    let copies = media(&ws);
    assert_eq!(copies.len(), 2, "{copies:?}");
    assert!(
        copies.iter().any(|c| c.ends_with("-salaries.csv")),
        "{copies:?}"
    );
}

#[test]
fn a_folder_token_cannot_move_a_note_that_a_note_outside_links_to() {
    let (ws, work) = workspace();
    let plans = "---\ntitle: Plans\n---\nsee [alpha](../work/a.md)\n";
    ws.write("private/plans.md", plans);
    ws.write("work/c.md", &note("C", &[], "see [d](d.md)\n"));
    ws.write("work/d.md", &note("D", &[], "d text\n"));
    let server = ws.serve();
    let before = notes_files(&ws);
    let moved = send(
        &server,
        "POST",
        "/api/v1/move",
        &work,
        r#"{"from":"work/a.md","to":"work/b.md"}"#,
    );
    assert_forbidden(&moved, MOVE_OUTSIDE, "POST /api/v1/move");
    assert!(!moved.body.contains("private"), "{}", moved.body);
    assert_eq!(ws.read("private/plans.md"), plans);
    assert!(ws.notes().join("work/a.md").is_file());
    assert!(!ws.notes().join("work/b.md").exists());

    // MCP's move_note alike.
    runtime().block_on(async {
        let client = mcp(&server, &work).await;
        let message = refused(
            &client,
            "move_note",
            json!({"from": "work/a.md", "to": "work/b.md"}),
        )
        .await;
        assert!(message.contains(MOVE_OUTSIDE), "{message}");
        assert!(!message.contains("private"), "{message}");
        client.cancel().await.unwrap();
    });
    assert_eq!(notes_files(&ws), before, "a refused move changed the disk");

    // A move whose links are all inside the folder goes through.
    let moved = send(
        &server,
        "POST",
        "/api/v1/move",
        &work,
        r#"{"from":"work/d.md","to":"work/e.md"}"#,
    );
    assert_eq!(moved.status, 200, "{}", moved.body);
    assert_eq!(moved.json()["rewritten"], json!(["work/c.md"]));
    assert!(ws.read("work/c.md").contains("[d](e.md)"));
    assert_eq!(ws.read("private/plans.md"), plans);
}

/// The paths of a search's results.
fn result_paths(found: &Value) -> Vec<&str> {
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["path"].as_str().unwrap())
        .collect()
}

#[test]
fn a_folder_token_counts_only_what_it_may_read() {
    let (ws, work) = workspace();
    // Outside the folder: more matches than a search ever returns, all ranked above the
    // one inside (the word in their title too), and a symlinked note inside the folder
    // that is a private note.
    for n in 0..120 {
        ws.write(
            &format!("private/p{n:03}.md"),
            &note("Zebra", &["hidden"], "zebra zebra\n"),
        );
    }
    ws.write("work/w.md", &note("Plain", &["open"], "one zebra\n"));
    std::os::unix::fs::symlink("../private/secret.md", ws.notes().join("work/s.md")).unwrap();
    ws.write(
        "private/spy.md",
        &note("Spy", &["hidden"], "see [w](../work/w.md)\n"),
    );
    let server = ws.serve();
    let search = |query: &str| {
        let r = send(
            &server,
            "GET",
            &format!("/api/v1/search?q={query}"),
            &work,
            "",
        );
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    };
    // The index catches up with the notes written before the start.
    assert!(eventually(
        Duration::from_secs(30),
        || search("zebra")["total"] == 1
    ));
    let found = search("zebra");
    assert_eq!(result_paths(&found), ["work/w.md"], "{found}");
    assert_eq!(found["total"], 1, "{found}");
    let found = search("secret");
    assert_eq!(found["total"], 0, "{found}");
    assert_eq!(result_paths(&found), Vec::<&str>::new(), "{found}");
    // Backlinks: none from outside.
    let links = send(&server, "GET", "/api/v1/links/work/w.md", &work, "");
    assert_eq!(links.status, 200, "{}", links.body);
    assert_eq!(links.json()["incoming"], json!([]), "{}", links.body);
    // Over MCP: the search, the tags and the list leave the symlinked private note out.
    runtime().block_on(async {
        let client = mcp(&server, &work).await;
        let found = ok(&client, "search_notes", json!({"query": "zebra"})).await;
        assert_eq!(found["total"], 1, "{found}");
        assert_eq!(result_paths(&found), ["work/w.md"], "{found}");
        let tags = ok(&client, "list_tags", json!({})).await;
        assert_eq!(
            tags["tags"],
            json!([{"name": "open", "count": 1}]),
            "{tags}"
        );
        assert_eq!(tags["total"], 1, "{tags}");
        let notes = ok(&client, "list_notes", json!({})).await;
        let paths: Vec<&str> = notes["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["path"].as_str().unwrap())
            .collect();
        assert_eq!(paths, ["work/a.md", "work/w.md"], "{notes}");
        assert_eq!(notes["total"], 2, "{notes}");
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_symlink_into_another_folder_is_that_folder() {
    let (ws, work) = workspace();
    std::os::unix::fs::symlink("../private", ws.notes().join("work/shared")).unwrap();
    std::os::unix::fs::symlink("../private/salaries.csv", ws.notes().join("work/link.csv"))
        .unwrap();
    std::os::unix::fs::symlink("../private/secret.md", ws.notes().join("work/leak.md")).unwrap();
    let server = ws.serve();
    let before = notes_files(&ws);
    let read = send(
        &server,
        "GET",
        "/api/v1/notes/work/shared/secret.md",
        &work,
        "",
    );
    assert_forbidden(&read, OUTSIDE, "GET a note through the link");
    let file = send(
        &server,
        "GET",
        "/api/v1/files/work/shared/salaries.csv",
        &work,
        "",
    );
    assert_forbidden(&file, OUTSIDE, "GET a file through the link");
    let put = send(
        &server,
        "PUT",
        "/api/v1/notes/work/shared/new.md",
        &work,
        r#"{"body":"planted"}"#,
    );
    assert_forbidden(&put, OUTSIDE, "PUT a note through the link");
    let delete = send(
        &server,
        "DELETE",
        "/api/v1/notes/work/shared/secret.md",
        &work,
        "",
    );
    assert_forbidden(&delete, OUTSIDE, "DELETE a note through the link");
    let linked = send(&server, "GET", "/api/v1/files/work/link.csv", &work, "");
    assert_forbidden(&linked, OUTSIDE, "GET a symlinked file");
    let listed = send(&server, "GET", "/api/v1/files?under=work/shared", &work, "");
    assert_forbidden(&listed, OUTSIDE, "list a folder through the link");
    let files = send(&server, "GET", "/api/v1/files", &work, "");
    assert_eq!(files.status, 200, "{}", files.body);
    let files = files.json();
    let listed: Vec<&str> = files["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["work/mine.csv"], "{files}");
    // The note lists (and their pages) leave out notes that lead out of the folder.
    for route in ["/api/v1/notes", "/api/v1/pages/notes"] {
        let list = send(&server, "GET", route, &work, "");
        assert_eq!(list.status, 200, "{}", list.body);
        let list = list.json();
        let paths: Vec<&str> = list["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["path"].as_str().unwrap())
            .collect();
        assert_eq!(paths, ["work/a.md"], "{route}: {list}");
        assert_eq!(list["total"], 1, "{route}: {list}");
    }
    let upload = send(
        &server,
        "PUT",
        "/api/v1/files/work/shared/x.csv",
        &work,
        "a,b",
    );
    assert_forbidden(&upload, OUTSIDE, "PUT a file through the link");
    let toggle = send(
        &server,
        "POST",
        "/api/public/toggle",
        &work,
        "path=work/shared/secret.md",
    );
    assert_forbidden(&toggle, OUTSIDE, "toggle a note through the link");
    runtime().block_on(async {
        let client = mcp(&server, &work).await;
        let message = refused(
            &client,
            "read_note",
            json!({"path": "work/shared/secret.md"}),
        )
        .await;
        assert!(message.contains("out of reach"), "{message}");
        client.cancel().await.unwrap();
    });
    assert_eq!(
        notes_files(&ws),
        before,
        "a refused request changed the disk"
    );
    assert!(!ws.notes().join("private/new.md").exists());
    // The notes of the folder itself, and the owner through the link, are served.
    let own = send(&server, "GET", "/api/v1/notes/work/a.md", &work, "");
    assert_eq!(own.status, 200, "{}", own.body);
    let owner = full_token(&ws);
    let through = send(
        &server,
        "GET",
        "/api/v1/notes/work/shared/secret.md",
        &owner,
        "",
    );
    assert_eq!(through.status, 200, "{}", through.body);
    assert!(through.body.contains("secret words"));
}
