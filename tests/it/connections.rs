//! Connections over real sockets: the cap and which connections it closes, the
//! whole-body deadline, a low open-file limit, and what SIGTERM does to the listener and
//! to requests in flight.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::support::*;

/// One response read off `stream`, skipping `100 Continue`: status, head and body;
/// `None` when the connection ends first.
fn read_response(stream: &mut TcpStream) -> Option<(u16, String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let head_end = loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break end + 4;
            }
            let n = stream.read(&mut chunk).ok()?;
            if n == 0 {
                return None;
            }
            buf.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let status: u16 = head.split_whitespace().nth(1)?.parse().ok()?;
        buf.drain(..head_end);
        if status == 100 {
            continue;
        }
        let length: usize = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0);
        while buf.len() < length {
            let n = stream.read(&mut chunk).ok()?;
            if n == 0 {
                return None;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        return Some((status, head, buf));
    }
}

/// A keep-alive connection that has been answered one GET of `target` and stays open.
fn idle_connection(addr: &str, target: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    write!(stream, "GET {target} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let (status, head, _) = read_response(&mut stream).expect("an answer");
    assert_eq!(status, 200, "{head}");
    stream
}

/// Whether the server has closed this connection.
fn closed_by_server(stream: &TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let mut byte = [0u8; 1];
    let closed = match (&*stream).read(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != ErrorKind::WouldBlock,
    };
    stream.set_nonblocking(false).unwrap();
    closed
}

/// Starts a PUT of `length` bytes, waits until the handler reads its body (the server's
/// `100 Continue`), sends `sent` of them and stops there.
fn stalled_upload(addr: &str, note: &str, length: usize, sent: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "PUT /api/v1/notes/{note} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/markdown\r\n\
         Content-Length: {length}\r\nExpect: 100-continue\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).unwrap(), 1, "no 100 Continue");
        head.push(byte[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 100"), "{head:?}");
    stream.write_all(sent).unwrap();
    stream
}

#[test]
fn at_the_cap_the_longest_idle_connections_make_room_for_a_new_client() {
    let ws = Workspace::new();
    let server = ws.serve_with(&["--max-connections", "32"]);
    let addr = server.addr().to_string();
    let idle: Vec<_> = (0..200)
        .map(|_| idle_connection(&addr, "/api/v1/notes"))
        .collect();

    let started = Instant::now();
    let (status, _) = json(server.get("/api/v1/notes"));
    let waited = started.elapsed();
    assert_eq!(status, 200);
    // Milliseconds on a quiet machine; the bound leaves room for a loaded test machine
    // and stays far below the 15 s a client that is locked out would wait.
    assert!(waited < Duration::from_secs(3), "{waited:?}");

    // No more than the cap stayed open, and those are the most recent ones.
    let mut open = 0;
    assert!(
        eventually(Duration::from_secs(2), || {
            open = idle.iter().filter(|s| !closed_by_server(s)).count();
            open <= 32
        }),
        "{open} idle connections still open"
    );
    assert!(idle[190..].iter().all(|s| !closed_by_server(s)));
    assert!(idle[..100].iter().all(closed_by_server));
}

#[test]
fn at_the_cap_with_every_connection_busy_a_new_client_waits_its_turn() {
    let ws = Workspace::new();
    let server = ws.serve_with(&["--max-connections", "2"]);
    let addr = server.addr().to_string();
    let mut first = stalled_upload(&addr, "first.md", 6, b"# a");
    let _second = stalled_upload(&addr, "second.md", 6, b"# b");

    // The kernel takes the connection; the server answers once a slot frees.
    let mut waiting = TcpStream::connect(&addr).unwrap();
    write!(
        waiting,
        "GET /api/v1/notes HTTP/1.1\r\nHost: {addr}\r\n\r\n"
    )
    .unwrap();
    waiting
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut byte = [0u8; 1];
    let early = waiting.read(&mut byte);
    assert!(
        early
            .as_ref()
            .is_err_and(|e| e.kind() == ErrorKind::WouldBlock),
        "answered while every connection was busy: {early:?}"
    );

    first.write_all(b"\n\nA").unwrap();
    let (status, head, _) = read_response(&mut first).expect("the first upload's answer");
    assert_eq!(status, 201, "{head}");
    waiting
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let started = Instant::now();
    let (status, head, _) = read_response(&mut waiting).expect("the waiting client's answer");
    assert_eq!(status, 200, "{head}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_trickled_body_is_cut_off_at_five_request_timeouts() {
    let ws = Workspace::new();
    let server = ws.serve_with(&["--request-timeout", "1"]);
    let addr = server.addr().to_string();
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "PUT /api/v1/notes/trickle.md HTTP/1.1\r\nHost: {addr}\r\n\
         Content-Type: text/markdown\r\nContent-Length: 1000\r\n\r\n"
    )
    .unwrap();
    let started = Instant::now();

    // A byte every 200 ms: never idle for the 1 s timeout, never done either.
    let answered = Arc::new(AtomicBool::new(false));
    let mut writer = stream.try_clone().unwrap();
    let trickle = {
        let answered = answered.clone();
        std::thread::spawn(move || {
            for _ in 0..50 {
                if answered.load(Ordering::Relaxed) || writer.write_all(b"x").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        })
    };
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let waited = started.elapsed();
    answered.store(true, Ordering::Relaxed);
    trickle.join().unwrap();

    let response = String::from_utf8_lossy(&response);
    assert!(response.starts_with("HTTP/1.1 408"), "{response}");
    assert!(
        response.contains("\"message\": \"The request body stalled\""),
        "{response}"
    );
    assert!(
        response.to_ascii_lowercase().contains("connection: close"),
        "{response}"
    );
    assert!(
        waited >= Duration::from_millis(4800) && waited < Duration::from_secs(7),
        "{waited:?}"
    );
    assert!(!ws.notes().join("trickle.md").exists());
    let (status, _) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
}

/// `notes serve` limited to 64 open files.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn serve_with_64_files(ws: &Workspace, extra: &[&str]) -> Server {
    serve_with_open_files(ws, 64, 64, extra)
}

/// `notes serve` with the given soft and hard open-file limits, holding none but its
/// standard streams: descriptors the test runner leaked to this process are closed at
/// exec.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn serve_with_open_files(ws: &Workspace, soft: u64, hard: u64, extra: &[&str]) -> Server {
    use std::os::unix::process::CommandExt;
    let mut cli = ws.cli();
    // SAFETY: close_range and setrlimit are plain system calls, and nothing else runs
    // between fork and exec.
    unsafe {
        cli.pre_exec(move || {
            let flags = libc::CLOSE_RANGE_CLOEXEC as libc::c_long;
            if libc::syscall(libc::SYS_close_range, 3_u32, u32::MAX, flags) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let limit = libc::rlimit {
                rlim_cur: soft,
                rlim_max: hard,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    ws.serve_through(cli, extra)
}

/// The soft and hard open-file limits of a running process, from `/proc/PID/limits`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn open_file_limits(pid: u32) -> (u64, u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let numbers: Vec<u64> = line
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect();
    (numbers[0], numbers[1])
}

#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn the_server_raises_its_soft_open_file_limit_within_the_hard_one() {
    let ws = Workspace::new();
    // Without the privilege to raise a hard limit, the child's stay within this one's.
    let own_hard = open_file_limits(std::process::id()).1;
    assert!(
        own_hard >= 4096,
        "the tests need a hard limit of 4096 at least"
    );
    // A search index of many segments holds more than the usual 1,024 descriptors: the
    // soft limit is raised to the hard one, up to 16,384, and never lowered.
    for (soft, hard) in [(256, 4096), (1024, own_hard), (own_hard, own_hard)] {
        let server = serve_with_open_files(&ws, soft, hard, &[]);
        let expected = soft.max(hard.min(16_384));
        assert_eq!(
            open_file_limits(server.pid()),
            (expected, hard),
            "{soft}/{hard}"
        );
    }
}

fn accept_failure_lines(server: &Server) -> usize {
    server
        .log()
        .lines()
        .filter(|line| line.contains("accept failed"))
        .count()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn under_a_low_open_file_limit_idle_connections_do_not_lock_clients_out() {
    let ws = Workspace::new();
    ws.write("a.md", "# A\n");

    // The default cap (half the limit) keeps files for the requests themselves.
    let server = serve_with_64_files(&ws, &[]);
    let addr = server.addr().to_string();
    let _idle: Vec<_> = (0..100)
        .map(|_| idle_connection(&addr, "/api/v1/notes"))
        .collect();
    let started = Instant::now();
    let (status, body) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["total"], 1, "{body}");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(accept_failure_lines(&server), 0, "{}", server.log());
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn out_of_file_descriptors_the_server_frees_one_and_logs_once() {
    let ws = Workspace::new();
    // A cap above the limit: accepts run out of descriptors before the cap is reached.
    let server = serve_with_64_files(&ws, &["--max-connections", "1000"]);
    let addr = server.addr().to_string();
    let started = Instant::now();
    let _idle: Vec<_> = (0..100)
        .map(|_| idle_connection(&addr, "/api/v1/openapi.json"))
        .collect();
    assert!(started.elapsed() < Duration::from_secs(8));
    let started = Instant::now();
    let response = server.get("/api/v1/openapi.json");
    assert_eq!(response.status(), 200);
    assert!(started.elapsed() < Duration::from_secs(3));

    let log = server.log();
    assert_eq!(accept_failure_lines(&server), 1, "{log}");
    assert!(log.contains("Too many open files"), "{log}");
    assert!(log.lines().count() < 10, "{log}");
}

#[test]
fn sigterm_refuses_new_connections_at_once_and_exits_after_the_shutdown_timeout() {
    let ws = Workspace::new();
    let mut server = ws.serve_with(&["--shutdown-timeout", "1"]);
    let addr = server.addr().to_string();
    let _stalled = stalled_upload(&addr, "stalled.md", 100, b"# only part");

    let signalled = Instant::now();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());

    // The listener closes before the drain: connections are refused while the stalled
    // request still holds the process.
    let mut refused = false;
    while signalled.elapsed() < Duration::from_secs(1) {
        match TcpStream::connect(&addr) {
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => {
                refused = true;
                break;
            }
            _ => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    let refused_after = signalled.elapsed();
    assert!(refused, "still accepting 1 s after SIGTERM");
    assert!(
        refused_after < Duration::from_millis(500),
        "{refused_after:?}"
    );
    assert!(
        server.wait_exit(Duration::ZERO).is_none(),
        "exited before the drain"
    );

    let status = server
        .wait_exit(Duration::from_secs(5))
        .expect("still running 5 s after SIGTERM");
    let exited_after = signalled.elapsed();
    assert!(status.success(), "{status:?}\n{}", server.log());
    assert!(
        exited_after >= Duration::from_millis(900) && exited_after < Duration::from_millis(2500),
        "{exited_after:?}"
    );
    assert!(!ws.notes().join("stalled.md").exists());
}
