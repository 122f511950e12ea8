//! The GET pages: the list of notes, a note, the editor, search results, the raw text
//! and the interface's two assets. Each reads through `ops`, then renders a view.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use warp::http::StatusCode;
use warp::path::FullPath;

use super::conflicts;
use super::links::{Backlinks, WebPlaces};
use super::viewer::Viewer;
use super::views;
use super::views::editor::{self, Editor, Mode};
use super::views::notes::{self, Listing, NoteView};
use super::views::search::{self, SearchView};
use super::{PageError, Reply, failed, html, path_after, streamed};
use crate::error::{Error, Result};
use crate::http::State;
use crate::http::support::blocking;
use crate::ops::publish::PublicState;
use crate::ops::search::{Limit, Query, RETRY_AFTER_SECS};
use crate::ops::tokens::Scope;
use crate::ops::{NoteMeta, NotePath, Notebook};

/// The parameters of a query string; a malformed one reads as empty.
fn params(raw: &str) -> HashMap<String, String> {
    serde_urlencoded::from_str(raw).unwrap_or_default()
}

/// A confirmation shown once after a form post (`?done=saved`): only known words are
/// shown, as fixed sentences, so nothing from the URL is reflected into the page.
fn notice(params: &HashMap<String, String>) -> Option<&'static str> {
    Some(match params.get("done")?.as_str() {
        "created" => "Note created.",
        "saved" => "Changes saved.",
        "published" => "Published: the public page is up.",
        "republished" => "Public page updated.",
        "unpublished" => "Unpublished: the public page is gone.",
        "deleted" => "Note deleted. It is in the trash until it is restored.",
        "restored" => {
            "Version restored: it is the note's text again, kept as a new version in its history."
        }
        "undone" => "Delete undone: the note is back.",
        _ => return None,
    })
}

/// Note path → URL of its public page, for every public note; `None` when the record
/// of public notes cannot be read: the pages then say the publish state is unknown
/// rather than failing, since reading and writing notes does not depend on it.
pub(super) fn public_pages(notebook: &Notebook) -> Result<Option<HashMap<String, String>>> {
    let pages = match notebook.public_pages() {
        Ok(pages) => pages.unwrap_or_default(),
        Err(Error::PublicRecordUnreadable { .. }) => return Ok(None),
        Err(err) => return Err(err),
    };
    Ok(Some(
        pages
            .into_iter()
            .filter_map(|p| Some((p.note.path, public_href(&p.page)?)))
            .collect(),
    ))
}

/// The URL of a page file of the public dir.
fn public_href(page: &std::path::Path) -> Option<String> {
    let file = page.file_name()?.to_str()?;
    Some(format!("/public/{}", crate::render::url_segment(file)))
}

/// A note's publication as its page shows it: `Ok(None)` when the note is private,
/// `Err(())` when the record of public notes cannot be read (the page then says the
/// publish state is unknown, as the list does).
type Publication = std::result::Result<Option<PublicState>, ()>;

/// Notes on one page of the list.
const PAGE_SIZE: usize = 100;

