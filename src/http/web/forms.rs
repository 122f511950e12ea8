//! The form posts: save (create or replace), delete, publish / unpublish, restore (in
//! `history`), resolve (in `resolve`), and the live preview. Each is refused when it comes from another site, validates the note path
//! like the API, calls one `ops` operation, and answers 303 to the page to show next.
//! Bad input gets an HTML page saying what is wrong, and nothing is written.

use std::sync::Arc;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use warp::http::{HeaderMap, StatusCode};
use warp::reject::Rejection;

use super::conflicts::{self, Draft};
use super::links::WebPlaces;
use super::viewer::Viewer;
use super::views::{
    self,
    editor::{Editor, Mode},
};
use super::{PageError, Reply, failed, html, note_url, read_body, see_other};
use crate::error::Error;
use crate::http::State;
use crate::http::support::blocking;
use crate::http::support::body::BodyStream;
use crate::http::support::reject::HttpError;
use crate::ops::NotePath;
use crate::ops::model::{FrontMatterInput, NoteEdit, NoteFields, NoteInput, Precondition};
use crate::ops::tokens::Scope;

/// Which form was posted.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Action {
    Save,
    Delete,
    Publish,
    Preview,
    Restore,
    Resolve,
}

/// `POST /save`, `/delete`, `/publish`, `/preview` and `/restore`.
pub(super) async fn handle(
    action: Action,
    headers: HeaderMap,
    body: BodyStream,
    scope: Option<Scope>,
    viewer: Viewer,
    state: Arc<State>,
) -> Reply {
    let bytes = read_body(body, &headers, &state).await.map_err(failed)?;
    match action {
        Action::Save => save(form(&bytes)?, &viewer, &state).await,
        Action::Delete => delete(form(&bytes)?, &state).await,
        Action::Publish => publish(form(&bytes)?, scope.unwrap_or_default(), &state).await,
        Action::Preview => preview(form(&bytes)?, &state).await,
        Action::Restore => super::history::restore(form(&bytes)?, &state).await,
        Action::Resolve => super::resolve::post(form(&bytes)?, &state).await,
    }
}

/// The fields of a posted form; a form that cannot be read is refused with a page.
pub(super) fn form<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Rejection> {
    serde_urlencoded::from_bytes(bytes).map_err(|_| malformed())
}

fn malformed() -> Rejection {
    warp::reject::custom(PageError::Status(
        StatusCode::BAD_REQUEST,
        "The form could not be read. Reload the page and try again.",
    ))
}

/// The editor's fields.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct SaveForm {
    /// `new` or `edit`.
    mode: String,
    path: String,
    title: String,
    /// Comma-separated.
    tags: String,
    body: String,
    /// The note's creation date, kept as it was when editing.
    date: String,
    /// The entity tag of the note as the editor opened it.
    etag: String,
    /// On the page of a refused save: the id its text is kept under.
    conflict: String,
}

/// A form naming one note (delete, publish).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PathForm {
    path: String,
    /// For publish: `publish`, `republish` or `unpublish`.
    action: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PreviewForm {
    title: String,
    body: String,
    /// The path field as typed: relative links are read from its folder.
    path: String,
}

/// `a, b ,#c,, a` → `[a, b, c]`.
fn split_tags(text: &str) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    for tag in text.split(',') {
        let tag = tag.trim().trim_start_matches('#').trim();
        if !tag.is_empty() && !tags.iter().any(|t| t == tag) {
            tags.push(tag.to_string());
        }
    }
    tags
}

/// `Été à Paris!` → `été-à-paris`.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// The path a new note is saved at: as typed (with `.md` added when the name has no
/// extension), or made from the title when left empty; then validated like the API's.
fn new_path(typed: &str, title: &str) -> Result<NotePath, HttpError> {
    let typed = typed.trim();
    let mut raw = if typed.is_empty() || typed.ends_with('/') {
        let stem = slug(title);
        if stem.is_empty() {
            return Err(HttpError::PathRequired);
        }
        format!("{typed}{stem}.md")
    } else {
        typed.to_string()
    };
    let name = raw.rsplit('/').next().unwrap_or_default();
    if !name.contains('.') {
        raw.push_str(".md");
    }
    Ok(NotePath::parse(&raw)?)
}

