//! Attachments answered from memory: once a small file has been read it is served
//! from the version kept, but any change made outside the service (an overwrite in
//! place that keeps the size and even the modification time, a replacement, a delete,
//! a symlink swapped in) shows in the very next answer. Ranges, `HEAD` and `304` answer
//! from the kept version as they do from the file.

use std::time::Duration;

use crate::files::{assert_ranges, header};
use crate::support::{Server, Workspace, assert_error};

/// `len` bytes that repeat only every 251 bytes, shifted by `seed`.
pub(crate) fn binary(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| ((i * 7 + i / 251) as u8).wrapping_add(seed))
        .collect()
}

/// The bytes and tag of a `GET`, which must answer 200.
fn fetch(server: &Server, path: &str) -> (Vec<u8>, String) {
    let r = server.get(&format!("/api/v1/files/{path}"));
    assert_eq!(r.status(), 200, "{path}");
    let etag = header(&r, "etag").to_string();
    (r.bytes().unwrap().to_vec(), etag)
}

/// A workspace with `img/a.png` (`len` bytes, seed 1) written outside the service and
/// settled, its server, and the bytes; read twice, so the second answer is the kept one.
fn served_from_memory(len: usize) -> (Workspace, Server, Vec<u8>, String) {
    let ws = Workspace::new();
    let bytes = binary(len, 1);
    std::fs::create_dir_all(ws.notes().join("img")).unwrap();
    std::fs::write(ws.notes().join("img/a.png"), &bytes).unwrap();
    let server = ws.serve_settled();
    let (first, etag) = fetch(&server, "img/a.png");
    assert!(first == bytes);
    let (second, again) = fetch(&server, "img/a.png");
    assert!(second == bytes);
    assert_eq!(again, etag);
    (ws, server, bytes, etag)
}

#[test]
fn an_outside_overwrite_of_the_same_size_and_time_is_served_at_once() {
    let (ws, server, old, etag) = served_from_memory(100 * 1024);
    let file = ws.notes().join("img/a.png");
    let modified = file.metadata().unwrap().modified().unwrap();
    // Overwritten in place (same inode, same size), its modification time set back:
    // only the change time tells the versions apart.
    let new = binary(old.len(), 2);
    std::fs::write(&file, &new).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let (bytes, _) = fetch(&server, "img/a.png");
    assert!(
        bytes == new,
        "the kept version was served after an overwrite"
    );

    // Overwritten again, its modification time now: a new tag, and the old one no
    // longer answers 304.
    let newer = binary(old.len(), 3);
    std::fs::write(&file, &newer).unwrap();
    let (bytes, tag) = fetch(&server, "img/a.png");
    assert!(bytes == newer);
    assert_ne!(tag, etag);
    let r = server
        .request("GET", "/api/v1/files/img/a.png")
        .header("If-None-Match", &etag)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.bytes().unwrap() == newer);
}

#[test]
fn a_replacement_by_rename_and_a_change_of_size_are_served_at_once() {
    let (ws, server, old, _) = served_from_memory(5000);
    let file = ws.notes().join("img/a.png");
    // As editors and `git` replace files: a new file renamed over the old one.
    let replacement = binary(old.len(), 9);
    let temp = ws.notes().join("img/.a.png.tmp");
    std::fs::write(&temp, &replacement).unwrap();
    std::fs::rename(&temp, &file).unwrap();
    assert!(fetch(&server, "img/a.png").0 == replacement);
    // Appended to in place.
    let mut longer = replacement.clone();
    longer.extend_from_slice(b"tail");
    std::fs::write(&file, &longer).unwrap();
    assert!(fetch(&server, "img/a.png").0 == longer);
}

#[test]
fn a_deleted_attachment_is_not_found_at_once() {
    let (ws, server, _, _) = served_from_memory(2000);
    std::fs::remove_file(ws.notes().join("img/a.png")).unwrap();
    assert_error(server.get("/api/v1/files/img/a.png"), 404, "File not found");
    assert_error(server.get("/file/img/a.png"), 404, "File not found");
    let r = server.raw("HEAD", "/api/v1/files/img/a.png", &[], b"");
    assert_eq!(r.status, 404, "{}", r.head);

    // Deleted through the API, after being kept again.
    let (ws, server, _, _) = served_from_memory(2000);
    let r = server
        .request("DELETE", "/api/v1/files/img/a.png")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_error(server.get("/api/v1/files/img/a.png"), 404, "File not found");
    assert!(!ws.notes().join("img/a.png").exists());
}

#[cfg(unix)]
#[test]
fn a_kept_file_swapped_for_a_symlink_out_is_refused() {
    let (ws, server, _, _) = served_from_memory(2000);
    let outside = ws.notes().parent().unwrap().join("outside.png");
    std::fs::write(&outside, binary(2000, 7)).unwrap();
    let file = ws.notes().join("img/a.png");
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&outside, &file).unwrap();
    assert_error(server.get("/api/v1/files/img/a.png"), 400, "Invalid path");
}

