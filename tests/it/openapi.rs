//! The OpenAPI document: served as committed, and every live response matches it
//! (schemathesis, bounded, against the real server on loopback).

use std::process::Command;

use crate::support::{Workspace, json};

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
        "/api/v1/openapi.json",
        "/api/v1/search",
        "/api/v1/links/{path}",
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

#[test]
fn live_responses_match_the_document() {
    let found = Command::new("schemathesis")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "schemathesis is required in CI (pip install schemathesis)"
        );
        eprintln!("SKIPPED: schemathesis is not installed (pip install schemathesis)");
        return;
    }
    let ws = Workspace::new();
    let server = ws.serve();
    // Every check but positive_data_acceptance: a well-formed If-Match that names an
    // old version is rightly refused with 412, and a valid path may name no note (404).
    let out = Command::new("schemathesis")
        .args(["run", &server.url("/api/v1/openapi.json")])
        .args([
            "--checks",
            "all",
            "--exclude-checks",
            "positive_data_acceptance",
        ])
        .args([
            "--max-examples",
            "100",
            "--generation-deterministic",
            "--request-timeout",
            "10",
        ])
        .env("SCHEMATHESIS_HOOKS", "")
        .env("NO_COLOR", "1")
        .current_dir(ws.root.path())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "schemathesis found failures:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("passed"), "{report}");
}
