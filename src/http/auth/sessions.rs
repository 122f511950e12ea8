//! The web interface's sessions: a login trades a token for a random session id kept
//! in a cookie; the server keeps, in memory only, the hash of that id, the token it
//! came from and when it ends. A restart logs everyone out; a revoked token's
//! sessions go with it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::ops::tokens::Scope;

/// The cookie's name.
pub(crate) const COOKIE: &str = "notes_session";
/// How long a session lasts after its login.
pub(crate) const LIFETIME: Duration = Duration::from_secs(7 * 24 * 3600);
/// The most sessions kept; past it the oldest goes (each login makes one).
const MOST: usize = 10_000;

type Key = [u8; 32];

struct Session {
    /// The hash of the token the session was opened with.
    token: [u8; 32],
    scope: Scope,
    ends: Instant,
}

#[derive(Default)]
pub(crate) struct Sessions {
    open: Mutex<HashMap<Key, Session>>,
}

impl Sessions {
    /// Opens a session for the token hashed `token`; returns the id for the cookie.
    pub(crate) fn open(&self, token: [u8; 32], scope: Scope) -> std::io::Result<String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
        let id = crate::ops::tokens::to_hex(&bytes);
        let now = Instant::now();
        let mut open = self.lock();
        open.retain(|_, s| s.ends > now);
        if open.len() >= MOST
            && let Some(oldest) = open.iter().min_by_key(|(_, s)| s.ends).map(|(k, _)| *k)
        {
            open.remove(&oldest);
        }
        open.insert(
            key(&id),
            Session {
                token,
                scope,
                ends: now + LIFETIME,
            },
        );
        Ok(id)
    }

    /// The scope of the live session `id`, with the hash of its token.
    pub(crate) fn find(&self, id: &str) -> Option<([u8; 32], Scope)> {
        let open = self.lock();
        let session = open.get(&key(id))?;
        (session.ends > Instant::now()).then(|| (session.token, session.scope.clone()))
    }

    pub(crate) fn close(&self, id: &str) {
        self.lock().remove(&key(id));
    }

    /// Drops the sessions whose token is no longer accepted.
    pub(crate) fn keep_only(&self, accepted: impl Fn(&[u8; 32]) -> bool) {
        self.lock().retain(|_, s| accepted(&s.token));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Session>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Sessions are looked up by the hash of their id: the map's timing says nothing of
/// the ids it holds.
fn key(id: &str) -> Key {
    Sha256::digest(id.as_bytes()).into()
}

/// The session id in a `Cookie` header, if any.
pub(crate) fn from_cookie(header: &str) -> Option<&str> {
    header.split(';').find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        (name == COOKIE && !value.is_empty()).then_some(value)
    })
}

/// The `Set-Cookie` value of a new session (`Secure` when the service is reached over
/// HTTPS, as its `--base-url` says).
pub(crate) fn set_cookie(id: &str, secure: bool) -> String {
    format!(
        "{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}{}",
        LIFETIME.as_secs(),
        if secure { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that removes the session cookie.
pub(crate) fn clear_cookie(secure: bool) -> String {
    format!(
        "{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0{}",
        if secure { "; Secure" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_open_find_close_and_follow_their_token() {
        let sessions = Sessions::default();
        let a = sessions.open([1; 32], Scope::full()).unwrap();
        let b = sessions.open([2; 32], Scope::new(true, None)).unwrap();
        assert_ne!(a, b);
        assert_eq!(sessions.find(&a).unwrap().0, [1; 32]);
        assert!(sessions.find(&b).unwrap().1.is_read_only());
        assert!(sessions.find("nope").is_none());
        sessions.keep_only(|t| t != &[2; 32]);
        assert!(sessions.find(&b).is_none());
        sessions.close(&a);
        assert!(sessions.find(&a).is_none());
    }

    #[test]
    fn cookies() {
        assert_eq!(from_cookie("a=1; notes_session=xyz; b=2"), Some("xyz"));
        assert_eq!(from_cookie("notes_session="), None);
        assert_eq!(from_cookie("other=1"), None);
        let set = set_cookie("id", true);
        for part in ["HttpOnly", "SameSite=Strict", "Path=/", "Secure"] {
            assert!(set.contains(part), "{set}");
        }
        assert!(!set_cookie("id", false).contains("Secure"));
    }
}
