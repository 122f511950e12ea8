//! `/mcp` on a running `notes serve`, driven by the SDK's client over Streamable HTTP:
//! every tool and the resources; and the door's checks, which MCP requires for every
//! request (Host, Origin), answered with ErrorResponse bodies.

use serde_json::{Value, json};

use crate::mcp_client::{
    ALL_TOOLS, McpClient, READ_TOOLS, every_tool, http, names, ok, refused, runtime, seed, tools,
};
use crate::support::{Workspace, json};

#[test]
fn every_tool_over_http() {
    let ws = Workspace::new();
    seed(&ws);
    let server = ws.serve();
    runtime().block_on(async {
        let client = http(&server).await;
        every_tool(&client, &ws).await;
        client.cancel().await.unwrap();
    });
}

/// An `initialize` request as a client first sends it.
fn initialize() -> String {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        }
    })
    .to_string()
}

#[test]
fn the_door_checks_host_and_origin_of_every_mcp_request() {
    let ws = Workspace::new();
    let server = ws.serve();
    let post = |headers: &[(&str, &str)]| {
        let mut request = server
            .request("POST", "/mcp")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        any_json(request.send().unwrap())
    };
    // A plain client (no Origin) is served.
    let (status, body) = post(&[]);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["serverInfo"]["name"], "notes", "{body}");
    // So is a page of the service itself.
    let (status, body) = post(&[("origin", &server.base)]);
    assert_eq!(status, 200, "{body}");
    // Another site's page, and a rebound host name, are not.
    let (status, body) = post(&[("origin", "http://evil.example")]);
    assert_refused(status, &body, "Cross-site request refused");
    let (status, body) = post(&[("host", "evil.example")]);
    assert_refused(status, &body, "Host \"evil.example\" is not allowed");
    // Even a GET, which the rest of the service lets other origins make.
    let r = server
        .request("GET", "/mcp")
        .header("origin", "http://evil.example")
        .header("accept", "text/event-stream")
        .send()
        .unwrap();
    let (status, body) = json(r);
    assert_refused(status, &body, "Cross-site request refused");
    // The endpoint is in the API's document.
    let (_, doc) = json(server.get("/api/v1/openapi.json"));
    assert!(doc["paths"]["/mcp"]["post"].is_object(), "{}", doc["paths"]);
}

/// Status and JSON body, whatever the JSON media type (the SDK's answers say
/// `application/json`, the service's own ErrorResponses add the charset).
fn any_json(response: reqwest::blocking::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().unwrap();
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, value)
}

fn assert_refused(status: u16, body: &Value, message: &str) {
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"], "Forbidden", "{body}");
    assert!(
        body["message"].as_str().unwrap().starts_with(message),
        "{body}"
    );
}

#[test]
fn failures_of_the_exchange_are_error_responses() {
    let ws = Workspace::new();
    let server = ws.serve();
    // Only POST: no stream is kept open between requests.
    let r = server
        .request("GET", "/mcp")
        .header("accept", "text/event-stream")
        .send()
        .unwrap();
    assert_eq!(r.headers()["allow"], "POST");
    let (status, body) = json(r);
    assert_eq!(status, 405, "{body}");
    assert!(body["message"].is_string(), "{body}");
    // A body that is not JSON-RPC.
    let r = server
        .request("POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body("{not json")
        .send()
        .unwrap();
    let (status, body) = json(r);
    assert!((400..500).contains(&status), "{status} {body}");
    // A client that accepts neither JSON nor a stream.
    let r = server
        .request("POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "text/html")
        .body(initialize())
        .send()
        .unwrap();
    let (status, body) = json(r);
    assert_eq!(status, 406, "{body}");
}

/// `/mcp` with a token in the `Authorization` header.
async fn http_with_token(server: &crate::support::Server, token: &str) -> McpClient {
    use rmcp::ServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let mut config = StreamableHttpClientTransportConfig::with_uri(server.url("/mcp"));
    config.auth_header = Some(token.to_string());
    let transport = StreamableHttpClientTransport::with_client(client, config);
    ().serve(transport).await.expect("initialize with a token")
}

#[test]
fn tokens_and_their_scopes_hold_over_mcp() {
    let ws = Workspace::new();
    seed(&ws);
    let made = |args: &[&str]| {
        let out = ws.run(&[&["token", "create"][..], args].concat());
        assert!(out.status.success(), "{}", crate::support::stderr(&out));
        crate::support::stdout(&out).trim().to_string()
    };
    let full = made(&["--name", "full"]);
    let reader = made(&["--name", "reader", "--read-only"]);
    let ideas = made(&["--name", "ideas", "--prefix", "ideas"]);
    let server = ws.serve();
    // No token, or a wrong one: 401 before any MCP exchange.
    let r = server
        .request("POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(initialize())
        .send()
        .unwrap();
    assert_eq!(r.status(), 401);
    runtime().block_on(async {
        let client = http_with_token(&server, &full).await;
        assert_eq!(names(&tools(&client).await), ALL_TOOLS);
        client.cancel().await.unwrap();

        let client = http_with_token(&server, &reader).await;
        assert_eq!(names(&tools(&client).await), READ_TOOLS);
        let message = refused(
            &client,
            "create_note",
            json!({"path": "x.md", "content": "x"}),
        )
        .await;
        assert!(message.contains("read-only"), "{message}");
        client.cancel().await.unwrap();

        let client = http_with_token(&server, &ideas).await;
        let all = ok(&client, "list_notes", json!({})).await;
        assert_eq!(all["notes"][0]["path"], "ideas/beta.md");
        assert_eq!(all["total"], 1);
        let outside = refused(&client, "read_note", json!({"path": "alpha.md"})).await;
        assert!(outside.contains("out of reach"), "{outside}");
        client.cancel().await.unwrap();
    });
    assert!(!ws.notes().join("x.md").exists());
}
