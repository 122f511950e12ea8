//! Reliability: lost-update protection, crash safety, hostile bodies, many connections.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{Workspace, assert_error, files_under, http_client, json, snapshot_of};

#[test]
fn etags_guard_against_lost_updates() {
    let ws = Workspace::new();
    ws.write("n.md", "---\ntitle: N\n---\nv1\n");
    let server = ws.serve();
    let first = server.get("/api/v1/notes/n.md");
    let etag = first.headers()["etag"].to_str().unwrap().to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    let raw = server
        .request("GET", "/api/v1/notes/n.md")
        .header("Accept", "text/markdown")
        .send()
        .unwrap();
    assert_eq!(
        raw.headers()["etag"].to_str().unwrap(),
        etag,
        "same bytes, same tag"
    );

    // A write with the current tag succeeds and returns the new tag.
    let ok = server
        .request("PUT", "/api/v1/notes/n.md")
        .header("Content-Type", "text/markdown")
        .header("If-Match", &etag)
        .body("v2")
        .send()
        .unwrap();
    assert_eq!(ok.status(), 200);
    let new_tag = ok.headers()["etag"].to_str().unwrap().to_string();
    assert_ne!(new_tag, etag);
    let on_disk = ws.read("n.md");

    // A write or delete with the old tag is refused and changes nothing.
    let stale = server
        .request("PUT", "/api/v1/notes/n.md")
        .header("Content-Type", "text/markdown")
        .header("If-Match", &etag)
        .body("v3")
        .send()
        .unwrap();
    assert_error(
        stale,
        412,
        "The note has changed since it was read (If-Match does not match)",
    );
    let stale = server
        .request("DELETE", "/api/v1/notes/n.md")
        .header("If-Match", &etag)
        .send()
        .unwrap();
    assert_error(
        stale,
        412,
        "The note has changed since it was read (If-Match does not match)",
    );
    assert_eq!(ws.read("n.md"), on_disk);

    // If-None-Match: * creates only.
    let exists = server
        .request("PUT", "/api/v1/notes/n.md")
        .header("Content-Type", "application/json")
        .header("If-None-Match", "*")
        .body("{}")
        .send()
        .unwrap();
    assert_error(exists, 412, "The note already exists (If-None-Match: *)");
    let created = server
        .request("PUT", "/api/v1/notes/fresh.md")
        .header("Content-Type", "application/json")
        .header("If-None-Match", "*")
        .body("{}")
        .send()
        .unwrap();
    assert_eq!(created.status(), 201);
    let gone = server
        .request("DELETE", "/api/v1/notes/n.md")
        .header("If-Match", &new_tag)
        .send()
        .unwrap();
    assert_eq!(gone.status(), 200);
    let missing = server
        .request("PUT", "/api/v1/notes/n.md")
        .header("Content-Type", "text/markdown")
        .header("If-Match", "*")
        .body("x")
        .send()
        .unwrap();
    assert_eq!(missing.status(), 412);
    assert!(!ws.notes().join("n.md").exists());
}

