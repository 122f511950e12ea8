//! The OpenAPI document: served as committed, and every live response matches it
//! (schemathesis, bounded, against the real server on loopback).

use std::hash::{BuildHasher, Hasher, RandomState};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Server, Workspace, json, note};

const COMMITTED: &str = include_str!("../../assets/openapi.json");

#[test]
fn the_document_is_served_and_covers_every_route() {
    let ws = Workspace::new();
    let server = ws.serve();
    let (status, doc) = json(server.get("/api/v1/openapi.json"));
    assert_eq!(status, 200);
    assert_eq!(
        doc,
        serde_json::from_str::<serde_json::Value>(COMMITTED).unwrap()
    );
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    for route in [
        "/api/v1/notes",
        "/api/v1/notes/{path}",
        "/api/v1/sections/{path}",
        "/api/v1/pages/notes",
        "/api/v1/openapi.json",
        "/api/v1/search",
        "/api/v1/links/{path}",
        "/api/v1/files",
        "/api/v1/files/{path}",
        "/api/public/toggle",
        "/api/public/list",
        "/public/",
        "/public/{file}",
    ] {
        assert!(paths.contains_key(route), "{route} is not documented");
    }
    // Every operation can be refused by the Host and cross-site checks.
    for (route, operations) in paths {
        for (method, operation) in operations.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            assert!(
                operation["responses"].get("403").is_some(),
                "{method} {route} does not document 403"
            );
        }
    }
    let r = server
        .request("POST", "/api/v1/openapi.json")
        .send()
        .unwrap();
    assert_eq!(r.status(), 405);
    assert_eq!(r.headers()["allow"], "GET");
}

/// The schema at `pointer` in the committed document, as a validator.
fn schema_at(pointer: &str) -> jsonschema::Validator {
    let doc: serde_json::Value = serde_json::from_str(COMMITTED).unwrap();
    let schema = doc
        .pointer(pointer)
        .unwrap_or_else(|| panic!("no schema at {pointer}"));
    jsonschema::draft202012::new(schema).unwrap_or_else(|e| panic!("{pointer}: {e}"))
}

