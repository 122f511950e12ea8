//! The pages' markup, written with `maud`: every interpolated value is HTML-escaped by
//! the template engine, so note titles, tags, paths, bodies and queries are always text.
//! The only markup inserted as is comes from the one Markdown renderer (`render`),
//! which shows raw HTML in notes as text.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Local, SecondsFormat, Utc};
use maud::{DOCTYPE, Markup, PreEscaped, html};
use warp::http::StatusCode;

use super::{note_url, query_value};
use crate::error::Error;
use crate::http::support::reject::HttpError;
use crate::ops::search::{MATCH_END, MATCH_START, SearchResults};
use crate::ops::{Note, NoteMeta};

/// Whether the editor creates a note or edits one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    New,
    Edit,
}

pub(super) struct Listing<'a> {
    /// The notes of this page.
    pub notes: &'a [NoteMeta],
    /// Number of notes the tag filter kept.
    pub matched: usize,
    /// Number of notes before the tag filter.
    pub total: usize,
    /// This page, from 1, and the number of pages.
    pub page: usize,
    pub pages: usize,
    /// Note path → its public page URL.
    pub public: &'a HashMap<String, String>,
    /// The record of public notes cannot be read: which notes are public is unknown.
    pub public_unknown: bool,
    /// Every tag with the number of notes carrying it.
    pub tags: &'a BTreeMap<String, usize>,
    pub tag: Option<&'a str>,
    pub notice: Option<&'static str>,
    /// After a delete: the deleted note and the version its Undo restores.
    pub undo: Option<(String, String)>,
}

pub(super) struct NoteView<'a> {
    pub note: &'a Note,
    pub public: Option<&'a str>,
    /// The record of public notes cannot be read: publish and unpublish are offered
    /// neither, as both would fail.
    pub public_unknown: bool,
    /// When the public page was written, if the note changed since: the page is out of
    /// date.
    pub out_of_date_since: Option<DateTime<Utc>>,
    pub notice: Option<&'static str>,
    /// The notes linking to this one.
    pub backlinks: &'a super::links::Backlinks,
    /// The files the note references.
    pub files: &'a [crate::ops::files::Referenced],
}

pub(super) struct Editor {
    pub mode: Mode,
    pub path: String,
    pub title: String,
    pub tags: String,
    pub body: String,
    pub date: String,
    pub etag: String,
    pub error: Option<String>,
    /// The server's upload limit, in bytes, for the upload bar.
    pub max_upload: u64,
}

pub(super) struct SearchView<'a> {
    pub query: &'a str,
    /// `None` before a query is typed.
    pub outcome: Option<Result<SearchResults, String>>,
}

/// Shown instead of the public badges when the record of public notes cannot be read.
const PUBLISH_STATE_UNKNOWN: &str = "Publish state unknown: the record of public notes \
    cannot be read. Notes can still be read and edited; publishing, unpublishing and \
    deleting wait until it is repaired.";

/// A sentence for a person, saying what went wrong and what to do.
pub(super) fn explain(err: &HttpError) -> String {
    let err = match err {
        HttpError::Domain(err) => err,
        HttpError::PathRequired => return "Give the note a title or a path.".into(),
        HttpError::WorkerFailed(_) => {
            return "Something went wrong on the server. The server log says what.".into();
        }
        HttpError::PayloadTooLarge(limit) => {
            return format!("The note is too large: the limit is {limit} bytes.");
        }
        other => return format!("{other}."),
    };
    match err {
        Error::InvalidPath => "That path is not allowed: a note path is relative (no leading “/”, \
             no “..”) and stays inside the notes folder."
            .into(),
        Error::NotMarkdown => "Only Markdown files are notes: the path must end in “.md”.".into(),
        Error::NotFound => {
            "There is no note at this path. It may have been moved or deleted.".into()
        }
        Error::NotPublic(_) => "This note is not public.".into(),
        Error::VersionNotFound => "This note has no such version. Its history page lists \
             the versions kept."
            .into(),
        Error::HistoryFailed(_) => "The note's history could not be read or written, so \
             nothing was changed. The server log says why."
            .into(),
        Error::InvalidQuery(why) => format!("That search could not be understood: {why}."),
        Error::IndexRebuilding => "Search is unavailable for a moment: the index is being \
             rebuilt from the notes. Try again in a few seconds."
            .into(),
        Error::Index(_) | Error::IndexBroken(_) => {
            "Search failed: the index could not be read. The server log says why.".into()
        }
        other => format!("{other}."),
    }
}

