//! Access tokens: `notes token create / list / revoke / off` and the set a server
//! checks requests against. A token is a random secret shown once; `.notes/tokens.json`
//! (mode 0600, written atomically under a lock) keeps its name, the SHA-256 of the
//! secret, its scope (`scope.rs`) and when it was made, and whether the folder is
//! closed (`record.rs`): the first token closes it, revoking the last one leaves it
//! closed (a server then refuses every request that needs a token), and only
//! `notes token off` opens it again.

mod reach;
mod record;
mod scope;

pub(crate) use reach::{Reader, readable};
pub(crate) use record::{Hash, hash as hash_secret, to_hex};
pub use record::{Keyring, TokenInfo};
pub use scope::{Prefix, Scope, Scoped};

use crate::error::{Error, Result};
use crate::ops::Notebook;
use record::{Entry, Record};

/// The file's permissions: the hashes are not secrets, but nobody else needs them.
const FILE_MODE: u32 = 0o600;
/// The longest token name.
const MAX_NAME: usize = 64;

/// A token just made: its secret, the only time it is known.
#[derive(Debug)]
pub struct NewToken {
    pub info: TokenInfo,
    pub secret: String,
}

/// The tokens, and whether the folder is closed.
#[derive(Debug)]
pub struct TokenList {
    pub tokens: Vec<TokenInfo>,
    /// A server asks for a token (and refuses every request while none exists).
    pub closed: bool,
}

/// A token just revoked, and how many are left.
#[derive(Debug)]
pub struct Revoked {
    pub info: TokenInfo,
    /// With none left, the folder stays closed: a server refuses every request that
    /// needs a token until one is made, or tokens are turned off.
    pub left: usize,
}

/// Which version of `.notes/tokens.json` is on disk: its identity (device, inode,
/// size, change times), or its absence. A server compares it on each request and reads
/// the file again only when it differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TokensStamp(Option<[u64; 6]>);

impl Notebook {
    /// Makes a token named `name` (the first free `token-N` when `None`) with `scope`,
    /// and returns it with its secret.
    pub fn create_token(&self, name: Option<&str>, scope: Scope) -> Result<NewToken> {
        if let Some(name) = name {
            check_name(name)?;
        }
        let secret = record::new_secret()?;
        let hash = record::hash(secret.as_bytes());
        let created = crate::ops::clock::iso_utc(chrono::Utc::now());
        let info = self.change_tokens(|record| {
            record.closed = true;
            let entries = &mut record.entries;
            let name = match name {
                Some(name) if entries.iter().any(|e| e.info.name == name) => {
                    return Err(Error::TokenExists(name.to_string()));
                }
                Some(name) => name.to_string(),
                None => (1..)
                    .map(|n| format!("token-{n}"))
                    .find(|n| entries.iter().all(|e| &e.info.name != n))
                    .unwrap_or_default(),
            };
            let info = TokenInfo {
                name,
                scope,
                created,
            };
            entries.push(Entry {
                info: info.clone(),
                hash,
            });
            Ok(info)
        })?;
        Ok(NewToken { info, secret })
    }

    /// Every token, in the order they were made (never their secrets), and whether
    /// the folder is closed.
    pub fn tokens(&self) -> Result<TokenList> {
        let record = self.stored_tokens()?;
        Ok(TokenList {
            closed: record.closed,
            tokens: record.entries.into_iter().map(|e| e.info).collect(),
        })
    }

    /// Removes the token `name`: from the next request on, a server refuses it and
    /// drops the web sessions opened with it. The last one revoked leaves the folder
    /// closed.
    pub fn revoke_token(&self, name: &str) -> Result<Revoked> {
        self.change_tokens(|record| {
            let at = record
                .entries
                .iter()
                .position(|e| e.info.name == name)
                .ok_or_else(|| Error::TokenNotFound(name.to_string()))?;
            let info = record.entries.remove(at).info;
            Ok(Revoked {
                info,
                left: record.entries.len(),
            })
        })
    }

