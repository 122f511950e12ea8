//! Attachments on a temp notebook, without HTTP: media types, the write and delete
//! with their preconditions, what the listing shows, paths that lead outside, and the
//! versions kept in memory.

use std::io::Read;

use super::*;
use crate::ops::Config;
use crate::ops::model::Precondition;

fn notebook() -> (tempfile::TempDir, Notebook) {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("notes")).unwrap();
    let notebook = Notebook::new(Config {
        notes_dir: root.path().join("notes"),
        public_dir: root.path().join("public"),
        base_url: None,
    });
    (root, notebook)
}

fn p(s: &str) -> FilePath {
    FilePath::parse(s).unwrap()
}

fn read_all(nb: &Notebook, path: &str) -> Vec<u8> {
    match nb.open_file(&p(path)).unwrap().body {
        FileBody::Kept(bytes) => bytes.to_vec(),
        FileBody::Disk(disk) => {
            let mut bytes = Vec::new();
            disk.into_file().read_to_end(&mut bytes).unwrap();
            bytes
        }
    }
}

#[test]
fn media_types_come_from_the_extension() {
    assert_eq!(content_type("a/b.png"), "image/png");
    assert_eq!(content_type("doc.PDF"), "application/pdf");
    assert_eq!(content_type("x.svg"), "image/svg+xml");
    assert_eq!(content_type("page.html"), "text/html");
    assert_eq!(content_type("blob.unknownext"), "application/octet-stream");
    assert_eq!(content_type("Makefile"), "application/octet-stream");
}

#[test]
fn only_passive_types_go_without_a_sandbox() {
    for name in [
        "a.png", "a.JPG", "a.gif", "a.webp", "a.pdf", "a.mp3", "a.ogg", "a.mp4", "a.webm", "a.txt",
        "a.csv", "a.json",
    ] {
        assert!(is_passive(&content_type(name)), "{name}");
    }
    for name in [
        "a.svg", "a.xml", "a.html", "a.xhtml", "a.rss", "a.atom", "a.rdf", "a.mathml", "a.mml",
        "a.xul", "a.kml", "a.gpx", "a.opf", "a.xsl", "a.js", "a.css", "a.md.bak", "a.qqqz",
    ] {
        assert!(!is_passive(&content_type(name)), "{name}");
    }
    assert!(is_passive("Image/PNG; q=1"));
    assert!(!is_passive("image/svg+xml"));
    assert!(!is_passive(""));
}

#[test]
fn write_read_replace_delete() {
    let (_root, nb) = notebook();
    let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let put = nb
        .put_file(&p("img/a.bin"), &bytes, &Precondition::None)
        .unwrap();
    assert!(put.created);
    assert_eq!(put.info.size, 70_000);
    assert_eq!(read_all(&nb, "img/a.bin"), bytes);
    let opened = nb.open_file(&p("img/a.bin")).unwrap();
    assert_eq!(opened.etag, put.etag);

    // Create-only refuses an existing file; a stale tag refuses the replace.
    assert!(matches!(
        nb.put_file(&p("img/a.bin"), b"x", &Precondition::IfNoneMatchAny),
        Err(Error::FileExists)
    ));
    let stale = Precondition::IfMatch(vec!["\"nope\"".into()]);
    assert!(matches!(
        nb.put_file(&p("img/a.bin"), b"x", &stale),
        Err(Error::FileChanged)
    ));
    assert_eq!(read_all(&nb, "img/a.bin"), bytes);

    let current = Precondition::IfMatch(vec![put.etag.clone()]);
    let replaced = nb.put_file(&p("img/a.bin"), b"new", &current).unwrap();
    assert!(!replaced.created);
    assert_ne!(replaced.etag, put.etag);
    assert_eq!(read_all(&nb, "img/a.bin"), b"new");

    assert!(matches!(
        nb.delete_file(&p("img/a.bin"), &current),
        Err(Error::FileChanged)
    ));
    let deleted = nb
        .delete_file(&p("img/a.bin"), &Precondition::None)
        .unwrap();
    assert_eq!(deleted.deleted, "img/a.bin");
    assert!(matches!(
        nb.open_file(&p("img/a.bin")),
        Err(Error::FileNotFound)
    ));
    assert!(matches!(
        nb.delete_file(&p("img/a.bin"), &Precondition::None),
        Err(Error::FileNotFound)
    ));
    // Nothing but the file itself was ever written there: no temp file is left, so
    // the folder the delete emptied is gone.
    assert!(!nb.notes_dir().join("img").exists());
}

