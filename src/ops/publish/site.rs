//! The public dir's files: one standalone page per public note, the index of public
//! notes, and the stylesheet embedded in the binary, copied into `static/`.
//!
//! The pages are written with `maud`, like the web interface: every interpolated value
//! is escaped by the template engine, and the only markup inserted as is comes from the
//! Markdown renderer (`render`). One element a line, so the files read and diff well.

use std::io;
use std::path::Path;

use chrono::{DateTime, Utc};
use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::feed;
use super::record::{Entry, Record};
use crate::ops::fsutil;
use crate::ops::{Note, NotePath};
use crate::render;

/// The sub-folder of the public dir holding the stylesheet.
pub(crate) const STATIC_DIR: &str = "static";
/// The stylesheet's file name inside `static/`.
pub(crate) const STYLESHEET_FILE: &str = "style.css";
/// The stylesheet every page and the index use.
pub(crate) const STYLESHEET: &str = include_str!("../../../assets/public.css");
/// Length of a page description and a feed summary, in characters.
pub(crate) const SUMMARY_CHARS: usize = 200;
/// The public index's file name.
pub(crate) const INDEX_FILE: &str = "index.html";
/// The Content Security Policy of public pages: no script of any kind, styles and images
/// from the pages' own origin (images also from `https:` and `data:`), no `<base>`, no
/// form. Every page carries it in a `<meta>`, so the public folder stays safe under any
/// web server; the HTTP layer sends the same policy (plus `frame-ancestors`, which a
/// `<meta>` cannot carry).
pub(crate) const PUBLIC_CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self' data: https:; base-uri 'none'; form-action 'none'";

/// The page name of a note: its base name with `.md` replaced by `.html`. The one
/// exception is a note named `index.md`, whose page would replace the public index:
/// it becomes `index-note.html`.
pub(crate) fn page_name(path: &NotePath) -> String {
    match path.stem() {
        "index" => "index-note.html".to_string(),
        stem => format!("{stem}.html"),
    }
}

/// The record's entry of note `note` at `path`, published at `published_at`: its title,
/// tags and summary as the note now says, its page under the name of `path`.
pub(crate) fn entry_of(path: &NotePath, note: &Note, published_at: DateTime<Utc>) -> Entry {
    Entry {
        path: path.to_string(),
        title: note.title.clone(),
        tags: note
            .front_matter
            .as_ref()
            .map(|f| f.tags.clone())
            .unwrap_or_default(),
        summary: render::summary(&note.body, SUMMARY_CHARS),
        published_at,
        file: page_name(path),
    }
}

/// Writes the stylesheet into `static/` (creating the public dir) unless it is already
/// there with the same bytes.
pub(crate) fn write_assets(public_dir: &Path) -> io::Result<()> {
    let dir = public_dir.join(STATIC_DIR);
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(STYLESHEET_FILE);
    match std::fs::read(&file) {
        Ok(bytes) if bytes == STYLESHEET.as_bytes() => Ok(()),
        _ => fsutil::write_atomic(&file, STYLESHEET.as_bytes()),
    }
}

/// `Published <time datetime="2026-11-21">21 Nov 2026</time>`: pages and the index
/// show one date, the day the note was published, and say so.
fn published(entry: &Entry) -> Markup {
    let date = entry.published_at.date_naive();
    html! {
        "Published "
        time datetime=(date.format("%Y-%m-%d")) { (date.format("%-d %b %Y")) }
    }
}

fn tag_list(tags: &[String]) -> Markup {
    html! {
        @if !tags.is_empty() {
            ul.tags aria-label="Tags" {
                @for tag in tags {
                    li.tag { (tag) }
                }
            }
        }
    }
}

/// A whole page: the head every page shares, with the policy first after the charset
/// so that it governs all that follows, then `body`.
fn document(title: &str, extra_head: Markup, body: Markup) -> String {
    html! {
        (DOCTYPE) "\n"
        html {
            "\n"
            head {
                "\n"
                meta charset="utf-8"; "\n"
                meta http-equiv="Content-Security-Policy" content=(PUBLIC_CSP); "\n"
                meta name="viewport" content="width=device-width, initial-scale=1"; "\n"
                meta name="color-scheme" content="light dark"; "\n"
                meta name="generator" content="notes"; "\n"
                title { (title) } "\n"
                link rel="stylesheet" href={ (STATIC_DIR) "/" (STYLESHEET_FILE) }; "\n"
                link rel="alternate" type="application/atom+xml" title="Public notes"
                    href=(feed::FILE); "\n"
                (extra_head)
            }
            "\n"
            (body) "\n"
        }
        "\n"
    }
    .into_string()
}