#[test]
fn ranges_head_and_304_answer_from_the_kept_version() {
    let (_ws, server, bytes, etag) = served_from_memory(300_000);
    assert_ranges(
        &server,
        "/api/v1/files/img/a.png",
        &bytes,
        &[
            ("bytes=100-199", 100, 200),
            ("bytes=-10", 299_990, 300_000),
            ("bytes=299000-", 299_000, 300_000),
            ("bytes=-400000", 0, 300_000),
        ],
    );

    let r = server.raw("HEAD", "/api/v1/files/img/a.png", &[], b"");
    assert_eq!(r.status, 200, "{}", r.head);
    let head = r.head.to_ascii_lowercase();
    assert!(head.contains("content-length: 300000"), "{head}");
    assert!(head.contains("content-type: image/png"), "{head}");
    assert!(r.body.is_empty());

    let r = server
        .request("GET", "/api/v1/files/img/a.png")
        .header("If-None-Match", &etag)
        .send()
        .unwrap();
    assert_eq!(r.status(), 304);
    assert_eq!(header(&r, "etag"), etag);
    assert!(r.bytes().unwrap().is_empty());

    let r = server.get("/api/v1/files/img/a.png");
    assert_eq!(header(&r, "content-type"), "image/png");
    assert_eq!(header(&r, "accept-ranges"), "bytes");
    assert_eq!(header(&r, "x-content-type-options"), "nosniff");
    assert!(!header(&r, "last-modified").is_empty());
}

#[test]
fn active_content_from_memory_stays_sandboxed() {
    let ws = Workspace::new();
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";
    ws.write("pic.svg", svg);
    ws.write("page.html", "<script>alert(1)</script>");
    let server = ws.serve_settled();
    for _ in 0..2 {
        let r = server.get("/api/v1/files/pic.svg");
        assert_eq!(header(&r, "content-type"), "image/svg+xml");
        assert_eq!(header(&r, "content-security-policy"), "sandbox");
        assert_eq!(r.text().unwrap(), svg);
        let r = server.get("/file/page.html");
        assert_eq!(header(&r, "content-type"), "text/plain; charset=utf-8");
        assert_eq!(header(&r, "content-security-policy"), "sandbox");
    }
}

/// One answer read off a keep-alive connection: its head (lowercased) and its body,
/// read to the length the head gives.
fn read_answer(reader: &mut impl std::io::BufRead) -> (String, Vec<u8>) {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "closed mid-head");
        if line == "\r\n" {
            break;
        }
        head.push_str(&line.to_ascii_lowercase());
    }
    let len: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length: "))
        .map(|value| value.trim().parse().unwrap())
        .unwrap_or_else(|| panic!("no length: {head}"));
    let mut body = vec![0; len];
    reader.read_exact(&mut body).unwrap();
    (head, body)
}

#[test]
fn kept_versions_sent_back_to_back_on_one_connection_are_exact() {
    use std::io::{BufReader, Write};
    let ws = Workspace::new();
    // The largest size kept, and active content large enough to be sent from the kernel
    // (`ops::files::sealed`): both stay exact and keep their headers.
    let big = binary(1 << 20, 4);
    let mut svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script>".to_vec();
    svg.extend(std::iter::repeat_n(b' ', 40_000));
    svg.extend_from_slice(b"</svg>");
    std::fs::create_dir_all(ws.notes().join("img")).unwrap();
    std::fs::write(ws.notes().join("img/big.png"), &big).unwrap();
    std::fs::write(ws.notes().join("img/pic.svg"), &svg).unwrap();
    let server = ws.serve_settled();
    assert!(fetch(&server, "img/big.png").0 == big);
    assert!(fetch(&server, "img/pic.svg").0 == svg);

    // Every request in one write, read only after a pause: the server's writes stall
    // on a full socket and resume, and the answers queue one behind the other.
    let addr = server.addr();
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let get = |path: &str, extra: &str| {
        format!("GET /api/v1/files/{path} HTTP/1.1\r\nHost: {addr}\r\n{extra}\r\n")
    };
    let requests = [
        get("img/big.png", ""),
        get("img/pic.svg", ""),
        get("img/big.png", "Range: bytes=500000-900000\r\n"),
        get("img/big.png", ""),
    ];
    stream.write_all(requests.concat().as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let mut reader = BufReader::new(stream);

    let (head, body) = read_answer(&mut reader);
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(body == big, "the first answer differs");
    let (head, body) = read_answer(&mut reader);
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("content-security-policy: sandbox"), "{head}");
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");
    assert!(body == svg, "the SVG differs");
    let (head, body) = read_answer(&mut reader);
    assert!(head.starts_with("http/1.1 206"), "{head}");
    assert!(
        head.contains("content-range: bytes 500000-900000/1048576"),
        "{head}"
    );
    assert!(body == big[500_000..=900_000], "the range differs");
    let (head, body) = read_answer(&mut reader);
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(body == big, "the last answer differs");
}