/// A path with each segment percent-encoded, `/` kept.
fn encoded(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            percent_encoding::utf8_percent_encode(segment, percent_encoding::NON_ALPHANUMERIC)
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// For each of `inside` and `outside`, the document says whether `schema` allows it, and
/// the server agrees: `answer` gives the status, 400 exactly for what is outside.
fn agree(
    what: &str,
    schema: &str,
    inside: &[&str],
    outside: &[&str],
    answer: impl Fn(&str) -> u16,
) {
    let schema = schema_at(schema);
    for (value, allowed) in inside
        .iter()
        .map(|v| (v, true))
        .chain(outside.iter().map(|v| (v, false)))
    {
        assert_eq!(
            schema.is_valid(&serde_json::json!(value)),
            allowed,
            "{what}: the document's verdict on {value:?}"
        );
        let status = answer(value);
        assert_eq!(
            status != 400,
            allowed,
            "{what}: {value:?} answered {status}, the document says {}",
            if allowed { "allowed" } else { "refused" }
        );
    }
}

#[test]
fn the_documented_paths_are_those_the_server_takes() {
    let ws = Workspace::new();
    ws.write("here.md", &note("Here", &[], "text\n"));
    let server = ws.serve();
    let notes = "/paths/~1api~1v1~1notes~1{path}/parameters/0/schema";
    agree(
        "PUT a note",
        notes,
        &[
            "a.md",
            "été/une note.md",
            "a b/c-d_e.md",
            "x.md.md",
            "n/100% #1?.md",
        ],
        &[
            ".hidden.md",
            "a/.b/c.md",
            "a\\b.md",
            "a.txt",
            "a/b",
            "a\u{0}.md",
        ],
        |path| {
            server
                .put_markdown(&format!("/api/v1/notes/{}", encoded(path)), "x\n")
                .status()
                .as_u16()
        },
    );
    agree(
        "PUT an attachment",
        "/paths/~1api~1v1~1files~1{path}/parameters/0/schema",
        &[
            "img.png",
            "été/plan 1.pdf",
            "md",
            "a.d",
            "notes.md.bak",
            "x/amd",
            "d",
        ],
        &[
            "a.md",
            "x/y.md",
            ".x.png",
            "a/.h/b.png",
            "a\\b.png",
            "x/.md",
        ],
        |path| {
            let url = format!("/api/v1/files/{}", encoded(path));
            let r = server.request("PUT", &url).body("bytes").send().unwrap();
            r.status().as_u16()
        },
    );
    agree(
        "GET a history",
        "/paths/~1api~1v1~1history~1{path}/parameters/0/schema",
        &["here.md", "none.md", "img.png", "a/b"],
        &[".x.png", "a/.h/b.png", "a\\b.md", "x\u{0}"],
        |path| {
            let url = format!("/api/v1/history/{}", encoded(path));
            server.get(&url).status().as_u16()
        },
    );
    agree(
        "list attachments under a folder",
        "/paths/~1api~1v1~1files/get/parameters/0/schema",
        &["", ".", "a/b/", "été", "x.md"],
        &[".x", "a/.h", "a\\b", "../a"],
        |under| {
            let query = serde_urlencoded::to_string([("under", under)]).unwrap();
            server
                .get(&format!("/api/v1/files?{query}"))
                .status()
                .as_u16()
        },
    );
    agree(
        "move a note",
        "/components/schemas/MoveRequest/properties/from",
        &["here.md", "none.md"],
        &["", ".x.md", "a.txt", "a\\b.md"],
        |from| {
            let body = serde_json::json!({"from": from, "to": "there/moved.md"});
            let r = server
                .request("POST", "/api/v1/move")
                .json(&body)
                .send()
                .unwrap();
            let status = r.status().as_u16();
            if status == 200 {
                // Back where it was, for the next value.
                let back = serde_json::json!({"from": "there/moved.md", "to": from});
                let r = server
                    .request("POST", "/api/v1/move")
                    .json(&back)
                    .send()
                    .unwrap();
                assert_eq!(r.status(), 200);
            }
            status
        },
    );
    agree(
        "toggle a note",
        "/paths/~1api~1public~1toggle/post/requestBody/content/application~1json/schema/properties/path",
        &["none.md", "a/none.md"],
        &["", "a.txt", "a\\b.md"],
        |path| server.toggle(path).0,
    );
    // A valid path through a file names no note (404, never a server error).
    ws.write("file", "not a folder\n");
    for (method, url) in [
        ("GET", "/api/v1/notes/file/a.md"),
        ("DELETE", "/api/v1/notes/file/a.md"),
        ("GET", "/api/v1/files/file/a.png"),
    ] {
        let r = server.request(method, url).send().unwrap();
        assert_eq!(r.status(), 404, "{method} {url}");
    }
    let from = serde_json::json!({"from": "file/a.md", "to": "b.md"});
    let r = server
        .request("POST", "/api/v1/move")
        .json(&from)
        .send()
        .unwrap();
    assert_eq!(r.status(), 404, "a move from a path through a file");
    // /mcp: the Accept header must list both types.
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let accept = schema_at("/paths/~1mcp/post/parameters/0/schema");
    for (value, allowed) in [
        ("application/json, text/event-stream", true),
        ("text/event-stream, application/json", true),
        ("application/json", false),
        ("text/event-stream", false),
    ] {
        assert_eq!(
            accept.is_valid(&serde_json::json!(value)),
            allowed,
            "{value}"
        );
        let r = server
            .request("POST", "/mcp")
            .header("Accept", value)
            .header("Content-Type", "application/json")
            .body(ping)
            .send()
            .unwrap();
        let expected = if allowed { 200 } else { 406 };
        assert_eq!(r.status().as_u16(), expected, "Accept: {value}");
    }
}

/// The schemathesis version `.ci/run` installs; other versions may generate differently.
const SCHEMATHESIS: &str = "4.32.5";

/// Longest one schemathesis run may take: each takes seconds on a quiet machine and
/// under a minute on a loaded one (every operation gets up to 50 examples, and each
/// route added adds its share), so the three together stay far below the suite's
/// budget while a hung run still fails.
const RUN_CAP: Duration = Duration::from_secs(180);

/// Whether schemathesis can run here; it must under `CI=true`.
fn schemathesis_found() -> bool {
    let version = Command::new("schemathesis").arg("--version").output();
    let found = version.as_ref().is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "schemathesis is required in CI (pip install schemathesis=={SCHEMATHESIS})"
        );
        eprintln!(
            "SKIPPED: schemathesis is not installed (pip install schemathesis=={SCHEMATHESIS})"
        );
    } else if let Ok(o) = version {
        let text = String::from_utf8_lossy(&o.stdout);
        if !text.contains(SCHEMATHESIS) {
            eprintln!("schemathesis {SCHEMATHESIS} is the tested version; found {text}");
        }
    }
    found
}

