//! The web interface at `/`: server-rendered pages over the same `ops` as the API.
//!
//! Its routes are a fixed set of first segments (`/`, `/note/…`, `/edit/…`, `/raw/…`,
//! `/new`, `/search`, `/assets/…`, `/move/…`, `/history/…`, `/trash`, `/docs/api`,
//! `/login`, the offline files `/sw.js`, `/manifest.webmanifest` and `/favicon.ico`
//! (`offline`), and the POST-only `/save`, `/delete`, `/publish`, `/preview`, `/move`,
//! `/restore`, `/logout`), so `/api/…` and `/public/…` are never shadowed; any other
//! path is the API's JSON 404, or this interface's 404 page for a browser. Pages are
//! GET; every change is a same-origin form POST answered with a 303 redirect. What a
//! page offers follows the session's rights (`viewer`).

mod api_page;
mod attachments;
mod conflicts;
mod forms;
mod history;
mod links;
mod login;
mod moves;
pub(crate) mod offline;
mod pages;
mod resolve;
mod streamed;
mod viewer;
mod views;

use std::sync::Arc;

use warp::Filter;
use warp::http::{HeaderMap, HeaderValue, StatusCode, header};
use warp::path::FullPath;
use warp::reject::Rejection;
use warp::reply::Response;

use crate::http::State;
use crate::http::support::body::{self, BodyStream};
use crate::http::support::reject::HttpError;
use crate::http::support::{is_post, is_read, method_is, raw_query, with_state};
use crate::ops::NotePath;
use crate::ops::tokens::Scope;
pub(crate) use viewer::Viewer;

/// The stylesheet of the interface: the public pages' sheet, then the interface's own
/// rules on top, so both share one look.
const STYLESHEET: &str = concat!(
    include_str!("../../../assets/public.css"),
    include_str!("../../../assets/app.css")
);
/// The small script of the editor (live preview, uploads) and the delete confirmation.
const SCRIPT: &str = include_str!("../../../assets/app.js");

type Reply = Result<Response, Rejection>;

/// Every route of the interface, one filter per route and method: the pages answer GET
/// and HEAD, the forms POST, and any other method gets a 405 page. Any other path is
/// rejected as not found.
pub(crate) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let index = warp::path::end()
        .and(method_is(is_read))
        .and(raw_query())
        .and(viewer::viewer(state.clone()))
        .and(with_state(state.clone()))
        .and_then(pages::index);
    let search = warp::path!("search")
        .and(method_is(is_read))
        .and(raw_query())
        .and(crate::http::auth::scope())
        .and(viewer::viewer(state.clone()))
        .and(with_state(state.clone()))
        .and_then(pages::search);
    let new = warp::path!("new")
        .and(method_is(is_read))
        .and(raw_query())
        .and(viewer::viewer(state.clone()))
        .and(with_state(state.clone()))
        .and_then(pages::new_note);
    // `/note/<path>`, `/edit/<path>` and `/raw/<path>`: the tail is the note path.
    let note_pages = note_prefix()
        .and(method_is(is_read))
        .and(warp::path::full())
        .and(raw_query())
        .and(viewer::viewer(state.clone()))
        .and(with_state(state.clone()))
        .and_then(pages::note_page);
    let assets = warp::path!("assets" / String)
        .and(method_is(is_read))
        .and_then(pages::asset);
    let resolve = resolve_prefix()
        .and(method_is(is_read))
        .and(warp::path::full())
        .and(viewer::viewer(state.clone()))
        .and(with_state(state.clone()))
        .and_then(resolve::page);
    let login = login::routes(state.clone());
    let offline = offline::routes();
    let api_page = api_page::routes(state.clone());
    let move_note = moves::routes(state.clone());
    let history = history::routes(state.clone());
    let file = super::api::file_for_browser(state.clone());
    let state_for_errors = state.clone();
    let posts = actions()
        .and(method_is(is_post))
        .and(warp::header::headers_cloned())
        .and(body::stream())
        .and(crate::http::auth::scope())
        .and(viewer::viewer(state.clone()))
        .and(with_state(state))
        .and_then(forms::handle);
    let pages_refused = warp::path::end()
        .or(warp::path!("search"))
        .unify()
        .or(warp::path!("new"))
        .unify()
        .or(note_prefix())
        .unify()
        .or(warp::path!("assets" / String).map(|_| ()).untuple_one())
        .unify()
        .or(warp::path("file"))
        .unify()
        .or(warp::path!("docs" / "api"))
        .unify()
        .or(resolve_prefix())
        .unify()
        .and(method_is(|m| !is_read(m)))
        .and_then(|| refuse("GET, HEAD"));
    let posts_refused = actions()
        .and(method_is(|m| !is_post(m)))
        .and_then(|_| refuse("POST"));
    let all = index
        .or(search)
        .unify()
        .or(new)
        .unify()
        .or(note_pages)
        .unify()
        .or(assets)
        .unify()
        .or(offline)
        .unify()
        .or(resolve)
        .unify()
        .or(move_note)
        .unify()
        .or(login)
        .unify()
        .or(api_page)
        .unify()
        .or(history)
        .unify()
        .or(file)
        .unify()
        .or(posts)
        .unify()
        .or(pages_refused)
        .unify()
        .or(posts_refused)
        .unify();
    // A failed page is answered here, where the request's viewer is known, so its
    // frame offers what the session may reach; other rejections go on to `recover`.
    viewer::viewer(state_for_errors)
        .and(
            all.map(Ok)
                .or_else(|rejection| async move { Ok::<_, Rejection>((Err(rejection),)) }),
        )
        .and_then(answer_failure)
}

