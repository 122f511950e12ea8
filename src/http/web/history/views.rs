//! The markup of the history and trash pages (`maud`: every value is escaped; the only
//! markup inserted is the diff's own, built the same way).

use chrono::{DateTime, SecondsFormat, Utc};
use maud::{Markup, html};

use super::super::note_url;
use super::super::viewer::Viewer;
use super::super::views::{layout, local, plural, size};
use crate::ops::history::{KeptVersion, Trashed};

/// What the history page shows above the list of versions.
pub(super) enum Shown {
    Nothing,
    /// The text of one version (empty when that change removed the note).
    Text {
        at: usize,
        text: String,
    },
    /// The diff between two versions (`from` `None`: the first version, from nothing).
    Diff {
        from: Option<usize>,
        to: usize,
        markup: Markup,
    },
}

pub(super) struct HistoryView<'a> {
    pub path: &'a str,
    pub viewer: &'a Viewer,
    /// Whether the viewer may write the note back: the restore buttons are offered.
    pub writable: bool,
    /// Newest first.
    pub versions: &'a [KeptVersion],
    pub shown: &'a Shown,
}

/// An RFC 3339 instant of the history in the interface's date format, in a `<time>`.
fn moment(at: &str) -> Markup {
    match DateTime::parse_from_rfc3339(at) {
        Ok(t) => {
            let t = t.with_timezone(&Utc);
            html! { time datetime=(t.to_rfc3339_opts(SecondsFormat::Secs, true)) title=(at) { (local(t)) } }
        }
        Err(_) => html! { (at) },
    }
}

/// `put` → `Saved`: what a change did, for a person.
fn operation(op: &str, has_text: bool) -> &'static str {
    match op {
        "put" => "Saved",
        "delete" => "Deleted",
        "move" if has_text => "Moved here",
        "move" => "Moved away",
        "restore" => "Restored",
        "outside-edit" => "Edited outside",
        "sync" => "Synced",
        _ => "Changed",
    }
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

fn history_href(path: &str, query: &str) -> String {
    format!("{}?{query}", note_url("history", path))
}

/// The form that restores one version.
fn restore_form(path: &str, id: &str, class: &str, label: &str) -> Markup {
    html! {
        form.restore method="post" action="/restore" {
            input type="hidden" name="path" value=(path);
            input type="hidden" name="version" value=(id);
            button class=(class) type="submit" { (label) }
        }
    }
}

/// A version's line in headings: `#3 · Saved · 23 Nov 2026, 19:40`.
fn label(versions: &[KeptVersion], at: usize) -> Markup {
    let kept = &versions[at];
    html! {
        "#" (versions.len() - at) " · " (operation(&kept.version.operation, kept.has_text))
        " · " (moment(&kept.version.at))
    }
}