#[test]
fn acknowledged_writes_survive_a_kill_9() {
    let ws = Workspace::new();
    let server = Arc::new(Mutex::new(Some(ws.serve())));
    let base = server.lock().unwrap().as_ref().unwrap().base.clone();
    let acknowledged = Arc::new(Mutex::new(HashMap::<String, String>::new()));
    let client = http_client(Duration::from_secs(5));
    let deadline = Instant::now() + Duration::from_secs(20);
    let writers: Vec<_> = (0..8)
        .map(|t| {
            let (client, base, acknowledged) = (client.clone(), base.clone(), acknowledged.clone());
            std::thread::spawn(move || {
                for i in 0..2_000 {
                    if Instant::now() > deadline {
                        break;
                    }
                    let path = format!("w{t}/n{i}.md");
                    let content = format!(
                        "---\ntitle: {t}-{i}\n---\n{}\n",
                        format!("{t}:{i} ").repeat(500 + i % 700)
                    );
                    let sent = client
                        .put(format!("{base}/api/v1/notes/{path}"))
                        .header("Content-Type", "application/json")
                        .body(json!({ "content": content }).to_string())
                        .send();
                    match sent {
                        Ok(r) if r.status().is_success() => {
                            acknowledged.lock().unwrap().insert(path, content);
                        }
                        _ => break,
                    }
                }
            })
        })
        .collect();
    // Kill mid-storm, once some writes were acknowledged.
    let started = Instant::now();
    while acknowledged.lock().unwrap().len() < 200 && started.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(server.lock().unwrap().take()); // SIGKILL
    for w in writers {
        w.join().unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(
        acknowledged.len() >= 200,
        "only {} writes acknowledged",
        acknowledged.len()
    );

    let restarted = ws.serve();
    for (path, content) in &acknowledged {
        assert_eq!(
            &ws.read(path),
            content,
            "acknowledged write to {path} lost or torn"
        );
    }
    // Every acknowledged version is in the history, byte for byte.
    for (path, content) in &acknowledged {
        let (status, history) = json(restarted.get(&format!("/api/v1/history/{path}")));
        assert_eq!(status, 200, "{path} has no history: {history}");
        let found = history["versions"].as_array().unwrap().iter().any(|v| {
            let id = v["id"].as_str().unwrap();
            let r = restarted
                .request("GET", &format!("/api/v1/history/{path}?version={id}"))
                .header("Accept", "text/markdown")
                .send()
                .unwrap();
            r.status() == 200 && r.text().unwrap() == *content
        });
        assert!(
            found,
            "the acknowledged version of {path} is not in its history"
        );
    }
    // Every note on disk is whole: one of the bodies a writer sent, never a prefix.
    let (_, list) = json(restarted.get("/api/v1/notes"));
    for note in list["notes"].as_array().unwrap() {
        let path = note["path"].as_str().unwrap();
        let text = ws.read(path);
        let (t, i) = path
            .trim_start_matches('w')
            .trim_end_matches(".md")
            .split_once("/n")
            .unwrap();
        let i: usize = i.parse().unwrap();
        let expected = format!(
            "---\ntitle: {t}-{i}\n---\n{}\n",
            format!("{t}:{i} ").repeat(500 + i % 700)
        );
        assert_eq!(text, expected, "{path} is torn");
    }
    // Temp files of interrupted writes are gone after the restart.
    let temps = files_under(&ws.notes())
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".tmp-"))
        .count();
    assert_eq!(temps, 0);
}

