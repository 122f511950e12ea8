//! The one Markdown configuration of the product (public pages now, the web interface
//! later): GitHub-style extensions on, raw HTML shown as text, headings given ids.

use std::collections::HashMap;

use pulldown_cmark::{
    CodeBlockKind, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd, html,
};

/// Tables, footnotes, strikethrough, task lists and `{#id .class}` heading attributes.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// Renders a note body to an HTML fragment.
///
/// Raw HTML in the Markdown is escaped and shown as text: pages are shared with people
/// who did not write them, so a note can never inject a script or a form into one
/// (an HTML block appears as a code block, inline HTML as text).
/// Headings without an explicit `{#id}` get one made from their text (unique in the
/// page), so every section can be linked to. When `skip_title` is given and the body
/// opens with a level-1 heading of exactly that text, the heading is left out (the page
/// already shows the title above the body).
pub fn to_html(markdown: &str, skip_title: Option<&str>) -> String {
    let events: Vec<Event> = Parser::new_ext(markdown, options())
        .map(|event| match event {
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            // An HTML block is shown as the code it is.
            Event::Start(Tag::HtmlBlock) => Event::Start(Tag::CodeBlock(CodeBlockKind::Indented)),
            Event::End(TagEnd::HtmlBlock) => Event::End(TagEnd::CodeBlock),
            // A `javascript:` (or other scripting) link would run in the reader's page.
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Link {
                link_type,
                dest_url: safe_url(dest_url),
                title,
                id,
            }),
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => Event::Start(Tag::Image {
                link_type,
                dest_url: safe_url(dest_url),
                title,
                id,
            }),
            other => other,
        })
        .collect();
    let events = drop_title(events, skip_title);
    let events = with_heading_ids(events);
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events.into_iter());
    out
}

/// A link target kept when it is relative or uses a scheme that only navigates
/// (`http`, `https`, `mailto`, `tel`, `ftp`); any other scheme (`javascript:`,
/// `vbscript:`, `data:`…) becomes `#`.
fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    // Browsers ignore tabs, newlines and leading spaces or controls in a scheme.
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_control())
        .take(32)
        .collect();
    let scheme = match cleaned.find([':', '/', '?', '#']) {
        Some(i) if cleaned[i..].starts_with(':') => cleaned[..i].to_ascii_lowercase(),
        _ => return url,
    };
    if ["http", "https", "mailto", "tel", "ftp"].contains(&scheme.as_str()) {
        url
    } else {
        CowStr::Borrowed("#")
    }
}

/// The opening words of a note body as plain text, at most `max` characters (cut at a
/// word, with `…`), for page descriptions and feed summaries. Headings, code blocks
/// and raw HTML are left out.
pub fn summary(markdown: &str, max: usize) -> String {
    let mut text = String::new();
    let mut skip = 0usize;
    for event in Parser::new_ext(markdown, options()) {
        match event {
            Event::Start(Tag::Heading { .. } | Tag::CodeBlock(_) | Tag::HtmlBlock) => skip += 1,
            Event::End(TagEnd::Heading(_) | TagEnd::CodeBlock | TagEnd::HtmlBlock) => {
                skip = skip.saturating_sub(1)
            }
            Event::Text(t) | Event::Code(t) if skip == 0 => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak | Event::End(TagEnd::Paragraph) if skip == 0 => {
                text.push(' ')
            }
            _ => {}
        }
        if text.chars().count() > max {
            break;
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = String::new();
    for word in words {
        let extra = usize::from(!out.is_empty());
        if out.chars().count() + extra + word.chars().count() > max {
            out.push('…');
            return out;
        }
        if extra == 1 {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Escapes text for an HTML text node or a double-quoted attribute (also valid XML).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Writing to a String cannot fail.
    let _ = pulldown_cmark_escape::escape_html(&mut out, text);
    out
}

/// The plain text of a run of inline events (for heading ids and titles).
fn plain_text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
            _ => None,
        })
        .collect()
}

fn drop_title<'a>(events: Vec<Event<'a>>, title: Option<&str>) -> Vec<Event<'a>> {
    let Some(title) = title else { return events };
    let opens_with_h1 = matches!(
        events.first(),
        Some(Event::Start(Tag::Heading {
            level: HeadingLevel::H1,
            ..
        }))
    );
    if !opens_with_h1 {
        return events;
    }
    let Some(end) = events
        .iter()
        .position(|e| matches!(e, Event::End(TagEnd::Heading(_))))
    else {
        return events;
    };
    if plain_text(&events[1..end]).trim() != title.trim() {
        return events;
    }
    events.into_iter().skip(end + 1).collect()
}

