//! The JSON API under `/api`: one filter per route and method (path, method, what the
//! handler needs), in the style of warp's `todos` example. A method a route does not take
//! gets its own filter answering 405, after the routes that take it.
//!
//! The spec's routes (`/api/v1/notes`, `/api/v1/notes/{path}`, `/api/public/list`,
//! `/api/public/toggle`) take exactly the spec's methods and read no query parameter;
//! what the service adds lives on routes of its own (sections, pages, search, …).
//!
//! Order matters for speed, not meaning: the hot routes (read a note, the list, write a
//! note, toggle) come first, and a request only ever fails filters that reject without
//! allocating (a different first segment, a different method) on its way to its route.

mod files;
mod history;
mod links;
mod moves;
mod note_request;
mod notes;
mod notes_list;
mod notes_pages;
mod public;
mod search;
mod sections;

use std::sync::Arc;

use warp::Filter;
use warp::http::{Method, StatusCode};
use warp::reply::Response;

pub(super) use self::files::for_browser as file_for_browser;
use super::support::reject::HttpError;
use super::support::{body, is_get, is_post, method_is, raw_query, reply, with_state};
use super::{State, auth};

/// Every route of the API.
pub(crate) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = warp::Rejection> + Clone {
    let notes = || warp::path!("api" / "v1" / "notes" / ..);
    let list = || warp::path!("api" / "v1" / "notes");
    let toggle = || warp::path!("api" / "public" / "toggle");
    let public_list = || warp::path!("api" / "public" / "list");
    let search = || warp::path!("api" / "v1" / "search");
    let links = || warp::path!("api" / "v1" / "links" / ..);
    let openapi = || warp::path!("api" / "v1" / "openapi.json");
    let move_path = || warp::path!("api" / "v1" / "move");
    let files = || warp::path!("api" / "v1" / "files" / ..);
    let file_list = || warp::path!("api" / "v1" / "files");
    let history = || warp::path!("api" / "v1" / "history" / ..);
    let restore = || warp::path!("api" / "v1" / "restore");
    let trash = || warp::path!("api" / "v1" / "trash");
    let sections = || warp::path!("api" / "v1" / "sections" / ..);
    let pages = || warp::path!("api" / "v1" / "pages" / "notes");

    // The method is matched before the note path is checked, so a request of another
    // method does not pay for the check here; the 405 route below checks the path
    // first, as the spec orders it.
    let read_note = notes()
        .and(method_is(is_get))
        .and(notes::path())
        .and(warp::header::headers_cloned())
        .and(with_state(state.clone()))
        .and_then(notes::read);
    let read_list = list()
        .and(method_is(is_get))
        .and(auth::scope())
        .and(with_state(state.clone()))
        .and_then(notes_list::list);
    let put_note = notes()
        .and(method_is(|m| m == Method::PUT))
        .and(notes::path())
        .and(warp::header::headers_cloned())
        .and(body::stream())
        .and(with_state(state.clone()))
        .and_then(notes::put);
    let toggle_public = toggle()
        .and(method_is(is_post))
        .and(warp::header::headers_cloned())
        .and(body::stream())
        .and(auth::scope())
        .and(with_state(state.clone()))
        .and_then(public::toggle);
    let delete_note = notes()
        .and(method_is(|m| m == Method::DELETE))
        .and(notes::path())
        .and(warp::header::headers_cloned())
        .and(with_state(state.clone()))
        .and_then(notes::delete);
    let list_public = public_list()
        .and(method_is(is_get))
        .and(with_state(state.clone()))
        .and_then(public::list);
    let search_notes = search()
        .and(method_is(is_get))
        .and(raw_query())
        .and(auth::scope())
        .and(with_state(state.clone()))
        .and_then(search::search);
    let note_links = links()
        .and(method_is(is_get))
        .and(notes::path())
        .and(auth::scope())
        .and(with_state(state.clone()))
        .and_then(links::links)
        .or(links()
            .and(method_is(|m| !is_get(m)))
            .and_then(|| refuse(HttpError::MethodNotAllowed { allow: "GET" })))
        .unify();
    let openapi_document = openapi().and(method_is(is_get)).map(openapi_json);
    let move_note = move_path()
        .and(method_is(is_post))
        .and(warp::header::headers_cloned())
        .and(body::stream())
        .and(auth::scope())
        .and(with_state(state.clone()))
        .and_then(moves::post);
    let read_file = files::reads(files(), state.clone());
    let put_file = files()
        .and(method_is(|m| m == Method::PUT))
        .and(files::path())
        .and(warp::header::headers_cloned())
        .and(body::stream())
        .and(with_state(state.clone()))
        .and_then(files::put);
    let delete_file = files()
        .and(method_is(|m| m == Method::DELETE))
        .and(files::path())
        .and(warp::header::headers_cloned())
        .and(with_state(state.clone()))
        .and_then(files::delete);
    let history_routes = history()
        .and(method_is(is_get))
        .and(notes::path())
        .and(raw_query())
        .and(warp::header::headers_cloned())
        .and(with_state(state.clone()))
        .and_then(history::get)
        .or(history()
            .and(method_is(|m| !is_get(m)))
            .and_then(|| refuse(HttpError::MethodNotAllowed { allow: "GET" })))
        .unify()
        .or(restore()
            .and(method_is(is_post))
            .and(warp::header::headers_cloned())
            .and(body::stream())
            .and(auth::scope())
            .and(with_state(state.clone()))
            .and_then(history::restore))
        .unify()
        .or(restore()
            .and(method_is(|m| !is_post(m)))
            .and_then(|| refuse(HttpError::MethodNotAllowed { allow: "POST" })))
        .unify()
        .or(trash()
            .and(method_is(is_get))
            .and(with_state(state.clone()))
            .and_then(history::trash))
        .unify()
        .or(trash()
            .and(method_is(|m| !is_get(m)))
            .and_then(|| refuse(HttpError::MethodNotAllowed { allow: "GET" })))
        .unify()
        .boxed();
    let list_files = file_list()
        .and(method_is(is_get))
        .and(raw_query())
        .and(auth::scope())
        .and(with_state(state.clone()))
        .and_then(files::list);
    // Boxed: the chain of every route is deeper than the compiler's type recursion
    // likes, and attachments are not the hot path.
    let file_routes = read_file
        .or(put_file)
        .unify()
        .or(delete_file)
        .unify()
        .or(list_files)
        .unify()
        .or(files()
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
        .boxed();

    // Section edits and the outline, and pages of the list: extensions, on routes of
    // their own so that the spec's routes keep exactly the spec's methods and queries.
    let extension_routes = sections()
        .and(method_is(is_get))
        .and(notes::path())
        .and(with_state(state.clone()))
        .and_then(sections::outline)
        .or(sections()
            .and(method_is(|m| m == Method::PATCH))
            .and(notes::path())
            .and(warp::header::headers_cloned())
            .and(body::stream())
            .and(with_state(state.clone()))
            .and_then(sections::patch))
        .unify()
        .or(sections()
            .and(method_is(|m| !matches!(*m, Method::GET | Method::PATCH)))
            .and_then(|| {
                refuse(HttpError::MethodNotAllowed {
                    allow: "GET, PATCH",
                })
            }))
        .unify()
        .or(pages()
            .and(method_is(is_get))
            .and(raw_query())
            .and(auth::scope())
            .and(with_state(state))
            .and_then(notes_pages::page))
        .unify()
        .or(pages()
            .and(method_is(|m| !is_get(m)))
            .and_then(|| refuse(HttpError::MethodNotAllowed { allow: "GET" })))
        .unify()
        .boxed();

    // The spec's rule 4, after rules 1-3 (the path's checks) and before any body is
    // read: every method but GET, PUT and DELETE.
    let other_note_method = notes()
        .and(notes::path())
        .and(method_is(|m| {
            !matches!(*m, Method::GET | Method::PUT | Method::DELETE)
        }))
        .and_then(|_| refuse(HttpError::NoteMethodNotAllowed));
    let not_get = || method_is(|m| !is_get(m));
    let refused = list()
        .and(not_get())
        .or(public_list().and(not_get()))
        .unify()
        .or(search().and(not_get()))
        .unify()
        .or(file_list().and(not_get()))
        .unify()
        .or(openapi().and(not_get()))
        .unify()
        .and_then(|| refuse(HttpError::MethodNotAllowed { allow: "GET" }))
        .or(toggle()
            .and(method_is(|m| !is_post(m)))
            .and_then(|| refuse(HttpError::MethodNotAllowed { allow: "POST" })))
        .unify()
        .or(move_path()
            .and(method_is(|m| !is_post(m)))
            .and_then(|| refuse(HttpError::MethodNotAllowed { allow: "POST" })))
        .unify();

    read_note
        .or(read_list)
        .unify()
        .or(put_note)
        .unify()
        .or(toggle_public)
        .unify()
        .or(delete_note)
        .unify()
        .or(list_public)
        .unify()
        .or(search_notes)
        .unify()
        .or(note_links)
        .unify()
        .or(openapi_document)
        .unify()
        .or(move_note)
        .unify()
        .or(file_routes)
        .unify()
        .or(history_routes)
        .unify()
        .or(extension_routes)
        .unify()
        .or(other_note_method)
        .unify()
        .or(refused)
        .unify()
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