/// `/history/<path>`: the shown version or diff, then every version, newest first.
pub(super) fn history(page: &HistoryView) -> Markup {
    let path = page.path;
    let versions = page.versions;
    let writable = page.writable;
    let live = versions.first().is_some_and(|k| k.has_text);
    let heading = format!("History of {path}");
    let (checked_from, checked_to) = match page.shown {
        Shown::Diff { from, to, .. } => (*from, Some(*to)),
        _ => ((versions.len() > 1).then_some(1), Some(0)),
    };
    let content = html! {
        nav.crumbs {
            @if live {
                a href=(note_url("note", path)) { "← Back to the note" }
            } @else {
                a href="/trash" { "← Trash" }
            }
        }
        header.page {
            h1 { "History of " span.path { (path) } }
            p.meta {
                (plural(versions.len(), "version", "versions")) ", newest first"
                @if !live { span.dot aria-hidden="true" { "·" } "deleted: restore a version to bring it back" }
            }
        }
        @match page.shown {
            Shown::Nothing => {},
            Shown::Text { at, text } => {
                section.shown aria-label="Version" {
                    h2 { "Version " (label(versions, *at)) }
                    @if versions[*at].has_text {
                        pre.version-text { (text) }
                        div.actions {
                            @if writable && !(live && *at == 0) {
                                (restore_form(path, &versions[*at].version.id, "button primary", "Restore this version"))
                            }
                            a.button href=(history_href(path, &format!("to={}", versions[*at].version.id))) { "Compare with previous" }
                        }
                    } @else {
                        p.meta { "This change removed the note: it has no text." }
                    }
                }
            },
            Shown::Diff { from, to, markup } => {
                section.shown aria-label="Changes" {
                    h2 { "Changes" }
                    p.meta.between {
                        "From "
                        @match from {
                            Some(from) => { (label(versions, *from)) },
                            None => { "nothing (the first version)" },
                        }
                        br;
                        "to " (label(versions, *to))
                    }
                    (markup)
                    // The note's text now needs no restore.
                    @if writable && versions[*to].has_text && !(live && *to == 0) {
                        div.actions {
                            (restore_form(path, &versions[*to].version.id, "button primary", "Restore the newer one"))
                        }
                    }
                }
            },
        }
        // The radio buttons belong to the compare form below the table, so the table can
        // hold a restore form in each row (forms cannot nest).
        div.versions-scroll {
            table.versions {
                thead {
                    tr {
                        th scope="col" { "From" }
                        th scope="col" { "To" }
                        th scope="col" { "When" }
                        th scope="col" { "Change" }
                        th scope="col" { "Size" }
                        th scope="col" { span.visually-hidden { "Actions" } }
                    }
                }
                tbody {
                    @for (at, kept) in versions.iter().enumerate() {
                        @let id = &kept.version.id;
                        tr.current[matches!(page.shown, Shown::Text { at: a, .. } if *a == at)] {
                            td { input type="radio" name="from" value=(id) form="compare" checked[checked_from == Some(at)] aria-label=(format!("Compare from version {}", versions.len() - at)); }
                            td { input type="radio" name="to" value=(id) form="compare" checked[checked_to == Some(at)] aria-label=(format!("Compare to version {}", versions.len() - at)); }
                            td { (moment(&kept.version.at)) }
                            td {
                                (operation(&kept.version.operation, kept.has_text)) " " code.id title=(id) { (short(id)) }
                                @if let Some(former) = &kept.version.path { " " span.former-path { "as " code { (former) } } }
                            }
                            td.size { @if kept.has_text { (size(kept.version.size)) } @else { "—" } }
                            // A table cell is not made a flex box: it would lose its borders.
                            td { div.row-actions {
                                @if kept.has_text {
                                    a href=(history_href(path, &format!("version={id}"))) { "View" }
                                }
                                @if at + 1 < versions.len() || kept.has_text {
                                    a href=(history_href(path, &format!("to={id}"))) { "Compare with previous" }
                                }
                                @if writable && kept.has_text && !(live && at == 0) {
                                    (restore_form(path, id, "button small", "Restore"))
                                }
                            } }
                        }
                    }
                }
            }
        }
        form #compare .compare method="get" action=(note_url("history", path)) {
            button.button type="submit" { "Compare the chosen versions" }
        }
    };
    layout(&heading, Some(""), "history", page.viewer, content)
}

/// `/trash`: the deleted notes and files, most recently deleted first, each under the
/// title of its last text (`titles`, in the same order; the path when it has none),
/// restored in a click by a viewer who may write.
pub(super) fn trash(notes: &[Trashed], titles: &[Option<String>], viewer: &Viewer) -> Markup {
    let content = html! {
        nav.crumbs { a href="/" { "← All notes" } }
        header.page {
            h1 { "Trash" }
            p.meta { (plural(notes.len(), "deleted note", "deleted notes")) ", most recently deleted first. Restoring a note brings back its last text." }
        }
        @if notes.is_empty() {
            div.empty-state { p { "The trash is empty." } }
        } @else {
            ol.notes.trash {
                @for (at, note) in notes.iter().enumerate() {
                    li {
                        div.what {
                            @match titles.get(at).and_then(Option::as_deref) {
                                Some(title) => {
                                    span.title { (title) }
                                    span.path { (note.path) }
                                },
                                None => span.title.path { (note.path) },
                            }
                        }
                        p.meta {
                            @if note.kind == "file" { "File · " }
                            "Deleted " (moment(&note.deleted_at))
                            @if note.kind != "file" {
                                span.dot aria-hidden="true" { "·" }
                                a href=(note_url("history", &note.path)) { "History" }
                            }
                        }
                        @if viewer.writes() {
                            (restore_form(&note.path, &note.version, "button", "Restore"))
                        }
                    }
                }
            }
        }
    };
    layout("Trash", Some(""), "trash", viewer, content)
}