/// About 220 words a minute, at least one.
fn reading_minutes(body: &str) -> usize {
    body.split_whitespace().count().div_ceil(220).max(1)
}

/// The standalone page of a public note: title, publication date, tags and the
/// rendered body. With the public origin known, the page also names its canonical
/// address.
/// Links between notes go where `places` says (public notes' pages, or plain text).
pub(crate) fn page(
    note: &Note,
    entry: &Entry,
    base_url: Option<&str>,
    places: &dyn render::LinkPlaces,
) -> String {
    let fields = note.front_matter.clone().unwrap_or_default();
    // The renderer's output is the one markup not escaped here: it shows raw HTML in
    // the note as text and keeps to its allow-list. It is written once, straight into
    // the page, where the template says `RENDERED_TEXT` (no escaped text can say it).
    let content = PreEscaped(RENDERED_TEXT);
    let body = html! {
        body {
            "\n"
            header.site { a href=(INDEX_FILE) { "Public notes" } } "\n"
            main {
                "\n"
                article {
                    "\n"
                    header.post {
                        "\n"
                        h1 { (note.title) } "\n"
                        p.meta {
                            (published(entry))
                            span.dot aria-hidden="true" { "·" }
                            (reading_minutes(&note.body)) " min read"
                        }
                        "\n"
                        @if !fields.tags.is_empty() {
                            (tag_list(&fields.tags)) "\n"
                        }
                    }
                    "\n"
                    div.content { "\n" (content) }
                    "\n"
                }
                "\n"
            }
            "\n"
            footer.site { a href=(INDEX_FILE) { "← All public notes" } } "\n"
        }
    };
    let template = document(&note.title, sharing_meta(note, entry, base_url), body);
    let (head, tail) = template
        .split_once(RENDERED_TEXT)
        .unwrap_or((&template, ""));
    let mut page = String::with_capacity(template.len() + note.body.len() * 2);
    page.push_str(head);
    // Writing into a String cannot fail.
    let _ = render::write_html(&note.body, Some(&note.title), places, &mut page);
    page.push_str(tail);
    page
}

/// Where a page's rendered text goes in its template.
const RENDERED_TEXT: &str = "<notes-rendered-text/>";

/// Description and Open Graph tags, so a shared link shows a title and a summary.
fn sharing_meta(note: &Note, entry: &Entry, base_url: Option<&str>) -> Markup {
    let url = feed::public_root(base_url)
        .map(|root| format!("{root}{}", render::url_segment(&entry.file)));
    html! {
        meta name="description" content=(entry.summary); "\n"
        meta property="og:type" content="article"; "\n"
        meta property="og:title" content=(note.title); "\n"
        meta property="og:description" content=(entry.summary); "\n"
        @if let Some(url) = url {
            meta property="og:url" content=(url); "\n"
            link rel="canonical" href=(url); "\n"
        }
    }
}

/// The public index: every public note, newest first, linking to its page.
pub(crate) fn index(record: &Record) -> String {
    let entries = record.newest_first();
    let count = match entries.len() {
        1 => "1 note".to_string(),
        n => format!("{n} notes"),
    };
    let body = html! {
        body.index {
            "\n"
            main {
                "\n"
                header.post {
                    "\n"
                    h1 { "Public notes" } "\n"
                    p.meta {
                        (count)
                        span.dot aria-hidden="true" { "·" }
                        a href=(feed::FILE) { "Atom feed" }
                    }
                    "\n"
                }
                "\n"
                @if entries.is_empty() {
                    p.empty { "Nothing is published yet." }
                } @else {
                    ol.posts {
                        "\n"
                        @for entry in &entries {
                            (index_row(entry)) "\n"
                        }
                    }
                }
                "\n"
            }
            "\n"
        }
    };
    document("Public notes", html! {}, body)
}

