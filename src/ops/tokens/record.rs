//! `.notes/tokens.json`: the tokens a server accepts, each kept as the SHA-256 of its
//! secret (the secret itself is shown once, at creation, and stored nowhere), and
//! whether the folder is closed (tokens asked for even when none is left). Our own
//! versioned layout; a file that cannot be read is an error, never an empty set (an
//! empty set would open the server to everyone).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::scope::{Prefix, Scope};
use crate::error::{Error, Result};

/// The file's name in `.notes/`.
pub(crate) const FILE: &str = "tokens.json";
/// The layout version this build writes. Version 1 (no `closed` key) is still read:
/// such a file was only ever written by `token create` or `revoke`, so the folder has
/// had a token and is closed.
const VERSION: u32 = 2;
/// Every secret starts with this, so a leaked one is recognisable (secret scanners,
/// logs) and a mistyped one (a note path, a password) is told apart at once.
pub(crate) const SECRET_PREFIX: &str = "notes_";
/// Random bytes in a secret: 160 bits, written as 40 hex digits.
const SECRET_BYTES: usize = 20;

/// The SHA-256 of a secret.
pub(crate) type Hash = [u8; 32];

/// One token as stored: never its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenInfo {
    pub name: String,
    pub scope: Scope,
    /// ISO 8601 UTC, to the second.
    pub created: String,
}

#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) info: TokenInfo,
    pub(crate) hash: Hash,
}

/// What the file holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Record {
    pub(crate) entries: Vec<Entry>,
    /// Requests need a token even when `entries` is empty: true from the first token
    /// made until `notes token off`. Always true while a token exists.
    pub(crate) closed: bool,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    version: u32,
    /// Absent in version 1 files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    closed: Option<bool>,
    tokens: Vec<StoredToken>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredToken {
    name: String,
    /// Lower-case hex.
    sha256: String,
    #[serde(default)]
    read_only: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prefix: Option<String>,
    created: String,
}