    /// Turns tokens off on purpose: revokes every token left and opens the folder, so
    /// a server on loopback answers without one again. Returns the tokens revoked.
    pub fn tokens_off(&self) -> Result<Vec<TokenInfo>> {
        self.change_tokens(|record| {
            record.closed = false;
            Ok(std::mem::take(&mut record.entries)
                .into_iter()
                .map(|e| e.info)
                .collect())
        })
    }

    /// The tokens a server accepts, read from disk now.
    pub fn keyring(&self) -> Result<Keyring> {
        Ok(Keyring::new(self.stored_tokens()?))
    }

    /// The identity of the tokens file now: one `stat`, no read.
    pub fn tokens_stamp(&self) -> TokensStamp {
        TokensStamp(
            self.root
                .internal_identity(record::FILE)
                .map(|s| stamp_of(&s)),
        )
    }

    fn stored_tokens(&self) -> Result<Record> {
        match self.root.read_internal(record::FILE) {
            Ok(Some(bytes)) => record::parse(&bytes),
            // No file: no token was ever made here (or the file was removed by hand).
            Ok(None) => Ok(Record::default()),
            Err(e) => Err(Error::TokensUnreadable(format!("{}: {e}", record::FILE))),
        }
    }

    /// Reads the tokens, lets `change` edit them, writes them back: all under the
    /// file's lock. Nothing is written when `change` fails. Returns once the clock a
    /// server checks the file by has ticked since the write ([`settled_tick`]), so a
    /// request sent after this returns sees the change.
    fn change_tokens<T>(&self, change: impl FnOnce(&mut Record) -> Result<T>) -> Result<T> {
        let out = self.change_tokens_now(change)?;
        let written = crate::ops::clock::coarse_millis();
        while crate::ops::clock::coarse_millis() < settled_tick(written) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Ok(out)
    }

    fn change_tokens_now<T>(&self, change: impl FnOnce(&mut Record) -> Result<T>) -> Result<T> {
        self.root
            .update_internal(record::FILE, FILE_MODE, |bytes| {
                let mut record = match bytes {
                    Some(bytes) => record::parse(&bytes)?,
                    None => Record::default(),
                };
                let out = change(&mut record)?;
                Ok((record::emit(&record), out))
            })
            .map_err(|e: UpdateError| match e {
                UpdateError::Domain(e) => e,
                UpdateError::Io(e) => Error::TokensWriteFailed(e),
            })
    }
}

/// The first reading of `coarse_millis` that a change made at reading `written` is
/// certainly older than: a server trusts the file's identity for the rest of the clock
/// tick it looked at it in, so a change must be a full tick old before a request can
/// count on it. The coarse clock advances by its whole tick (1–10 ms) at once; the
/// fallback clock by 1 ms, so 2 ms covers both.
fn settled_tick(written: u64) -> u64 {
    written.saturating_add(2)
}

/// A failure of a change to the tokens file: the change's own, or the file system's.
enum UpdateError {
    Domain(Error),
    Io(std::io::Error),
}

impl From<std::io::Error> for UpdateError {
    fn from(e: std::io::Error) -> Self {
        UpdateError::Io(e)
    }
}

impl From<Error> for UpdateError {
    fn from(e: Error) -> Self {
        UpdateError::Domain(e)
    }
}

/// Names are what `revoke` and the listings show: short, printable, no spaces.
fn check_name(name: &str) -> Result<()> {
    let valid = !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'@'));
    if valid {
        Ok(())
    } else {
        Err(Error::InvalidTokenName(name.to_string()))
    }
}

#[cfg(target_os = "linux")]
#[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
fn stamp_of(stat: &rustix::fs::Stat) -> [u64; 6] {
    [
        stat.st_dev as u64,
        stat.st_ino as u64,
        stat.st_size as u64,
        stat.st_mtime as u64,
        stat.st_mtime_nsec as u64,
        stat.st_ctime_nsec as u64,
    ]
}

