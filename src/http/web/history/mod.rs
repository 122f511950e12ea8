//! A note's history and the trash in the interface: `GET /history/<path>` lists the
//! versions, shows one version's text (`?version=ID`) or the diff between two
//! (`?from=ID&to=ID`; `to` alone compares with the version before it); `GET /trash`
//! lists the deleted notes; `POST /restore` writes a version back (a restore, or the
//! Undo of a delete) and answers 303 to the note.

pub(super) mod diff;
mod views;

use std::sync::Arc;

use serde::Deserialize;
use warp::Filter;
use warp::http::StatusCode;
use warp::path::FullPath;
use warp::reject::Rejection;
use warp::reply::Response;

use self::views::{HistoryView, Shown};
use super::viewer::{Viewer, viewer};
use super::{PageError, Reply, failed, html, note_url, path_after, see_other};
use crate::error::{Error, Result};
use crate::http::State;
use crate::http::support::{blocking, is_read, method_is, raw_query, with_state};
use crate::ops::history::{KeptVersion, Trashed};
use crate::ops::{NotePath, Notebook};

/// `GET /history/<path>` and `GET /trash`, and a 405 page for any other method.
pub(super) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let history = warp::path("history")
        .and(method_is(is_read))
        .and(warp::path::full())
        .and(raw_query())
        .and(viewer(state.clone()))
        .and(with_state(state.clone()))
        .and_then(page);
    let trash = warp::path!("trash")
        .and(method_is(is_read))
        .and(viewer(state.clone()))
        .and(with_state(state))
        .and_then(trash);
    let refused = warp::path("history")
        .or(warp::path!("trash"))
        .unify()
        .and(method_is(|m| !is_read(m)))
        .and_then(|| super::refuse("GET, HEAD"));
    history.or(trash).unify().or(refused).unify()
}

/// What the query string asks the history page to show.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Params {
    version: String,
    from: String,
    to: String,
}

/// The fields of the restore form (a version on the history page, a note in the trash,
/// the Undo after a delete).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct RestoreForm {
    path: String,
    version: String,
    /// `1` when the form is the Undo of a delete.
    undo: String,
}

async fn page(full: FullPath, raw: String, viewer: Viewer, state: Arc<State>) -> Reply {
    // `/history` names no note: the trash is where notes without a page are found.
    if full.as_str().trim_end_matches('/') == "/history" {
        return Ok(see_other("/trash"));
    }
    let path = path_after(&full, "/history").map_err(failed)?;
    let params: Params = serde_urlencoded::from_str(&raw).unwrap_or_default();
    let at = path.clone();
    let who = viewer.clone();
    let (versions, shown, writable) = blocking(&state, move |s| {
        let versions = s.notebook.kept_versions(&at)?;
        let shown = shown(&s.notebook, &at, &versions, &params)?;
        Ok::<_, Error>((versions, shown, who.may_change(&s.notebook, at.as_str())))
    })
    .await
    .map_err(failed)?;
    Ok(html(
        StatusCode::OK,
        views::history(&HistoryView {
            path: path.as_str(),
            viewer: &viewer,
            writable,
            versions: &versions,
            shown: &shown,
        }),
    ))
}

/// The version or the diff the page shows, read from the store.
fn shown(
    notebook: &Notebook,
    path: &NotePath,
    versions: &[KeptVersion],
    params: &Params,
) -> Result<Shown> {
    let text = |at: usize| -> Result<String> {
        let kept = &versions[at];
        if !kept.has_text {
            return Ok(String::new());
        }
        let bytes = notebook.version(path, &kept.version.id)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    if !params.version.is_empty() {
        let at = find(versions, &params.version)?;
        return Ok(Shown::Text {
            at,
            text: text(at)?,
        });
    }
    if params.to.is_empty() && params.from.is_empty() {
        return Ok(Shown::Nothing);
    }
    let to = match params.to.as_str() {
        "" => 0,
        id => find(versions, id)?,
    };
    let from = match params.from.as_str() {
        "" => (to + 1 < versions.len()).then_some(to + 1),
        id => Some(find(versions, id)?),
    };
    let size = |at: usize| {
        let kept = &versions[at];
        if kept.has_text { kept.version.size } else { 0 }
    };
    let (old_size, new_size) = (from.map_or(0, size), size(to));
    let markup = if diff::fits(old_size, new_size) {
        let old = from.map(text).transpose()?.unwrap_or_default();
        diff::render(&old, &text(to)?)
    } else {
        diff::too_large(old_size, new_size, None)
    };
    Ok(Shown::Diff { from, to, markup })
}

/// The version an id names: the whole id, or a prefix of at least four hex digits that
/// names one version of this note.
fn find(versions: &[KeptVersion], id: &str) -> Result<usize> {
    let id = id.trim().to_ascii_lowercase();
    if id.len() < 4 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::VersionNotFound);
    }
    let mut found = versions
        .iter()
        .enumerate()
        .filter(|(_, k)| k.version.id.starts_with(&id));
    match (found.next(), found.next()) {
        (Some((at, _)), None) => Ok(at),
        _ => Err(Error::VersionNotFound),
    }
}

