//! Which `notes serve` owns a notes folder: an advisory lock on `.notes/serve.lock`,
//! held for the server's whole life and released by the kernel when its process ends,
//! however it ends (`kill -9` included). The file's text names the owner: its pid and,
//! once it listens, its URL. Commands that only read never take the lock.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use super::path::INTERNAL_DIR;

/// The lock file, inside the notes folder's service dir.
const LOCK_FILE: &str = "serve.lock";

/// The outcome of trying to own a notes folder.
#[derive(Debug)]
pub enum Claim {
    /// The folder is ours until the `Ownership` is dropped or the process ends.
    Owned(Ownership),
    /// Another process holds it.
    Taken(Owner),
}

/// The held lock of a notes folder.
#[derive(Debug)]
pub struct Ownership {
    file: File,
    path: PathBuf,
}

/// Who holds a notes folder, as far as its lock file says: nothing yet while that
/// server is still starting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub pid: Option<u32>,
    pub url: Option<String>,
}

/// The lock file of `notes_dir`.
pub fn lock_path(notes_dir: &Path) -> PathBuf {
    notes_dir.join(INTERNAL_DIR).join(LOCK_FILE)
}

impl Ownership {
    /// Takes the lock of `notes_dir` without waiting, creating `.notes/` and the lock
    /// file when missing. Once taken, the file says "pid only" until `announce`.
    pub fn claim(notes_dir: &Path) -> io::Result<Claim> {
        let path = lock_path(notes_dir);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        // Never truncated on open: the text belongs to whoever holds the lock.
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        if !try_lock(&file)? {
            let text = fs::read_to_string(&path).unwrap_or_default();
            return Ok(Claim::Taken(Owner::parse(&text)));
        }
        let ownership = Ownership { file, path };
        // A previous owner's text would name a dead process while we start.
        ownership.write(&format!("{}\n", std::process::id()))?;
        Ok(Claim::Owned(ownership))
    }

    /// Records the address this server listens on, beside its pid.
    pub fn announce(&self, addr: SocketAddr) -> io::Result<()> {
        self.write(&format!("{} http://{addr}\n", std::process::id()))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&self, text: &str) -> io::Result<()> {
        use std::io::{Seek, SeekFrom};
        let mut file = &self.file;
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(text.as_bytes())
    }
}

impl Owner {
    /// Reads `pid [url]`; anything else (an owner still starting) names nobody.
    fn parse(text: &str) -> Owner {
        let mut words = text.split_whitespace();
        let pid = words.next().and_then(|w| w.parse().ok());
        let url = pid.and(words.next()).map(str::to_string);
        Owner { pid, url }
    }
}

/// `pid 1234 on http://127.0.0.1:8080`, or as much of it as is known.
impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.pid, &self.url) {
            (Some(pid), Some(url)) => write!(f, "pid {pid} on {url}"),
            (Some(pid), None) => write!(f, "pid {pid} (still starting)"),
            _ => f.write_str("another process (still starting)"),
        }
    }
}

/// An exclusive `flock` without waiting: `false` when another open file holds it.
#[cfg(target_os = "linux")]
fn try_lock(file: &File) -> io::Result<bool> {
    use rustix::fs::{FlockOperation, flock};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The same through std (`flock` on Unix, `LockFileEx` on Windows; Rust 1.89).
#[cfg(not(target_os = "linux"))]
fn try_lock(file: &File) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(fs::TryLockError::WouldBlock) => Ok(false),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(claim: Claim) -> Ownership {
        match claim {
            Claim::Owned(ownership) => ownership,
            Claim::Taken(owner) => panic!("taken by {owner}"),
        }
    }

    fn taken(claim: Claim) -> Owner {
        match claim {
            Claim::Owned(_) => panic!("claimed a folder another handle owns"),
            Claim::Taken(owner) => owner,
        }
    }

    #[test]
    fn one_owner_at_a_time_named_by_pid_then_url() {
        let dir = tempfile::tempdir().unwrap();
        let first = owned(Ownership::claim(dir.path()).unwrap());
        assert_eq!(first.path(), dir.path().join(".notes/serve.lock"));
        let pid = std::process::id();
        // A lock is per open file: a second open in the same process is refused too.
        let owner = taken(Ownership::claim(dir.path()).unwrap());
        assert_eq!(
            owner,
            Owner {
                pid: Some(pid),
                url: None
            }
        );
        assert_eq!(owner.to_string(), format!("pid {pid} (still starting)"));

        first.announce("127.0.0.1:8080".parse().unwrap()).unwrap();
        let owner = taken(Ownership::claim(dir.path()).unwrap());
        assert_eq!(
            owner.to_string(),
            format!("pid {pid} on http://127.0.0.1:8080")
        );

        drop(first);
        let second = owned(Ownership::claim(dir.path()).unwrap());
        // The text left by the previous owner is replaced at once.
        assert_eq!(
            fs::read_to_string(second.path()).unwrap(),
            format!("{pid}\n")
        );
    }

    #[test]
    fn unreadable_text_names_nobody() {
        assert_eq!(
            Owner::parse("").to_string(),
            "another process (still starting)"
        );
        assert_eq!(Owner::parse("x http://a").pid, None);
        assert_eq!(Owner::parse("x http://a").url, None);
    }
}
