//! The public dir's files: one standalone page per public note, the index of public
//! notes, and the stylesheet embedded in the binary, copied into `static/`.

use std::io;
use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};

use super::record::{Entry, Record};
use crate::ops::fsutil;
use crate::ops::{Note, NotePath};
use crate::render::{self, escape};

/// The sub-folder of the public dir holding the stylesheet.
pub const STATIC_DIR: &str = "static";
/// The stylesheet's file name inside `static/`.
pub const STYLESHEET_FILE: &str = "style.css";
/// The stylesheet every page and the index use.
pub const STYLESHEET: &str = include_str!("../../../assets/public.css");
/// Length of a page description and a feed summary, in characters.
pub const SUMMARY_CHARS: usize = 200;
/// The public index's file name.
pub const INDEX_FILE: &str = "index.html";
/// The Content Security Policy of public pages: no script of any kind, styles and images
/// from the pages' own origin (images also from `https:` and `data:`), no `<base>`, no
/// form. Every page carries it in a `<meta>`, so the public folder stays safe under any
/// web server; the HTTP layer sends the same policy (plus `frame-ancestors`, which a
/// `<meta>` cannot carry).
pub(crate) const PUBLIC_CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self' data: https:; base-uri 'none'; form-action 'none'";

/// The page name of a note: its base name with `.md` replaced by `.html`. The one
/// exception is a note named `index.md`, whose page would replace the public index:
/// it becomes `index-note.html`.
pub fn page_name(path: &NotePath) -> String {
    match path.stem() {
        "index" => "index-note.html".to_string(),
        stem => format!("{stem}.html"),
    }
}

/// Characters left as they are in a URL path segment (RFC 3986 unreserved).
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A page file name as a relative URL: `what? #1.html` → `what%3F%20%231.html`.
pub fn href(file: &str) -> String {
    percent_encoding::utf8_percent_encode(file, SEGMENT).to_string()
}

/// Writes the stylesheet into `static/` (creating the public dir) unless it is already
/// there with the same bytes.
pub fn write_assets(public_dir: &Path) -> io::Result<()> {
    let dir = public_dir.join(STATIC_DIR);
    std::fs::create_dir_all(&dir)?;
    let file = dir.join(STYLESHEET_FILE);
    match std::fs::read(&file) {
        Ok(bytes) if bytes == STYLESHEET.as_bytes() => Ok(()),
        _ => fsutil::write_atomic(&file, STYLESHEET.as_bytes()),
    }
}

/// `21 Nov 2026`.
fn human_date(date: NaiveDate) -> String {
    date.format("%-d %b %Y").to_string()
}

fn time_tag(date: NaiveDate) -> String {
    format!(
        r#"<time datetime="{}">{}</time>"#,
        date.format("%Y-%m-%d"),
        human_date(date)
    )
}

