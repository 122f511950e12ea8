//! The resolve page of a conflicted note (`/resolve/<path>`): a merge (an offline
//! edit, a sync) that found both sides changing the same lines left both versions in
//! the note between git's markers. The page shows the two versions side by side and
//! the marked text in an editor; `POST /resolve` keeps one version, or the text as
//! edited, over the version the page was opened on (`If-Match`).

use std::sync::Arc;

use maud::{Markup, html};
use serde::Deserialize;
use warp::http::StatusCode;
use warp::path::FullPath;

use super::viewer::Viewer;
use super::views::layout;
use super::{Reply, failed, html, note_url, path_after, see_other};
use crate::error::Error;
use crate::http::State;
use crate::http::support::blocking;
use crate::ops::NotePath;
use crate::ops::merge::{has_conflict, sides};
use crate::ops::model::{NoteInput, Precondition};

/// `GET /resolve/<path>`.
pub(super) async fn page(full: FullPath, viewer: Viewer, state: Arc<State>) -> Reply {
    let path = path_after(&full, "/resolve").map_err(failed)?;
    let at = path.clone();
    let who = viewer.clone();
    let (raw, writable) = blocking(&state, move |s| {
        let raw = s.notebook.read_raw(&at)?;
        Ok::<_, Error>((raw, who.may_change(&s.notebook, at.as_str())))
    })
    .await
    .map_err(failed)?;
    if !writable {
        return Err(super::pages::read_only());
    }
    let text = String::from_utf8_lossy(raw.bytes()).into_owned();
    let etag = String::from_utf8_lossy(&raw.version.etag).into_owned();
    Ok(html(StatusCode::OK, view(&path, &text, &etag, &viewer)))
}

fn view(path: &NotePath, text: &str, etag: &str, viewer: &Viewer) -> Markup {
    let marked = has_conflict(text);
    let (ours, theirs) = sides(text);
    let content = html! {
        nav.crumbs { a href=(note_url("note", path.as_str())) { "← " (path.as_str()) } }
        h1 { "Resolve " (path.as_str()) }
        @if marked {
            p.lead {
                "Two versions changed the same lines of this note (an edit made offline, "
                "or a sync). Both are kept in the note between " code { "<<<<<<<" }
                " and " code { ">>>>>>>" } " lines until you choose."
            }
            div.resolve-sides {
                (side("This server's version", "ours", &ours, path, etag))
                (side("The other version", "theirs", &theirs, path, etag))
            }
        } @else {
            p.lead { "This note holds no conflict markers: there is nothing left to resolve." }
        }
        form.resolve-edit method="post" action="/resolve" {
            input type="hidden" name="path" value=(path.as_str());
            input type="hidden" name="etag" value=(etag);
            input type="hidden" name="choice" value="text";
            label for="resolve-text" { "Or edit the text, markers and all, and save it" }
            textarea #resolve-text name="text" rows="18" spellcheck="false" { (text) }
            button.button.primary type="submit" { "Save this text" }
        }
    };
    layout(
        &format!("Resolve {path}"),
        Some(""),
        "resolve-page",
        viewer,
        content,
    )
}

fn side(label: &str, choice: &str, text: &str, path: &NotePath, etag: &str) -> Markup {
    html! {
        section.resolve-side {
            h2 { (label) }
            pre.resolve-text { (text) }
            form method="post" action="/resolve" {
                input type="hidden" name="path" value=(path.as_str());
                input type="hidden" name="etag" value=(etag);
                input type="hidden" name="choice" value=(choice);
                button.button type="submit" { "Keep " (label.to_lowercase()) }
            }
        }
    }
}

/// The resolve form.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ResolveForm {
    path: String,
    etag: String,
    /// `ours`, `theirs` or `text`.
    choice: String,
    text: String,
}

/// `POST /resolve`: the chosen version (or the edited text) becomes the note, when the
/// note is still the version the page showed.
pub(super) async fn post(form: ResolveForm, state: &Arc<State>) -> Reply {
    let path = NotePath::parse(form.path.trim()).map_err(failed)?;
    let target = path.clone();
    blocking(state, move |s| {
        let raw = s.notebook.read_raw(&target)?;
        let current = String::from_utf8_lossy(raw.bytes()).into_owned();
        let (ours, theirs) = sides(&current);
        let text = match form.choice.as_str() {
            "ours" => ours,
            "theirs" => theirs,
            _ => form.text.replace("\r\n", "\n"),
        };
        let cond = Precondition::IfMatch(vec![form.etag.clone()]);
        s.notebook.put(&target, NoteInput::Verbatim(text), cond)
    })
    .await
    .map_err(failed)?;
    Ok(see_other(&format!(
        "{}?done=saved",
        note_url("note", path.as_str())
    )))
}