/// `21-11-2026:14:05` → `21 Nov 2026, 14:05`; anything else as it is.
fn when(stamp: &str) -> String {
    chrono::NaiveDateTime::parse_from_str(stamp, "%d-%m-%Y:%H:%M")
        .map(|t| t.format("%-d %b %Y, %H:%M").to_string())
        .unwrap_or_else(|_| stamp.to_string())
}

/// `21-11-2026` → `21 Nov 2026`; anything else as it is.
fn day(date: &str) -> String {
    chrono::NaiveDate::parse_from_str(date, "%d-%m-%Y")
        .map(|d| d.format("%-d %b %Y").to_string())
        .unwrap_or_else(|_| date.to_string())
}

/// A UTC instant in the service's local time, read like `when`.
pub(super) fn local(at: DateTime<Utc>) -> String {
    at.with_timezone(&Local)
        .format("%-d %b %Y, %H:%M")
        .to_string()
}

pub(super) fn size(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_048_576.0),
    }
}

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn tag_href(tag: &str) -> String {
    format!("/?tag={}", query_value(tag))
}

/// Page `n` of the list, with its tag filter.
fn page_href(tag: Option<&str>, n: usize) -> String {
    match tag {
        Some(tag) => format!("{}&page={n}", tag_href(tag)),
        None => format!("/?page={n}"),
    }
}

/// The frame of every page: top bar with search and "New note", then the content.
/// `query` fills the bar's search box; `None` leaves the box out, for the search page,
/// which has a larger one of its own.
pub(super) fn layout(title: &str, query: Option<&str>, class: &str, content: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                title { (title) " · notes" }
                link rel="stylesheet" href="/assets/app.css";
                script src="/assets/app.js" defer {}
            }
            body.app.(class) {
                header.bar {
                    div.bar-inner {
                        a.brand href="/" { span.logo aria-hidden="true" { "✎" } "notes" }
                        @if let Some(query) = query {
                            form.find action="/search" method="get" role="search" {
                                input type="search" name="q" value=(query)
                                    placeholder="Search notes…" aria-label="Search notes";
                            }
                        } @else {
                            span.spacer {}
                        }
                        a.button.primary.new href="/new" { "New note" }
                    }
                }
                main { (content) }
                footer.site {
                    a href="/public/" { "Public pages" }
                    span.dot aria-hidden="true" { "·" }
                    a href="/trash" { "Trash" }
                    span.dot aria-hidden="true" { "·" }
                    a href="/api/v1/openapi.json" { "API" }
                }
            }
        }
    }
}

fn notice(text: Option<&str>) -> Markup {
    html! {
        @if let Some(text) = text {
            p.notice role="status" { (text) }
        }
    }
}

fn tag_list(tags: &[impl AsRef<str>]) -> Markup {
    html! {
        @if !tags.is_empty() {
            ul.tags aria-label="Tags" {
                @for tag in tags.iter().map(AsRef::as_ref) {
                    li { a.tag href=(tag_href(tag)) { (tag) } }
                }
            }
        }
    }
}

