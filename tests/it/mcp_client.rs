//! The SDK's own MCP client against the real binary: over the standard input and output
//! of `notes mcp`, or over Streamable HTTP to `/mcp` of a running `notes serve`; and the
//! scenario both transports must pass: every tool called, its effect checked on disk.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ReadResourceRequestParams, Tool};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::support::{Server, Workspace, note};

pub type McpClient = RunningService<RoleClient, ()>;

/// Longest any one exchange of these tests may take.
const EXCHANGE: Duration = Duration::from_secs(30);

/// A runtime for one test's client.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// `notes mcp extra…` over the workspace, connected and initialized.
pub async fn stdio(ws: &Workspace, extra: &[&str]) -> McpClient {
    let mut command = tokio::process::Command::from(ws.cli());
    command.arg("mcp").args(extra);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("start notes mcp");
    tokio::time::timeout(EXCHANGE, ().serve(transport))
        .await
        .expect("initialize in time")
        .expect("initialize over stdio")
}

/// The `/mcp` endpoint of `server`, connected and initialized.
pub async fn http(server: &Server) -> McpClient {
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let transport = StreamableHttpClientTransport::with_client(
        client,
        StreamableHttpClientTransportConfig::with_uri(server.url("/mcp")),
    );
    tokio::time::timeout(EXCHANGE, ().serve(transport))
        .await
        .expect("initialize in time")
        .expect("initialize over HTTP")
}

/// Calls a tool with JSON arguments.
pub async fn call(client: &McpClient, tool: &'static str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    tokio::time::timeout(
        EXCHANGE,
        client.call_tool(CallToolRequestParams::new(tool).with_arguments(args)),
    )
    .await
    .expect("answer in time")
    .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// The structured answer of a call that must have succeeded.
pub async fn ok(client: &McpClient, tool: &'static str, args: Value) -> Value {
    let result = call(client, tool, args).await;
    assert_eq!(result.is_error, Some(false), "{tool}: {result:?}");
    let value = result
        .structured_content
        .unwrap_or_else(|| panic!("{tool}: no structured content"));
    // The text shown to text-only clients says the same.
    let text = result.content[0]
        .as_text()
        .expect("text content")
        .text
        .clone();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    let listed = tools(client).await;
    let declared = listed
        .iter()
        .find(|t| t.name == tool)
        .unwrap_or_else(|| panic!("{tool} is not listed"));
    let mismatches = mismatches(declared, &value);
    assert!(
        mismatches.is_empty(),
        "{tool}: the answer does not match its outputSchema: {mismatches:?}\n{value}"
    );
    CHECKED.with(|checked| checked.borrow_mut().insert(tool));
    value
}

thread_local! {
    /// The tools whose answers `ok` checked against their outputSchema on this thread
    /// (a test's client runs on the thread that blocks on it).
    static CHECKED: RefCell<BTreeSet<&'static str>> = const { RefCell::new(BTreeSet::new()) };
}