/// Parses the file's bytes; every entry is checked, so a hand-edited file with one bad
/// entry is refused as a whole rather than half-applied.
pub(crate) fn parse(bytes: &[u8]) -> Result<Record> {
    let unreadable = Error::TokensUnreadable;
    let stored: Stored =
        serde_json::from_slice(bytes).map_err(|e| unreadable(format!("{FILE}: {e}")))?;
    let closed = match (stored.version, stored.closed) {
        (1, _) => true,
        (VERSION, Some(closed)) => closed,
        (VERSION, None) => return Err(unreadable(format!("{FILE}: the key `closed` is missing"))),
        (other, _) => {
            return Err(unreadable(format!(
                "{FILE} has the unknown version {other}"
            )));
        }
    };
    let entries = stored
        .tokens
        .into_iter()
        .map(|t| {
            let hash = from_hex(&t.sha256)
                .ok_or_else(|| unreadable(format!("{FILE}: token {:?} has a bad hash", t.name)))?;
            let prefix = match t.prefix.as_deref() {
                None => None,
                Some(raw) => Some(Prefix::parse(raw).map_err(|_| {
                    unreadable(format!("{FILE}: token {:?} has a bad prefix", t.name))
                })?),
            };
            Ok(Entry {
                info: TokenInfo {
                    name: t.name,
                    scope: Scope::new(t.read_only, prefix),
                    created: t.created,
                },
                hash,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Record {
        // A token in force closes the folder, whatever a hand edit says.
        closed: closed || !entries.is_empty(),
        entries,
    })
}

/// The file's bytes for `record`.
pub(crate) fn emit(record: &Record) -> Vec<u8> {
    let stored = Stored {
        version: VERSION,
        closed: Some(record.closed || !record.entries.is_empty()),
        tokens: record
            .entries
            .iter()
            .map(|e| StoredToken {
                name: e.info.name.clone(),
                sha256: to_hex(&e.hash),
                read_only: e.info.scope.is_read_only(),
                prefix: e.info.scope.prefix().map(|p| p.as_str().to_string()),
                created: e.info.created.clone(),
            })
            .collect(),
    };
    let mut bytes = serde_json::to_vec_pretty(&stored).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// A new secret from the operating system's random source.
pub(crate) fn new_secret() -> Result<String> {
    let mut bytes = [0u8; SECRET_BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::TokensWriteFailed(std::io::Error::other(e.to_string())))?;
    Ok(format!("{SECRET_PREFIX}{}", to_hex(&bytes)))
}

/// The SHA-256 of a presented secret.
pub(crate) fn hash(secret: &[u8]) -> Hash {
    Sha256::digest(secret).into()
}

/// The tokens a server accepts, searched by the hash of a presented secret.
#[derive(Debug, Default)]
pub struct Keyring {
    entries: Vec<Entry>,
    closed: bool,
}

impl Keyring {
    pub(crate) fn new(record: Record) -> Self {
        Keyring {
            closed: record.closed || !record.entries.is_empty(),
            entries: record.entries,
        }
    }

    /// Whether no token exists.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether requests need a token: one exists, or one did and tokens were not
    /// turned off since (`notes token off`). A closed folder with no token refuses
    /// every request that needs one.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The token whose secret is `secret`, if any. The secret is hashed once, and its
    /// hash compared with every stored one in constant time (`same_hash`), each of them,
    /// whatever matched before: how long this takes tells nothing of the stored hashes.
    pub fn find(&self, secret: &[u8]) -> Option<&TokenInfo> {
        let presented = hash(secret);
        let mut found = None;
        for entry in &self.entries {
            if same_hash(&entry.hash, &presented) {
                found = Some(&entry.info);
            }
        }
        found
    }

    /// Whether the token hashed `hash` is still accepted (a web session opened with it
    /// lives only as long as it does).
    pub(crate) fn holds(&self, hash: &Hash) -> bool {
        let mut held = false;
        for entry in &self.entries {
            held |= same_hash(&entry.hash, hash);
        }
        held
    }
}

/// The one comparison of a presented token with a stored one: `subtle`'s constant-time
/// equality over the two SHA-256 hashes.
pub(crate) fn same_hash(stored: &Hash, presented: &Hash) -> bool {
    #[cfg(test)]
    COMPARED.with(|c| c.set(c.get() + 1));
    stored.ct_eq(presented).into()
}

#[cfg(test)]
thread_local! {
    /// How many times `same_hash` ran on this thread, for the test that shows it is the
    /// comparison the lookup uses.
    static COMPARED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

pub(crate) fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

fn from_hex(text: &str) -> Option<Hash> {
    let mut out = [0u8; 32];
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_bad_files_are_refused() {
        let entry = Entry {
            info: TokenInfo {
                name: "phone".into(),
                scope: Scope::new(true, Some(Prefix::parse("work").unwrap())),
                created: "2026-11-23T22:00:00Z".into(),
            },
            hash: hash(b"notes_abc"),
        };
        let record = Record {
            entries: vec![entry.clone()],
            closed: false,
        };
        let parsed = parse(&emit(&record)).unwrap();
        assert_eq!(parsed.entries[0].info, entry.info);
        assert_eq!(parsed.entries[0].hash, entry.hash);
        assert!(parsed.closed, "a token in force closes the folder");
        for bad in [
            &b"not json"[..],
            br#"{"version":3,"closed":true,"tokens":[]}"#,
            br#"{"version":2,"tokens":[]}"#,
            br#"{"version":1,"tokens":[{"name":"a","sha256":"zz","created":"x"}]}"#,
            br#"{"version":1,"tokens":[{"name":"a","sha256":"00000000000000000000000000000000000000000000000000000000000000000","created":"x"}]}"#,
        ] {
            assert!(
                matches!(parse(bad), Err(Error::TokensUnreadable(_))),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    /// Once a folder has had a token it stays closed: an old file (version 1, written
    /// only by `create` and `revoke`) with no token left is closed; only an explicit
    /// `closed: false` (`notes token off`) opens it.
    #[test]
    fn the_closed_state_is_kept_and_old_files_read_closed() {
        for (text, closed, count) in [
            (&br#"{"version":1,"tokens":[]}"#[..], true, 0),
            (br#"{"version":2,"closed":true,"tokens":[]}"#, true, 0),
            (br#"{"version":2,"closed":false,"tokens":[]}"#, false, 0),
            (
                br#"{"version":2,"closed":false,"tokens":[{"name":"a","sha256":"0000000000000000000000000000000000000000000000000000000000000000","created":"x"}]}"#,
                true,
                1,
            ),
        ] {
            let record = parse(text).unwrap();
            assert_eq!(record.closed, closed, "{}", String::from_utf8_lossy(text));
            assert_eq!(record.entries.len(), count);
            let again = parse(&emit(&record)).unwrap();
            assert_eq!(again.closed, closed);
            assert_eq!(Keyring::new(again).is_closed(), closed);
        }
        let emitted = String::from_utf8(emit(&Record::default())).unwrap();
        assert!(emitted.contains("\"version\": 2"), "{emitted}");
        assert!(emitted.contains("\"closed\": false"), "{emitted}");
    }

    #[test]
    fn secrets_are_random_and_found_by_their_hash_only() {
        let (a, b) = (new_secret().unwrap(), new_secret().unwrap());
        assert_ne!(a, b);
        assert!(a.starts_with(SECRET_PREFIX) && a.len() == SECRET_PREFIX.len() + 40);
        let info = |name: &str| TokenInfo {
            name: name.into(),
            scope: Scope::full(),
            created: String::new(),
        };
        let ring = Keyring::new(Record {
            entries: vec![
                Entry {
                    info: info("a"),
                    hash: hash(a.as_bytes()),
                },
                Entry {
                    info: info("b"),
                    hash: hash(b.as_bytes()),
                },
            ],
            closed: true,
        });
        assert_eq!(ring.find(b.as_bytes()).map(|t| t.name.as_str()), Some("b"));
        assert_eq!(ring.find(a.as_bytes()).map(|t| t.name.as_str()), Some("a"));
        assert!(ring.find(b"notes_0000").is_none());
        assert!(
            ring.find(&hash(a.as_bytes())).is_none(),
            "the hash is not the token"
        );
    }

    /// The lookup goes through `same_hash` (subtle's `ct_eq`) once for every stored
    /// token, the matching one first or last: no `==` and no early return.
    #[test]
    fn the_constant_time_comparison_is_the_one_used() {
        let info = |name: &str| TokenInfo {
            name: name.into(),
            scope: Scope::full(),
            created: String::new(),
        };
        let ring = Keyring::new(Record {
            entries: ["a", "b", "c"]
                .into_iter()
                .map(|n| Entry {
                    info: info(n),
                    hash: hash(n.as_bytes()),
                })
                .collect(),
            closed: true,
        });
        for (presented, found) in [("a", Some("a")), ("c", Some("c")), ("z", None)] {
            COMPARED.with(|c| c.set(0));
            assert_eq!(
                ring.find(presented.as_bytes()).map(|t| t.name.as_str()),
                found
            );
            assert_eq!(COMPARED.with(std::cell::Cell::get), 3, "{presented}");
        }
        let x = hash(b"x");
        let mut y = x;
        assert!(same_hash(&x, &y));
        y[31] ^= 1;
        assert!(!same_hash(&x, &y));
    }
}