/// `/`: the notes, newest first.
pub(super) fn index(page: &Listing) -> Markup {
    let heading = match page.tag {
        Some(tag) => format!("#{tag}"),
        None => "All notes".to_string(),
    };
    let content = html! {
        header.page {
            h1 { (heading) }
            p.meta {
                (plural(page.matched, "note", "notes"))
                @if page.tag.is_some() {
                    " of " (page.total)
                    span.dot aria-hidden="true" { "·" }
                    a href="/" { "Show all" }
                }
                span.dot aria-hidden="true" { "·" }
                a href="/trash" { "Trash" }
            }
        }
        @if let (Some(text), Some((path, version))) = (page.notice, &page.undo) {
            div.notice.undo role="status" {
                p { (text) }
                form method="post" action="/restore" {
                    input type="hidden" name="path" value=(path);
                    input type="hidden" name="version" value=(version);
                    input type="hidden" name="undo" value="1";
                    button.button type="submit" { "Undo" }
                }
            }
        } @else {
            (notice(page.notice))
        }
        @if page.public_unknown {
            p.notice role="status" { (PUBLISH_STATE_UNKNOWN) }
        }
        @if !page.tags.is_empty() {
            nav.tagbar aria-label="Filter by tag" {
                @for (tag, count) in page.tags {
                    a.tag.active[page.tag == Some(tag.as_str())] href=(tag_href(tag)) {
                        (tag) small { (count) }
                    }
                }
            }
        }
        @if page.notes.is_empty() {
            div.empty-state {
                @if page.total == 0 {
                    p { "No notes yet. Your first one is a click away." }
                    a.button.primary href="/new" { "Write a note" }
                } @else {
                    p { "No note has this tag." }
                }
            }
        } @else {
            ol.notes {
                @for note in page.notes {
                    li {
                        a.title href=(note_url("note", &note.path)) { (note.title) }
                        @if page.public.contains_key(note.path.as_str()) {
                            " " span.badge title="Published on the public pages" { "Public" }
                        }
                        p.meta {
                            span.path { (note.path) }
                            @if !note.last_modified.is_empty() {
                                span.dot aria-hidden="true" { "·" }
                                span title="Last modified" { (when(&note.last_modified)) }
                            }
                        }
                        (tag_list(&note.tags))
                    }
                }
            }
            @if page.pages > 1 {
                nav.pager aria-label="Pages" {
                    @if page.page > 1 {
                        a rel="prev" href=(page_href(page.tag, page.page - 1)) { "← Newer" }
                    }
                    span { "Page " (page.page) " of " (page.pages) }
                    @if page.page < page.pages {
                        a rel="next" href=(page_href(page.tag, page.page + 1)) { "Older →" }
                    }
                }
            }
        }
    };
    layout(&heading, Some(""), "home", content)
}

/// Where a note page's rendered text goes: written as it is rendered, it is not in the
/// page's markup. Author text in the page is escaped, so it cannot say this.
pub(super) const RENDERED_TEXT: &str = "<notes-rendered-text/>";