/// The page of a failed request of the interface, for its `viewer`; anything else
/// rejected stays rejected.
async fn answer_failure(viewer: Viewer, result: Result<Response, Rejection>) -> Reply {
    match result {
        Ok(response) => Ok(response),
        Err(rejection) => match rejection.find::<PageError>() {
            Some(page) => Ok(page.response_for(&viewer)),
            None => Err(rejection),
        },
    }
}

/// The first segment of the pages of one note.
fn note_prefix() -> impl Filter<Extract = (), Error = Rejection> + Clone {
    warp::path("note")
        .or(warp::path("edit"))
        .unify()
        .or(warp::path("raw"))
        .unify()
}

/// `/resolve/<path>` (not `/resolve` alone: the resolve form's post).
fn resolve_prefix() -> impl Filter<Extract = (), Error = Rejection> + Clone {
    warp::path("resolve")
        .and(warp::path::peek())
        .and_then(|rest: warp::path::Peek| async move {
            if rest.as_str().is_empty() {
                Err(warp::reject::not_found())
            } else {
                Ok(())
            }
        })
        .untuple_one()
}

/// The form posts, by their path.
fn actions() -> impl Filter<Extract = (forms::Action,), Error = Rejection> + Clone {
    warp::path!("save")
        .map(|| forms::Action::Save)
        .or(warp::path!("delete").map(|| forms::Action::Delete))
        .unify()
        .or(warp::path!("publish").map(|| forms::Action::Publish))
        .unify()
        .or(warp::path!("preview").map(|| forms::Action::Preview))
        .unify()
        .or(warp::path!("restore").map(|| forms::Action::Restore))
        .unify()
        .or(warp::path!("resolve").map(|| forms::Action::Resolve))
        .unify()
}

/// A route that always refuses: a method the page does not take.
async fn refuse(allow: &'static str) -> Reply {
    Err(warp::reject::custom(PageError::MethodNotAllowed(allow)))
}

