//! The pages' markup, written with `maud`: every interpolated value is HTML-escaped by
//! the template engine, so note titles, tags, paths, bodies and queries are always text.
//! The only markup inserted as is comes from the one Markdown renderer (`render`),
//! which shows raw HTML in notes as text.
//!
//! Here: the frame every page shares, the words and dates they print, the error page;
//! one module per page group below. Nothing here imports a page.

pub(super) mod editor;
pub(super) mod notes;
pub(super) mod search;

use chrono::{DateTime, Local, Utc};
use maud::{DOCTYPE, Markup, html};
use warp::http::StatusCode;

use super::query_value;
use super::viewer::Viewer;
use crate::error::Error;
use crate::http::support::reject::HttpError;

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
/// How a time shows on a page: `21 Nov 2026, 09:05`.
const WHEN: &str = "%-d %b %Y, %H:%M";

fn when(stamp: &str) -> String {
    chrono::NaiveDateTime::parse_from_str(stamp, "%d-%m-%Y:%H:%M")
        .map(|t| t.format(WHEN).to_string())
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

/// The frame of every page: top bar with search, "New note" and "Log out", then the
/// content. `query` fills the bar's search box; `None` leaves the box out, for the
/// search page, which has a larger one of its own. What the bar and the footer offer
/// is what the `viewer` may reach: a read-only session gets no "New note", a visitor
/// not logged in only the login and the public pages.
pub(crate) fn layout(
    title: &str,
    query: Option<&str>,
    class: &str,
    viewer: &Viewer,
    content: Markup,
) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                title { (title) " · notes" }
                link rel="stylesheet" href="/assets/app.css";
                // Installable and offline (`web::offline`, `assets/sw.js`).
                link rel="manifest" href="/manifest.webmanifest";
                link rel="icon" href="/favicon.ico" sizes="32x32";
                link rel="icon" href="/assets/favicon.svg" type="image/svg+xml";
                link rel="apple-touch-icon" href="/assets/icon-192.png";
                meta name="theme-color" content="#fdfcfa" media="(prefers-color-scheme: light)";
                meta name="theme-color" content="#15171a" media="(prefers-color-scheme: dark)";
                script src="/assets/app.js" defer {}
                script src="/assets/offline-store.js" defer {}
                script src="/assets/offline.js" defer {}
            }
            body.app.(class) {
                header.bar {
                    div.bar-inner {
                        a.brand href="/" { span.logo aria-hidden="true" { "✎" } "notes" }
                        @match query.filter(|_| viewer.browses()) {
                            Some(query) => form.find action="/search" method="get" role="search" {
                                input type="search" name="q" value=(query)
                                    placeholder="Search notes…" aria-label="Search notes";
                            },
                            None => span.spacer {},
                        }
                        @if viewer.writes() {
                            a.button.primary.new href="/new" { "New note" }
                        }
                        @if viewer.logged_in() {
                            form.logout method="post" action="/logout" {
                                button.button type="submit" { "Log out" }
                            }
                        }
                        @if !viewer.browses() && class != LOGIN_PAGE {
                            a.button.primary href="/login" { "Log in" }
                        }
                    }
                }
                main { (content) }
                footer.site {
                    a href="/public/" { "Public pages" }
                    @if viewer.browses() {
                        span.dot aria-hidden="true" { "·" }
                        a href="/trash" { "Trash" }
                        span.dot aria-hidden="true" { "·" }
                        a href=(API_PAGE) { "API" }
                    }
                }
            }
        }
    }
}

/// The class of the login page, which needs no link to itself.
pub(crate) const LOGIN_PAGE: &str = "login-page";
/// The page that describes the HTTP API.
pub(crate) const API_PAGE: &str = "/docs/api";

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

/// A failure, said plainly, with the way back.
pub(super) fn error(status: StatusCode, message: &str, viewer: &Viewer) -> Markup {
    let reason = status.canonical_reason().unwrap_or("Error");
    let content = html! {
        div.failure {
            p.code { (status.as_u16()) }
            h1 { (reason) }
            p { (message) }
            @if viewer.browses() {
                p { a.button href="/" { "← All notes" } }
            } @else {
                p { a.button.primary href="/login" { "Log in" } }
            }
        }
    };
    // Not `error`: that class is the tinted box of an error message, not a page.
    layout(reason, Some(""), "failed", viewer, content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_well() {
        assert_eq!(when("07-03-2026:09:05"), "7 Mar 2026, 09:05");
        assert_eq!(day("07-03-2026"), "7 Mar 2026");
        assert_eq!(when("bad"), "bad");
        assert_eq!(size(2048), "2.0 KB");
    }
}
