//! Who may use the service once tokens exist (`notes token create`): the one check of
//! every request, run by the server's door after the Host and cross-site checks.
//!
//! - A folder that never had a token (or whose tokens were turned off on purpose,
//!   `notes token off`), served on loopback: nothing is asked (the loopback default).
//! - Otherwise every `/api/…`, `/mcp` and web route needs `Authorization: Bearer …` or
//!   the web session cookie; `/public/…`, `/login`, the interface's `/assets/…` and
//!   its offline files at the root (`/sw.js`, `/manifest.webmanifest`, `/favicon.ico`)
//!   stay open. None or a wrong one: 401 with `WWW-Authenticate: Bearer` (a web page:
//!   a redirect to `/login`).
//! - No token fails closed (`gate.rs`): a folder whose last token was revoked stays
//!   closed, and a server listening off loopback without `--no-auth` refuses every
//!   such request while no token exists, whenever the file lost its last token (hand
//!   edits and removal included), not only at start. Each change into such a state is
//!   logged once; the 401 says how to create a token or turn tokens off.
//! - The token's [`Scope`] is then checked against what the request's URL says: a
//!   read-only token changing anything, or a prefix token naming a path outside its
//!   folder, gets 403 (on a web route with the session cookie, the interface's error
//!   page, not JSON). Routes whose paths are in the body (move, restore, toggle) or
//!   whose answer is a listing (the list and its pages, search, files) get the scope as
//!   a request extension and apply it with [`may_write`] / [`Scope::allows_read`];
//!   `/mcp` gets it the same way and offers a read-only token only its read tools.
//!   Every admitted request also carries its [`Caller`], so the web pages offer only
//!   what the session may do.
//!
//! The tokens file is read again only when its identity changes. The identity is
//! looked at (one `stat`) at most once per tick of the coarse clock (1–10 ms), not on
//! every request: `notes token create` and `revoke` return only once a tick has passed
//! since their write, so a token created or revoked while serving counts from the next
//! request sent after the command returns; a hand edit of the file counts within a
//! tick.

mod gate;
pub(crate) mod lists;
mod sessions;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use warp::http::header::{AUTHORIZATION, COOKIE, LOCATION, WWW_AUTHENTICATE};
use warp::http::{HeaderValue, Method, Request, StatusCode};
use warp::reply::Response;

use super::support::reject::HttpError;
use super::support::reply;
use crate::ops::Notebook;
use crate::ops::tokens::{Hash, Keyring, Scope, Scoped, TokensStamp};
use gate::{CLOSED, EXPOSED, Gate};

/// The tokens in force and the web sessions opened with them.
pub(crate) struct Auth {
    keys: RwLock<Arc<Keys>>,
    /// The coarse clock's reading when the file's identity was last seen to match
    /// `keys` (or they were read): trusted for the rest of that tick.
    confirmed: AtomicU64,
    sessions: sessions::Sessions,
    /// The session cookie's name and attributes (the port; `__Host-` and `Secure`
    /// over HTTPS).
    cookie: sessions::Cookie,
    /// The address, when the server listens where other machines reach it without
    /// `--no-auth`: then a token must be in force at every moment.
    exposed: Option<SocketAddr>,
}

/// Where and how the server listens, for the check.
pub(crate) struct Listening {
    pub(crate) addr: SocketAddr,
    /// `serve --no-auth`: off loopback without a token is on purpose.
    pub(crate) no_auth: bool,
    /// The service is reached over HTTPS (`--base-url https://…`).
    pub(crate) secure: bool,
}

/// One reading of the tokens file.
struct Keys {
    stamp: TokensStamp,
    /// `Err` when the file cannot be read: every request is refused until it can.
    ring: Result<Keyring, String>,
    /// What the reading means for a request, decided once per reading.
    gate: Gate,
}

/// Why the door turned a request away.
pub(crate) enum Denied {
    /// No token, or one that is not (or no longer) accepted.
    Unauthenticated { page: bool, sent: bool },
    /// No token exists, and one is needed (`Gate::Closed`, `Gate::Exposed`).
    NoToken { page: bool, exposed: bool },
    /// A token that does not reach this route or path.
    Forbidden(&'static str),
    /// The same refusal of a web page or form sent with the session cookie: the
    /// interface's HTML error page, for the session's `Scope`.
    PageForbidden { message: &'static str, scope: Scope },
    /// The tokens file is unreadable.
    Broken,
}

/// Who sent an admitted request, when tokens are in force: the web pages show a
/// "Log out" button to a `session` (the cookie of `/login`), not to a bearer token.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caller {
    pub(crate) session: bool,
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
    pub(crate) fn new(notebook: &Notebook, listening: Listening) -> crate::error::Result<Self> {
        let exposed =
            (!super::is_loopback(&listening.addr) && !listening.no_auth).then_some(listening.addr);
        let stamp = notebook.tokens_stamp();
        let ring = Ok(notebook.keyring()?);
        let gate = gate::decide(&ring, exposed.is_some());
        let auth = Auth {
            keys: RwLock::new(Arc::new(Keys { stamp, ring, gate })),
            confirmed: AtomicU64::new(crate::ops::clock::coarse_millis()),
            sessions: sessions::Sessions::new(sessions::Limits::from_env()),
            cookie: sessions::Cookie::new(listening.addr.port(), listening.secure),
            exposed,
        };
        gate::log(gate, auth.exposed);
        Ok(auth)
    }

    /// Whether requests need a token now (one exists, or none does and the server
    /// refuses them all).
    pub(crate) fn required(&self, notebook: &Notebook) -> bool {
        self.current(notebook).gate != Gate::Open
    }

    /// What the login page says when no token exists and one is needed.
    pub(crate) fn no_token(&self, notebook: &Notebook) -> Option<&'static str> {
        match self.current(notebook).gate {
            Gate::Closed => Some(CLOSED),
            Gate::Exposed => Some(EXPOSED),
            _ => None,
        }
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
        let page = route == Route::Web;
        let ring = match (&keys.gate, &keys.ring) {
            (Gate::Open, _) => return Ok(()),
            (Gate::Tokens, Ok(ring)) => ring,
            (Gate::Closed | Gate::Exposed, _) => {
                return Err(Denied::NoToken {
                    page,
                    exposed: keys.gate == Gate::Exposed,
                });
            }
            (Gate::Broken | Gate::Tokens, _) => return Err(Denied::Broken),
        };
        let headers = request.headers();
        let session = headers.get(AUTHORIZATION).is_none();
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
                .find_map(|v| self.cookie.find(v))
                .ok_or(Denied::Unauthenticated { page, sent: false })?;
            self.sessions
                .find(id)
                .ok_or(Denied::Unauthenticated { page, sent: true })?
                .1
        };
        if let Err(denied) = check_scope(notebook, &scope, request.method(), path, &route) {
            return Err(match denied {
                // A browser's session gets a page; a bearer token (a script) the JSON.
                Denied::Forbidden(message) if page && session => {
                    Denied::PageForbidden { message, scope }
                }
                other => other,
            });
        }
        request.extensions_mut().insert(Caller { session });
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

