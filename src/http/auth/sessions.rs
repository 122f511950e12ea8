//! The web interface's sessions: a login trades a token for a random session id kept
//! in a cookie; the server keeps, in memory only, the hash of that id, the token it
//! came from and when it ends. A session ends after [`IDLE`] without a request,
//! [`ABSOLUTE`] after its login, at logout, or with its token; a restart logs everyone
//! out. Each token keeps at most [`PER_TOKEN`] sessions (its own oldest go first), so
//! logins with one token never end the sessions of another.
//!
//! The cookie is named after the server's port (`notes_session_8080`): browsers send a
//! host's cookies to every port of it, so two servers on one host would otherwise
//! overwrite each other's session. Behind `--base-url https://…` it is
//! `__Host-notes_session_8080` with `Secure; Path=/` and no `Domain`, which browsers
//! accept only from a secure origin and never share with a subdomain.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::ops::tokens::Scope;

/// The cookie's name before the port.
const COOKIE: &str = "notes_session";
/// A session unused this long ends (a browser left open overnight logs in again).
pub(crate) const IDLE: Duration = Duration::from_secs(12 * 3600);
/// A session ends this long after its login, however busy.
pub(crate) const ABSOLUTE: Duration = Duration::from_secs(7 * 24 * 3600);
/// The most sessions one token keeps; past it that token's oldest goes.
pub(crate) const PER_TOKEN: usize = 100;

/// The environment variable that shortens the limits, for the tests of expiry only:
/// `IDLE_MS,ABSOLUTE_MS` in milliseconds. It can only shorten them: a value above the
/// default is the default.
pub(crate) const TEST_LIMITS: &str = "NOTES_TEST_SESSION_LIMITS";

type Key = [u8; 32];

/// How long sessions last and how many a token keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Limits {
    pub(crate) idle: Duration,
    pub(crate) absolute: Duration,
    pub(crate) per_token: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            idle: IDLE,
            absolute: ABSOLUTE,
            per_token: PER_TOKEN,
        }
    }
}

impl Limits {
    /// The defaults, shortened by [`TEST_LIMITS`] when it is set.
    pub(crate) fn from_env() -> Self {
        let set = crate::test_hooks::var(TEST_LIMITS);
        Self::shortened(set.as_deref())
    }

    fn shortened(set: Option<&str>) -> Self {
        let mut limits = Limits::default();
        let Some((idle, absolute)) = set.and_then(|s| s.split_once(',')) else {
            return limits;
        };
        let millis = |s: &str| s.trim().parse::<u64>().ok().map(Duration::from_millis);
        if let (Some(idle), Some(absolute)) = (millis(idle), millis(absolute)) {
            limits.idle = idle.min(IDLE);
            limits.absolute = absolute.min(ABSOLUTE);
        }
        limits
    }
}

struct Session {
    /// The hash of the token the session was opened with.
    token: [u8; 32],
    scope: Scope,
    opened: Instant,
    /// The absolute limit.
    ends: Instant,
    /// The idle limit, moved on by each request.
    idle_ends: Instant,
}

impl Session {
    fn live(&self, now: Instant) -> bool {
        now < self.ends && now < self.idle_ends
    }
}

pub(crate) struct Sessions {
    open: Mutex<HashMap<Key, Session>>,
    limits: Limits,
}

