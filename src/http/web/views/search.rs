//! The search page and its results.

use maud::{Markup, html};

use super::{layout, plural, tag_list};
use crate::http::web::note_url;
use crate::http::web::viewer::Viewer;
use crate::ops::search::{MATCH_END, MATCH_START, SearchResults};

pub(crate) struct SearchView<'a> {
    pub query: &'a str,
    /// `None` before a query is typed.
    pub outcome: Option<Result<SearchResults, String>>,
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
pub(crate) fn search(page: &SearchView, viewer: &Viewer) -> Markup {
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
                @if found.partial {
                    p.partial role="status" { "No note has every word; closest matches:" }
                }
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
    layout(&title, None, "search", viewer, content)
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
}