fn index_row(entry: &Entry) -> Markup {
    html! {
        li {
            a href=(render::url_segment(&entry.file)) { (entry.title) } "\n"
            p.meta { (published(entry)) }
            (tag_list(&entry.tags))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::store::note_of;
    use chrono::{TimeZone, Utc};

    fn entry(title: &str, tags: &[&str]) -> Entry {
        Entry {
            path: "a/n.md".into(),
            title: title.into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            published_at: Utc.with_ymd_and_hms(2026, 11, 21, 9, 5, 0).unwrap(),
            file: "n.html".into(),
            summary: "A <summary>.".into(),
        }
    }

    #[test]
    fn pages_escape_titles_and_tags_and_hide_front_matter() {
        let path = NotePath::parse("a/n.md").unwrap();
        let text = "---\ntitle: <script>alert(1)</script>\ndate: 03-02-2026\ntags: [\"<b>x</b>\", rust]\n---\n\n# Hello\n\nBody *text*.\n";
        let note = note_of(&path, text, text.len() as u64);
        let html = page(&note, &entry(&note.title, &[]), None, &render::Unlinked);
        assert!(!html.contains("<script>"), "{html}");
        assert!(
            html.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>"),
            "{html}"
        );
        assert!(
            html.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>"),
            "{html}"
        );
        assert!(
            html.contains(r#"<li class="tag">&lt;b&gt;x&lt;/b&gt;</li>"#),
            "{html}"
        );
        // The publication day, labelled as such, like the index; not the note's date.
        assert!(
            html.contains(r#"Published <time datetime="2026-11-21">21 Nov 2026</time>"#),
            "{html}"
        );
        assert!(!html.contains("2026-02-03"), "{html}");
        assert!(html.contains("<em>text</em>"), "{html}");
        assert!(!html.contains("date: 03-02-2026"), "{html}");
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert_csp_first(&html);
        assert!(html.contains(r#"href="static/style.css""#));
        assert!(html.contains(r#"<meta name="description" content="A &lt;summary&gt;.">"#));
        assert!(!html.contains("canonical"));
        let shared = page(
            &note,
            &entry(&note.title, &[]),
            Some("https://n.example"),
            &render::Unlinked,
        );
        assert!(
            shared.contains(r#"<link rel="canonical" href="https://n.example/public/n.html">"#)
        );
    }

    /// The policy is the first element of `<head>` after the charset, so it governs all
    /// that follows.
    fn assert_csp_first(html: &str) {
        let head = html.split_once("<head>\n").map_or("", |(_, rest)| rest);
        let expected = format!(
            "<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"{PUBLIC_CSP}\">\n"
        );
        assert!(head.starts_with(&expected), "{html}");
        assert!(
            !PUBLIC_CSP.contains("script-src"),
            "no script source at all"
        );
        assert!(PUBLIC_CSP.starts_with("default-src 'none';"));
    }

    #[test]
    fn the_index_lists_newest_first_with_escaped_titles() {
        let mut record = Record::default();
        let mut old = entry("Old & <i>gold</i>", &["t"]);
        old.path = "old.md".into();
        old.file = "old.html".into();
        record.insert(old);
        let mut new = entry("New", &[]);
        new.published_at += chrono::TimeDelta::days(1);
        record.insert(new);
        let html = index(&record);
        let new_at = html.find(r#"<a href="n.html">New</a>"#).unwrap();
        let old_at = html
            .find(r#"<a href="old.html">Old &amp; &lt;i&gt;gold&lt;/i&gt;</a>"#)
            .unwrap();
        assert!(new_at < old_at, "{html}");
        assert!(html.contains("2 notes"));
        assert!(index(&Record::default()).contains("Nothing is published yet."));
        assert_csp_first(&html);
    }

    #[test]
    fn page_names() {
        assert_eq!(
            page_name(&NotePath::parse("a/b/my-note.md").unwrap()),
            "my-note.html"
        );
        assert_eq!(
            page_name(&NotePath::parse("index.md").unwrap()),
            "index-note.html"
        );
    }
}
