//! Who may use the service once tokens exist (`notes token create`): the one check of
//! every request, run by the server's door after the Host and cross-site checks.
//!
//! - No token in `.notes/tokens.json`: nothing is asked (the loopback default).
//! - Otherwise every `/api/…`, `/mcp` and web route needs `Authorization: Bearer …` or
//!   the web session cookie; `/public/…`, `/login` and the interface's `/assets/…`
//!   stay open. None or a wrong one: 401 with `WWW-Authenticate: Bearer` (a web page:
//!   a redirect to `/login`).
//! - The token's [`Scope`] is then checked against what the request's URL says: a
//!   read-only token changing anything, or a prefix token naming a path outside its
//!   folder, gets 403. Routes whose paths are in the body (move, restore, toggle) or
//!   whose answer is a listing (the list, search, files) get the scope as a request
//!   extension and apply it with [`may_write`] / [`Scope::allows_read`]; `/mcp` gets it
//!   the same way and offers a read-only token only its read tools.
//!
//! The tokens file is read again only when its identity changes. The identity is
//! looked at (one `stat`) at most once per tick of the coarse clock (1–10 ms), not on
//! every request: `notes token create` and `revoke` return only once a tick has passed
//! since their write, so a token created or revoked while serving counts from the next
//! request sent after the command returns; a hand edit of the file counts within a
//! tick.

pub(crate) mod lists;
mod sessions;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use warp::http::header::{AUTHORIZATION, COOKIE, LOCATION, WWW_AUTHENTICATE};
use warp::http::{HeaderValue, Method, Request, StatusCode};
use warp::reply::Response;

pub(crate) use sessions::{clear_cookie, from_cookie, set_cookie};

use super::support::reject::HttpError;
use super::support::reply;
use crate::ops::Notebook;
use crate::ops::tokens::{Hash, Keyring, Scope, Scoped, TokensStamp};

/// The tokens in force and the web sessions opened with them.
pub(crate) struct Auth {
    keys: RwLock<Arc<Keys>>,
    /// The coarse clock's reading when the file's identity was last seen to match
    /// `keys` (or they were read): trusted for the rest of that tick.
    confirmed: AtomicU64,
    sessions: sessions::Sessions,
    /// Cookies get `Secure`: the service is reached over HTTPS (`--base-url https://…`).
    pub(crate) secure: bool,
}

/// One reading of the tokens file.
struct Keys {
    stamp: TokensStamp,
    /// `Err` when the file cannot be read: every request is refused until it can.
    ring: Result<Keyring, String>,
}

/// Why the door turned a request away.
pub(crate) enum Denied {
    /// No token, or one that is not (or no longer) accepted.
    Unauthenticated { page: bool, sent: bool },
    /// A token that does not reach this route or path.
    Forbidden(&'static str),
    /// The tokens file is unreadable.
    Broken,
}

/// What a route is, for the check.
#[derive(Debug, PartialEq)]
enum Route<'a> {
    /// Needs nothing: public pages, the login page, the interface's assets.
    Open,
    /// The API (JSON errors); the tail is a note or file path when the URL names one.
    Api(Option<&'a str>),
    /// `/mcp`: its tools apply the scope themselves.
    Mcp,
    /// The web interface (a login page for strangers).
    Web,
}

impl Auth {
    /// Reads the tokens once; a file that cannot be read stops the server from
    /// starting rather than serving without the tokens it holds.
    pub(crate) fn new(notebook: &Notebook, secure: bool) -> crate::error::Result<Self> {
        let stamp = notebook.tokens_stamp();
        let ring = notebook.keyring()?;
        Ok(Auth {
            keys: RwLock::new(Arc::new(Keys {
                stamp,
                ring: Ok(ring),
            })),
            confirmed: AtomicU64::new(crate::ops::clock::coarse_millis()),
            sessions: sessions::Sessions::default(),
            secure,
        })
    }