fn with_heading_ids(mut events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut used: HashMap<String, usize> = HashMap::new();
    // Explicit ids are taken first so generated ones never collide with them.
    for event in &events {
        if let Event::Start(Tag::Heading { id: Some(id), .. }) = event {
            used.insert(id.to_string(), 1);
        }
    }
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { id: None, .. }) = &events[i] {
            let end = events[i..]
                .iter()
                .position(|e| matches!(e, Event::End(TagEnd::Heading(_))))
                .map_or(events.len(), |offset| i + offset);
            let id = unique(&mut used, slug(&plain_text(&events[i + 1..end])));
            if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[i] {
                *slot = Some(CowStr::from(id));
            }
            i = end;
        }
        i += 1;
    }
    events
}

/// `Été à Paris!` → `été-à-paris`: lowercase letters and digits, `-` between words.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        "section".to_string()
    } else {
        trimmed.to_string()
    }
}

fn unique(used: &mut HashMap<String, usize>, base: String) -> String {
    let count = used.entry(base.clone()).or_insert(0);
    *count += 1;
    if *count == 1 {
        return base;
    }
    let mut n = *count - 1;
    loop {
        let candidate = format!("{base}-{n}");
        if !used.contains_key(&candidate) {
            used.insert(candidate.clone(), 1);
            return candidate;
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_on() {
        let html = to_html(
            "| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~\n\n- [x] done\n- [ ] todo\n\nNote[^1].\n\n[^1]: The footnote.\n",
            None,
        );
        assert!(html.contains("<table>"), "{html}");
        assert!(html.contains("<del>old</del>"), "{html}");
        assert!(
            html.contains(r#"<input disabled="" type="checkbox" checked=""/>"#),
            "{html}"
        );
        assert!(html.contains("footnote-definition"), "{html}");
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        let html = to_html(
            "<script>alert(1)</script>\n\nhi <b onclick=\"x\">there</b>\n",
            None,
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<b "), "{html}");
        assert!(
            html.starts_with("<pre><code>&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>"),
            "{html}"
        );
        assert!(
            html.contains("<p>hi &lt;b onclick=\"x\"&gt;there&lt;/b&gt;</p>"),
            "{html}"
        );
    }

    #[test]
    fn scripting_links_are_neutralised() {
        let html = to_html(
            "[a](javascript:alert(1)) [b](JaVaScript:x) [h](<java\tscript:x>) ![c](data:text/html,x) \
             [d](https://e.org/x:y) [e](rel/x.md) [f](mailto:a@b.c) [g](#top)\n",
            None,
        );
        assert!(!html.to_lowercase().contains("script:"), "{html}");
        assert!(!html.contains("data:"), "{html}");
        assert!(
            html.contains(r#"<a href="https://e.org/x:y">d</a>"#),
            "{html}"
        );
        assert!(html.contains(r#"<a href="rel/x.md">e</a>"#), "{html}");
        assert!(html.contains(r#"<a href="mailto:a@b.c">f</a>"#), "{html}");
        assert!(html.contains(r##"<a href="#top">g</a>"##), "{html}");
        assert_eq!(html.matches(r##"href="#""##).count(), 3, "{html}");
        assert!(html.contains(r##"<img src="#""##), "{html}");
    }

    #[test]
    fn headings_get_unique_ids() {
        let html = to_html(
            "## Été à Paris!\n\n## Été à Paris\n\n## Named {#custom}\n\n## Custom\n",
            None,
        );
        assert!(html.contains(r#"<h2 id="été-à-paris">"#), "{html}");
        assert!(html.contains(r#"<h2 id="été-à-paris-1">"#), "{html}");
        assert!(html.contains(r#"<h2 id="custom">Named</h2>"#), "{html}");
        assert!(html.contains(r#"<h2 id="custom-1">Custom</h2>"#), "{html}");
    }

    #[test]
    fn a_leading_title_heading_is_not_repeated() {
        assert_eq!(to_html("# Hello\n\nText\n", Some("Hello")), "<p>Text</p>\n");
        assert!(to_html("# Other\n\nText\n", Some("Hello")).contains("<h1"));
        assert!(to_html("Intro\n\n# Hello\n", Some("Hello")).contains("<h1"));
    }

    #[test]
    fn summaries_are_plain_text_cut_at_a_word() {
        let md = "# Title\n\nSome *emphasis* and `code`.\n\n```\nskipped()\n```\n\nSecond paragraph here.\n";
        assert_eq!(
            summary(md, 200),
            "Some emphasis and code. Second paragraph here."
        );
        assert_eq!(summary(md, 20), "Some emphasis and…");
        assert_eq!(
            summary("<div>\nhidden\n</div>\n\nshown <b>bold</b>\n", 40),
            "shown bold"
        );
    }

    #[test]
    fn escaping() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
