//! The notes list (`/`) and a note's page.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, SecondsFormat, Utc};
use maud::{Markup, PreEscaped, html};

use super::{
    PUBLISH_STATE_UNKNOWN, WHEN, day, layout, local, notice, plural, size, tag_href, tag_list, when,
};
use crate::http::web::viewer::Viewer;
use crate::http::web::{attachments, links, note_url, query_value};
use crate::ops::{Note, NoteMeta};

pub(crate) struct Listing<'a> {
    /// The notes of this page.
    pub notes: &'a [NoteMeta],
    /// The opening words of each of them (empty: none to show).
    pub excerpts: &'a [String],
    pub viewer: &'a Viewer,
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

pub(crate) struct NoteView<'a> {
    pub note: &'a Note,
    pub viewer: &'a Viewer,
    /// Whether the viewer may change this note: the buttons that would are offered.
    pub writable: bool,
    pub public: Option<&'a str>,
    /// The record of public notes cannot be read: publish and unpublish are offered
    /// neither, as both would fail.
    pub public_unknown: bool,
    /// When the public page was written, if the note changed since: the page is out of
    /// date.
    pub out_of_date_since: Option<DateTime<Utc>>,
    pub notice: Option<&'static str>,
    /// The notes linking to this one.
    pub backlinks: &'a links::Backlinks,
    /// The files the note references.
    pub files: &'a [crate::ops::files::Referenced],
    /// When the note last changed: its front matter's time, else its file's.
    pub changed: Option<chrono::NaiveDateTime>,
}

/// Page `n` of the list, with its tag filter.
fn page_href(tag: Option<&str>, n: usize) -> String {
    match tag {
        Some(tag) => format!("{}&page={n}", tag_href(tag)),
        None => format!("/?page={n}"),
    }
}

/// `/`: the notes, newest first.
pub(crate) fn index(page: &Listing) -> Markup {
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
                @if page.viewer.writes() {
                    form method="post" action="/restore" {
                        input type="hidden" name="path" value=(path);
                        input type="hidden" name="version" value=(version);
                        input type="hidden" name="undo" value="1";
                        button.button type="submit" { "Undo" }
                    }
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
                @if page.total == 0 && page.viewer.writes() {
                    p { "No notes yet. Your first one is a click away." }
                    a.button.primary href="/new" { "Write a note" }
                } @else if page.total == 0 {
                    p { "No notes yet." }
                } @else {
                    p { "No note has this tag." }
                }
            }
        } @else {
            ol.notes.listing {
                @for (at, note) in page.notes.iter().enumerate() {
                    li {
                        a.title href=(note_url("note", &note.path)) { (note.title) }
                        @if page.public.contains_key(note.path.as_str()) {
                            " " span.badge title="Published on the public pages" { "Public" }
                        }
                        // One line: when, where, tags.
                        div.meta {
                            @if let Some(at) = note.changed_at() {
                                span.when title="Last modified" { (at.format(WHEN)) }
                            } @else if !note.date.is_empty() {
                                span.when title="Created" { (day(&note.date)) }
                            }
                            span.path { (note.path) }
                            @for tag in &note.tags {
                                a.tag href=(tag_href(tag)) { (tag) }
                            }
                        }
                        @if let Some(excerpt) = page.excerpts.get(at).filter(|e| !e.is_empty()) {
                            p.excerpt { (excerpt) }
                        }
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
    layout(&heading, Some(""), "home", page.viewer, content)
}

/// Where a note page's rendered text goes: written as it is rendered, it is not in the
/// page's markup. Author text in the page is escaped, so it cannot say this.
pub(crate) const RENDERED_TEXT: &str = "<notes-rendered-text/>";

/// A note with what can be done to it; its rendered text is `RENDERED_TEXT`.
pub(crate) fn note(page: &NoteView) -> Markup {
    let note = page.note;
    let fields = note.front_matter.clone().unwrap_or_default();
    let folder = note.path.rsplit_once('/').map(|(dir, _)| dir);
    let content = html! {
        nav.crumbs {
            a href="/" { "← All notes" }
            @if let Some(folder) = folder.filter(|_| page.viewer.writes()) {
                span.dot aria-hidden="true" { "·" }
                a href=(format!("/new?folder={}", query_value(folder))) { "New note in " (folder) "/" }
            }
        }
        (notice(page.notice))
        @if crate::ops::merge::has_conflict(&note.body) {
            div.stale.conflicted role="alert" {
                p {
                    strong { "This note holds two versions" }
                    ": an edit made offline or a sync changed the same lines as another "
                    "edit, and both are kept between conflict markers."
                }
                @if page.writable {
                    a.button.primary href=(super::super::note_url("resolve", &note.path)) { "Resolve…" }
                }
            }
        }
        @if let Some(published) = page.out_of_date_since {
            div.stale role="status" {
                p {
                    strong { "The public page is out of date" }
                    ": the note changed after it was published on "
                    time datetime=(published.to_rfc3339_opts(SecondsFormat::Secs, true)) { (local(published)) }
                    "."
                }
                @if page.writable {
                    (republish_form(&note.path, "button primary", "Update public page"))
                }
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
                    @if let Some(at) = page.changed {
                        div { dt { "Modified" } dd { (at.format(WHEN)) } }
                    } @else if !note.last_modified.is_empty() {
                        div { dt { "Modified" } dd { (when(&note.last_modified)) } }
                    }
                    div { dt { "Size" } dd { (size(note.size)) } }
                }
                (tag_list(&fields.tags))
            }
            // One row at desktop width: short labels, the longer sense in `title`.
            div.toolbar {
                @if page.writable {
                    a.button.primary href=(note_url("edit", &note.path)) { "Edit" }
                }
                a.button href=(note_url("raw", &note.path)) title="The note's Markdown as stored" { "Raw" }
                @if page.writable {
                    a.button href=(note_url("move", &note.path)) title="Move or rename the note" { "Move" }
                }
                a.button href=(note_url("history", &note.path)) title="Past versions of the note" { "History" }
                @if let Some(public) = page.public {
                    a.button href=(public) title="Open the note's public page" { "Public ↗" }
                }
                @if page.writable {
                    @if page.public.is_some() {
                        // An out-of-date page has the button in its hint, above.
                        @if page.out_of_date_since.is_none() {
                            (republish_form(&note.path, "button", "Update"))
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
            }
            div.content { (PreEscaped(RENDERED_TEXT)) }
        }
        (attachments::list(page.files))
        (links::backlinks(page.backlinks))
    };
    layout(&note.title, Some(""), "note", page.viewer, content)
}

/// The form that writes a public note's page again from its current text.
fn republish_form(path: &str, class: &str, label: &str) -> Markup {
    html! {
        form method="post" action="/publish" {
            input type="hidden" name="path" value=(path);
            button class=(class) type="submit" name="action" value="republish"
                title="Regenerate the public page from the current text" { (label) }
        }
    }
}
