//! One server per notes folder: a second `serve` on a folder another one serves exits 1
//! with one line naming the owner's pid and URL, and the first keeps serving; a server
//! killed with SIGKILL leaves the folder free; read commands work beside a server.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Server, Workspace, eventually, json, stderr};

/// Runs `notes serve --listen <listen>` on `ws` and expects it to end by itself within
/// a few seconds (a server that starts instead is killed and the test fails).
fn second_serve(ws: &Workspace, listen: &str) -> Output {
    let mut child = ws
        .cli()
        .args(["serve", "--listen", listen])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start notes serve");
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "a second serve on the same folder kept running:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                stderr(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Checks that `out` is the refusal naming `owner`: exit 1, one line on stderr, nothing
/// on stdout.
fn assert_refused(ws: &Workspace, out: &Output, owner: &Server) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert_eq!(
        err,
        format!(
            "error: notes folder {} is already served by pid {} on {}\n",
            ws.notes().display(),
            owner.pid(),
            owner.base
        )
    );
    assert!(
        out.stdout.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

fn notes_count(server: &Server) -> usize {
    let (status, body) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200, "{body}");
    body["notes"].as_array().map_or(0, Vec::len)
}

#[test]
fn a_second_serve_is_refused_and_the_first_keeps_serving() {
    let ws = Workspace::new();
    ws.write("a.md", "# A\n");
    let mut first = ws.serve();
    assert_eq!(notes_count(&first), 1);

    // On another port, and on the first one's own address: the folder's owner is named
    // (not "address in use").
    let first_addr = first.base.trim_start_matches("http://").to_string();
    for listen in ["127.0.0.1:0", first_addr.as_str()] {
        let out = second_serve(&ws, listen);
        assert_refused(&ws, &out, &first);
    }

    // The refused start changed nothing: the first serves, writes and still owns.
    ws.write("b.md", "# B\n");
    assert!(eventually(Duration::from_secs(10), || notes_count(&first) == 2));
    let log = first.log();
    assert!(!log.contains("ERROR"), "{log}");
    assert_refused(&ws, &second_serve(&ws, "127.0.0.1:0"), &first);

    // Commands that only read keep working beside the server.
    for args in [&["list"][..], &["show", "a.md"], &["search", "B"]] {
        let out = ws.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }

    // Once the first has stopped, the folder is free again.
    assert!(first.terminate(), "server did not exit cleanly on SIGTERM");
    let second = ws.serve();
    assert_eq!(notes_count(&second), 2);
}

#[test]
fn a_server_killed_with_sigkill_leaves_the_folder_free() {
    let ws = Workspace::new();
    let mut first = ws.serve();
    let pid = first.pid().to_string();
    assert!(
        Command::new("kill")
            .args(["-KILL", &pid])
            .status()
            .unwrap()
            .success()
    );
    assert!(
        first.wait_exit(Duration::from_secs(10)).is_some(),
        "still running"
    );

    let second = ws.serve();
    assert_eq!(notes_count(&second), 0);
    // The lock file now names the new server, not the dead one.
    assert_refused(&ws, &second_serve(&ws, "127.0.0.1:0"), &second);
}
