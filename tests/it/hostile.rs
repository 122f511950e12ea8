//! Hostile notes: front matter nested too deeply, too large, or exploding through YAML
//! aliases is refused on every write path and read as unreadable, cheaply, while the
//! server keeps answering.

use std::time::{Duration, Instant};

use crate::support::{Workspace, assert_error, http_client, json, stderr};

const TOO_DEEP: &str = "Front matter is nested deeper than 64 levels";

fn deep_yaml(levels: usize) -> String {
    format!("x: {}1{}\n", "[".repeat(levels), "]".repeat(levels))
}

fn deep_note(levels: usize) -> String {
    format!("---\ntitle: Deep\n{}---\n\nbody\n", deep_yaml(levels))
}

/// Nine levels of ten aliases: a billion values once expanded.
fn billion_laughs() -> String {
    let mut yaml = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for level in 1..=9 {
        let items = vec![format!("*a{}", level - 1); 10].join(", ");
        yaml.push_str(&format!("a{level}: &a{level} [{items}]\n"));
    }
    format!("---\ntitle: Laughs\n{yaml}---\n\nbody\n")
}

#[test]
fn deep_or_large_front_matter_is_refused_on_every_write_path() {
    let ws = Workspace::new();
    let server = ws.serve();
    let before = ws.snapshot();

    let content = serde_json::json!({ "content": deep_note(65) }).to_string();
    assert_error(
        server.put_json("/api/v1/notes/a.md", &content),
        400,
        TOO_DEEP,
    );

    let mut nested = serde_json::json!("leaf");
    for _ in 0..70 {
        nested = serde_json::json!([nested]);
    }
    let built = serde_json::json!({ "frontMatter": { "title": "T", "deep": nested } });
    assert_error(
        server.put_json("/api/v1/notes/b.md", &built.to_string()),
        400,
        TOO_DEEP,
    );

    assert_error(
        server.put_markdown("/api/v1/notes/c.md", &deep_note(40_000)),
        400,
        TOO_DEEP,
    );
    let large = format!("---\ntitle: \"{}\"\n---\nbody", "a".repeat(300 * 1024));
    assert_error(
        server.put_markdown("/api/v1/notes/d.md", &large),
        400,
        "Front matter is larger than 262144 bytes",
    );
    let laughs = server.put_markdown("/api/v1/notes/e.md", &billion_laughs());
    let (status, body) = json(laughs);
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("Front matter aliases expand to more than"),
        "{body}"
    );

    // The web editor: a title too large for a front matter.
    let form = serde_urlencoded::to_string([
        ("mode", "new"),
        ("path", "f.md"),
        ("title", &"t".repeat(300 * 1024)),
        ("tags", ""),
        ("body", "text"),
        ("date", ""),
        ("etag", ""),
    ])
    .unwrap();
    let page = server.post_form("/save", &form);
    assert_eq!(page.status(), 400);
    assert!(page.text().unwrap().contains("Front matter is larger than"));

    // The command line.
    let out = ws.run_stdin(&["put", "g.md"], deep_note(100).as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!("error: g.md: f{}\n", TOO_DEEP.strip_prefix('F').unwrap())
    );

    assert_eq!(ws.snapshot(), before, "nothing was written");
    // Within the bounds, the same shapes are accepted.
    let resp = server.put_markdown("/api/v1/notes/ok.md", &deep_note(63));
    assert_eq!(resp.status(), 201);
}

#[test]
fn hostile_notes_on_disk_are_read_fast_as_unreadable_while_the_server_answers() {
    let ws = Workspace::new();
    // 80 KB nested 40k deep (5.6 s to parse before the bound), 300 KB nested deeper,
    // and the billion laughs.
    ws.write("deep.md", &deep_note(40_000));
    ws.write("deeper.md", &deep_note(150_000));
    ws.write("laughs.md", &billion_laughs());
    ws.write("plain.md", "---\ntitle: Plain\n---\n\nfine\n");
    let server = ws.serve();

    let started = Instant::now();
    let (status, list) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
    let titles: Vec<(String, String)> = list["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["path"].as_str().unwrap().to_string(),
                n["title"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for (path, title) in [
        ("deep.md", "deep"),
        ("deeper.md", "deeper"),
        ("laughs.md", "laughs"),
    ] {
        assert!(
            titles.contains(&(path.to_string(), title.to_string())),
            "{titles:?}"
        );
    }
    for name in ["deep.md", "deeper.md", "laughs.md"] {
        let (status, note) = json(server.get(&format!("/api/v1/notes/{name}")));
        assert_eq!(status, 200);
        assert_eq!(note["frontMatter"]["title"], "", "{name}");
        assert_eq!(note["frontMatter"]["tags"], serde_json::json!([]), "{name}");
        assert_eq!(note["body"], note["content"], "{name}");
    }
    assert_eq!(server.get("/").status(), 200);
    assert_eq!(server.get("/note/deeper.md").status(), 200);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "reading took {:?}",
        started.elapsed()
    );

    // Many reads of the hostile notes at once; another note is served meanwhile.
    let base = server.base.clone();
    let readers: Vec<_> = (0..8)
        .map(|i| {
            let url = format!("{base}/api/v1/notes/{}", ["deeper.md", "laughs.md"][i % 2]);
            std::thread::spawn(move || {
                // reqwest's own default timeout.
                let client = http_client(Duration::from_secs(30));
                for _ in 0..5 {
                    assert_eq!(client.get(&url).send().unwrap().status(), 200);
                }
            })
        })
        .collect();
    let asked = Instant::now();
    let (status, note) = json(server.get("/api/v1/notes/plain.md"));
    assert_eq!((status, note["title"].as_str()), (200, Some("Plain")));
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "{:?}",
        asked.elapsed()
    );
    for reader in readers {
        reader.join().unwrap();
    }
}