/// Deleted notes whose title the trash reads from their last text; past them, the
/// trash shows paths.
const TITLES_READ: usize = 200;

async fn trash(viewer: Viewer, state: Arc<State>) -> Reply {
    let (trashed, titles) = blocking(&state, |s| {
        let trashed = s.notebook.trash()?;
        let titles = trashed
            .iter()
            .take(TITLES_READ)
            .map(|t| last_title(&s.notebook, t))
            .collect::<Vec<_>>();
        Ok::<_, Error>((trashed, titles))
    })
    .await
    .map_err(failed)?;
    Ok(html(
        StatusCode::OK,
        views::trash(&trashed, &titles, &viewer),
    ))
}

/// The title a deleted note had in its last text: its front matter's, else its file
/// name; `None` for a file, or a text that cannot be read.
fn last_title(notebook: &Notebook, trashed: &Trashed) -> Option<String> {
    if trashed.kind == "file" {
        return None;
    }
    let path = NotePath::parse(&trashed.path).ok()?;
    let bytes = notebook.version(&path, &trashed.version).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let title = crate::ops::front_matter::parse_fields(&text)
        .map(|(fields, _)| fields.title)
        .filter(|t| !t.trim().is_empty());
    Some(title.unwrap_or_else(|| path.stem().to_string()))
}

/// `POST /restore`: the version's text becomes the note's again (a new change in its
/// history), then the note is shown with a confirmation.
pub(super) async fn restore(form: RestoreForm, state: &Arc<State>) -> Reply {
    let version = form.version.trim().to_string();
    if version.is_empty() {
        return Err(warp::reject::custom(PageError::Status(
            StatusCode::BAD_REQUEST,
            "Choose the version to restore.",
        )));
    }
    let raw = form.path.trim();
    // An attachment (from the trash): written back, then shown.
    if let Err(Error::NotMarkdown) = NotePath::parse(raw)
        && let Ok(file) = crate::ops::FilePath::parse(raw)
    {
        let url = note_url("file", file.as_str());
        blocking(state, move |s| s.notebook.restore_file(&file, &version))
            .await
            .map_err(failed)?;
        return Ok(see_other(&url));
    }
    let path = NotePath::parse(raw).map_err(failed)?;
    let target = path.clone();
    blocking(state, move |s| s.notebook.restore(&target, &version))
        .await
        .map_err(failed)?;
    let done = if form.undo == "1" {
        "undone"
    } else {
        "restored"
    };
    Ok(see_other(&format!(
        "{}?done={done}",
        note_url("note", path.as_str())
    )))
}

/// The query of the list page after a delete, offering its Undo: the deleted note and
/// the version that holds its text.
pub(super) fn undo_query(path: &str, version: Option<&str>) -> String {
    match version {
        Some(version) => format!(
            "?done=deleted&undo={}&version={}",
            super::query_value(path),
            super::query_value(version)
        ),
        None => "?done=deleted".to_string(),
    }
}

/// The Undo the list page offers, read back from its query: only a valid note path and
/// a version id shaped like one are shown (in a form that posts them, never as markup).
pub(super) fn undo_offer(
    path: Option<&String>,
    version: Option<&String>,
) -> Option<(String, String)> {
    let path = NotePath::parse(path?.trim()).ok()?;
    let version = version?.trim();
    let shaped =
        (4..=64).contains(&version.len()) && version.bytes().all(|b| b.is_ascii_hexdigit());
    shaped.then(|| (path.to_string(), version.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::history::Version;

    fn kept(id: &str) -> KeptVersion {
        KeptVersion {
            version: Version {
                id: id.to_string(),
                at: "2026-11-23T10:00:00Z".to_string(),
                operation: "put".to_string(),
                size: 1,
                path: None,
            },
            has_text: true,
        }
    }

    #[test]
    fn ids_and_unique_prefixes_name_a_version() {
        let versions = [kept("abcd1234"), kept("abcd9999"), kept("0123abcd")];
        assert_eq!(find(&versions, "ABCD1").unwrap(), 0);
        assert_eq!(find(&versions, "0123abcd").unwrap(), 2);
        for bad in ["abcd", "abc", "zzzz1", "", "ffff"] {
            assert!(
                matches!(find(&versions, bad), Err(Error::VersionNotFound)),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_undo_offer_takes_only_a_note_path_and_a_version_id() {
        let s = |v: &str| v.to_string();
        assert_eq!(
            undo_offer(Some(&s("a/b.md")), Some(&s("abcdef12"))),
            Some((s("a/b.md"), s("abcdef12")))
        );
        assert_eq!(undo_offer(Some(&s("../x.md")), Some(&s("abcdef12"))), None);
        assert_eq!(undo_offer(Some(&s("a.md")), Some(&s("<b>"))), None);
        assert_eq!(undo_offer(Some(&s("a.md")), None), None);
        assert_eq!(
            undo_query("a b.md", Some("ab12")),
            "?done=deleted&undo=a%20b.md&version=ab12"
        );
    }
}
