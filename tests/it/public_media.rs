//! Attachments on public pages, over HTTP: publishing copies what a note shows or links
//! to into `public/media/` under content-addressed names and the page links there by a
//! relative URL; identical files are stored once; media no public page names any more
//! go (unpublish, an edited image, a reference removed, a move); hostile references are
//! never copied; a missing attachment leaves the link's text and publishing succeeds.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use crate::support::{Server, Workspace, json, note, png};

/// The name publishing gives a copy of `bytes` first named `file_name` (a plain ASCII
/// name): 32 hex digits of their SHA-256, the name, the extension.
fn media_name(file_name: &str, bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{}-{file_name}", &hex[..32])
}

/// Creates or replaces an attachment through `PUT /api/v1/files/{path}`.
fn put_file(server: &Server, path: &str, bytes: &[u8]) {
    let response = server
        .request("PUT", &format!("/api/v1/files/{path}"))
        .header("Content-Type", "application/octet-stream")
        .body(bytes.to_vec())
        .send()
        .unwrap();
    assert!(
        matches!(response.status().as_u16(), 200 | 201),
        "PUT {path}: {}",
        response.status()
    );
}

/// Toggles `path`, expecting it to become `status`.
fn toggle(server: &Server, path: &str, status: &str) {
    let (code, body) = server.toggle(path);
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["status"], status, "{body}");
}

/// The files of `public/media/`.
fn media(ws: &Workspace) -> BTreeSet<String> {
    match std::fs::read_dir(ws.public().join("media")) {
        Ok(items) => items
            .map(|i| i.unwrap().file_name().into_string().unwrap())
            .collect(),
        Err(_) => BTreeSet::new(),
    }
}

/// A public page, as served.
fn page(server: &Server, file: &str) -> String {
    let response = server.get(&format!("/public/{file}"));
    assert_eq!(response.status(), 200, "{file}");
    response.text().unwrap()
}

/// GETs `/public/media/NAME` and checks it is `bytes`, of type `content_type`.
fn assert_served(server: &Server, name: &str, bytes: &[u8], content_type: &str) {
    let response = server.get(&format!("/public/media/{name}"));
    assert_eq!(response.status(), 200, "{name}");
    assert_eq!(response.headers()["content-type"], content_type, "{name}");
    assert_eq!(response.bytes().unwrap().as_ref(), bytes, "{name}");
}

