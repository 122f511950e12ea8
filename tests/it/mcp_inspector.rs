//! The official MCP inspector's command line (`npx @modelcontextprotocol/inspector
//! --cli`) against `notes mcp` over stdio: another implementation of the protocol than
//! the SDK the server is built on. Needs Node; under `CI=true` a missing Node fails.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::mcp_client::{ALL_TOOLS, mismatches, seed};
use crate::support::{Workspace, bin, note};

/// The inspector version the tests run (another may word its output otherwise).
const INSPECTOR: &str = "@modelcontextprotocol/inspector@0.15.0";

/// Longest one inspector run may take: the first downloads the package (about a
/// minute here), later ones start from npm's cache in seconds.
const RUN_CAP: Duration = Duration::from_secs(240);

/// Whether npx can run here; it must under `CI=true` (`.ci/run` installs Node).
fn npx_found() -> bool {
    let found = Command::new("npx")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "Node's npx is required in CI (apt-get install nodejs npm)"
        );
        eprintln!("SKIPPED: npx is not installed (apt-get install nodejs npm)");
    }
    found
}

/// Runs the inspector's CLI on `notes mcp` over `ws` with `method_args`; its JSON
/// output. The whole process group is killed past `RUN_CAP`.
fn inspect(ws: &Workspace, method_args: &[&str]) -> Value {
    let out_path = ws.root.path().join("inspector.out");
    let err_path = ws.root.path().join("inspector.err");
    let notes_dir = format!("NOTES_DIR={}", ws.notes().display());
    let mut child = ws
        .command("npx")
        .args(["-y", INSPECTOR, "--cli", "-e", &notes_dir, bin(), "mcp"])
        .args(method_args)
        .env("NO_UPDATE_NOTIFIER", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .process_group(0)
        .spawn()
        .expect("start npx");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > RUN_CAP {
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            child.wait().unwrap();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = std::fs::read_to_string(&out_path).unwrap();
    let err = std::fs::read_to_string(&err_path).unwrap();
    let Some(status) = status else {
        panic!("the inspector ran past {RUN_CAP:?}:\n{out}\n{err}");
    };
    assert!(status.success(), "the inspector failed:\n{out}\n{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}:\n{out}\n{err}"))
}

#[test]
fn the_inspector_lists_the_tools_and_calls_them() {
    if !npx_found() {
        return;
    }
    let ws = Workspace::new();
    seed(&ws);
    ws.write("zeta.md", &note("Zeta", &[], "Last of three.\n"));
    let listed = inspect(&ws, &["--method", "tools/list"]);
    let tools: Vec<rmcp::model::Tool> =
        serde_json::from_value(listed["tools"].clone()).unwrap_or_else(|e| panic!("{e}: {listed}"));
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ALL_TOOLS);
    // Every tool shows the inspector an output schema, a JSON Schema object.
    for tool in &listed["tools"].as_array().unwrap()[..] {
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
    }
    // A whole number given on its command line as text (`limit=2`) is taken.
    let page = inspect(
        &ws,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "list_notes",
            "--tool-arg",
            "limit=2",
        ],
    );
    assert_eq!(page["isError"], false, "{page}");
    let content = &page["structuredContent"];
    let paths: Vec<&str> = content["notes"]
        .as_array()
        .unwrap_or_else(|| panic!("{page}"))
        .iter()
        .map(|n| n["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["alpha.md", "ideas/beta.md"], "{page}");
    assert_eq!(content["total"], 3, "{page}");
    assert!(content["nextCursor"].is_string(), "{page}");
    let list_notes = tools.iter().find(|t| t.name == "list_notes").unwrap();
    assert_eq!(mismatches(list_notes, content), Vec::<String>::new());
    let read = inspect(
        &ws,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "read_note",
            "--tool-arg",
            "path=ideas/beta.md",
        ],
    );
    assert_eq!(read["isError"], false, "{read}");
    assert_eq!(
        read["structuredContent"]["content"],
        ws.read("ideas/beta.md")
    );
    let read_note = tools.iter().find(|t| t.name == "read_note").unwrap();
    let answer = &read["structuredContent"];
    assert_eq!(mismatches(read_note, answer), Vec::<String>::new());
}