/// A note with what can be done to it; its rendered text is `RENDERED_TEXT`.
pub(super) fn note(page: &NoteView) -> Markup {
    let note = page.note;
    let fields = note.front_matter.clone().unwrap_or_default();
    let folder = note.path.rsplit_once('/').map(|(dir, _)| dir);
    let content = html! {
        nav.crumbs {
            a href="/" { "← All notes" }
            @if let Some(folder) = folder {
                span.dot aria-hidden="true" { "·" }
                a href=(format!("/new?folder={}", query_value(folder))) { "New note in " (folder) "/" }
            }
        }
        (notice(page.notice))
        @if let Some(published) = page.out_of_date_since {
            div.stale role="status" {
                p {
                    strong { "The public page is out of date" }
                    ": the note changed after it was published on "
                    time datetime=(published.to_rfc3339_opts(SecondsFormat::Secs, true)) { (local(published)) }
                    "."
                }
                (republish_form(&note.path, "button primary"))
            }
        }
        article {
            header.post {
                h1 { (note.title) }
                p.meta {
                    span.path { (note.path) }
                    @if page.public.is_some() {
                        " " span.badge { "Public" }
                    } @else if page.public_unknown {
                        " " span.badge title=(PUBLISH_STATE_UNKNOWN) { "Publish state unknown" }
                    }
                }
                dl.facts {
                    @if !fields.date.is_empty() {
                        div { dt { "Created" } dd { (day(&fields.date)) } }
                    }
                    @if !note.last_modified.is_empty() {
                        div { dt { "Modified" } dd { (when(&note.last_modified)) } }
                    }
                    div { dt { "Size" } dd { (size(note.size)) } }
                }
                (tag_list(&fields.tags))
            }
            div.toolbar {
                a.button.primary href=(note_url("edit", &note.path)) { "Edit" }
                a.button href=(note_url("raw", &note.path)) { "Raw Markdown" }
                a.button href=(note_url("move", &note.path)) { "Move / rename" }
                a.button href=(note_url("history", &note.path)) { "History" }
                @if let Some(public) = page.public {
                    a.button href=(public) { "Public page ↗" }
                    // An out-of-date page has the button in its hint, above.
                    @if page.out_of_date_since.is_none() {
                        (republish_form(&note.path, "button"))
                    }
                    form method="post" action="/publish" {
                        input type="hidden" name="path" value=(note.path);
                        button.button type="submit" name="action" value="unpublish" { "Unpublish" }
                    }
                } @else if !page.public_unknown {
                    form method="post" action="/publish" {
                        input type="hidden" name="path" value=(note.path);
                        button.button type="submit" name="action" value="publish" { "Publish" }
                    }
                }
                details.delete {
                    summary.button.danger-outline { "Delete…" }
                    form.confirm method="post" action="/delete" {
                        input type="hidden" name="path" value=(note.path);
                        p { "Delete " strong { (note.title) } "? It goes to the trash, from where it can be restored." }
                        button.button.danger type="submit" { "Delete" }
                    }
                }
            }
            div.content { (PreEscaped(RENDERED_TEXT)) }
        }
        (super::attachments::list(page.files))
        (super::links::backlinks(page.backlinks))
    };
    layout(&note.title, Some(""), "note", content)
}

/// The form that writes a public note's page again from its current text.
fn republish_form(path: &str, class: &str) -> Markup {
    html! {
        form method="post" action="/publish" {
            input type="hidden" name="path" value=(path);
            button class=(class) type="submit" name="action" value="republish"
                title="Regenerate the public page from the current text" { "Update public page" }
        }
    }
}

/// The editor: title, path (new notes only), tags, body, live preview.
pub(super) fn editor(page: &Editor) -> Markup {
    let heading = match page.mode {
        Mode::New => "New note".to_string(),
        Mode::Edit => format!("Edit “{}”", page.title),
    };
    let cancel = match page.mode {
        Mode::Edit => note_url("note", &page.path),
        Mode::New => "/".to_string(),
    };
    let content = html! {
        nav.crumbs { a href=(cancel) { "← Back" } }
        header.page { h1 { (heading) } }
        @if let Some(error) = &page.error {
            p.error role="alert" { (error) }
        }
        // A form shown again after a refused save holds text that is not saved yet.
        form.editor method="post" action="/save" data-unsaved[page.error.is_some()] {
            input type="hidden" name="mode" value=(match page.mode { Mode::New => "new", Mode::Edit => "edit" });
            input type="hidden" name="etag" value=(page.etag);
            input type="hidden" name="date" value=(page.date);
            div.fields {
                label.field {
                    span { "Title" }
                    input type="text" name="title" value=(page.title) autofocus[page.mode == Mode::New]
                        placeholder="What is this note about?";
                }
                label.field {
                    span { "Path" }
                    @match page.mode {
                        Mode::New => input type="text" name="path" value=(page.path)
                            placeholder="folder/name.md — empty: made from the title"
                            autocapitalize="off" spellcheck="false";,
                        Mode::Edit => input type="text" name="path" value=(page.path) readonly;,
                    }
                }
                label.field {
                    span { "Tags" }
                    input type="text" name="tags" value=(page.tags) placeholder="comma, separated"
                        autocapitalize="off";
                }
            }
            div.panes {
                label.field.body {
                    span { "Markdown" }
                    textarea name="body" rows="18" spellcheck="true" { (page.body) }
                }
                section.preview hidden aria-live="polite" aria-label="Preview" {
                    span.label { "Preview" }
                    div.content {}
                }
            }
            (super::attachments::uploader(page.max_upload))
            div.actions {
                button.button.primary type="submit" title="Save (Ctrl+S, ⌘S)"
                    aria-keyshortcuts="Control+S Meta+S" { "Save" }
                a.button href=(cancel) { "Cancel" }
            }
        }
    };
    layout(&heading, Some(""), "edit", content)
}

