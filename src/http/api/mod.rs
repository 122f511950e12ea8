//! The JSON API under `/api`: one filter per route and method (path, method, what the
//! handler needs), in the style of warp's `todos` example. A method a route does not take
//! gets its own filter answering 405, after the routes that take it.
//!
//! The spec's routes (`/api/v1/notes`, `/api/v1/notes/{path}`, `/api/public/list`,
//! `/api/public/toggle`) take exactly the spec's methods and read no query parameter;
//! every route that answers GET answers HEAD as GET without the body (RFC 9110; hyper
//! leaves the body out and keeps every header). What the service adds lives on routes of its own (sections, pages, search, …).
//!
//! Order matters for speed, not meaning: the hot routes (read a note, the list, write a
//! note, toggle) come first, and a request only ever fails filters that reject without
//! allocating (a different first segment, a different method) on its way to its route.

mod files;
mod history;
mod links;
mod merge;
mod moves;
mod note_request;
mod notes;
mod notes_list;
pub(crate) use notes_list::KeptList;
mod notes_pages;
mod public;
mod search;
mod sections;
mod sync;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

pub(super) use self::files::for_browser as file_for_browser;
use super::support::body::{self, BodyStream};
use super::support::reject::HttpError;
use super::support::{is_post, is_read, method_is, raw_query, reply, with_state};
use super::{State, auth};

/// One group of routes, boxed: the chain of every route stays shallow for the compiler.
type Routes = BoxedFilter<(Response,)>;

/// Every route of the API: the hot groups (notes, then the public toggle) first.
pub(crate) fn routes(state: Arc<State>) -> Routes {
    notes(&state)
        .or(public(&state))
        .unify()
        .or(lookups(&state))
        .unify()
        .or(files(&state))
        .unify()
        .or(history(&state))
        .unify()
        .or(extensions(&state))
        .unify()
        .or(merges(&state))
        .unify()
        .boxed()
}

/// `route` answering 405 (`allow` named) to the methods `refused` picks.
fn refuse_others(
    route: impl Filter<Extract = (), Error = warp::Rejection> + Clone + Send + Sync + 'static,
    refused: fn(&Method) -> bool,
    allow: &'static str,
) -> Routes {
    route
        .and(method_is(refused))
        .and_then(move || refuse(HttpError::MethodNotAllowed { allow }))
        .boxed()
}

/// A request body not read yet, with the size limit and the timeouts it is read under.
pub(super) struct Body {
    stream: BodyStream,
    declared: Option<u64>,
    limit: u64,
    idle: std::time::Duration,
}

impl Body {
    /// The whole body (`body::read`): refused past its limit, or when it stalls.
    pub(super) async fn read(self) -> Result<bytes::Bytes, HttpError> {
        body::read(self.stream, self.declared, self.limit, self.idle).await
    }
}

/// The body of a request, to be read by its handler (after the checks that need no
/// body) under `limit` of the state (`--max-body`, `--max-upload`).
fn body_of(
    state: &Arc<State>,
    limit: fn(&State) -> u64,
) -> impl Filter<Extract = (Body,), Error = warp::Rejection> + Clone + use<> {
    let state = state.clone();
    // hyper has checked the header's syntax already.
    warp::header::optional::<u64>("content-length")
        .and(body::stream())
        .map(move |declared, stream| Body {
            stream,
            declared,
            limit: limit(&state),
            idle: state.request_timeout,
        })
}

fn max_body(state: &State) -> u64 {
    state.max_body
}

