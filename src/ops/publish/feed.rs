//! `feed.xml`: an Atom feed of the public notes, newest first, with absolute links when
//! the public origin (`--base-url`) is known and relative ones otherwise.
//!
//! Written with `maud` like the pages: its escaping of `<>&"` is XML's too. Empty
//! elements are written `<link …></link>`, which XML reads as `<link …/>`.

use chrono::{DateTime, Utc};
use maud::{Markup, PreEscaped, Render, html};

use super::record::{Entry, Record};

/// The feed's file name inside the public dir.
pub(crate) const FILE: &str = "feed.xml";

const DECLARATION: &str = r#"<?xml version="1.0" encoding="utf-8"?>"#;
const ATOM: &str = "http://www.w3.org/2005/Atom";

/// Text fit for XML: escaped, and without the control characters XML 1.0 forbids.
struct Text<'a>(&'a str);

impl Render for Text<'_> {
    fn render_to(&self, out: &mut String) {
        for part in self
            .0
            .split(|c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        {
            part.render_to(out);
        }
    }
}

fn iso(at: DateTime<Utc>) -> String {
    crate::ops::clock::iso_utc(at)
}

/// Where the public pages live: `{base_url}/public/`, or relative when unknown.
pub(crate) fn public_root(base_url: Option<&str>) -> Option<String> {
    base_url
        .map(|b| b.trim_end_matches('/'))
        .filter(|b| !b.is_empty())
        .map(|b| format!("{b}/public/"))
}

/// The Atom document of the record.
pub(crate) fn feed(record: &Record, base_url: Option<&str>) -> String {
    let root = public_root(base_url);
    let prefix = root.clone().unwrap_or_default();
    let feed_id = match &root {
        Some(root) => format!("{root}{FILE}"),
        None => "urn:notes:public".to_string(),
    };
    let home = if prefix.is_empty() { "./" } else { &prefix };
    let updated = record.updated().unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
    html! {
        (PreEscaped(DECLARATION)) "\n"
        feed xmlns=(ATOM) {
            "\n"
            title { "Public notes" } "\n"
            id { (Text(&feed_id)) } "\n"
            updated { (iso(updated)) } "\n"
            author { name { "notes" } } "\n"
            generator { "notes" } "\n"
            link rel="self" type="application/atom+xml" href=(Text(&format!("{prefix}{FILE}"))) {} "\n"
            link rel="alternate" type="text/html" href=(Text(home)) {} "\n"
            @for e in record.newest_first() {
                (entry(e, &prefix, root.is_some()))
            }
        }
        "\n"
    }
    .into_string()
}

fn entry(e: &Entry, prefix: &str, absolute: bool) -> Markup {
    let href = format!("{prefix}{}", crate::render::url_segment(&e.file));
    // The page URL is unique per note only when absolute and unshared; the note path
    // is, so it is the id's stable part.
    let id = if absolute {
        format!("{href}#{}", crate::render::url_opaque(&e.path))
    } else {
        format!("urn:notes:public:{}", crate::render::url_opaque(&e.path))
    };
    let at = iso(e.published_at);
    html! {
        entry {
            "\n"
            title { (Text(&e.title)) } "\n"
            id { (Text(&id)) } "\n"
            link rel="alternate" type="text/html" href=(Text(&href)) {} "\n"
            published { (at) } "\n"
            updated { (at) } "\n"
            @if !e.summary.is_empty() {
                summary { (Text(&e.summary)) } "\n"
            }
            @for tag in &e.tags {
                category term=(Text(tag)) {} "\n"
            }
        }
        "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn entries_are_escaped_and_linked() {
        let mut record = Record::default();
        record.insert(Entry {
            path: "a/x y.md".into(),
            title: "A & <b>\u{1}".into(),
            tags: vec!["t\"1".into()],
            summary: "Sum < more".into(),
            published_at: Utc.with_ymd_and_hms(2026, 11, 21, 9, 5, 0).unwrap(),
            file: "x y.html".into(),
        });
        let relative = feed(&record, None);
        assert!(
            relative.contains("<title>A &amp; &lt;b&gt;</title>"),
            "{relative}"
        );
        assert!(relative.contains(r#"href="x%20y.html""#), "{relative}");
        assert!(
            relative.contains("<id>urn:notes:public:a%2Fx%20y%2Emd</id>"),
            "{relative}"
        );
        assert!(
            relative.contains(r#"<category term="t&quot;1"></category>"#),
            "{relative}"
        );
        assert!(relative.contains("<updated>2026-11-21T09:05:00Z</updated>"));
        let absolute = feed(&record, Some("https://n.example/"));
        assert!(
            absolute.contains(r#"href="https://n.example/public/x%20y.html""#),
            "{absolute}"
        );
        assert!(
            absolute.contains("<id>https://n.example/public/feed.xml</id>"),
            "{absolute}"
        );
    }
}