/// A search snippet or title: the text between the index's match markers becomes `<mark>`.
fn snippet(text: &str) -> Markup {
    let mut parts: Vec<(bool, &str)> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(MATCH_START) {
        parts.push((false, &rest[..start]));
        let after = &rest[start + MATCH_START.len()..];
        match after.find(MATCH_END) {
            Some(end) => {
                parts.push((true, &after[..end]));
                rest = &after[end + MATCH_END.len()..];
            }
            None => {
                rest = after;
                break;
            }
        }
    }
    parts.push((false, rest));
    html! {
        @for (marked, part) in parts {
            @if marked { mark { (part) } } @else { (part) }
        }
    }
}

/// Search results, best first.
pub(super) fn search(page: &SearchView) -> Markup {
    let content = html! {
        header.page {
            h1 { "Search" }
            form.find.big action="/search" method="get" role="search" {
                input type="search" name="q" value=(page.query) placeholder="Words, \"a phrase\", tag:name, file:name, -excluded"
                    aria-label="Search notes" autofocus[page.query.is_empty()];
                button.button.primary type="submit" { "Search" }
            }
        }
        @match &page.outcome {
            None => p.meta { "Search titles, tags and text of every note; file:name finds attachments by name. End a word with * to match its beginning." },
            Some(Err(message)) => p.error role="alert" { (message) },
            Some(Ok(found)) => {
                p.meta { (plural(found.total, "result", "results")) " for “" (page.query) "”" }
                @if found.results.is_empty() {
                    div.empty-state { p { "Nothing matches. Try fewer or other words." } }
                } @else {
                    ol.notes.results {
                        @for hit in &found.results {
                            li {
                                // An attachment (a `file:` search) opens as the file itself.
                                @let prefix = if hit.kind.is_some() { "file" } else { "note" };
                                a.title href=(note_url(prefix, &hit.path)) { (snippet(&hit.highlighted_title)) }
                                p.meta { span.path { (hit.path) } }
                                @if !hit.snippet.is_empty() {
                                    p.snippet { (snippet(&hit.snippet)) }
                                }
                                (tag_list(&hit.tags))
                            }
                        }
                    }
                }
            },
        }
    };
    let title = if page.query.is_empty() {
        "Search".to_string()
    } else {
        format!("{} — Search", page.query)
    };
    layout(&title, None, "search", content)
}

/// A failure, said plainly, with the way back.
pub(super) fn error(status: StatusCode, message: &str) -> Markup {
    let reason = status.canonical_reason().unwrap_or("Error");
    let content = html! {
        div.failure {
            p.code { (status.as_u16()) }
            h1 { (reason) }
            p { (message) }
            p { a.button href="/" { "← All notes" } }
        }
    };
    // Not `error`: that class is the tinted box of an error message, not a page.
    layout(reason, Some(""), "failed", content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_mark_matches_and_escape_the_rest() {
        let out = snippet("a <b> ⟦café⟧ & ⟦x<y⟧ end").into_string();
        assert_eq!(
            out,
            "a &lt;b&gt; <mark>café</mark> &amp; <mark>x&lt;y</mark> end"
        );
        assert_eq!(
            snippet("open ⟦never closed").into_string(),
            "open never closed"
        );
    }

    #[test]
    fn dates_read_well() {
        assert_eq!(when("07-03-2026:09:05"), "7 Mar 2026, 09:05");
        assert_eq!(day("07-03-2026"), "7 Mar 2026");
        assert_eq!(when("bad"), "bad");
        assert_eq!(size(2048), "2.0 KB");
    }
}
