//! Things in the notes folder that are not regular files (a Unix socket, a FIFO, a
//! symlink to one), named like notes and attachments: missing on every read (the API,
//! the web interface, the command line), listed nowhere, found by no search, and the
//! server keeps answering.

#![cfg(target_os = "linux")]

use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::Duration;

use crate::support::{Workspace, assert_error, eventually, http_client, json, note, search_paths};

const WAIT: Duration = Duration::from_secs(10);

fn fifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
}

/// The special files of the test, relative to the notes folder: notes, then
/// attachments.
const NOTES: [&str; 4] = ["sock.md", "fifo.md", "link.md", "late.md"];
const FILES: [&str; 3] = ["a/sock.png", "a/fifo.png", "a/link.png"];

#[test]
fn sockets_fifos_and_links_to_them_are_missing_everywhere() {
    let ws = Workspace::new();
    // Real notes and files whose names share the words, for the searches to find.
    ws.write(
        "sock-notes.md",
        &note("Sock notes", &[], "About sock drawers."),
    );
    ws.write("a/sock-real.png", "\u{89}PNG");
    // Bound by this test and kept open for its length: a live socket.
    let _sock = UnixListener::bind(ws.notes().join("sock.md")).unwrap();
    let _file_sock = UnixListener::bind(ws.notes().join("a/sock.png")).unwrap();
    fifo(&ws.notes().join("fifo.md"));
    fifo(&ws.notes().join("a/fifo.png"));
    std::os::unix::fs::symlink("sock.md", ws.notes().join("link.md")).unwrap();
    std::os::unix::fs::symlink("sock.png", ws.notes().join("a/link.png")).unwrap();
    let server = ws.serve();
    // One more made while the server watches the folder.
    let _late = UnixListener::bind(ws.notes().join("late.md")).unwrap();

    // A read that waited on a FIFO would time out here instead of answering.
    let client = http_client(Duration::from_secs(5));
    let get = |path: &str, accept: &str| {
        client
            .get(server.url(path))
            .header("Accept", accept)
            .send()
            .unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    for name in NOTES {
        for accept in ["application/json", "text/markdown"] {
            let url = format!("/api/v1/notes/{name}");
            assert_error(get(&url, accept), 404, "Note not found");
        }
        for page in ["/raw", "/note"] {
            let status = get(&format!("{page}/{name}"), "text/html").status();
            assert_eq!(status, 404, "{page}/{name}");
        }
    }
    for name in FILES {
        assert_error(
            get(&format!("/api/v1/files/{name}"), "*/*"),
            404,
            "File not found",
        );
        let status = get(&format!("/file/{name}"), "*/*").status();
        assert_eq!(status, 404, "/file/{name}");
    }

    // The lists show the real ones only.
    let (status, list) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["notes"][0]["path"], "sock-notes.md");
    let (status, files) = json(server.get("/api/v1/files"));
    assert_eq!(status, 200, "{files}");
    let paths: Vec<_> = files["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(paths, ["a/sock-real.png"], "{files}");

    // Searches find the real note and file, once indexed, and nothing else.
    assert!(
        eventually(WAIT, || search_paths(&server, "sock") == ["sock-notes.md"]),
        "{:?}",
        search_paths(&server, "sock")
    );
    assert!(
        eventually(WAIT, || search_paths(&server, "file:sock")
            == ["a/sock-real.png"]),
        "{:?}",
        search_paths(&server, "file:sock")
    );
    for word in ["late", "link", "fifo"] {
        assert_eq!(search_paths(&server, word), Vec::<String>::new(), "{word}");
        let query = format!("file:{word}");
        assert_eq!(
            search_paths(&server, &query),
            Vec::<String>::new(),
            "{query}"
        );
    }

    // No history of them either.
    for name in NOTES {
        let r = server.get(&format!("/api/v1/history/{name}"));
        let status = r.status().as_u16();
        let body = r.text().unwrap();
        assert!(
            status == 404 || body.contains("\"versions\":[]"),
            "{name}: {status} {body}"
        );
    }

    // The command line: not listed, not shown, not found.
    let out = ws.run(&["list"]);
    assert!(out.status.success(), "{out:?}");
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(listed.contains("sock-notes.md"), "{listed}");
    for name in NOTES {
        assert!(!listed.lines().any(|l| l.starts_with(name)), "{listed}");
        let out = ws.run(&["show", name]);
        assert_eq!(out.status.code(), Some(1), "{name}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(err.trim_end(), format!("error: {name}: note not found"));
    }
    let out = ws.run(&["files"]);
    assert!(out.status.success(), "{out:?}");
    let files = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(files.lines().count(), 1, "{files}");
    assert!(files.starts_with("a/sock-real.png\t"), "{files}");

    // Still answering, and nothing went wrong on the way.
    let (status, body) = json(server.get("/api/v1/notes/sock-notes.md"));
    assert_eq!(status, 200, "{body}");
    let log = server.log();
    assert!(!log.contains("ERROR"), "{log}");
}