/// The seed of the random pass: `NOTES_FUZZ_SEED` replays a failed one, else a new one
/// from the standard library's randomly keyed hasher.
fn fuzz_seed() -> u64 {
    std::env::var("NOTES_FUZZ_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| RandomState::new().build_hasher().finish())
}

/// The settings of every run: per operation, the refusals of valid requests that are
/// right (412 for an If-Match naming another version, …).
const CONFIG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/schemathesis.toml");

/// Runs schemathesis against the live document with every check (positive data
/// accepted with the statuses of `CONFIG`), at most 50 examples per operation, killed
/// after `RUN_CAP`. Fails the test with the report on any failure; `what` names the run
/// in that message (with its seed, to replay it).
fn schemathesis(ws: &Workspace, server: &Server, what: &str, phase_args: &[&str]) {
    let out_path = ws.root.path().join("schemathesis.out");
    let out = std::fs::File::create(&out_path).unwrap();
    let mut child = Command::new("schemathesis")
        .args(["--config-file", CONFIG])
        .args(["run", &server.url("/api/v1/openapi.json")])
        .args([
            "--checks",
            "all",
            "--max-examples",
            "50",
            "--request-timeout",
            "10",
        ])
        .args(phase_args)
        .env("SCHEMATHESIS_HOOKS", "")
        .env("NO_COLOR", "1")
        .current_dir(ws.root.path())
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > RUN_CAP {
            child.kill().unwrap();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let report = std::fs::read_to_string(&out_path).unwrap();
    let Some(status) = status else {
        panic!("schemathesis ({what}) ran past {RUN_CAP:?}:\n{report}");
    };
    assert!(
        status.success(),
        "schemathesis ({what}) found failures:\n{report}"
    );
    assert!(
        report.contains("passed"),
        "schemathesis ({what}):\n{report}"
    );
}

#[test]
fn live_responses_match_the_document() {
    if !schemathesis_found() {
        return;
    }
    let ws = Workspace::new();
    let server = ws.serve();
    schemathesis(
        &ws,
        &server,
        "deterministic",
        &[
            "--phases",
            "examples,coverage,fuzzing",
            "--generation-deterministic",
        ],
    );
}

#[test]
fn live_responses_match_the_document_for_a_random_seed() {
    if !schemathesis_found() {
        return;
    }
    let seed = fuzz_seed();
    // Printed as well as in the failure message, so any run can be replayed.
    eprintln!("schemathesis random pass: NOTES_FUZZ_SEED={seed}");
    let ws = Workspace::new();
    let server = ws.serve();
    schemathesis(
        &ws,
        &server,
        &format!("random pass, replay with NOTES_FUZZ_SEED={seed}"),
        &[
            "--phases",
            "examples,coverage,fuzzing",
            "--seed",
            &seed.to_string(),
            "--generation-database",
            "none",
        ],
    );
}

#[test]
fn sequences_along_the_documented_links_match_the_document() {
    if !schemathesis_found() {
        return;
    }
    let seed = fuzz_seed();
    eprintln!("schemathesis stateful phase: NOTES_FUZZ_SEED={seed}");
    let ws = Workspace::new();
    // Notes to start from: the links from the list and from search lead to them.
    ws.write("alpha.md", &note("Alpha", &["words"], "alpha words\n"));
    ws.write("ideas/beta.md", &note("Beta", &[], "beta words\n"));
    ws.write(
        "ideas/gamma.md",
        &note("Gamma", &["words"], "gamma words\n"),
    );
    let server = ws.serve();
    schemathesis(
        &ws,
        &server,
        &format!("stateful phase, replay with NOTES_FUZZ_SEED={seed}"),
        &[
            "--phases",
            "stateful",
            "--seed",
            &seed.to_string(),
            "--generation-database",
            "none",
        ],
    );
}