/// `/api/v1/notes` and `/api/v1/notes/{path}`, the spec's routes.
fn notes(state: &Arc<State>) -> Routes {
    let note = || warp::path!("api" / "v1" / "notes" / ..);
    let list = || warp::path!("api" / "v1" / "notes");
    // The method is matched before the note path is checked, so a request of another
    // method does not pay for the check here; the 405 route below checks the path
    // first, as the spec orders it.
    let read = note()
        .and(method_is(is_read))
        .and(notes::path())
        .and(warp::header::headers_cloned())
        .and(with_state(state.clone()))
        .and_then(notes::read);
    let read_list = list()
        .and(method_is(is_read))
        .and(auth::scope())
        .and(with_state(state.clone()))
        .and_then(notes_list::list);
    let put = note()
        .and(method_is(|m| m == Method::PUT))
        .and(notes::path())
        .and(warp::header::headers_cloned())
        .and(body_of(state, max_body))
        .and(with_state(state.clone()))
        .and_then(notes::put);
    let delete = note()
        .and(method_is(|m| m == Method::DELETE))
        .and(notes::path())
        .and(warp::header::headers_cloned())
        .and(with_state(state.clone()))
        .and_then(notes::delete);
    // The spec's rule 4, after rules 1-3 (the path's checks) and before any body is
    // read: every method but GET (and HEAD, GET without the body), PUT and DELETE.
    let other_method = note()
        .and(notes::path())
        .and(method_is(|m| {
            !matches!(
                *m,
                Method::GET | Method::HEAD | Method::PUT | Method::DELETE
            )
        }))
        .and_then(|_| refuse(HttpError::NoteMethodNotAllowed));
    read.or(read_list)
        .unify()
        .or(put)
        .unify()
        .or(delete)
        .unify()
        .or(other_method)
        .unify()
        .or(refuse_others(list(), |m| !is_read(m), "GET"))
        .unify()
        .boxed()
}

/// `/api/public/toggle` and `/api/public/list`, the spec's routes.
fn public(state: &Arc<State>) -> Routes {
    let toggle = || warp::path!("api" / "public" / "toggle");
    let list = || warp::path!("api" / "public" / "list");
    toggle()
        .and(method_is(is_post))
        .and(warp::header::headers_cloned())
        .and(body_of(state, max_body))
        .and(auth::scope())
        .and(with_state(state.clone()))
        .and_then(public::toggle)
        .or(list()
            .and(method_is(is_read))
            .and(with_state(state.clone()))
            .and_then(public::list))
        .unify()
        .or(refuse_others(toggle(), |m| !is_post(m), "POST"))
        .unify()
        .or(refuse_others(list(), |m| !is_read(m), "GET"))
        .unify()
        .boxed()
}

/// Search, links, moves and the OpenAPI document.
fn lookups(state: &Arc<State>) -> Routes {
    let search = || warp::path!("api" / "v1" / "search");
    let links = || warp::path!("api" / "v1" / "links" / ..);
    let openapi = || warp::path!("api" / "v1" / "openapi.json");
    let move_path = || warp::path!("api" / "v1" / "move");
    search()
        .and(method_is(is_read))
        .and(raw_query())
        .and(auth::scope())
        .and(with_state(state.clone()))
        .and_then(search::search)
        .or(links()
            .and(method_is(is_read))
            .and(notes::path())
            .and(auth::scope())
            .and(with_state(state.clone()))
            .and_then(links::links))
        .unify()
        .or(openapi().and(method_is(is_read)).map(openapi_json))
        .unify()
        .or(move_path()
            .and(method_is(is_post))
            .and(warp::header::headers_cloned())
            .and(body_of(state, max_body))
            .and(auth::scope())
            .and(with_state(state.clone()))
            .and_then(moves::post))
        .unify()
        .or(refuse_others(search(), |m| !is_read(m), "GET"))
        .unify()
        .or(refuse_others(links(), |m| !is_read(m), "GET"))
        .unify()
        .or(refuse_others(openapi(), |m| !is_read(m), "GET"))
        .unify()
        .or(refuse_others(move_path(), |m| !is_post(m), "POST"))
        .unify()
        .boxed()
}

/// Attachments: `/api/v1/files` and `/api/v1/files/{path}`.
fn files(state: &Arc<State>) -> Routes {
    let file = || warp::path!("api" / "v1" / "files" / ..);
    let list = || warp::path!("api" / "v1" / "files");
    files::reads(file(), state.clone())
        .or(file()
            .and(method_is(|m| m == Method::PUT))
            .and(files::path())
            .and(warp::header::headers_cloned())
            .and(body_of(state, |s| s.max_upload))
            .and(with_state(state.clone()))
            .and_then(files::put))
        .unify()
        .or(file()
            .and(method_is(|m| m == Method::DELETE))
            .and(files::path())
            .and(warp::header::headers_cloned())
            .and(with_state(state.clone()))
            .and_then(files::delete))
        .unify()
        .or(list()
            .and(method_is(is_read))
            .and(raw_query())
            .and(auth::scope())
            .and(with_state(state.clone()))
            .and_then(files::list))
        .unify()
        .or(file()
            .and(files::path())
            .and(method_is(|m| {
                !matches!(
                    *m,
                    Method::GET | Method::HEAD | Method::PUT | Method::DELETE
                )
            }))
            .and_then(|_| {
                refuse(HttpError::MethodNotAllowed {
                    allow: "GET, HEAD, PUT, DELETE",
                })
            }))
        .unify()
        .or(refuse_others(list(), |m| !is_read(m), "GET"))
        .unify()
        .boxed()
}