async fn save(form: SaveForm, viewer: &Viewer, state: &Arc<State>) -> Reply {
    let mode = if form.mode == "edit" {
        Mode::Edit
    } else {
        Mode::New
    };
    // Browsers send a textarea's line breaks as CRLF.
    let body = form.body.replace("\r\n", "\n");
    let path = match mode {
        Mode::New => new_path(&form.path, &form.title),
        Mode::Edit => NotePath::parse(form.path.trim()).map_err(HttpError::from),
    };
    let refuse = |status: StatusCode, message: String, form: &SaveForm, body: &str| {
        html(
            status,
            views::editor::editor(
                &Editor {
                    mode,
                    path: form.path.clone(),
                    title: form.title.clone(),
                    tags: form.tags.clone(),
                    body: body.to_string(),
                    date: form.date.clone(),
                    etag: form.etag.clone(),
                    error: Some(message),
                    max_upload: state.max_upload,
                    conflict: None,
                },
                viewer,
            ),
        )
    };
    let path = match path {
        Ok(path) => path,
        Err(err) => return Ok(refuse(err.status(), views::explain(&err), &form, &body)),
    };
    let input = match mode {
        Mode::New => NoteInput::Fields(NoteFields {
            body: Some(body.clone()),
            front_matter: Some(FrontMatterInput {
                title: Some(form.title.trim().to_string()),
                tags: Some(split_tags(&form.tags)),
                date: Some(form.date.clone()),
                ..FrontMatterInput::default()
            }),
            ..NoteFields::default()
        }),
        // An existing note gets only what the form changed.
        Mode::Edit => NoteInput::Edit(NoteEdit {
            title: form.title.clone(),
            tags: split_tags(&form.tags),
            body: body.clone(),
        }),
    };
    let cond = match mode {
        Mode::New => Precondition::IfNoneMatchAny,
        Mode::Edit if form.etag.is_empty() => Precondition::None,
        Mode::Edit => Precondition::IfMatch(vec![form.etag.clone()]),
    };
    let target = path.clone();
    let outcome = blocking(state, move |s| s.notebook.put(&target, input, cond)).await;
    Ok(match outcome {
        Ok(outcome) => {
            conflicts::forget(&form.conflict);
            let done = if outcome.created { "created" } else { "saved" };
            see_other(&format!("{}?done={done}", note_url("note", path.as_str())))
        }
        Err(HttpError::Domain(Error::AlreadyExists)) => refuse(
            StatusCode::CONFLICT,
            format!(
                "A note already exists at {path}. Choose another path, or open that note to edit it."
            ),
            &form,
            &body,
        ),
        // The text is kept, and the page that shows it is a GET (`conflicts`).
        Err(HttpError::Domain(Error::PreconditionFailed)) => {
            let kept = conflicts::keep(Draft {
                path: path.to_string(),
                title: form.title.clone(),
                tags: form.tags.clone(),
                body: body.clone(),
            });
            match kept {
                Some(id) => see_other(&format!(
                    "{}?conflict={id}",
                    note_url("edit", path.as_str())
                )),
                None => refuse(
                    StatusCode::CONFLICT,
                    "This note was changed elsewhere after you opened it, so your text \
                     was not saved. Copy it, open the current version, and apply your \
                     changes to it."
                        .to_string(),
                    &form,
                    &body,
                ),
            }
        }
        Err(err) if !err.status().is_server_error() => {
            refuse(err.status(), views::explain(&err), &form, &body)
        }
        Err(err) => return Err(failed(err)),
    })
}

fn form_path(form: &PathForm) -> Result<NotePath, HttpError> {
    let raw = form.path.trim();
    if raw.is_empty() {
        return Err(HttpError::PathRequired);
    }
    Ok(NotePath::parse(raw)?)
}

/// Deletes the note; the list then confirms it with an Undo that restores the version
/// just deleted.
async fn delete(form: PathForm, state: &Arc<State>) -> Reply {
    let path = form_path(&form).map_err(failed)?;
    let target = path.clone();
    let kept = blocking(state, move |s| {
        s.notebook.delete_undoable(&target, &Precondition::None)
    })
    .await
    .map_err(failed)?;
    Ok(see_other(&format!(
        "/{}",
        super::history::undo_query(path.as_str(), kept.as_deref())
    )))
}

/// Publishes for the session's `scope`: its pages copy only what it may read.
async fn publish(form: PathForm, scope: Scope, state: &Arc<State>) -> Reply {
    let path = form_path(&form).map_err(failed)?;
    let action = match form.action.as_str() {
        "publish" | "" => "published",
        "republish" => "republished",
        "unpublish" => "unpublished",
        _ => return Err(malformed()),
    };
    let target = path.clone();
    blocking(state, move |s| match action {
        "unpublished" => s.notebook.unpublish(&target, &scope),
        _ => s.notebook.publish(&target, &scope),
    })
    .await
    .map_err(failed)?;
    Ok(see_other(&format!(
        "{}?done={action}",
        note_url("note", path.as_str())
    )))
}

/// The rendered HTML of an editor's text, for the live preview, its links resolved as
/// the note page resolves them. A path not (yet) valid reads links from the root.
async fn preview(form: PreviewForm, state: &Arc<State>) -> Reply {
    let body = form.body.replace("\r\n", "\n");
    let title = form.title.trim();
    let Some(from) = new_path(&form.path, title)
        .ok()
        .or_else(|| NotePath::parse(PREVIEW_PATH).ok())
    else {
        return Err(malformed());
    };
    let targets = blocking(state, |s| s.notebook.link_targets())
        .await
        .map_err(failed)?;
    let title = title.to_string();
    Ok(super::streamed::page(
        String::new(),
        String::new(),
        move |out| {
            let places = WebPlaces::new(&targets, &from);
            let title = (!title.is_empty()).then_some(title.as_str());
            crate::render::write_html(&body, title, &places, out)
        },
    ))
}

/// Where a preview whose path is not valid yet reads its links from.
const PREVIEW_PATH: &str = "untitled.md";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_split_trimmed_and_deduplicated() {
        assert_eq!(split_tags(" a, b ,#c,, a"), ["a", "b", "c"]);
        assert!(split_tags(" , ").is_empty());
    }

    #[test]
    fn new_paths() {
        let p = |typed: &str, title: &str| new_path(typed, title).map(|p| p.to_string());
        assert_eq!(p("", "Été à Paris!").unwrap(), "été-à-paris.md");
        assert_eq!(p("ideas/", "First idea").unwrap(), "ideas/first-idea.md");
        assert_eq!(p("ideas/x", "").unwrap(), "ideas/x.md");
        assert_eq!(p("a/b.md", "T").unwrap(), "a/b.md");
        assert!(matches!(
            p("../x.md", "T"),
            Err(HttpError::Domain(Error::InvalidPath))
        ));
        assert!(matches!(
            p("x.txt", "T"),
            Err(HttpError::Domain(Error::NotMarkdown))
        ));
        assert!(matches!(p("", " !"), Err(HttpError::PathRequired)));
    }
}
