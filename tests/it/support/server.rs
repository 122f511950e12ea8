//! The real `notes serve` on an ephemeral loopback port: started from a prepared
//! command, its standard error kept in a log file, killed on drop.

use std::io::{BufRead, BufReader};
use std::ops::Deref;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::Client;

/// A running `notes serve`, killed on drop; requests go through its `Client`.
pub struct Server {
    child: Child,
    /// Where the server's standard error goes.
    pub log: PathBuf,
    client: Client,
}

impl Server {
    /// Runs `cli serve --listen 127.0.0.1:0 extra…` with standard error into `log`, and
    /// waits for the line announcing its URL.
    pub fn start(cli: Command, extra: &[&str], log: PathBuf) -> Server {
        Server::start_at(cli, "127.0.0.1:0", extra, log)
    }

    /// As `start`, listening on `listen` (a server started again on the port it had).
    pub fn start_at(mut cli: Command, listen: &str, extra: &[&str], log: PathBuf) -> Server {
        let mut child = cli
            .args(["serve", "--listen", listen])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("start notes serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| {
                let _ = child.kill();
                panic!(
                    "server did not announce its URL: {line:?}\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                )
            })
            .to_string();
        Server {
            child,
            log,
            client: Client::new(base),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits up to `timeout` for the process to end; its exit status, if it did.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends SIGTERM and waits for the process to end; returns whether it exited by itself.
    pub fn terminate(&mut self) -> bool {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

/// A server is talked to through its client: `server.get(…)`, `server.base`.
impl Deref for Server {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The service trusts its handle on the notes folder for up to a second (a folder
/// replaced whole is noticed after it); this waits that long.
pub fn wait_for_root_check() {
    std::thread::sleep(Duration::from_millis(1100));
}
