//! Another program on the machine against the notes dir: a folder swapped for a symlink
//! to outside while requests run, special files named like notes, notes named like the
//! service's own files, and paths longer than the file system takes.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::support::{Workspace, assert_error, http_client, json, snapshot_of, stderr};

/// A marker that only the files outside the notes dir hold.
const SECRET: &str = "OUTSIDE-SECRET-7f3a9c";

/// How long the swap race runs, all operations together.
const RACE: Duration = Duration::from_secs(8);

/// Every file name under `dir`, symlinks not followed.
#[cfg(target_os = "linux")]
fn names_under(dir: &Path) -> Vec<String> {
    let mut out: Vec<_> = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .map(|entry| entry.unwrap().path().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

#[cfg(target_os = "linux")]
#[test]
fn a_folder_swapped_for_a_symlink_to_outside_leaks_and_touches_nothing() {
    use rustix::fs::{CWD, RenameFlags};
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("n.md"),
        format!("---\ntitle: {SECRET}\n---\n{SECRET} body\n"),
    )
    .unwrap();
    std::fs::write(outside.path().join("other.md"), format!("{SECRET} other\n")).unwrap();
    std::fs::create_dir(outside.path().join("sub")).unwrap();
    std::fs::write(
        outside.path().join("sub/deep.md"),
        format!("{SECRET} deep\n"),
    )
    .unwrap();
    ws.write("d/n.md", "---\ntitle: Inside\n---\ninside body\n");
    std::os::unix::fs::symlink(outside.path(), ws.notes().join("l")).unwrap();
    let before = snapshot_of(outside.path());
    let names_before = names_under(outside.path());
    let server = ws.serve();

    let stop = AtomicBool::new(false);
    let swaps = AtomicUsize::new(0);
    let served_inside = AtomicUsize::new(0);
    let statuses = std::sync::Mutex::new(std::collections::BTreeMap::<String, usize>::new());
    let (d, l) = (ws.notes().join("d"), ws.notes().join("l"));
    let deadline = Instant::now() + RACE;
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(CWD, &d, CWD, &l, RenameFlags::EXCHANGE).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        });
        type Op = fn(&crate::support::Server) -> reqwest::blocking::Response;
        let ops: [(&str, Op); 8] = [
            ("GET json", |s| s.get("/api/v1/notes/d/n.md")),
            ("GET markdown", |s| {
                s.request("GET", "/api/v1/notes/d/n.md")
                    .header("Accept", "text/markdown")
                    .send()
                    .unwrap()
            }),
            ("GET raw page", |s| s.get("/raw/d/n.md")),
            ("GET list", |s| s.get("/api/v1/notes")),
            ("PUT", |s| {
                s.put_markdown("/api/v1/notes/d/n.md", "---\ntitle: Inside\n---\nwritten\n")
            }),
            ("PUT new folder", |s| {
                s.put_markdown("/api/v1/notes/d/new/x.md", "new folder\n")
            }),
            ("DELETE", |s| {
                s.request("DELETE", "/api/v1/notes/d/n.md").send().unwrap()
            }),
            ("toggle", |s| {
                s.post_form("/api/public/toggle", "path=d%2Fn.md")
            }),
        ];
        for (name, op) in ops {
            let (server, stop, served_inside, statuses) =
                (&server, &stop, &served_inside, &statuses);
            scope.spawn(move || {
                while Instant::now() < deadline {
                    let response = op(server);
                    let status = response.status().as_u16();
                    let body = response.text().unwrap();
                    assert!(
                        !body.contains(SECRET),
                        "{name} answered outside text: {body}"
                    );
                    if body.contains("inside body") || body.contains("written") {
                        served_inside.fetch_add(1, Ordering::Relaxed);
                    }
                    *statuses
                        .lock()
                        .unwrap()
                        .entry(format!("{name} {status}"))
                        .or_default() += 1;
                }
                stop.store(true, Ordering::Relaxed);
            });
        }
    });
    let statuses = statuses.into_inner().unwrap();
    eprintln!(
        "{} swaps; inside text served {} times; {statuses:?}",
        swaps.load(Ordering::Relaxed),
        served_inside.load(Ordering::Relaxed)
    );
    assert!(swaps.load(Ordering::Relaxed) > 1000, "the race hardly ran");
    assert!(
        served_inside.load(Ordering::Relaxed) > 0,
        "no request ever reached the note"
    );
    assert_eq!(
        names_under(outside.path()),
        names_before,
        "a file appeared outside the notes dir"
    );
    assert_eq!(
        snapshot_of(outside.path()),
        before,
        "a file outside the notes dir changed"
    );
    for path in names_under(ws.root.path()) {
        let path = Path::new(&path);
        if path == server.log || path.to_string_lossy().contains(".notes/index") {
            continue;
        }
        if std::fs::symlink_metadata(path).unwrap().is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
            assert!(
                !text.contains(SECRET),
                "{} holds outside text",
                path.display()
            );
        }
    }
    assert!(
        statuses.keys().all(|k| !k.ends_with(" 500")),
        "server errors under the race: {statuses:?}\n{}",
        server.log()
    );
    // Still serving, and the note is where it was.
    let (status, _) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
}