/// Where `value` departs from the outputSchema `tool` declares (a tool must declare
/// one, of type object): empty when it conforms.
pub fn mismatches(tool: &Tool, value: &Value) -> Vec<String> {
    let schema = tool
        .output_schema
        .as_ref()
        .unwrap_or_else(|| panic!("{} declares no outputSchema", tool.name));
    let schema = Value::Object(schema.as_ref().clone());
    assert_eq!(schema["type"], "object", "{}: {schema}", tool.name);
    let validator = jsonschema::draft202012::new(&schema)
        .unwrap_or_else(|e| panic!("{}: not a valid JSON Schema: {e}\n{schema}", tool.name));
    validator
        .iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// The message of a call that must have failed as a tool error.
pub async fn refused(client: &McpClient, tool: &'static str, args: Value) -> String {
    let result = call(client, tool, args).await;
    assert_eq!(
        result.is_error,
        Some(true),
        "{tool} should fail: {result:?}"
    );
    result.content[0]
        .as_text()
        .expect("text content")
        .text
        .clone()
}

pub async fn tools(client: &McpClient) -> Vec<Tool> {
    tokio::time::timeout(EXCHANGE, client.list_all_tools())
        .await
        .expect("answer in time")
        .unwrap()
}

pub fn names(tools: &[Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

/// Every tool, sorted by name.
pub const ALL_TOOLS: [&str; 13] = [
    "append_to_note",
    "create_note",
    "delete_note",
    "edit_section",
    "list_notes",
    "list_tags",
    "move_note",
    "note_links",
    "publish_note",
    "read_note",
    "search_notes",
    "unpublish_note",
    "update_note",
];

/// The tools that change nothing, sorted by name.
pub const READ_TOOLS: [&str; 5] = [
    "list_notes",
    "list_tags",
    "note_links",
    "read_note",
    "search_notes",
];

/// The notes the scenario starts from.
pub fn seed(ws: &Workspace) {
    ws.write(
        "alpha.md",
        &note("Alpha", &["work", "rust"], "Alpha links to [[beta]].\n"),
    );
    ws.write(
        "ideas/beta.md",
        &note("Beta", &["rust"], "Beta holds the word zephyr.\n"),
    );
}

/// Every tool and the resources, each call's effect checked in the notes folder.
pub async fn every_tool(client: &McpClient, ws: &Workspace) {
    CHECKED.with(|checked| checked.borrow_mut().clear());
    let listed = tools(client).await;
    assert_eq!(names(&listed), ALL_TOOLS);
    // The output schemas are strict: a field too many, or one of the wrong type, fails.
    let list_notes = listed.iter().find(|t| t.name == "list_notes").unwrap();
    let page = json!({"folder": "", "notes": [], "total": 0});
    assert_eq!(mismatches(list_notes, &page), Vec::<String>::new());
    for wrong in [
        json!({"folder": "", "notes": [], "total": "0"}),
        json!({"folder": "", "notes": [], "total": 0, "more": 1}),
        json!({"folder": "", "notes": [{"path": "a.md"}], "total": 1}),
        json!({"notes": [], "total": 0}),
    ] {
        assert!(!mismatches(list_notes, &wrong).is_empty(), "{wrong}");
    }
    for tool in &listed {
        let hints = tool.annotations.as_ref().expect("annotations");
        let read = READ_TOOLS.contains(&tool.name.as_ref());
        assert_eq!(hints.read_only_hint, Some(read), "{}", tool.name);
        if !read {
            assert!(hints.destructive_hint.is_some(), "{}", tool.name);
            assert!(hints.idempotent_hint.is_some(), "{}", tool.name);
        }
        assert!(
            tool.input_schema.get("properties").is_some(),
            "{}",
            tool.name
        );
    }

    // list_notes: pages of one, then a folder.
    let first = ok(client, "list_notes", json!({"limit": 1})).await;
    assert_eq!(first["total"], 2);
    assert_eq!(first["notes"][0]["path"], "alpha.md");
    assert_eq!(first["notes"][0]["tags"], json!(["work", "rust"]));
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a next page")
        .to_string();
    let second = ok(client, "list_notes", json!({"limit": 1, "cursor": cursor})).await;
    assert_eq!(second["notes"][0]["path"], "ideas/beta.md");
    assert!(second.get("nextCursor").is_none(), "{second}");
    let ideas = ok(client, "list_notes", json!({"folder": "ideas"})).await;
    assert_eq!(ideas["total"], 1);
    let message = refused(client, "list_notes", json!({"limit": 0})).await;
    assert!(message.contains("limit 0 is out of range"), "{message}");
    // Counts are integers in the schema (never null), and taken as text too.
    let list_notes = listed.iter().find(|t| t.name == "list_notes").unwrap();
    assert_eq!(
        list_notes.input_schema["properties"]["limit"]["type"], "integer",
        "{:?}",
        list_notes.input_schema
    );
    let as_text = ok(client, "list_notes", json!({"limit": "1"})).await;
    assert_eq!(as_text["notes"].as_array().unwrap().len(), 1, "{as_text}");
    // Prompts: listed, and filled in with their arguments.
    let prompts = tokio::time::timeout(EXCHANGE, client.list_all_prompts())
        .await
        .expect("answer in time")
        .expect("prompts/list");
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"summarise_folder"), "{names:?}");
    let Value::Object(folder) = json!({"folder": "ideas"}) else {
        unreachable!()
    };
    let summary = tokio::time::timeout(
        EXCHANGE,
        client.get_prompt(
            rmcp::model::GetPromptRequestParams::new("summarise_folder").with_arguments(folder),
        ),
    )
    .await
    .expect("answer in time")
    .expect("prompts/get");
    let text = serde_json::to_string(&summary).unwrap();
    assert!(
        text.contains("list_notes with folder") && text.contains("ideas"),
        "{text}"
    );
    // A cursor no page gave is an invalid-params error, not an empty page.
    let Value::Object(garbage) = json!({"cursor": "zzz"}) else {
        unreachable!()
    };
    let error = tokio::time::timeout(
        EXCHANGE,
        client.call_tool(CallToolRequestParams::new("list_notes").with_arguments(garbage)),
    )
    .await
    .expect("answer in time")
    .expect_err("a garbage cursor is refused");
    match error {
        rmcp::ServiceError::McpError(data) => {
            assert_eq!(
                data.code,
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "{data:?}"
            );
            assert!(data.message.contains("cursor"), "{data:?}");
        }
        other => panic!("{other}"),
    }

    // read_note: whole, then in pieces.
    let alpha = ok(client, "read_note", json!({"path": "alpha.md"})).await;
    assert_eq!(alpha["content"], ws.read("alpha.md"));
    assert_eq!(alpha["title"], "Alpha");
    assert_eq!(alpha["truncated"], false);
    let piece = ok(
        client,
        "read_note",
        json!({"path": "alpha.md", "maxBytes": 10}),
    )
    .await;
    assert_eq!(piece["content"], ws.read("alpha.md")[..10]);
    assert_eq!(piece["truncated"], true);
    assert_eq!(piece["nextOffset"], 10);
    let rest = ok(
        client,
        "read_note",
        json!({"path": "alpha.md", "offset": 10}),
    )
    .await;
    assert_eq!(rest["content"], ws.read("alpha.md")[10..]);
    let missing = refused(client, "read_note", json!({"path": "nope.md"})).await;
    assert_eq!(missing, "nope.md: Note not found");

    // search_notes.
    let found = ok(client, "search_notes", json!({"query": "zephyr"})).await;
    assert_eq!(found["results"][0]["path"], "ideas/beta.md", "{found}");
    assert_eq!(found["total"], 1);
    // An attachment's result says what it is (its schema allows that one kind).
    // Written beside the service: found once the watcher has told the index.
    ws.write("ideas/zephyr-map.txt", "a map\n");
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let mut files = ok(client, "search_notes", json!({"query": "file:zephyr"})).await;
    while files["total"] == 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        files = ok(client, "search_notes", json!({"query": "file:zephyr"})).await;
    }
    assert_eq!(
        files["results"][0]["path"], "ideas/zephyr-map.txt",
        "{files}"
    );
    assert_eq!(files["results"][0]["kind"], "file", "{files}");

    // create_note never replaces.
    let created = ok(
        client,
        "create_note",
        json!({"path": "new/gamma.md", "content": "# Gamma\n\nfirst\n"}),
    )
    .await;
    assert_eq!(created["created"], true);
    assert!(ws.read("new/gamma.md").contains("first"));
    let again = refused(
        client,
        "create_note",
        json!({"path": "new/gamma.md", "content": "other\n"}),
    )
    .await;
    assert!(
        again.starts_with("new/gamma.md: a note already exists"),
        "{again}"
    );
    assert!(ws.read("new/gamma.md").contains("first"));

    // update_note needs the version it read.
    let stale = refused(
        client,
        "update_note",
        json!({"path": "new/gamma.md", "content": "lost\n", "version": "0123456789abcdef"}),
    )
    .await;
    assert!(stale.contains("has changed since"), "{stale}");
    assert!(!ws.read("new/gamma.md").contains("lost"));
    let read = ok(client, "read_note", json!({"path": "new/gamma.md"})).await;
    assert_eq!(read["version"], created["version"]);
    let updated = ok(
        client,
        "update_note",
        json!({"path": "new/gamma.md", "content": "# Gamma\n\nsecond\n", "version": read["version"]}),
    )
    .await;
    assert_ne!(updated["version"], read["version"]);
    assert!(ws.read("new/gamma.md").contains("second"));
    assert!(!ws.read("new/gamma.md").contains("first"));

    // append_to_note.
    ok(
        client,
        "append_to_note",
        json!({"path": "new/gamma.md", "text": "- appended item"}),
    )
    .await;
    assert!(
        ws.read("new/gamma.md")
            .ends_with("second\n\n- appended item\n")
    );
    let absent = refused(
        client,
        "append_to_note",
        json!({"path": "absent.md", "text": "x"}),
    )
    .await;
    assert_eq!(absent, "absent.md: Note not found");
    assert!(!ws.notes().join("absent.md").exists());

    // Sections: the outline, one section, edits by heading path.
    ok(
        client,
        "create_note",
        json!({"path": "plan.md", "content": "# Plan\n\n## Todo\n\n- one\n\n## Done\n\n- zero\n"}),
    )
    .await;
    let outline = ok(
        client,
        "read_note",
        json!({"path": "plan.md", "mode": "outline"}),
    )
    .await;
    let top = &outline["headings"][0];
    assert_eq!(top["text"], "Plan", "{outline}");
    assert_eq!(top["children"][0]["text"], "Todo", "{outline}");
    assert_eq!(top["children"][1]["text"], "Done", "{outline}");
    let todo = ok(
        client,
        "read_note",
        json!({"path": "plan.md", "mode": "section", "heading": ["Plan", "Todo"]}),
    )
    .await;
    let text = todo["text"].as_str().unwrap();
    assert!(text.contains("- one") && !text.contains("zero"), "{todo}");
    ok(
        client,
        "edit_section",
        json!({"path": "plan.md", "op": "append", "heading": ["Plan", "Todo"], "text": "- two"}),
    )
    .await;
    ok(
        client,
        "append_to_note",
        json!({"path": "plan.md", "heading": ["Plan", "Todo"], "text": "- three"}),
    )
    .await;
    ok(
        client,
        "edit_section",
        json!({"path": "plan.md", "op": "replace", "heading": ["Plan", "Done"], "text": "- all"}),
    )
    .await;
    let plan = ws.read("plan.md");
    let at = |needle: &str| {
        plan.find(needle)
            .unwrap_or_else(|| panic!("{needle}: {plan}"))
    };
    assert!(
        at("- one") < at("- two") && at("- two") < at("- three"),
        "{plan}"
    );
    assert!(
        at("- three") < at("## Done") && at("## Done") < at("- all"),
        "{plan}"
    );
    assert!(!plan.contains("zero"), "{plan}");
    let missing = refused(
        client,
        "edit_section",
        json!({"path": "plan.md", "op": "append", "heading": ["Plan", "Later"], "text": "x"}),
    )
    .await;
    assert!(
        missing.starts_with("plan.md: Heading not found"),
        "{missing}"
    );
    assert!(missing.contains(r#"["Plan","Todo"]"#), "{missing}");
    assert_eq!(ws.read("plan.md"), plan);
    // A delete given a version checks it.
    let read = ok(client, "read_note", json!({"path": "plan.md"})).await;
    let stale = refused(
        client,
        "delete_note",
        json!({"path": "plan.md", "version": "0000000000000000"}),
    )
    .await;
    assert!(stale.contains("has changed since"), "{stale}");
    ok(
        client,
        "delete_note",
        json!({"path": "plan.md", "version": read["version"]}),
    )
    .await;
    assert!(!ws.notes().join("plan.md").exists());

    // move_note.
    let moved = ok(
        client,
        "move_note",
        json!({"from": "new/gamma.md", "to": "new/delta.md"}),
    )
    .await;
    assert_eq!(moved["to"], "new/delta.md");
    assert!(!ws.notes().join("new/gamma.md").exists());
    assert!(ws.read("new/delta.md").contains("appended item"));

    // list_tags.
    let tags = ok(client, "list_tags", json!({})).await;
    assert_eq!(
        tags["tags"],
        json!([{"name": "rust", "count": 2}, {"name": "work", "count": 1}])
    );

    // note_links.
    let links = ok(client, "note_links", json!({"path": "ideas/beta.md"})).await;
    assert_eq!(links["incoming"][0]["path"], "alpha.md", "{links}");
    assert_eq!(links["incomingTotal"], 1);

    // publish_note, unpublish_note.
    let published = ok(client, "publish_note", json!({"path": "alpha.md"})).await;
    assert_eq!(published["status"], "public");
    let page = ws.public().join(published["page"].as_str().unwrap());
    assert!(page.exists(), "{published}");
    let private = ok(client, "unpublish_note", json!({"path": "alpha.md"})).await;
    assert_eq!(private["status"], "private");
    assert!(!page.exists());

    // delete_note: to the trash.
    let deleted = ok(client, "delete_note", json!({"path": "new/delta.md"})).await;
    assert_eq!(deleted["inTrash"], true);
    assert!(!ws.notes().join("new/delta.md").exists());

    // Resources.
    let resources = tokio::time::timeout(EXCHANGE, client.list_all_resources())
        .await
        .unwrap()
        .unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["note:///alpha.md", "note:///ideas/beta.md"]);
    assert_eq!(resources[0].title.as_deref(), Some("Alpha"));
    let text = tokio::time::timeout(
        EXCHANGE,
        client.read_resource(ReadResourceRequestParams::new("note:///ideas/beta.md")),
    )
    .await
    .unwrap()
    .unwrap();
    let body = serde_json::to_value(&text.contents[0]).unwrap();
    assert_eq!(body["text"], ws.read("ideas/beta.md"));
    assert_eq!(body["mimeType"], "text/markdown");
    let gone = client
        .read_resource(ReadResourceRequestParams::new("note:///new/delta.md"))
        .await;
    assert!(gone.is_err(), "{gone:?}");

    // Every tool's answer was checked against its outputSchema.
    let checked: Vec<&str> = CHECKED.with(|checked| checked.borrow().iter().copied().collect());
    assert_eq!(checked, ALL_TOOLS);
}