/// A note's versions, restore, the trash, and sync.
fn history(state: &Arc<State>) -> Routes {
    let history = || warp::path!("api" / "v1" / "history" / ..);
    let restore = || warp::path!("api" / "v1" / "restore");
    let trash = || warp::path!("api" / "v1" / "trash");
    let sync = || warp::path!("api" / "v1" / "sync");
    history()
        .and(method_is(is_read))
        .and(history::target())
        .and(raw_query())
        .and(warp::header::headers_cloned())
        .and(with_state(state.clone()))
        .and_then(history::get)
        .or(restore()
            .and(method_is(is_post))
            .and(body_of(state, max_body))
            .and(auth::scope())
            .and(with_state(state.clone()))
            .and_then(history::restore))
        .unify()
        .or(trash()
            .and(method_is(is_read))
            .and(with_state(state.clone()))
            .and_then(history::trash))
        .unify()
        .or(refuse_others(history(), |m| !is_read(m), "GET"))
        .unify()
        .or(refuse_others(restore(), |m| !is_post(m), "POST"))
        .unify()
        .or(refuse_others(trash(), |m| !is_read(m), "GET"))
        .unify()
        .or(sync()
            .and(method_is(is_read))
            .and(auth::scope())
            .and(with_state(state.clone()))
            .and_then(sync::status))
        .unify()
        .or(sync()
            .and(method_is(is_post))
            .and(auth::scope())
            .and(with_state(state.clone()))
            .and_then(sync::sync))
        .unify()
        .or(refuse_others(
            sync(),
            |m| !is_read(m) && !is_post(m),
            "GET, POST",
        ))
        .unify()
        .boxed()
}

/// Offline edits merged in, and the notes left conflicted.
fn merges(state: &Arc<State>) -> Routes {
    let merge = || warp::path!("api" / "v1" / "merge" / ..);
    let conflicts = || warp::path!("api" / "v1" / "conflicts");
    merge()
        .and(method_is(is_post))
        .and(notes::path())
        .and(warp::header::headers_cloned())
        .and(body_of(state, max_body))
        .and(with_state(state.clone()))
        .and_then(merge::post)
        .or(conflicts()
            .and(method_is(is_read))
            .and(auth::scope())
            .and(with_state(state.clone()))
            .and_then(merge::list))
        .unify()
        .or(refuse_others(merge(), |m| !is_post(m), "POST"))
        .unify()
        .or(refuse_others(conflicts(), |m| !is_read(m), "GET"))
        .unify()
        .boxed()
}

/// Section edits and the outline, and pages of the list: extensions, on routes of
/// their own so that the spec's routes keep exactly the spec's methods and queries.
fn extensions(state: &Arc<State>) -> Routes {
    let sections = || warp::path!("api" / "v1" / "sections" / ..);
    let pages = || warp::path!("api" / "v1" / "pages" / "notes");
    sections()
        .and(method_is(is_read))
        .and(notes::path())
        .and(with_state(state.clone()))
        .and_then(sections::outline)
        .or(sections()
            .and(method_is(|m| m == Method::PATCH))
            .and(notes::path())
            .and(warp::header::headers_cloned())
            .and(body_of(state, max_body))
            .and(with_state(state.clone()))
            .and_then(sections::patch))
        .unify()
        .or(pages()
            .and(method_is(is_read))
            .and(raw_query())
            .and(auth::scope())
            .and(with_state(state.clone()))
            .and_then(notes_pages::page))
        .unify()
        .or(refuse_others(
            sections(),
            |m| !matches!(*m, Method::GET | Method::PATCH),
            "GET, PATCH",
        ))
        .unify()
        .or(refuse_others(pages(), |m| !is_read(m), "GET"))
        .unify()
        .boxed()
}

/// A route that always refuses: a method the route does not take.
async fn refuse(err: HttpError) -> Result<Response, warp::Rejection> {
    Err(err.into())
}

/// `GET /api/v1/openapi.json`: the OpenAPI document, embedded at build time.
fn openapi_json() -> Response {
    reply::with_type(
        StatusCode::OK,
        include_str!("../../../assets/openapi.json"),
        reply::JSON_TYPE,
    )
}