#[cfg(not(target_os = "linux"))]
fn stamp_of(meta: &std::fs::Metadata) -> [u64; 6] {
    let nanos = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64)
    };
    [
        meta.len(),
        nanos(meta.modified()),
        nanos(meta.created()),
        0,
        0,
        0,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::temp_notebook;

    #[test]
    fn create_list_revoke() {
        let (_dir, notebook) = temp_notebook();
        assert!(notebook.tokens().unwrap().tokens.is_empty());
        assert!(!notebook.tokens().unwrap().closed);
        assert!(notebook.keyring().unwrap().is_empty());
        assert!(!notebook.keyring().unwrap().is_closed());
        let before = notebook.tokens_stamp();
        let a = notebook.create_token(None, Scope::full()).unwrap();
        let scope = Scope::new(true, Some(Prefix::parse("work").unwrap()));
        let b = notebook.create_token(Some("phone"), scope.clone()).unwrap();
        assert_eq!(a.info.name, "token-1");
        assert_ne!(notebook.tokens_stamp(), before);
        let listed = notebook.tokens().unwrap();
        assert_eq!(listed.tokens, vec![a.info.clone(), b.info.clone()]);
        assert!(listed.closed);
        let ring = notebook.keyring().unwrap();
        assert_eq!(ring.find(b.secret.as_bytes()).unwrap().scope, scope);
        // Only hashes are stored.
        let text =
            std::fs::read_to_string(notebook.notes_dir().join(".notes/tokens.json")).unwrap();
        assert!(!text.contains(&a.secret[record::SECRET_PREFIX.len()..]));
        assert!(matches!(
            notebook.create_token(Some("phone"), Scope::full()),
            Err(Error::TokenExists(n)) if n == "phone"
        ));
        let revoked = notebook.revoke_token("token-1").unwrap();
        assert_eq!((revoked.info.name.as_str(), revoked.left), ("token-1", 1));
        assert!(matches!(
            notebook.revoke_token("token-1"),
            Err(Error::TokenNotFound(_))
        ));
        assert!(
            notebook
                .keyring()
                .unwrap()
                .find(a.secret.as_bytes())
                .is_none()
        );
        // The freed default name is used again.
        assert_eq!(
            notebook
                .create_token(None, Scope::full())
                .unwrap()
                .info
                .name,
            "token-1"
        );
    }

    /// Revoking the last token leaves the folder closed; only `tokens_off` opens it,
    /// and the next token closes it again.
    #[test]
    fn the_last_revoke_keeps_the_folder_closed_until_tokens_are_turned_off() {
        let (_dir, notebook) = temp_notebook();
        notebook.create_token(Some("a"), Scope::full()).unwrap();
        notebook.create_token(Some("b"), Scope::full()).unwrap();
        assert_eq!(notebook.revoke_token("a").unwrap().left, 1);
        assert_eq!(notebook.revoke_token("b").unwrap().left, 0);
        let ring = notebook.keyring().unwrap();
        assert!(ring.is_empty() && ring.is_closed());
        assert!(notebook.tokens().unwrap().closed);
        notebook.create_token(Some("c"), Scope::full()).unwrap();
        let off = notebook.tokens_off().unwrap();
        assert_eq!(
            off.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            ["c"]
        );
        let ring = notebook.keyring().unwrap();
        assert!(ring.is_empty() && !ring.is_closed());
        notebook.create_token(None, Scope::full()).unwrap();
        assert!(notebook.keyring().unwrap().is_closed());
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_private_and_bad_names_change_nothing() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, notebook) = temp_notebook();
        notebook.create_token(Some("a"), Scope::full()).unwrap();
        let path = notebook.notes_dir().join(".notes/tokens.json");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let before = std::fs::read(&path).unwrap();
        for bad in ["", "a b", "-x", "é", &"n".repeat(65)] {
            assert!(
                matches!(
                    notebook.create_token(Some(bad), Scope::full()),
                    Err(Error::InvalidTokenName(_))
                ),
                "{bad:?}"
            );
        }
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn an_unreadable_file_is_an_error_not_an_open_door() {
        let (_dir, notebook) = temp_notebook();
        let dir = notebook.notes_dir().join(".notes");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("tokens.json"), "{oops").unwrap();
        assert!(matches!(
            notebook.keyring(),
            Err(Error::TokensUnreadable(_))
        ));
        assert!(matches!(
            notebook.create_token(None, Scope::full()),
            Err(Error::TokensUnreadable(_))
        ));
        assert_eq!(
            std::fs::read_to_string(dir.join("tokens.json")).unwrap(),
            "{oops"
        );
    }
}