impl Sessions {
    pub(crate) fn new(limits: Limits) -> Self {
        Sessions {
            open: Mutex::new(HashMap::new()),
            limits,
        }
    }

    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    /// Opens a session for the token hashed `token`; returns the id for the cookie.
    /// Ended sessions are dropped first; at the token's cap, its oldest goes.
    pub(crate) fn open(&self, token: [u8; 32], scope: Scope) -> std::io::Result<String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
        let id = crate::ops::tokens::to_hex(&bytes);
        let now = Instant::now();
        let mut open = self.lock();
        open.retain(|_, s| s.live(now));
        let mine = open.values().filter(|s| s.token == token).count();
        for _ in self.limits.per_token.saturating_sub(1)..mine {
            let oldest = open
                .iter()
                .filter(|(_, s)| s.token == token)
                .min_by_key(|(_, s)| s.opened)
                .map(|(k, _)| *k);
            if let Some(oldest) = oldest {
                open.remove(&oldest);
            }
        }
        open.insert(
            key(&id),
            Session {
                token,
                scope,
                opened: now,
                ends: now + self.limits.absolute,
                idle_ends: now + self.limits.idle,
            },
        );
        Ok(id)
    }

    /// The scope of the live session `id`, with the hash of its token; the request
    /// counts as the session's use (its idle limit starts again).
    pub(crate) fn find(&self, id: &str) -> Option<([u8; 32], Scope)> {
        let key = key(id);
        let now = Instant::now();
        let mut open = self.lock();
        let session = open.get_mut(&key)?;
        if !session.live(now) {
            open.remove(&key);
            return None;
        }
        session.idle_ends = now + self.limits.idle;
        Some((session.token, session.scope.clone()))
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

/// The session cookie of one server: its name (port, and `__Host-` over HTTPS) and
/// attributes.
pub(crate) struct Cookie {
    name: String,
    secure: bool,
}

impl Cookie {
    /// The cookie of a server listening on `port`; `secure` when its `--base-url` is
    /// `https://…`.
    pub(crate) fn new(port: u16, secure: bool) -> Self {
        let prefix = if secure { "__Host-" } else { "" };
        Cookie {
            name: format!("{prefix}{COOKIE}_{port}"),
            secure,
        }
    }

    /// The session id in a `Cookie` header, if any.
    pub(crate) fn find<'a>(&self, header: &'a str) -> Option<&'a str> {
        header.split(';').find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == self.name && !value.is_empty()).then_some(value)
        })
    }

    /// The `Set-Cookie` value of a new session, kept by the browser as long as the
    /// session can live.
    pub(crate) fn set(&self, id: &str, absolute: Duration) -> String {
        let seconds = absolute.as_millis().div_ceil(1000);
        self.with_attributes(id, seconds)
    }

    /// The `Set-Cookie` value that removes the session cookie.
    pub(crate) fn clear(&self) -> String {
        self.with_attributes("", 0)
    }

    fn with_attributes(&self, value: &str, max_age: u128) -> String {
        format!(
            "{}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}{}",
            self.name,
            if self.secure { "; Secure" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sessions(idle_ms: u64, absolute_ms: u64, per_token: usize) -> Sessions {
        Sessions::new(Limits {
            idle: Duration::from_millis(idle_ms),
            absolute: Duration::from_millis(absolute_ms),
            per_token,
        })
    }

    #[test]
    fn sessions_open_find_close_and_follow_their_token() {
        let sessions = Sessions::new(Limits::default());
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
    fn sessions_end_when_idle_and_at_their_absolute_limit() {
        let sessions = sessions(150, 400, 10);
        let idle = sessions.open([1; 32], Scope::full()).unwrap();
        let busy = sessions.open([1; 32], Scope::full()).unwrap();
        let start = Instant::now();
        // Bounded: the busy one is used every 50 ms until past the idle limit.
        while start.elapsed() < Duration::from_millis(250) {
            assert!(sessions.find(&busy).is_some());
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(sessions.find(&idle).is_none(), "idle past its limit");
        assert!(
            sessions.find(&busy).is_some(),
            "each use starts the idle limit again"
        );
        std::thread::sleep(Duration::from_millis(400));
        assert!(sessions.find(&busy).is_none(), "past the absolute limit");
    }

    #[test]
    fn the_cap_is_per_token_and_drops_that_tokens_oldest() {
        let sessions = sessions(60_000, 60_000, 3);
        let other = sessions.open([2; 32], Scope::full()).unwrap();
        let ids: Vec<String> = (0..5)
            .map(|_| sessions.open([1; 32], Scope::new(true, None)).unwrap())
            .collect();
        assert!(
            sessions.find(&other).is_some(),
            "another token's session stays"
        );
        assert!(sessions.find(&ids[0]).is_none() && sessions.find(&ids[1]).is_none());
        for id in &ids[2..] {
            assert!(sessions.find(id).is_some());
        }
    }

    #[test]
    fn test_limits_only_shorten() {
        assert_eq!(Limits::shortened(None), Limits::default());
        assert_eq!(Limits::shortened(Some("x,1")), Limits::default());
        let short = Limits::shortened(Some("1000,3000"));
        assert_eq!(short.idle, Duration::from_secs(1));
        assert_eq!(short.absolute, Duration::from_secs(3));
        let long = Limits::shortened(Some("999999999999,999999999999"));
        assert_eq!((long.idle, long.absolute), (IDLE, ABSOLUTE));
    }

    #[test]
    fn cookies_carry_the_port_and_the_host_prefix_over_https() {
        let plain = Cookie::new(8080, false);
        assert_eq!(plain.find("a=1; notes_session_8080=xyz; b=2"), Some("xyz"));
        assert_eq!(plain.find("notes_session_9090=xyz"), None);
        assert_eq!(plain.find("notes_session=xyz"), None);
        assert_eq!(plain.find("notes_session_8080="), None);
        assert_eq!(plain.find("other=1"), None);
        let set = plain.set("id", ABSOLUTE);
        assert!(set.starts_with("notes_session_8080=id; "), "{set}");
        for part in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=604800"] {
            assert!(set.contains(part), "{set}");
        }
        assert!(!set.contains("Secure") && !set.contains("Domain"), "{set}");
        let secure = Cookie::new(443, true);
        let set = secure.set("id", ABSOLUTE);
        assert!(set.starts_with("__Host-notes_session_443=id; "), "{set}");
        assert!(set.contains("; Secure") && set.contains("Path=/"), "{set}");
        assert!(!set.contains("Domain"), "{set}");
        assert_eq!(secure.find("__Host-notes_session_443=v"), Some("v"));
        assert_eq!(secure.find("notes_session_443=v"), None);
        assert!(secure.clear().starts_with("__Host-notes_session_443=;"));
        assert!(secure.clear().contains("Max-Age=0"));
    }
}