#[test]
fn folders_are_not_attachments() {
    let (_root, nb) = notebook();
    std::fs::create_dir_all(nb.notes_dir().join("dir.png")).unwrap();
    assert!(matches!(
        nb.open_file(&p("dir.png")),
        Err(Error::FileNotFound)
    ));
    assert!(matches!(
        nb.put_file(&p("dir.png"), b"x", &Precondition::None),
        Err(Error::InvalidPath)
    ));
    assert!(nb.notes_dir().join("dir.png").is_dir());
}

#[test]
fn the_list_shows_attachments_only() {
    let (_root, nb) = notebook();
    let dir = nb.notes_dir();
    for rel in [
        "b.png",
        "a/c.pdf",
        "a/n.md",
        ".hidden/x.png",
        "a/.y.png",
        ".notes/z.bin",
    ] {
        let full = dir.join(rel);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, "x").unwrap();
    }
    let all: Vec<_> = nb
        .list_files(".")
        .unwrap()
        .files
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert_eq!(all, ["a/c.pdf", "b.png"]);
    let under = nb.list_files("a").unwrap().files;
    assert_eq!(under.len(), 1);
    assert_eq!(under[0].content_type, "application/pdf");
    assert_eq!(under[0].size, 1);
    assert!(nb.list_files("missing").unwrap().files.is_empty());
    assert!(matches!(nb.list_files("b.png"), Err(Error::InvalidPath)));
}

#[cfg(unix)]
#[test]
fn symlinks_leading_outside_are_refused() {
    let (root, nb) = notebook();
    let outside = root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.png"), "secret").unwrap();
    std::os::unix::fs::symlink(&outside, nb.notes_dir().join("out")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.png"), nb.notes_dir().join("s.png")).unwrap();
    for rel in ["out/secret.png", "s.png"] {
        assert!(
            matches!(nb.open_file(&p(rel)), Err(Error::InvalidPath)),
            "{rel}"
        );
        assert!(matches!(
            nb.delete_file(&p(rel), &Precondition::None),
            Err(Error::InvalidPath)
        ));
    }
    assert!(matches!(
        nb.put_file(&p("out/new.png"), b"x", &Precondition::None),
        Err(Error::InvalidPath)
    ));
    assert!(!outside.join("new.png").exists());
    assert!(outside.join("secret.png").exists());
    assert!(matches!(nb.list_files("out"), Err(Error::InvalidPath)));
    assert!(nb.list_files(".").unwrap().files.is_empty());
}

#[test]
fn a_settled_small_file_is_kept_until_it_changes() {
    let (_root, nb) = notebook();
    let full = nb.notes_dir().join("a.png");
    std::fs::write(&full, b"first").unwrap();
    let disk = |nb: &Notebook| match nb.open_file(&p("a.png")).unwrap().body {
        FileBody::Disk(disk) => disk,
        FileBody::Kept(_) => panic!("kept before it settled or after a change"),
    };
    // Not settled yet: read, not kept.
    let fresh = disk(&nb);
    assert!(!fresh.keepable());
    assert_eq!(nb.read_whole(fresh).unwrap().as_ref(), b"first");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let settled = disk(&nb);
    assert!(settled.keepable());
    let read = nb.read_whole(settled).unwrap();
    let opened = nb.open_file(&p("a.png")).unwrap();
    match opened.body {
        // The same buffer, shared.
        FileBody::Kept(bytes) => assert_eq!(bytes.as_ptr(), read.as_ptr()),
        FileBody::Disk(_) => panic!("a settled file read whole was not kept"),
    }
    assert_eq!(opened.info.size, 5);
    // Overwritten in place with the same size: read again.
    std::fs::write(&full, b"again").unwrap();
    assert_eq!(read_all(&nb, "a.png"), b"again");
    std::fs::remove_file(&full).unwrap();
    assert!(matches!(
        nb.open_file(&p("a.png")),
        Err(Error::FileNotFound)
    ));
    assert!(nb.files.get("a.png").is_none());
}
