//! `feed.xml`: an Atom feed of the public notes, newest first, with absolute links when
//! the public origin (`--base-url`) is known and relative ones otherwise.

use chrono::{DateTime, Utc};

use super::record::{Entry, Record};
use crate::render::escape;

/// The feed's file name inside the public dir.
pub const FILE: &str = "feed.xml";

/// Text fit for XML: escaped, and without the control characters XML 1.0 forbids.
fn xml_text(text: &str) -> String {
    let clean: String = text
        .chars()
        .filter(|&c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        .collect();
    escape(&clean)
}

fn iso(at: DateTime<Utc>) -> String {
    crate::ops::clock::iso_utc(at)
}

/// Where the public pages live: `{base_url}/public/`, or relative when unknown.
pub fn public_root(base_url: Option<&str>) -> Option<String> {
    base_url
        .map(|b| b.trim_end_matches('/'))
        .filter(|b| !b.is_empty())
        .map(|b| format!("{b}/public/"))
}

fn encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// The Atom document of the record.
pub fn feed(record: &Record, base_url: Option<&str>) -> String {
    let root = public_root(base_url);
    let prefix = root.clone().unwrap_or_default();
    let feed_id = match &root {
        Some(root) => format!("{root}{FILE}"),
        None => "urn:notes:public".to_string(),
    };
    let updated = record.updated().unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
    let entries: String = record
        .newest_first()
        .into_iter()
        .map(|e| entry(e, &prefix, root.is_some()))
        .collect();
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title>Public notes</title>
<id>{id}</id>
<updated>{updated}</updated>
<author><name>notes</name></author>
<generator>notes</generator>
<link rel="self" type="application/atom+xml" href="{self_href}"/>
<link rel="alternate" type="text/html" href="{prefix}"/>
{entries}</feed>
"#,
        id = xml_text(&feed_id),
        updated = iso(updated),
        self_href = xml_text(&format!("{prefix}{FILE}")),
        prefix = xml_text(if prefix.is_empty() { "./" } else { &prefix }),
    )
}

fn entry(e: &Entry, prefix: &str, absolute: bool) -> String {
    let href = format!("{prefix}{}", super::site::href(&e.file));
    // The page URL is unique per note only when absolute and unshared; the note path
    // is, so it is the id's stable part.
    let id = if absolute {
        format!("{href}#{}", encode(&e.path))
    } else {
        format!("urn:notes:public:{}", encode(&e.path))
    };
    let categories: String = e
        .tags
        .iter()
        .map(|t| format!("<category term=\"{}\"/>\n", xml_text(t)))
        .collect();
    let summary = match e.summary.as_str() {
        "" => String::new(),
        text => format!("<summary>{}</summary>\n", xml_text(text)),
    };
    format!(
        "<entry>\n<title>{title}</title>\n<id>{id}</id>\n<link rel=\"alternate\" type=\"text/html\" href=\"{href}\"/>\n<published>{at}</published>\n<updated>{at}</updated>\n{summary}{categories}</entry>\n",
        title = xml_text(&e.title),
        id = xml_text(&id),
        href = xml_text(&href),
        at = iso(e.published_at),
    )
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
            relative.contains(r#"<category term="t&quot;1"/>"#),
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