    /// Whether at least one token exists now.
    pub(crate) fn required(&self, notebook: &Notebook) -> bool {
        !matches!(&self.current(notebook).ring, Ok(ring) if ring.is_empty())
    }

    /// The door's check. On success the request carries the caller's [`Scope`] as an
    /// extension when tokens are in force (none when they are not: everything is
    /// allowed).
    pub(crate) fn admit<B>(
        &self,
        notebook: &Notebook,
        request: &mut Request<B>,
    ) -> Result<(), Denied> {
        let path = request.uri().path();
        let route = route(path);
        if route == Route::Open {
            return Ok(());
        }
        let keys = self.current(notebook);
        let ring = match &keys.ring {
            Ok(ring) if ring.is_empty() => return Ok(()),
            Ok(ring) => ring,
            Err(_) => return Err(Denied::Broken),
        };
        let page = route == Route::Web;
        let headers = request.headers();
        let scope = if let Some(value) = headers.get(AUTHORIZATION) {
            let token =
                bearer(value.as_bytes()).ok_or(Denied::Unauthenticated { page, sent: true })?;
            ring.find(token)
                .ok_or(Denied::Unauthenticated { page, sent: true })?
                .scope
                .clone()
        } else {
            let id = headers
                .get_all(COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .find_map(from_cookie)
                .ok_or(Denied::Unauthenticated { page, sent: false })?;
            self.sessions
                .find(id)
                .ok_or(Denied::Unauthenticated { page, sent: true })?
                .1
        };
        check_scope(notebook, &scope, request.method(), path, &route)?;
        if !scope.is_full() {
            request.extensions_mut().insert(scope);
        }
        Ok(())
    }

    /// Trades a token for a web session: the cookie's id, or `None` for a wrong token.
    pub(crate) fn log_in(
        &self,
        notebook: &Notebook,
        token: &str,
    ) -> Result<Option<(String, Scope)>, HttpError> {
        let keys = self.current(notebook);
        let Ok(ring) = &keys.ring else {
            return Err(HttpError::Forbidden(BROKEN));
        };
        let Some(info) = ring.find(token.trim().as_bytes()) else {
            return Ok(None);
        };
        let scope = info.scope.clone();
        let hash: Hash = crate::ops::tokens::hash_secret(token.trim().as_bytes());
        let id = self
            .sessions
            .open(hash, scope.clone())
            .map_err(|e| HttpError::WorkerFailed(e.to_string()))?;
        Ok(Some((id, scope)))
    }

    pub(crate) fn log_out(&self, id: &str) {
        self.sessions.close(id);
    }

    /// The tokens as the file now is: one `stat` per clock tick at most, and a read
    /// only when it changed.
    fn current(&self, notebook: &Notebook) -> Arc<Keys> {
        let now = crate::ops::clock::coarse_millis();
        // The confirmation first, then the keys: keys stored before a confirmation of
        // this tick are the ones it confirmed, or newer.
        let confirmed = self.confirmed.load(Ordering::Acquire);
        let kept = self
            .keys
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if confirmed == now {
            return kept;
        }
        let stamp = notebook.tokens_stamp();
        if kept.stamp == stamp {
            self.confirmed.fetch_max(now, Ordering::Release);
            return kept;
        }
        let ring = notebook.keyring().map_err(|e| {
            crate::log::error(&format!("every request is refused: {}", e.detailed()));
            e.detailed()
        });
        if let Ok(ring) = &ring {
            self.sessions.keep_only(|token| ring.holds(token));
        }
        let keys = Arc::new(Keys { stamp, ring });
        *self.keys.write().unwrap_or_else(PoisonError::into_inner) = keys.clone();
        self.confirmed.fetch_max(now, Ordering::Release);
        keys
    }
}

const BROKEN: &str = "The tokens file .notes/tokens.json is unreadable: every request is \
     refused until it is repaired (see the server's log)";
const READ_ONLY: &str = "This token is read-only: it cannot change anything";
pub(crate) const OUTSIDE: &str = "This token is limited to a folder, and this path is outside it";
const NOT_FOR_PREFIX: &str = "This token is limited to a folder: this route is not open to it \
     (use the API routes of its notes and files)";

/// `Authorization: Bearer <token>` → the token.
fn bearer(value: &[u8]) -> Option<&[u8]> {
    let (scheme, token) = value.split_at_checked(7)?;
    (scheme.eq_ignore_ascii_case(b"bearer ")).then(|| token.trim_ascii())
}

fn route(path: &str) -> Route<'_> {
    let under = |prefix: &str| {
        path.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    if under("/public") || path == "/login" || path.starts_with("/assets/") {
        return Route::Open;
    }
    if under("/mcp") {
        return Route::Mcp;
    }
    if under("/api") {
        let named = [
            "/api/v1/notes/",
            "/api/v1/files/",
            "/api/v1/history/",
            "/api/v1/links/",
        ]
        .iter()
        .find_map(|p| path.strip_prefix(p));
        return Route::Api(named);
    }
    Route::Web
}

/// The scope against what the URL says, the path judged where it leads
/// (`Notebook::may_read`); the finer checks are the routes' (see the module's text).
fn check_scope(
    notebook: &Notebook,
    scope: &Scope,
    method: &Method,
    path: &str,
    route: &Route<'_>,
) -> Result<(), Denied> {
    if scope.is_full() {
        return Ok(());
    }
    let write = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    // Logging out and the editor's preview change nothing; MCP requests are all POSTs.
    let changes = write && !matches!(path, "/logout" | "/preview") && *route != Route::Mcp;
    if changes && !scope.allows_any_write() {
        return Err(Denied::Forbidden(READ_ONLY));
    }
    if scope.prefix().is_none() {
        return Ok(());
    }
    match route {
        Route::Open | Route::Mcp => Ok(()),
        Route::Api(Some(tail)) => {
            let Ok(decoded) = percent_encoding::percent_decode_str(tail).decode_utf8() else {
                return Err(Denied::Forbidden(OUTSIDE));
            };
            let cleaned = crate::ops::path::clean(&decoded);
            let allowed = if changes {
                notebook.may_write(scope, cleaned.as_str())
            } else {
                notebook.may_read(scope, cleaned.as_str())
            };
            allowed.then_some(()).ok_or(Denied::Forbidden(OUTSIDE))
        }
        // Lists and body-path routes apply the scope themselves.
        Route::Api(None) => match path {
            "/api/v1/notes"
            | "/api/v1/search"
            | "/api/v1/files"
            | "/api/v1/move"
            | "/api/v1/restore"
            | "/api/public/toggle"
            | "/api/public/list"
            | "/api/v1/openapi.json" => Ok(()),
            _ => Err(Denied::Forbidden(NOT_FOR_PREFIX)),
        },
        // The web interface lists every note: a folder token uses the API.
        Route::Web if path == "/logout" => Ok(()),
        Route::Web => Err(Denied::Forbidden(NOT_FOR_PREFIX)),
    }
}

impl Denied {
    /// The answer: an ErrorResponse (401 with `WWW-Authenticate`, or 403), or for a web
    /// page without a token the way to the login page.
    pub(crate) fn response(&self, target: &str) -> Response {
        match self {
            Denied::Unauthenticated { page: true, .. } => {
                let mut response = reply::with_type(StatusCode::SEE_OTHER, "", "text/plain");
                let next = format!("/login?next={}", crate::render::url_segment(target));
                if let Ok(value) = HeaderValue::from_str(&next) {
                    response.headers_mut().insert(LOCATION, value);
                }
                response
            }
            Denied::Unauthenticated { page: false, sent } => {
                let (message, challenge) = if *sent {
                    (
                        "Invalid token: it is not (or no longer) accepted by this server",
                        "Bearer realm=\"notes\", error=\"invalid_token\"",
                    )
                } else {
                    (
                        "Authentication required: send Authorization: Bearer <token> \
                         (`notes token create` makes one)",
                        "Bearer realm=\"notes\"",
                    )
                };
                let mut response = reply::error_message(StatusCode::UNAUTHORIZED, message);
                response
                    .headers_mut()
                    .insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
                response
            }
            Denied::Forbidden(message) => reply::error_message(StatusCode::FORBIDDEN, message),
            Denied::Broken => reply::error_message(StatusCode::SERVICE_UNAVAILABLE, BROKEN),
        }
    }
}

/// The check of a route whose note path is in its body: 403 unless the caller's scope
/// (none: tokens are off) may change `path` where it leads.
pub(crate) fn may_write<P: Scoped + ?Sized>(
    notebook: &Notebook,
    scope: &Option<Scope>,
    path: &P,
) -> Result<(), HttpError> {
    match scope {
        Some(scope) if !notebook.may_write(scope, path) => Err(HttpError::Forbidden(OUTSIDE)),
        _ => Ok(()),
    }
}

/// The caller's scope, for the routes that apply it themselves: `None` when tokens
/// are off or the token is a full one.
pub(crate) fn scope()
-> impl warp::Filter<Extract = (Option<Scope>,), Error = std::convert::Infallible> + Clone {
    warp::ext::optional::<Scope>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tokens::Prefix;

    #[test]
    fn routes_are_classified() {
        assert_eq!(route("/public/a.html"), Route::Open);
        assert_eq!(route("/public"), Route::Open);
        assert_eq!(route("/publicity"), Route::Web);
        assert_eq!(route("/login"), Route::Open);
        assert_eq!(route("/assets/app.css"), Route::Open);
        assert_eq!(route("/mcp"), Route::Mcp);
        assert_eq!(
            route("/api/v1/notes/a%20b.md"),
            Route::Api(Some("a%20b.md"))
        );
        assert_eq!(route("/api/v1/notes"), Route::Api(None));
        assert_eq!(route("/apis"), Route::Web);
        assert_eq!(route("/"), Route::Web);
    }

    #[test]
    fn bearer_values() {
        assert_eq!(bearer(b"Bearer abc"), Some(&b"abc"[..]));
        assert_eq!(bearer(b"bearer  abc "), Some(&b"abc"[..]));
        assert_eq!(bearer(b"Basic abc"), None);
        assert_eq!(bearer(b"Bear"), None);
    }

    #[test]
    fn scopes_against_urls() {
        let work = Scope::new(false, Some(Prefix::parse("work").unwrap()));
        let ro = Scope::new(true, None);
        let (_dir, notebook) = crate::ops::temp_notebook();
        let check = |scope: &Scope, method: Method, path: &str| {
            check_scope(&notebook, scope, &method, path, &route(path)).is_ok()
        };
        assert!(check(&work, Method::GET, "/api/v1/notes/work/a.md"));
        assert!(check(&work, Method::PUT, "/api/v1/files/work/x.png"));
        assert!(!check(&work, Method::GET, "/api/v1/notes/other.md"));
        assert!(!check(&work, Method::GET, "/api/v1/notes/work/../other.md"));
        assert!(!check(
            &work,
            Method::GET,
            "/api/v1/notes/work%2F..%2Fother.md"
        ));
        assert!(!check(&work, Method::GET, "/api/v1/history/workshop/a.md"));
        assert!(!check(&work, Method::GET, "/api/v1/trash"));
        assert!(!check(&work, Method::GET, "/"));
        assert!(check(&work, Method::GET, "/api/v1/notes"));
        assert!(check(&work, Method::POST, "/mcp"));
        assert!(check(&ro, Method::GET, "/api/v1/notes/a.md"));
        assert!(!check(&ro, Method::DELETE, "/api/v1/notes/a.md"));
        assert!(!check(&ro, Method::POST, "/save"));
        assert!(check(&ro, Method::POST, "/logout"));
        assert!(check(&ro, Method::POST, "/preview"));
        assert!(check(&ro, Method::POST, "/mcp"));
    }
}