/// `/`: every note, most recently changed first, optionally only those with a tag,
/// a hundred a page (`?page=N`).
pub(super) async fn index(raw: String, viewer: Viewer, state: Arc<State>) -> Reply {
    let params = params(&raw);
    let tag = params.get("tag").filter(|t| !t.is_empty()).cloned();
    let loaded = blocking(&state, |s| {
        Ok::<_, Error>((s.notebook.list_snapshot()?, public_pages(&s.notebook)?))
    })
    .await;
    let (snapshot, public) = match loaded {
        Ok(loaded) => loaded,
        Err(err) => return Err(failed(err)),
    };
    let public_unknown = public.is_none();
    let public = public.unwrap_or_default();
    // The order by recency and by tag is made once per list: a page reads the
    // hundred entries it shows.
    let order = snapshot.order();
    let tags: BTreeMap<String, usize> = order
        .tags
        .iter()
        .map(|(tag, notes)| (tag.clone(), notes.len()))
        .collect();
    let matched: &[u32] = match &tag {
        Some(tag) => order.tags.get(tag).map_or(&[], Vec::as_slice),
        None => &order.recent,
    };
    let pages = matched.len().div_ceil(PAGE_SIZE).max(1);
    let page = params
        .get("page")
        .and_then(|p| p.parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(1, pages);
    let list = &snapshot.list;
    let shown: Vec<NoteMeta> = matched
        .iter()
        .skip((page - 1) * PAGE_SIZE)
        .take(PAGE_SIZE)
        .filter_map(|&at| list.notes.get(at as usize).cloned())
        .collect();
    let wanted: Vec<(String, u64)> = shown.iter().map(|n| (n.path.to_string(), n.size)).collect();
    let excerpts = blocking(&state, move |s| {
        Ok::<_, Error>(excerpts(&s.notebook, &wanted))
    })
    .await
    .map_err(failed)?;
    Ok(html(
        StatusCode::OK,
        notes::index(&Listing {
            notes: &shown,
            excerpts: &excerpts,
            viewer: &viewer,
            matched: matched.len(),
            total: list.notes.len(),
            page,
            pages,
            public: &public,
            public_unknown,
            tags: &tags,
            tag: tag.as_deref(),
            notice: notice(&params),
            undo: super::history::undo_offer(params.get("undo"), params.get("version")),
        }),
    ))
}

/// Notes larger than this show no excerpt in the list: a page of the list reads at
/// most a hundred notes, so each read is kept small.
const EXCERPT_MAX_BYTES: u64 = 64 * 1024;
/// Characters of a note's opening words in the list.
const EXCERPT_CHARS: usize = 160;

/// The opening words of each note (path, size) as plain text, for the list; empty for
/// a note too large, unreadable, or gone since the list was made.
fn excerpts(notebook: &Notebook, notes: &[(String, u64)]) -> Vec<String> {
    notes
        .iter()
        .map(|(path, size)| {
            if *size > EXCERPT_MAX_BYTES {
                return String::new();
            }
            NotePath::parse(path)
                .and_then(|path| notebook.read(&path))
                .map(|note| crate::render::summary(&note.body, EXCERPT_CHARS))
                .unwrap_or_default()
        })
        .collect()
}

/// `/search?q=…`: ranked results with the matched words highlighted, among the notes
/// the session's `scope` may read.
pub(super) async fn search(
    raw: String,
    scope: Option<Scope>,
    viewer: Viewer,
    state: Arc<State>,
) -> Reply {
    let scope = scope.unwrap_or_default();
    let query = params(&raw).remove("q").unwrap_or_default();
    if query.trim().is_empty() {
        return Ok(html(
            StatusCode::OK,
            search::search(
                &SearchView {
                    query: "",
                    outcome: None,
                },
                &viewer,
            ),
        ));
    }
    let outcome = match Query::parse(&query) {
        Ok(parsed) => {
            blocking(&state, move |s| {
                s.notebook.search(&parsed, Limit::DEFAULT, &scope)
            })
            .await
        }
        Err(err) => Err(err.into()),
    };
    let status = match &outcome {
        Ok(_) => StatusCode::OK,
        Err(err) => err.status(),
    };
    let outcome = outcome.map_err(|err| views::explain(&err));
    let mut page = html(
        status,
        search::search(
            &SearchView {
                query: &query,
                outcome: Some(outcome),
            },
            &viewer,
        ),
    );
    // The index is being rebuilt: the browser (or a script) may come back shortly.
    if status == StatusCode::SERVICE_UNAVAILABLE {
        page.headers_mut().insert(
            warp::http::header::RETRY_AFTER,
            warp::http::HeaderValue::from(RETRY_AFTER_SECS),
        );
    }
    Ok(page)
}

/// `/new[?folder=…|?path=…]`: an empty editor, its path field prefilled with the
/// folder, or with the whole path (a link to a missing note leads here with it).
pub(super) async fn new_note(raw: String, viewer: Viewer, state: Arc<State>) -> Reply {
    if !viewer.writes() {
        return Err(read_only());
    }
    let mut params = params(&raw);
    let folder = params
        .remove("folder")
        .map(|f| f.trim_matches('/').to_string())
        .filter(|f| !f.is_empty())
        .map(|f| format!("{f}/"));
    let path = params
        .remove("path")
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .or(folder)
        .unwrap_or_default();
    Ok(html(
        StatusCode::OK,
        editor::editor(
            &Editor {
                mode: Mode::New,
                path,
                title: String::new(),
                tags: String::new(),
                body: String::new(),
                date: String::new(),
                etag: String::new(),
                error: None,
                max_upload: state.max_upload,
                conflict: None,
            },
            &viewer,
        ),
    ))
}

/// `/note/<path>` (rendered), `/edit/<path>` (editor) and `/raw/<path>` (the text).
pub(super) async fn note_page(
    full: FullPath,
    raw: String,
    viewer: Viewer,
    state: Arc<State>,
) -> Reply {
    let prefix = match full.as_str().split('/').nth(1) {
        Some("edit") => "/edit",
        Some("raw") => "/raw",
        _ => "/note",
    };
    // `/note` and `/note/` name no note: the list of notes is what they mean.
    if full.as_str().trim_end_matches('/') == prefix {
        return Ok(super::see_other("/"));
    }
    let path = path_after(&full, prefix).map_err(failed)?;
    match prefix {
        "/raw" => raw_text(path, &state).await,
        "/edit" => edit(path, &params(&raw), viewer, &state).await,
        _ => view(path, &params(&raw), viewer, &state).await,
    }
}

async fn view(
    path: NotePath,
    params: &HashMap<String, String>,
    viewer: Viewer,
    state: &Arc<State>,
) -> Reply {
    let at = path.clone();
    let who = viewer.clone();
    let (note, public, targets, backlinks, files, changed, writable) = blocking(state, move |s| {
        let note = s.notebook.read(&at)?;
        let files = s.notebook.referenced_files(&at)?;
        let public: Publication = match s.notebook.public_state(&at) {
            Ok(public) => Ok(public),
            Err(Error::PublicRecordUnreadable { .. }) => Err(()),
            Err(err) => return Err(err),
        };
        let targets = s.notebook.link_targets()?;
        // When the front matter has no time, the file's (from the list, not read again).
        let changed = s
            .notebook
            .list_snapshot()
            .ok()
            .and_then(|list| list.meta(at.as_str()).and_then(NoteMeta::changed_at));
        // The index answers backlinks; while it is rebuilt the note still shows.
        // A session limited to a folder never reaches the interface (the door).
        let backlinks = match s.notebook.backlinks(&at, &Scope::full()) {
            Ok(incoming) => Backlinks::Found(incoming),
            Err(Error::IndexRebuilding) => Backlinks::Indexing,
            Err(Error::Index(_) | Error::IndexBroken(_)) => Backlinks::Unavailable,
            Err(err) => return Err(err),
        };
        let writable = who.may_change(&s.notebook, at.as_str());
        Ok::<_, Error>((note, public, targets, backlinks, files, changed, writable))
    })
    .await
    .map_err(failed)?;
    let page = public.as_ref().ok().and_then(Option::as_ref);
    let href = page.and_then(|p| public_href(&p.page));
    let markup = notes::note(&NoteView {
        note: &note,
        viewer: &viewer,
        writable,
        public: href.as_deref(),
        public_unknown: public.is_err(),
        out_of_date_since: page.filter(|p| p.out_of_date()).map(|p| p.published_at),
        notice: notice(params),
        backlinks: &backlinks,
        files: &files,
        changed,
    })
    .into_string();
    let (head, tail) = markup
        .split_once(notes::RENDERED_TEXT)
        .map(|(head, tail)| (head.to_string(), tail.to_string()))
        .unwrap_or_default();
    Ok(streamed::page(head, tail, move |out| {
        let places = WebPlaces::new(&targets, &path);
        crate::render::write_html(&note.body, Some(&note.title), &places, out)
    }))
}

/// The editor of a note; with `?conflict=ID`, the page of a save refused because the
/// note changed meanwhile: the text that was not saved, in the editor, against the
/// current version (`conflicts`).
async fn edit(
    path: NotePath,
    params: &HashMap<String, String>,
    viewer: Viewer,
    state: &Arc<State>,
) -> Reply {
    let at = path.clone();
    let who = viewer.clone();
    let (note, writable) = blocking(state, move |s| {
        let note = s.notebook.read(&at)?;
        Ok::<_, Error>((note, who.may_change(&s.notebook, at.as_str())))
    })
    .await
    .map_err(failed)?;
    if !writable {
        return Err(read_only());
    }
    let fields = note.front_matter.clone().unwrap_or_default();
    let mut page = Editor {
        mode: Mode::Edit,
        path: note.path.clone(),
        title: note.title.clone(),
        tags: fields.tags.join(", "),
        body: note.body.clone(),
        date: fields.date,
        etag: note.etag.clone(),
        error: None,
        max_upload: state.max_upload,
        conflict: None,
    };
    if let Some(id) = params.get("conflict") {
        match conflicts::find(id, path.as_str()) {
            Some(draft) => {
                page.conflict = Some(editor::Conflict {
                    id: id.clone(),
                    changes: super::history::diff::render(&note.body, &draft.body),
                });
                page.error = Some(conflicts::MESSAGE.to_string());
                page.title = draft.title;
                page.tags = draft.tags;
                page.body = draft.body;
            }
            None => page.error = Some(conflicts::GONE.to_string()),
        }
    }
    Ok(html(StatusCode::OK, editor::editor(&page, &viewer)))
}

/// The page of a change the session may not make (a read-only session opening the
/// editor); the door refuses the form's post in any case.
pub(super) fn read_only() -> warp::reject::Rejection {
    warp::reject::custom(PageError::Status(
        StatusCode::FORBIDDEN,
        "You are logged in with a read-only token: notes can be read here, not changed. \
         Log out and log in with a token that may write to change them.",
    ))
}

/// The note's text as stored, shown as plain text so the browser displays it.
async fn raw_text(path: NotePath, state: &Arc<State>) -> Reply {
    let raw = blocking(state, move |s| s.notebook.read_raw(&path))
        .await
        .map_err(failed)?;
    let mut response = crate::http::support::reply::with_type(
        StatusCode::OK,
        raw.bytes().clone(),
        "text/plain; charset=utf-8",
    );
    super::secure(response.headers_mut());
    Ok(response)
}

/// `/assets/app.css` and `/assets/app.js`, embedded in the binary, and the offline
/// files (`offline`).
pub(super) async fn asset(name: String) -> Reply {
    let (body, content_type) = match name.as_str() {
        "app.css" => (super::STYLESHEET, "text/css; charset=utf-8"),
        "app.js" => (super::SCRIPT, "text/javascript; charset=utf-8"),
        _ => {
            return super::offline::asset(&name).ok_or_else(|| {
                warp::reject::custom(PageError::Status(
                    StatusCode::NOT_FOUND,
                    "There is no such file.",
                ))
            });
        }
    };
    let mut response = crate::http::support::reply::with_type(StatusCode::OK, body, content_type);
    response.headers_mut().insert(
        warp::http::header::CACHE_CONTROL,
        warp::http::HeaderValue::from_static("no-cache"),
    );
    Ok(response)
}