/// A request of the interface that failed, answered with an HTML page by the one
/// `recover` of `http::routes`.
#[derive(Debug)]
pub(crate) enum PageError {
    /// The request failed in the domain or in the exchange: its status and explanation.
    Failed(HttpError),
    /// A method the page does not take; `Allow` lists those it does.
    MethodNotAllowed(&'static str),
    /// A failure described by a fixed sentence.
    Status(StatusCode, &'static str),
}

impl warp::reject::Reject for PageError {}

impl PageError {
    /// The error page of this failure, made without its request (the interface
    /// answers its own failures with `response_for`).
    pub(crate) fn response(&self) -> Response {
        self.response_for(&Viewer::unknown())
    }

    /// The error page of this failure, framed for `viewer`.
    fn response_for(&self, viewer: &Viewer) -> Response {
        match self {
            PageError::Failed(err) => domain_error(err, viewer),
            PageError::MethodNotAllowed(allow) => method_not_allowed(allow, viewer),
            PageError::Status(status, message) => error_page(*status, message, viewer),
        }
    }
}

/// The rejection of a failed page request.
fn failed(err: impl Into<HttpError>) -> Rejection {
    warp::reject::custom(PageError::Failed(err.into()))
}

/// `/<prefix>/<path>` with every segment of the note path percent-encoded.
pub(crate) fn note_url(prefix: &str, path: &str) -> String {
    let encoded: Vec<String> = path.split('/').map(crate::render::url_segment).collect();
    format!("/{prefix}/{}", encoded.join("/"))
}

/// A query-string value, percent-encoded.
pub(crate) fn query_value(value: &str) -> String {
    crate::render::url_segment(value)
}

/// The note path of a `/<prefix>/<encoded path>` URL, validated like the API's.
fn path_after(full: &FullPath, prefix: &str) -> crate::error::Result<NotePath> {
    let rest = full.as_str().strip_prefix(prefix).unwrap_or("");
    let tail = rest.strip_prefix('/').unwrap_or(rest);
    crate::http::support::url::note_path(tail)
}

/// An HTML page with the headers every page of the interface carries: no framing by
/// other sites (the forms change notes), scripts and styles only from this origin
/// (`nosniff` is added to every response by `http::routes`).
fn html(status: StatusCode, markup: maud::Markup) -> Response {
    let mut response = crate::http::support::reply::with_type(
        status,
        markup.into_string(),
        "text/html; charset=utf-8",
    );
    secure(response.headers_mut());
    response
}

fn secure(headers: &mut HeaderMap) {
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data: https:; object-src 'none'; \
             base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        ),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

/// The page of a failure: its status and a sentence saying what went wrong.
fn error_page(status: StatusCode, message: &str, viewer: &Viewer) -> Response {
    html(status, views::error(status, message, viewer))
}

/// The 404 page of an address nothing answers, for a browser.
pub(crate) fn not_found() -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        "There is no page at this address.",
        &Viewer::unknown(),
    )
}

/// The door's refusal of a page or form that a session's `scope` does not reach (a
/// read-only session saving): a 403 page saying why, not the API's JSON.
pub(crate) fn refused(message: &str, scope: &Scope) -> Response {
    let viewer = Viewer::admitted(scope.clone(), true);
    let advice = if scope.is_read_only() {
        "You are logged in with a read-only token: notes can be read here, not changed. \
         Log out and log in with a token that may write to change them."
    } else {
        "Log out and log in with a token that reaches the whole notes folder."
    };
    error_page(
        StatusCode::FORBIDDEN,
        &format!("{message}. {advice}"),
        &viewer,
    )
}

/// The error page of a failed request, with its HTTP status.
fn domain_error(err: &HttpError, viewer: &Viewer) -> Response {
    let status = err.status();
    if status.is_server_error() {
        crate::log::error(&err.detailed());
    }
    error_page(status, &views::explain(err), viewer)
}

/// 303 See Other: where the browser goes after a successful form post.
fn see_other(location: &str) -> Response {
    let mut response =
        crate::http::support::reply::with_type(StatusCode::SEE_OTHER, "", "text/plain");
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// 405 with `Allow`, as an HTML page.
fn method_not_allowed(allow: &'static str, viewer: &Viewer) -> Response {
    let mut response = error_page(
        StatusCode::METHOD_NOT_ALLOWED,
        &format!("This page only answers {allow}."),
        viewer,
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// Reads a whole form body with the server's size limit and timeout.
async fn read_body(
    body: BodyStream,
    headers: &HeaderMap,
    state: &State,
) -> Result<bytes::Bytes, HttpError> {
    body::read(
        body,
        crate::http::support::content_length(headers),
        state.max_body,
        state.request_timeout,
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_urls_encode_each_segment() {
        assert_eq!(note_url("note", "a b/c?#.md"), "/note/a%20b/c%3F%23.md");
        assert_eq!(note_url("edit", "été.md"), "/edit/%C3%A9t%C3%A9.md");
        let url = note_url("note", "dir/a b?#%.md");
        let tail = url.strip_prefix("/note/").unwrap();
        assert_eq!(
            crate::http::support::url::note_path(tail).unwrap().as_str(),
            "dir/a b?#%.md"
        );
    }
}