#[test]
fn hostile_yaml_is_harmless() {
    let ws = Workspace::new();
    let server = ws.serve();
    let mut laughs = String::from(
        "---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (name, prev) in ["b", "c", "d", "e", "f", "g", "h", "i"]
        .iter()
        .zip(["a", "b", "c", "d", "e", "f", "g", "h"])
    {
        laughs.push_str(&format!("{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
    }
    laughs.push_str("title: bomb\n---\nbody\n");
    let deep = format!(
        "---\ntitle: deep\nx: {}{}\n---\nbody\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let huge = format!(
        "---\ntitle: huge\nblob: \"{}\"\n---\nbody\n",
        "z".repeat(2_000_000)
    );
    for (name, text) in [
        ("laughs.md", &laughs),
        ("deep.md", &deep),
        ("huge.md", &huge),
    ] {
        let started = Instant::now();
        let r = server.put_markdown(&format!("/api/v1/notes/{name}"), text);
        assert!(
            r.status().is_success() || r.status().is_client_error(),
            "{name}: {}",
            r.status()
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{name} took {:?}",
            started.elapsed()
        );
        let r = server.get(&format!("/api/v1/notes/{name}"));
        assert!(
            r.status().as_u16() == 200 || r.status().as_u16() == 404,
            "{name}"
        );
    }
    let (status, _) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
}

#[test]
fn many_idle_connections_do_not_block_others() {
    let ws = Workspace::new();
    let server = ws.serve();
    let addr = server.addr().to_string();
    let idle: Vec<_> = (0..200)
        .map(|_| std::net::TcpStream::connect(&addr).unwrap())
        .collect();
    let (status, _) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
    drop(idle);
    let (status, _) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
}

#[test]
fn slow_clients_are_cut_off() {
    use std::io::{Read, Write};
    let ws = Workspace::new();
    let server = ws.serve_with(&["--request-timeout", "1"]);
    let addr = server.addr().to_string();

    // A head that never ends: the connection is closed after the timeout.
    let mut slow_head = std::net::TcpStream::connect(&addr).unwrap();
    slow_head
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    slow_head
        .write_all(b"GET /api/v1/notes HTTP/1.1\r\nHost: localhost\r\n")
        .unwrap();
    let started = Instant::now();
    let mut buf = Vec::new();
    let _ = slow_head.read_to_end(&mut buf);
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(8),
        "{waited:?}"
    );

    // A body that stalls: 408 with an ErrorResponse, and nothing written.
    let mut slow_body = std::net::TcpStream::connect(&addr).unwrap();
    slow_body
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    slow_body
        .write_all(b"PUT /api/v1/notes/slow.md HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/markdown\r\nContent-Length: 100\r\n\r\nonly ten b")
        .unwrap();
    let mut response = String::new();
    let _ = slow_body.read_to_string(&mut response);
    assert!(response.starts_with("HTTP/1.1 408"), "{response}");
    assert!(
        response.contains("\"message\": \"The request body stalled\""),
        "{response}"
    );
    assert!(!ws.notes().join("slow.md").exists());

    let (status, _) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
}

#[test]
fn concurrent_writers_distinct_and_shared() {
    let ws = Workspace::new();
    let server = Arc::new(ws.serve());
    let shared_bodies: Arc<Vec<String>> = Arc::new(
        (0..100)
            .map(|i| format!("{}\n", format!("body-{i:03} ").repeat(2_000)))
            .collect(),
    );
    let stop_readers = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Readers poll the shared note all along: each read is one whole submitted body.
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (server, bodies, stop) =
                (server.clone(), shared_bodies.clone(), stop_readers.clone());
            std::thread::spawn(move || {
                let mut seen = 0;
                for _ in 0..5_000 {
                    if stop.load(std::sync::atomic::Ordering::Relaxed) {
                        break;
                    }
                    let r = server
                        .request("GET", "/api/v1/notes/shared.md")
                        .header("Accept", "text/markdown")
                        .send()
                        .unwrap();
                    if r.status() == 200 {
                        let text = r.text().unwrap();
                        assert!(
                            bodies.contains(&text),
                            "a reader saw a partial note ({} bytes)",
                            text.len()
                        );
                        seen += 1;
                    }
                }
                seen
            })
        })
        .collect();
    let writers: Vec<_> = (0..16)
        .map(|t| {
            let (server, bodies) = (server.clone(), shared_bodies.clone());
            std::thread::spawn(move || {
                for i in (t..200).step_by(16) {
                    let r = server.put_json(
                        &format!("/api/v1/notes/many/n{i:03}.md"),
                        &json!({"content": format!("note {i}\n")}).to_string(),
                    );
                    assert!(r.status().is_success());
                }
                for i in (t..100).step_by(16) {
                    let r = server.put_json(
                        "/api/v1/notes/shared.md",
                        &json!({"content": bodies[i]}).to_string(),
                    );
                    assert!(r.status().is_success());
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop_readers.store(true, std::sync::atomic::Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    for i in 0..200 {
        assert_eq!(ws.read(&format!("many/n{i:03}.md")), format!("note {i}\n"));
    }
    assert!(shared_bodies.contains(&ws.read("shared.md")));
    let (_, list) = json(server.get("/api/v1/notes"));
    assert_eq!(list["total"], 201);
}

#[test]
fn put_delete_and_toggle_racing_on_one_note_end_consistent() {
    let ws = Workspace::new();
    let server = Arc::new(ws.serve());
    for round in 0..5 {
        let workers: Vec<_> = (0..6)
            .map(|t| {
                let server = server.clone();
                std::thread::spawn(move || {
                    for i in 0..30 {
                        match (t + i) % 3 {
                            0 => {
                                let r = server.put_markdown(
                                    "/api/v1/notes/race/hot.md",
                                    &format!("# round {round} t{t} i{i}\n"),
                                );
                                let status = r.status();
                                assert!(status.is_success(), "{status}: {}", r.text().unwrap());
                            }
                            1 => {
                                let r = server
                                    .request("DELETE", "/api/v1/notes/race/hot.md")
                                    .send()
                                    .unwrap();
                                assert!(r.status() == 200 || r.status() == 404, "{}", r.status());
                            }
                            _ => {
                                let (status, _) = server.toggle("race/hot.md");
                                assert!(status == 200 || status == 404, "{status}");
                            }
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        // Consistent: a public entry only for an existing note, and a page exactly
        // when the note is public.
        let exists = ws.notes().join("race/hot.md").exists();
        let (_, public) = json(server.get("/api/public/list"));
        let listed = public["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["path"] == "race/hot.md");
        let page = ws.public().join("hot.html").exists();
        assert!(
            exists || !listed,
            "round {round}: a deleted note is still public"
        );
        assert_eq!(listed, page, "round {round}: record and page disagree");
    }
}

#[test]
fn hostile_paths_over_the_cli_touch_nothing_outside() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path(), ws.notes().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), ws.notes().join("link.md"))
            .unwrap();
    }
    let escape = format!(
        "../{}/secret.md",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    let absolute = outside
        .path()
        .join("secret.md")
        .to_string_lossy()
        .into_owned();
    let long = format!("{}.md", "a".repeat(300));
    let hostile: Vec<&str> = vec![
        "../x.md",
        "a/../../x.md",
        &escape,
        &absolute,
        "..\\x.md",
        "a\\..\\..\\x.md",
        &long,
        "out/secret.md",
        "out/new.md",
        "link.md",
        ".notes/index/x.md",
    ];
    let before = snapshot_of(outside.path());
    for path in &hostile {
        for args in [
            vec!["show", path],
            vec!["rm", path],
            vec!["publish", path],
            vec!["unpublish", path],
        ] {
            let out = ws.run(&args);
            assert_eq!(out.status.code(), Some(1), "{args:?} was accepted");
            let err = crate::support::stderr(&out);
            assert!(
                err.starts_with("error: ") && err.lines().count() == 1,
                "{args:?}: {err}"
            );
        }
        let out = ws.run_stdin(&["put", path], b"pwned");
        assert_eq!(out.status.code(), Some(1), "put {path:?} was accepted");
    }
    assert_eq!(
        snapshot_of(outside.path()),
        before,
        "a file outside the notes dir changed"
    );
    assert!(
        !ws.public().exists()
            || files_under(&ws.public())
                .iter()
                .all(|p| !p.to_string_lossy().contains("secret"))
    );
}

#[cfg(unix)]
#[test]
fn symlinked_notes_cannot_be_published_or_read_through_http() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        "---\ntitle: Secret\n---\nsecret body\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.notes().join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), ws.notes().join("link.md"))
        .unwrap();
    let server = ws.serve();
    let before = snapshot_of(outside.path());
    for note in ["link.md", "out/secret.md"] {
        let (status, body) = server.toggle(note);
        assert_eq!(status, 400, "{note}: {body}");
        assert_eq!(body["message"], "Invalid path");
    }
    assert_eq!(snapshot_of(outside.path()), before);
    let (_, public) = json(server.get("/api/public/list"));
    assert_eq!(public["notes"], json!([]));
    assert!(!ws.public().join("secret.html").exists() && !ws.public().join("link.html").exists());
}