fn tag_list(tags: &[String]) -> String {
    if tags.is_empty() {
        return String::new();
    }
    let items: String = tags
        .iter()
        .map(|t| format!(r#"<li class="tag">{}</li>"#, escape(t)))
        .collect();
    format!(r#"<ul class="tags" aria-label="Tags">{items}</ul>"#)
}

fn head(title: &str, extra: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{PUBLIC_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="notes">
<title>{title}</title>
<link rel="stylesheet" href="{STATIC_DIR}/{STYLESHEET_FILE}">
<link rel="alternate" type="application/atom+xml" title="Public notes" href="feed.xml">
{extra}</head>
"#,
        title = escape(title),
    )
}

/// About 220 words a minute, at least one.
fn reading_minutes(body: &str) -> usize {
    body.split_whitespace().count().div_ceil(220).max(1)
}

/// The standalone page of a public note: title, date, tags and the rendered body.
/// The date shown is the note's own `date` when it has one, else the publication day.
/// With the public origin known, the page also names its canonical address.
pub fn page(note: &Note, entry: &Entry, base_url: Option<&str>) -> String {
    let fields = note.front_matter.clone().unwrap_or_default();
    let date = NaiveDate::parse_from_str(&fields.date, "%d-%m-%Y")
        .unwrap_or_else(|_| entry.published_at.date_naive());
    let minutes = reading_minutes(&note.body);
    let body = render::to_html(&note.body, Some(&note.title));
    format!(
        r#"{head}<body>
<header class="site"><a href="{INDEX_FILE}">Public notes</a></header>
<main>
<article>
<header class="post">
<h1>{title}</h1>
<p class="meta">{time}<span class="dot" aria-hidden="true">·</span>{minutes} min read</p>
{tags}
</header>
<div class="content">
{body}</div>
</article>
</main>
<footer class="site"><a href="{INDEX_FILE}">← All public notes</a></footer>
</body>
</html>
"#,
        head = head(&note.title, &sharing_meta(note, entry, base_url)),
        title = escape(&note.title),
        time = time_tag(date),
        tags = tag_list(&fields.tags),
    )
}

/// Description and Open Graph tags, so a shared link shows a title and a summary.
fn sharing_meta(note: &Note, entry: &Entry, base_url: Option<&str>) -> String {
    let title = escape(&note.title);
    let description = escape(&entry.summary);
    let mut out = format!(
        "<meta name=\"description\" content=\"{description}\">\n\
         <meta property=\"og:type\" content=\"article\">\n\
         <meta property=\"og:title\" content=\"{title}\">\n\
         <meta property=\"og:description\" content=\"{description}\">\n"
    );
    if let Some(root) = super::feed::public_root(base_url) {
        let url = escape(&format!("{root}{}", href(&entry.file)));
        out.push_str(&format!(
            "<meta property=\"og:url\" content=\"{url}\">\n<link rel=\"canonical\" href=\"{url}\">\n"
        ));
    }
    out
}

/// The public index: every public note, newest first, linking to its page.
pub fn index(record: &Record) -> String {
    let entries = record.newest_first();
    let items: String = if entries.is_empty() {
        r#"<p class="empty">Nothing is published yet.</p>"#.to_string()
    } else {
        let rows: String = entries.iter().map(|e| index_row(e)).collect();
        format!("<ol class=\"posts\">\n{rows}</ol>\n")
    };
    let count = match entries.len() {
        1 => "1 note".to_string(),
        n => format!("{n} notes"),
    };
    format!(
        r#"{head}<body class="index">
<main>
<header class="post">
<h1>Public notes</h1>
<p class="meta">{count}<span class="dot" aria-hidden="true">·</span><a href="feed.xml">Atom feed</a></p>
</header>
{items}</main>
</body>
</html>
"#,
        head = head("Public notes", ""),
    )
}

fn index_row(entry: &Entry) -> String {
    format!(
        "<li><a href=\"{href}\">{title}</a>\n<p class=\"meta\">{time}</p>{tags}</li>\n",
        href = href(&entry.file),
        title = escape(&entry.title),
        time = published(entry.published_at),
        tags = tag_list(&entry.tags),
    )
}

fn published(at: DateTime<Utc>) -> String {
    time_tag(at.date_naive())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::store::note_of;
    use chrono::TimeZone;

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
        let html = page(&note, &entry(&note.title, &[]), None);
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
        assert!(
            html.contains(r#"<time datetime="2026-02-03">3 Feb 2026</time>"#),
            "{html}"
        );
        assert!(html.contains("<em>text</em>"), "{html}");
        assert!(!html.contains("date: 03-02-2026"), "{html}");
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert_csp_first(&html);
        assert!(html.contains(r#"href="static/style.css""#));
        assert!(html.contains(r#"<meta name="description" content="A &lt;summary&gt;.">"#));
        assert!(!html.contains("canonical"));
        let shared = page(&note, &entry(&note.title, &[]), Some("https://n.example"));
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