    /// This server's session id in a `Cookie` header, if any.
    pub(crate) fn session_in<'a>(&self, cookie_header: &'a str) -> Option<&'a str> {
        self.cookie.find(cookie_header)
    }

    /// The `Set-Cookie` value of a new session.
    pub(crate) fn set_cookie(&self, id: &str) -> String {
        self.cookie.set(id, self.sessions.limits().absolute)
    }

    /// The `Set-Cookie` value that removes the session cookie.
    pub(crate) fn clear_cookie(&self) -> String {
        self.cookie.clear()
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
        let gate = gate::decide(&ring, self.exposed.is_some());
        let keys = Arc::new(Keys { stamp, ring, gate });
        {
            let mut slot = self.keys.write().unwrap_or_else(PoisonError::into_inner);
            // Said once per change of state, by whichever request saw it first.
            if slot.gate != gate {
                gate::log(gate, self.exposed);
            }
            *slot = keys.clone();
        }
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
    if under("/public")
        || path == "/login"
        || path.starts_with("/assets/")
        || super::web::offline::ROOT_FILES.contains(&path)
    {
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
            "/api/v1/sections/",
            "/api/v1/merge/",
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
            | "/api/v1/pages/notes"
            | "/api/v1/search"
            | "/api/v1/files"
            | "/api/v1/conflicts"
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
            Denied::Unauthenticated { page: true, .. } | Denied::NoToken { page: true, .. } => {
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
            Denied::NoToken {
                page: false,
                exposed,
            } => {
                let message = if *exposed { EXPOSED } else { CLOSED };
                let mut response = reply::error_message(StatusCode::UNAUTHORIZED, message);
                response.headers_mut().insert(
                    WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"notes\""),
                );
                response
            }
            Denied::Forbidden(message) => reply::error_message(StatusCode::FORBIDDEN, message),
            // The interface's own page: what was refused and why, framed like its pages.
            Denied::PageForbidden { message, scope } => super::web::refused(message, scope),
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

/// Who sent the request (`None` when tokens are off, or on the open routes).
pub(crate) fn caller()
-> impl warp::Filter<Extract = (Option<Caller>,), Error = std::convert::Infallible> + Clone {
    warp::ext::optional::<Caller>()
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
        assert_eq!(route("/sw.js"), Route::Open);
        assert_eq!(route("/manifest.webmanifest"), Route::Open);
        assert_eq!(route("/favicon.ico"), Route::Open);
        assert_eq!(route("/mcp"), Route::Mcp);
        assert_eq!(
            route("/api/v1/notes/a%20b.md"),
            Route::Api(Some("a%20b.md"))
        );
        assert_eq!(route("/api/v1/notes"), Route::Api(None));
        assert_eq!(
            route("/api/v1/sections/work/a.md"),
            Route::Api(Some("work/a.md"))
        );
        assert_eq!(route("/api/v1/pages/notes"), Route::Api(None));
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
        assert!(check(&work, Method::GET, "/api/v1/pages/notes"));
        assert!(check(&work, Method::PATCH, "/api/v1/sections/work/a.md"));
        assert!(!check(&work, Method::GET, "/api/v1/sections/other.md"));
        assert!(!check(&work, Method::PATCH, "/api/v1/sections/other.md"));
        assert!(!check(&ro, Method::PATCH, "/api/v1/sections/a.md"));
        assert!(check(&work, Method::POST, "/mcp"));
        assert!(check(&ro, Method::GET, "/api/v1/notes/a.md"));
        assert!(!check(&ro, Method::DELETE, "/api/v1/notes/a.md"));
        assert!(!check(&ro, Method::POST, "/save"));
        assert!(check(&ro, Method::POST, "/logout"));
        assert!(check(&ro, Method::POST, "/preview"));
        assert!(check(&ro, Method::POST, "/mcp"));
    }
}
