//! What makes the interface installable and offline, without a browser: the manifest,
//! the service worker, the icons and the favicon answer with their types without a
//! session even when tokens exist (a browser fetches a manifest without credentials),
//! other methods are refused, the pages are still closed, and every page links the
//! manifest, the icons, the theme colours and the offline script.

use crate::support::{Workspace, create_token, no_redirects, note};

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write("a.md", &note("Alpha", &[], "alpha words\n"));
    ws
}

#[test]
fn offline_files_answer_without_a_session() {
    let ws = workspace();
    let _token = create_token(&ws, &["--name", "web"]);
    let server = ws.serve();
    let http = no_redirects();
    let files = [
        ("/manifest.webmanifest", "application/manifest+json"),
        ("/sw.js", "text/javascript; charset=utf-8"),
        ("/favicon.ico", "image/x-icon"),
        ("/assets/favicon.svg", "image/svg+xml"),
        ("/assets/icon-192.png", "image/png"),
        ("/assets/icon-512.png", "image/png"),
        ("/assets/icon-maskable-512.png", "image/png"),
        ("/assets/offline.js", "text/javascript; charset=utf-8"),
        ("/assets/offline-store.js", "text/javascript; charset=utf-8"),
        ("/assets/offline.html", "text/html; charset=utf-8"),
    ];
    for (path, kind) in files {
        let response = http.get(server.url(path)).send().unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], kind, "{path}");
        assert_eq!(headers["cache-control"], "no-cache", "{path}");
        let body = response.bytes().unwrap();
        if kind == "image/png" {
            assert!(
                body.starts_with(b"\x89PNG\r\n\x1a\n"),
                "{path} is not a PNG"
            );
            let (w, h) = (
                u32::from_be_bytes(body[16..20].try_into().unwrap()),
                u32::from_be_bytes(body[20..24].try_into().unwrap()),
            );
            let size = if path.contains("192") { 192 } else { 512 };
            assert_eq!((w, h), (size, size), "{path}");
        }
        if path == "/favicon.ico" {
            assert!(body.starts_with(&[0, 0, 1, 0]), "not an ICO file");
        }
        if kind.starts_with("text/html") {
            assert!(headers.contains_key("content-security-policy"), "{path}");
        }
    }
    // The worker is served from the root only: under /assets/ its scope would be /assets/.
    let nested = http.get(server.url("/assets/sw.js")).send().unwrap();
    assert_eq!(nested.status(), 404);

    let manifest: serde_json::Value = http
        .get(server.url("/manifest.webmanifest"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(manifest["start_url"], "/");
    assert_eq!(manifest["scope"], "/");
    assert_eq!(manifest["display"], "standalone");
    assert!(manifest["name"].is_string() && manifest["short_name"].is_string());
    assert!(manifest["theme_color"].is_string() && manifest["background_color"].is_string());
    let icons = manifest["icons"].as_array().unwrap();
    let has = |size: &str, purpose: &str| {
        icons
            .iter()
            .any(|i| i["sizes"] == size && i["purpose"] == purpose && i["type"] == "image/png")
    };
    assert!(has("192x192", "any") && has("512x512", "any") && has("512x512", "maskable"));

    // The pages stay closed without a session.
    let page = http.get(server.url("/")).send().unwrap();
    assert_eq!(page.status(), 303);
    assert!(
        page.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/login")
    );
}

#[test]
fn offline_files_take_only_get_and_head() {
    let ws = workspace();
    let server = ws.serve();
    for path in ["/sw.js", "/manifest.webmanifest", "/favicon.ico"] {
        let refused = server.raw("POST", path, &[("Accept", "text/html")], b"");
        assert_eq!(refused.status, 405, "{path}");
        assert_eq!(refused.header("allow"), Some("GET, HEAD"), "{path}");
        let head = server.raw("HEAD", path, &[], b"");
        assert_eq!(head.status, 200, "{path}");
    }
}

#[test]
fn every_page_links_the_manifest_and_the_offline_script() {
    let ws = workspace();
    let token = create_token(&ws, &["--name", "web"]);
    let server = ws.serve();
    let auth = format!("Bearer {token}");
    let pages = [
        "/",
        "/note/a.md",
        "/edit/a.md",
        "/new",
        "/search?q=alpha",
        "/trash",
        "/docs/api",
        "/login",
        "/nope",
    ];
    for path in pages {
        let page = server.raw(
            "GET",
            path,
            &[("Authorization", &auth), ("Accept", "text/html")],
            b"",
        );
        assert!(
            page.status == 200 || path == "/nope",
            "{path}: {}",
            page.status
        );
        for needle in [
            r#"<link rel="manifest" href="/manifest.webmanifest">"#,
            r#"<link rel="icon" href="/favicon.ico" sizes="32x32">"#,
            r#"<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">"#,
            r##"<meta name="theme-color" content="#fdfcfa" media="(prefers-color-scheme: light)">"##,
            r##"<meta name="theme-color" content="#15171a" media="(prefers-color-scheme: dark)">"##,
            r#"<script src="/assets/offline.js" defer></script>"#,
        ] {
            assert!(page.body.contains(needle), "{path} lacks {needle}");
        }
    }
}
