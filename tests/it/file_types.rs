//! Which attachments are sent under a `sandbox` policy: every type outside a short
//! allow-list of passive ones (images other than SVG, PDF, audio, video, plain text,
//! CSV, JSON), through the API, the web interface's `/file/` and published copies in
//! `/public/media/`: the XML family that browsers render as documents (RSS, Atom, RDF,
//! MathML, XUL, KML, GPX, OPF) included.

use crate::support::{Server, Workspace, json, note, png};

/// Attachments a browser may render as a document of this origin.
const ACTIVE: [&str; 9] = [
    "feed.rss",
    "feed.atom",
    "data.rdf",
    "f.mathml",
    "ui.xul",
    "map.kml",
    "track.gpx",
    "book.opf",
    "f.mml",
];

/// Attachments that are only shown: no sandbox, or PDF viewers and players break.
const PASSIVE: [&str; 5] = ["pic.png", "doc.pdf", "notes.txt", "table.csv", "data.json"];

/// A document that would run script if rendered as a page of this origin.
const SCRIPTED: &str = "<?xml version=\"1.0\"?>\n<rss xmlns:h=\"http://www.w3.org/1999/xhtml\">\
<h:script>alert(document.domain)</h:script></rss>\n";

fn put_file(server: &Server, path: &str, bytes: &[u8]) {
    let response = server
        .request("PUT", &format!("/api/v1/files/{path}"))
        .header("Content-Type", "application/octet-stream")
        .body(bytes.to_vec())
        .send()
        .unwrap();
    assert_eq!(response.status(), 201, "PUT {path}");
}

fn policy(response: &reqwest::blocking::Response) -> String {
    response
        .headers()
        .get("content-security-policy")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

/// Whether `policy` holds a `sandbox` directive (alone, or among others).
fn sandboxes(policy: &str) -> bool {
    policy
        .split(';')
        .any(|directive| directive.split_whitespace().next() == Some("sandbox"))
}

#[test]
fn attachments_outside_the_passive_types_are_sandboxed_in_the_api_and_the_web() {
    let ws = Workspace::new();
    let server = ws.serve();
    for name in ACTIVE {
        put_file(&server, name, SCRIPTED.as_bytes());
    }
    put_file(&server, "pic.png", &png(4, 4, [1, 2, 3]));
    put_file(&server, "doc.pdf", b"%PDF-1.4\n%%EOF\n");
    put_file(&server, "notes.txt", b"plain\n");
    put_file(&server, "table.csv", b"a,b\n1,2\n");
    put_file(&server, "data.json", b"{\"a\":1}\n");
    // Twice: the first answer is read from disk, the next one may come from memory.
    for _ in 0..2 {
        for name in ACTIVE {
            for url in [format!("/api/v1/files/{name}"), format!("/file/{name}")] {
                let response = server.get(&url);
                assert_eq!(response.status(), 200, "{url}");
                assert_eq!(policy(&response), "sandbox", "{url}");
                assert_eq!(response.text().unwrap(), SCRIPTED, "{url}");
            }
        }
        for name in PASSIVE {
            for url in [format!("/api/v1/files/{name}"), format!("/file/{name}")] {
                let response = server.get(&url);
                assert_eq!(response.status(), 200, "{url}");
                assert_eq!(policy(&response), "", "{url}");
            }
        }
    }
    // A HEAD says the same.
    let head = server.request("HEAD", "/file/feed.rss").send().unwrap();
    assert_eq!(policy(&head), "sandbox");
}

#[test]
fn published_copies_follow_the_same_rule() {
    let ws = Workspace::new();
    let server = ws.serve();
    put_file(&server, "feed.rss", SCRIPTED.as_bytes());
    put_file(&server, "track.gpx", SCRIPTED.as_bytes());
    put_file(&server, "pic.png", &png(4, 4, [1, 2, 3]));
    put_file(&server, "doc.pdf", b"%PDF-1.4\n%%EOF\n");
    let body = "[feed](feed.rss) [track](track.gpx) ![pic](pic.png) [doc](doc.pdf)\n";
    let r = server.put_markdown("/api/v1/notes/n.md", &note("N", &[], body));
    assert_eq!(r.status(), 201);
    let (status, toggled) = server.toggle("n.md");
    assert_eq!(status, 200, "{toggled}");
    let media: Vec<String> = std::fs::read_dir(ws.public().join("media"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(media.len(), 4, "{media:?}");
    for name in &media {
        let response = server.get(&format!("/public/media/{name}"));
        assert_eq!(response.status(), 200, "{name}");
        let policy = policy(&response);
        // Every public file keeps the public pages' policy.
        assert!(policy.contains("default-src 'none'"), "{name}: {policy}");
        assert!(
            policy.contains("frame-ancestors 'none'"),
            "{name}: {policy}"
        );
        let active = name.ends_with(".rss") || name.ends_with(".gpx");
        assert_eq!(sandboxes(&policy), active, "{name}: {policy}");
    }
    // The page itself is not sandboxed: its stylesheet must load.
    let (_, page) = json(server.get("/api/public/list"));
    assert_eq!(page["notes"][0]["path"], "n.md", "{page}");
    let response = server.get("/public/n.html");
    assert!(!sandboxes(&policy(&response)), "{}", policy(&response));
}