#[cfg(target_os = "linux")]
#[test]
fn special_files_named_like_notes_are_not_notes() {
    let ws = Workspace::new();
    ws.write("a.md", "a note\n");
    let fifo = ws.notes().join("fifo.md");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let server = ws.serve();
    let client = http_client(Duration::from_secs(5));
    let get = |path: &str| client.get(server.url(path)).send().unwrap();
    assert_error(get("/api/v1/notes/fifo.md"), 404, "Note not found");
    // Two at once: a read blocked on the FIFO would hold a worker each.
    std::thread::scope(|scope| {
        let reads: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    client
                        .get(server.url("/api/v1/notes/fifo.md"))
                        .header("Accept", "text/markdown")
                        .send()
                        .unwrap()
                        .status()
                        .as_u16()
                })
            })
            .collect();
        for read in reads {
            assert_eq!(read.join().unwrap(), 404);
        }
    });
    assert_eq!(get("/raw/fifo.md").status(), 404);
    let (status, note) = json(get("/api/v1/notes/a.md"));
    assert_eq!((status, note["content"].as_str()), (200, Some("a note\n")));
    let (_, list) = json(get("/api/v1/notes"));
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["notes"][0]["path"], "a.md");
    // Neither replaced nor removed: it is not a note.
    let put = server.put_markdown("/api/v1/notes/fifo.md", "x");
    assert!(put.status().as_u16() >= 400, "{}", put.status());
    assert_error(
        server
            .request("DELETE", "/api/v1/notes/fifo.md")
            .send()
            .unwrap(),
        404,
        "Note not found",
    );
    let (status, _) = server.toggle("fifo.md");
    assert_eq!(status, 404);
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(
        &std::fs::symlink_metadata(&fifo).unwrap().file_type()
    ));
    assert_eq!(json(get("/api/v1/notes/a.md")).0, 200);
}

#[test]
fn names_of_service_files_are_refused_on_write() {
    let ws = Workspace::new();
    ws.write("a/keep.md", "kept\n");
    let server = ws.serve();
    let before = snapshot_of(&ws.notes());
    for path in [".hidden/x.md", "a/.x.md", ".tmp-keep.md", "a/.b/c.md"] {
        let url = format!("/api/v1/notes/{path}");
        assert_error(server.put_markdown(&url, "x"), 400, "Invalid path");
        assert_error(server.put_json(&url, "{}"), 400, "Invalid path");
        let out = ws.run_stdin(&["put", path], b"x");
        assert_eq!(out.status.code(), Some(1), "put {path}");
        assert_eq!(stderr(&out), format!("error: {path}: invalid path\n"));
        let origin = server.base.clone();
        let response = server
            .request("POST", "/save")
            .header("Origin", origin)
            .header("Sec-Fetch-Site", "same-origin")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(
                serde_urlencoded::to_string([
                    ("mode", "new"),
                    ("path", path),
                    ("title", "t"),
                    ("tags", ""),
                    ("body", "x"),
                ])
                .unwrap(),
            )
            .send()
            .unwrap();
        assert_eq!(response.status().as_u16(), 400, "web save of {path}");
    }
    assert_eq!(snapshot_of(&ws.notes()), before, "something was written");
    // Reads of such names are as before: absent here.
    assert_error(server.get("/api/v1/notes/a/.x.md"), 404, "Note not found");
}

#[test]
fn paths_longer_than_the_file_system_takes_are_invalid() {
    let ws = Workspace::new();
    let server = ws.serve();
    let flat = format!("{}.md", "a".repeat(4093));
    let deep = format!("{}xxxxx.md", "abcdefg/".repeat(511));
    assert_eq!((flat.len(), deep.len()), (4096, 4096));
    let long_name = format!("d/{}.md", "b".repeat(253));
    for path in [&flat, &deep, &long_name] {
        let url = format!("/api/v1/notes/{path}");
        assert_error(server.get(&url), 400, "Invalid path");
        assert_error(server.put_markdown(&url, "x"), 400, "Invalid path");
        assert_error(
            server.request("DELETE", &url).send().unwrap(),
            400,
            "Invalid path",
        );
    }
    let made: Vec<_> = std::fs::read_dir(ws.notes())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|name| name != ".notes")
        .collect();
    assert!(made.is_empty(), "{made:?}");
    // The longest name that fits still works.
    let fits = format!("/api/v1/notes/d/{}.md", "b".repeat(252));
    assert_eq!(server.put_markdown(&fits, "x").status(), 201);
}