#[test]
fn publishing_copies_images_embeds_and_files_and_links_them_relatively() {
    let ws = Workspace::new();
    let ridge = png(48, 24, [30, 90, 200]);
    let map = png(20, 20, [200, 60, 30]);
    let pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n".to_vec();
    ws.write(
        "trips/alps.md",
        &note(
            "Alps",
            &[],
            "The ridge: ![the ridge](img/ridge.png)\n\nThe map: ![[map.png]]\n\n\
             The [route](route.pdf) and ![a lost photo](img/gone.png).\n",
        ),
    );
    let server = ws.serve();
    put_file(&server, "trips/img/ridge.png", &ridge);
    put_file(&server, "trips/map.png", &map);
    put_file(&server, "trips/route.pdf", &pdf);
    toggle(&server, "trips/alps.md", "public");

    let (ridge_name, map_name, pdf_name) = (
        media_name("ridge.png", &ridge),
        media_name("map.png", &map),
        media_name("route.pdf", &pdf),
    );
    let html = page(&server, "alps.html");
    assert!(
        html.contains(&format!(r#"<img src="media/{ridge_name}" alt="the ridge""#)),
        "{html}"
    );
    assert!(
        html.contains(&format!(r#"<img src="media/{map_name}""#)),
        "{html}"
    );
    assert!(
        html.contains(&format!(r#"<a href="media/{pdf_name}">route</a>"#)),
        "{html}"
    );
    // The missing photo is its text; no path of the notes folder reaches the page.
    assert!(html.contains("a lost photo"), "{html}");
    assert!(!html.contains("gone.png"), "{html}");
    assert!(!html.contains("trips/"), "{html}");
    assert!(!html.contains("/file/"), "{html}");
    assert_eq!(
        media(&ws),
        BTreeSet::from([ridge_name.clone(), map_name.clone(), pdf_name.clone()])
    );
    assert_served(&server, &ridge_name, &ridge, "image/png");
    assert_served(&server, &map_name, &map, "image/png");
    assert_served(&server, &pdf_name, &pdf, "application/pdf");
    // Byte-exact on disk too: the folder works without the server.
    assert_eq!(
        std::fs::read(ws.public().join("media").join(&ridge_name)).unwrap(),
        ridge
    );

    // Republishing with nothing changed writes no media again.
    let inode = |name: &str| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(ws.public().join("media").join(name))
            .unwrap()
            .ino()
    };
    let before = inode(&ridge_name);
    let response = server.post_form("/publish", "path=trips%2Falps.md&action=republish");
    assert_eq!(response.status(), 200);
    assert_eq!(
        inode(&ridge_name),
        before,
        "identical content is written once"
    );
    assert_eq!(media(&ws).len(), 3);
}

#[test]
fn one_image_of_two_public_notes_is_stored_once_and_goes_with_the_last() {
    let ws = Workspace::new();
    let pic = png(10, 10, [0, 160, 0]);
    ws.write("a.md", &note("A", &[], "![pic](shared/pic.png)\n"));
    ws.write("b/b.md", &note("B", &[], "![[shared/pic.png]]\n"));
    let server = ws.serve();
    // `b/b.md`'s wikilink names `b/shared/pic.png`: another file with the same bytes.
    put_file(&server, "shared/pic.png", &pic);
    put_file(&server, "b/shared/pic.png", &pic);
    toggle(&server, "a.md", "public");
    toggle(&server, "b/b.md", "public");
    let name = media_name("pic.png", &pic);
    assert_eq!(media(&ws), BTreeSet::from([name.clone()]));
    assert!(page(&server, "a.html").contains(&format!("media/{name}")));
    assert!(page(&server, "b.html").contains(&format!("media/{name}")));

    toggle(&server, "a.md", "private");
    assert_eq!(
        media(&ws),
        BTreeSet::from([name.clone()]),
        "b still uses it"
    );
    assert_served(&server, &name, &pic, "image/png");
    toggle(&server, "b/b.md", "private");
    assert_eq!(media(&ws), BTreeSet::new(), "no public page uses it");
    assert_eq!(
        server.get(&format!("/public/media/{name}")).status(),
        404,
        "gone from the public folder"
    );
}

#[test]
fn an_edited_image_gets_a_new_name_and_the_old_copy_goes() {
    let ws = Workspace::new();
    let old = png(12, 12, [10, 10, 10]);
    let new = png(16, 12, [250, 250, 0]);
    let doc = b"plain text attachment\n".to_vec();
    ws.write(
        "n.md",
        &note("N", &[], "![photo](photo.png) and [notes](notes.txt)\n"),
    );
    let server = ws.serve();
    put_file(&server, "photo.png", &old);
    put_file(&server, "notes.txt", &doc);
    toggle(&server, "n.md", "public");
    let (old_name, new_name) = (media_name("photo.png", &old), media_name("photo.png", &new));
    let doc_name = media_name("notes.txt", &doc);
    assert_eq!(
        media(&ws),
        BTreeSet::from([old_name.clone(), doc_name.clone()])
    );

    put_file(&server, "photo.png", &new);
    let response = server.post_form("/publish", "path=n.md&action=republish");
    assert_eq!(response.status(), 200);
    let html = page(&server, "n.html");
    assert!(html.contains(&format!("media/{new_name}")), "{html}");
    assert!(!html.contains(&old_name), "{html}");
    assert_eq!(
        media(&ws),
        BTreeSet::from([new_name.clone(), doc_name.clone()])
    );
    assert_served(&server, &new_name, &new, "image/png");

    // A reference removed: its copy goes at the next publication.
    let text = note("N", &[], "![photo](photo.png) only\n");
    let (status, _) = json(server.put_markdown("/api/v1/notes/n.md", &text));
    assert_eq!(status, 200);
    let response = server.post_form("/publish", "path=n.md&action=republish");
    assert_eq!(response.status(), 200);
    assert_eq!(media(&ws), BTreeSet::from([new_name]));
}

#[test]
fn pages_that_link_to_a_published_note_carry_their_current_media() {
    let ws = Workspace::new();
    let first = png(8, 8, [1, 2, 3]);
    let second = png(9, 9, [4, 5, 6]);
    ws.write(
        "linker.md",
        &note("Linker", &[], "See [[Target]]: ![p](p.png)\n"),
    );
    ws.write("target.md", &note("Target", &[], "Hi.\n"));
    let server = ws.serve();
    put_file(&server, "p.png", &first);
    toggle(&server, "linker.md", "public");
    assert_eq!(media(&ws), BTreeSet::from([media_name("p.png", &first)]));
    // The image changes; publishing the note the page links to renders that page again.
    put_file(&server, "p.png", &second);
    toggle(&server, "target.md", "public");
    let html = page(&server, "linker.html");
    assert!(html.contains(r#"href="target.html""#), "{html}");
    assert!(
        html.contains(&format!("media/{}", media_name("p.png", &second))),
        "{html}"
    );
    assert_eq!(media(&ws), BTreeSet::from([media_name("p.png", &second)]));
}

#[test]
fn a_moved_public_note_keeps_its_media() {
    let ws = Workspace::new();
    let pic = png(8, 8, [9, 9, 9]);
    ws.write("old/n.md", &note("N", &[], "![p](../pics/p.png)\n"));
    let server = ws.serve();
    put_file(&server, "pics/p.png", &pic);
    toggle(&server, "old/n.md", "public");
    let name = media_name("p.png", &pic);
    assert_eq!(media(&ws), BTreeSet::from([name.clone()]));
    // Moved to a folder where the same relative link leads to the same image.
    let response = server
        .request("POST", "/api/v1/move")
        .header("Content-Type", "application/json")
        .body(r#"{"from": "old/n.md", "to": "new/moved.md"}"#)
        .send()
        .unwrap();
    assert_eq!(response.status(), 200, "{}", response.text().unwrap());
    let html = page(&server, "moved.html");
    assert!(html.contains(&format!(r#"src="media/{name}""#)), "{html}");
    assert_eq!(media(&ws), BTreeSet::from([name]));
}

#[test]
fn hostile_references_are_never_copied() {
    let ws = Workspace::new();
    let outside = ws.root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.png"), b"secret bytes").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.png"), ws.notes().join("link.png")).unwrap();
    std::os::unix::fs::symlink(&outside, ws.notes().join("out")).unwrap();
    ws.write(
        "deep/n.md",
        &note(
            "N",
            &[],
            "![a](../../etc/passwd) ![b](../../../etc/passwd) [c](/etc/passwd)\n\n\
             ![d](../link.png) ![[../out/secret.png]] ![[link.png]] [e](../out/secret.png)\n\n\
             ![f](../.public.json) [g](../%2e%2e/outside/secret.png)\n",
        ),
    );
    let server = ws.serve();
    toggle(&server, "deep/n.md", "public");
    assert_eq!(media(&ws), BTreeSet::new(), "nothing was copied");
    let html = page(&server, "n.html");
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("media/"), "{html}");
    // The author's words stay as text; no link or image leads up from the page.
    assert!(!html.contains("=\"../"), "{html}");
    assert!(
        html.contains("<p>d ../out/secret.png link.png e</p>"),
        "{html}"
    );
    assert!(!html.contains("secret bytes"), "{html}");
}

#[test]
fn the_repair_restores_missing_media_and_removes_what_no_page_names() {
    let ws = Workspace::new();
    let pic = png(8, 8, [7, 7, 7]);
    ws.write("n.md", &note("N", &[], "![p](p.png)\n"));
    std::fs::write(ws.notes().join("p.png"), &pic).unwrap();
    let out = ws.run(&["publish", "n.md"]);
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let name = media_name("p.png", &pic);
    assert_eq!(media(&ws), BTreeSet::from([name.clone()]));
    // What a crash can leave: a copy no page names yet; and a copy lost by hand.
    let orphan = media_name("left.png", b"left over");
    std::fs::write(ws.public().join("media").join(&orphan), b"left over").unwrap();
    std::fs::remove_file(ws.public().join("media").join(&name)).unwrap();
    let out = ws.run(&["publish", "--repair", "--json"]);
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["removed_media"],
        serde_json::json!([orphan]),
        "{report}"
    );
    assert_eq!(
        report["restored_media"],
        serde_json::json!([name]),
        "{report}"
    );
    assert_eq!(media(&ws), BTreeSet::from([name.clone()]));
    assert_eq!(
        std::fs::read(ws.public().join("media").join(&name)).unwrap(),
        pic
    );
    // All agrees now.
    let out = ws.run(&["publish", "--repair", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report.get("removed_media").is_none(), "{report}");
    assert!(report.get("restored_media").is_none(), "{report}");
}
