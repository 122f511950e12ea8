//! The spec's path rules for `/api/v1/notes/{path}`: checks in spec order, dot segments
//! cleaned inside the folder, symlinks out of it refused, and the disk left as it was.

use crate::support::{Workspace, assert_error, json};

#[test]
fn path_checks_run_in_spec_order() {
    let ws = Workspace::new();
    let server = ws.serve();
    let before = ws.snapshot();
    for target in [
        "/api/v1/notes/../x.md",
        "/api/v1/notes/a/../../x.md",
        "/api/v1/notes/%2e%2e/x.md",
        "/api/v1/notes/%2e%2e%2fx.md",
        "/api/v1/notes/..%2fx.md",
        "/api/v1/notes/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd.md",
        "/api/v1/notes//etc/passwd.md",
        "/api/v1/notes/%2fetc%2fpasswd.md",
        "/api/v1/notes/a%5c..%5c..%5cx.md",
        "/api/v1/notes/a%00.md",
        "/api/v1/notes/../x.txt",
    ] {
        for method in ["GET", "PUT", "DELETE", "POST"] {
            let r = server.raw(method, target, &[("Content-Type", "text/markdown")], b"x");
            r.assert_error(400, "Invalid path");
        }
    }
    for target in [
        "/api/v1/notes/x.txt",
        "/api/v1/notes/a/b",
        "/api/v1/notes/x.MD",
    ] {
        for method in ["GET", "PUT", "DELETE", "POST", "PATCH"] {
            let r = server.raw(method, target, &[("Content-Type", "text/markdown")], b"x");
            r.assert_error(400, "Only .md files are supported");
        }
    }
    for method in ["POST", "PATCH", "OPTIONS"] {
        let r = server.raw(method, "/api/v1/notes/x.md", &[], b"");
        r.assert_error(405, "Method not allowed. Supported: GET, PUT, DELETE");
    }
    // HEAD is GET without the body (RFC 9110): the GET's 404 here.
    let r = server.raw("HEAD", "/api/v1/notes/x.md", &[], b"");
    assert_eq!((r.status, r.body.as_str()), (404, ""));
    assert_eq!(ws.snapshot(), before, "a refused request changed the disk");
}

#[test]
fn dot_segments_are_cleaned_inside_the_folder() {
    let ws = Workspace::new();
    let server = ws.serve();
    let r = server.raw(
        "PUT",
        "/api/v1/notes/a/./b/../c.md",
        &[("Content-Type", "text/markdown")],
        b"hi",
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["path"], "a/c.md");
    assert!(ws.notes().join("a/c.md").is_file());
    let r = server.raw("GET", "/api/v1/notes/a%2Fc.md", &[], b"");
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["path"], "a/c.md");
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_folder_are_refused() {
    let ws = Workspace::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        "---\ntitle: secret\n---\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.notes().join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), ws.notes().join("link.md"))
        .unwrap();
    let server = ws.serve();
    assert_error(
        server.get("/api/v1/notes/out/secret.md"),
        400,
        "Invalid path",
    );
    assert_error(server.get("/api/v1/notes/link.md"), 400, "Invalid path");
    assert_error(
        server.put_markdown("/api/v1/notes/out/new.md", "x"),
        400,
        "Invalid path",
    );
    assert_error(
        server.put_markdown("/api/v1/notes/link.md", "x"),
        400,
        "Invalid path",
    );
    assert_error(
        server
            .request("DELETE", "/api/v1/notes/link.md")
            .send()
            .unwrap(),
        400,
        "Invalid path",
    );
    let names: Vec<_> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["secret.md"]);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.md")).unwrap(),
        "---\ntitle: secret\n---\n"
    );
    let (_, list) = json(server.get("/api/v1/notes"));
    assert_eq!(list["total"], 0, "{list}");
}
