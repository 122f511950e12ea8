//! Moving or renaming a note from the interface: `GET /move/<path>` shows a form with
//! the new path to type, `POST /move` moves the note (every link to it rewritten) and
//! answers 303 to the moved note; a refusal shows the form again with what is wrong.

use std::sync::Arc;

use maud::{Markup, html};
use serde::Deserialize;
use warp::Filter;
use warp::http::{HeaderMap, StatusCode};
use warp::path::FullPath;
use warp::reject::Rejection;
use warp::reply::Response;

use super::viewer::{Viewer, viewer};
use super::views::{explain, layout};
use super::{Reply, failed, html, note_url, path_after, read_body, see_other};
use crate::error::Error;
use crate::http::State;
use crate::http::support::body::{self, BodyStream};
use crate::http::support::reject::HttpError;
use crate::http::support::{blocking, is_post, is_read, method_is, with_state};
use crate::ops::NotePath;
use crate::ops::model::Precondition;
use crate::ops::tokens::Scope;

/// `GET /move/<path>` and `POST /move`, and a 405 page for any other method.
pub(super) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let page = warp::path("move")
        .and(method_is(is_read))
        .and(warp::path::full())
        .and(viewer(state.clone()))
        .and(with_state(state.clone()))
        .and_then(page);
    let post = warp::path!("move")
        .and(method_is(is_post))
        .and(warp::header::headers_cloned())
        .and(body::stream())
        .and(crate::http::auth::scope())
        .and(viewer(state.clone()))
        .and(with_state(state))
        .and_then(post);
    let refused = warp::path("move")
        .and(method_is(|m| !is_read(m) && !is_post(m)))
        .and_then(|| super::refuse("GET, HEAD, POST"));
    page.or(post).unify().or(refused).unify()
}

/// The form's fields.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MoveForm {
    from: String,
    to: String,
    /// The entity tag of the note as the form showed it.
    etag: String,
    /// The note's title as the form showed it, so the heading stays after an error.
    title: String,
}

/// What the form shows.
struct MoveView<'a> {
    from: &'a str,
    title: &'a str,
    to: &'a str,
    etag: &'a str,
    error: Option<String>,
}

async fn page(full: FullPath, viewer: Viewer, state: Arc<State>) -> Reply {
    let path = path_after(&full, "/move").map_err(failed)?;
    let who = viewer.clone();
    let (note, writable) = blocking(&state, move |s| {
        let note = s.notebook.read(&path)?;
        Ok::<_, Error>((note, who.may_change(&s.notebook, path.as_str())))
    })
    .await
    .map_err(failed)?;
    if !writable {
        return Err(super::pages::read_only());
    }
    Ok(html(
        StatusCode::OK,
        view(
            &MoveView {
                from: &note.path,
                title: &note.title,
                to: &note.path,
                etag: &note.etag,
                error: None,
            },
            &viewer,
        ),
    ))
}

/// Moves for the session's `scope`, which must reach every note the move changes.
async fn post(
    headers: HeaderMap,
    body: BodyStream,
    scope: Option<Scope>,
    viewer: Viewer,
    state: Arc<State>,
) -> Reply {
    let scope = scope.unwrap_or_default();
    let bytes = read_body(body, &headers, &state).await.map_err(failed)?;
    let form: MoveForm = super::forms::form(&bytes)?;
    let from = NotePath::parse(form.from.trim()).map_err(failed)?;
    let refuse = |status: StatusCode, message: String| {
        html(
            status,
            view(
                &MoveView {
                    from: from.as_str(),
                    title: match form.title.trim() {
                        "" => from.stem(),
                        title => title,
                    },
                    to: &form.to,
                    etag: &form.etag,
                    error: Some(message),
                },
                &viewer,
            ),
        )
    };
    let to = match destination(&from, &form.to) {
        Ok(to) => to,
        Err(err) => return Ok(refuse(err.status(), explain(&err))),
    };
    let cond = match form.etag.as_str() {
        "" => Precondition::None,
        etag => Precondition::IfMatch(vec![etag.to_string()]),
    };
    let (source, target) = (from.clone(), to.clone());
    let moved = blocking(&state, move |s| {
        s.notebook.move_note(&source, &target, &cond, &scope)
    })
    .await;
    Ok(match moved {
        Ok(moved) => see_other(&note_url("note", &moved.to)),
        Err(HttpError::Domain(Error::MoveDestinationExists(_))) => refuse(
            StatusCode::CONFLICT,
            format!("A note already exists at {to}. Choose another path."),
        ),
        Err(HttpError::Domain(Error::PreconditionFailed)) => refuse(
            StatusCode::CONFLICT,
            "This note was changed elsewhere since this page was opened, so it was not \
             moved. Reload the page and try again."
                .to_string(),
        ),
        Err(HttpError::Domain(Error::MoveOntoItself)) => refuse(
            StatusCode::BAD_REQUEST,
            "That is where the note is already. Type its new path.".to_string(),
        ),
        Err(err) if !err.status().is_server_error() => refuse(err.status(), explain(&err)),
        Err(err) => return Err(failed(err)),
    })
}

/// The new path as typed: a folder (ending in `/`) keeps the file name, a name without
/// an extension gets `.md`; then checked like any note path.
fn destination(from: &NotePath, typed: &str) -> Result<NotePath, HttpError> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Err(HttpError::PathRequired);
    }
    let mut raw = typed.to_string();
    if raw.ends_with('/') {
        raw.push_str(from.file_name());
    } else if !raw.rsplit('/').next().unwrap_or_default().contains('.') {
        raw.push_str(".md");
    }
    Ok(NotePath::parse(&raw)?)
}

fn view(page: &MoveView, viewer: &Viewer) -> Markup {
    let heading = format!("Move “{}”", page.title);
    let back = note_url("note", page.from);
    let content = html! {
        nav.crumbs { a href=(back) { "← Back" } }
        header.page { h1 { (heading) } }
        @if let Some(error) = &page.error {
            p.error role="alert" { (error) }
        }
        form.editor method="post" action="/move" {
            input type="hidden" name="from" value=(page.from);
            input type="hidden" name="etag" value=(page.etag);
            input type="hidden" name="title" value=(page.title);
            div.fields {
                label.field {
                    span { "Now at" }
                    input type="text" value=(page.from) readonly;
                }
                label.field {
                    span { "New path" }
                    input type="text" name="to" value=(page.to) autofocus
                        autocapitalize="off" spellcheck="false"
                        placeholder="folder/name.md — a folder ending in / keeps the name";
                }
            }
            p.meta { "Links to this note from other notes are rewritten to lead to its new path. A public note keeps its public page, under its new name." }
            div.actions {
                button.button.primary type="submit" { "Move" }
                a.button href=(back) { "Cancel" }
            }
        }
    };
    layout(&heading, Some(""), "edit", viewer, content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_as_typed() {
        let from = NotePath::parse("a/n.md").unwrap();
        let d = |typed: &str| destination(&from, typed).map(|p| p.to_string());
        assert_eq!(d(" b/m ").unwrap(), "b/m.md");
        assert_eq!(d("archive/").unwrap(), "archive/n.md");
        assert_eq!(d("x.md").unwrap(), "x.md");
        assert!(matches!(d(""), Err(HttpError::PathRequired)));
        assert!(matches!(
            d("../x"),
            Err(HttpError::Domain(Error::InvalidPath))
        ));
        assert!(matches!(
            d("x.txt"),
            Err(HttpError::Domain(Error::NotMarkdown))
        ));
    }
}
