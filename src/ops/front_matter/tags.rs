//! Tags as Obsidian reads them, for search and the web list's tag filter: the front
//! matter's (a string of several split at commas, a leading `#` dropped) and, for the
//! search index, the body's `#tags` (after a space or at a line's start, not in code,
//! not a heading's `#`, not a URL's `#`); each also filed under its parents, so
//! `tag:project` finds `project/alpha`. The API's `tags` fields stay the front
//! matter's, as the spec says.

use pulldown_cmark::{Event, Tag, TagEnd};

/// The tags of a note: its front matter's, then its body's, each once, in order.
#[derive(Default)]
pub(crate) struct NoteTags {
    tags: Vec<String>,
    /// The text of the current run of text events (pulldown-cmark cuts text at the
    /// characters that could open emphasis, so a tag may span several).
    run: String,
    in_code: usize,
}

impl NoteTags {
    pub(crate) fn new(front: &[String]) -> Self {
        let mut tags = NoteTags::default();
        for tag in front_tags(front) {
            tags.add(tag);
        }
        tags
    }

    fn add(&mut self, tag: &str) {
        let tag = tag.trim_end_matches('/');
        if !tag.is_empty() && !self.tags.iter().any(|t| t == tag) {
            self.tags.push(tag.to_string());
        }
    }

    /// Reads one event of the body.
    pub(crate) fn push(&mut self, event: &Event) {
        match event {
            Event::Text(text) if self.in_code == 0 => self.run.push_str(text),
            Event::Start(Tag::CodeBlock(_)) => {
                self.flush();
                self.in_code += 1;
            }
            Event::End(TagEnd::CodeBlock) => self.in_code = self.in_code.saturating_sub(1),
            _ => self.flush(),
        }
    }

    fn flush(&mut self) {
        let run = std::mem::take(&mut self.run);
        for tag in body_tags(&run) {
            self.add(tag);
        }
        self.run = run;
        self.run.clear();
    }

    /// Every tag, each once.
    pub(crate) fn finish(mut self) -> Vec<String> {
        self.flush();
        self.tags
    }
}

/// The `#tags` of a note's body (Markdown) alone, for the web list's tag filter. Most
/// notes have none: a scan of the raw text finds that without parsing it.
pub(crate) fn tags_of_body(body: &str) -> Vec<String> {
    if body_tags(body).next().is_none() {
        return Vec::new();
    }
    let mut tags = NoteTags::default();
    for event in pulldown_cmark::Parser::new_ext(body, crate::render::options()) {
        tags.push(&event);
    }
    tags.finish()
}

/// The tags of front matter values: each split at commas, trimmed, a leading `#` and a
/// trailing `/` dropped, empty ones left out.
pub(crate) fn front_tags<S: AsRef<str>>(values: &[S]) -> impl Iterator<Item = &str> {
    values
        .iter()
        .flat_map(|value| value.as_ref().split(','))
        .map(|tag| tag.trim().trim_start_matches('#').trim_end_matches('/'))
        .filter(|tag| !tag.is_empty())
}

/// The `#tags` of a text: `#` at its start or after whitespace, then letters, digits,
/// `_`, `-` and `/`, with at least one character that is not a digit (`#123` is not a
/// tag).
fn body_tags(text: &str) -> impl Iterator<Item = &str> {
    let mut before = None::<char>;
    text.char_indices().filter_map(move |(at, c)| {
        let starts = c == '#' && before.is_none_or(char::is_whitespace);
        before = Some(c);
        if !starts {
            return None;
        }
        let rest = &text[at + 1..];
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '/')))
            .unwrap_or(rest.len());
        let tag = &rest[..len];
        tag.chars().any(|c| !c.is_ascii_digit()).then_some(tag)
    })
}

/// `tag` and the tags it is nested under: `a/b/c`, `a/b`, `a`.
pub(crate) fn with_parents(tag: &str) -> impl Iterator<Item = &str> {
    std::iter::once(tag).chain(
        tag.char_indices()
            .filter(|&(_, c)| c == '/')
            .map(|(at, _)| &tag[..at])
            .filter(|t| !t.is_empty()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(front: &[&str], body: &str) -> Vec<String> {
        let front: Vec<String> = front.iter().map(|s| s.to_string()).collect();
        let mut tags = NoteTags::new(&front);
        for event in pulldown_cmark::Parser::new(body) {
            tags.push(&event);
        }
        tags.finish()
    }

    #[test]
    fn front_matter_strings_are_split_and_lose_their_hash() {
        assert_eq!(
            of(&["foo, bar", "#inbox", "foo"], ""),
            ["foo", "bar", "inbox"]
        );
    }

    #[test]
    fn body_tags_are_read_outside_code_headings_and_urls() {
        let body = "# Heading\n\nSee #inbox and #project/alpha_1, not a#b or #123.\n\n\
                    `#code` and http://x.org/#frag\n\n```\n#fenced\n```\n\n## About #topic\n";
        assert_eq!(of(&[], body), ["inbox", "project/alpha_1", "topic"]);
    }

    #[test]
    fn a_body_alone_is_scanned_before_it_is_parsed() {
        assert!(tags_of_body("# Title\n\nNo tags, `#x` a#b #12.\n").is_empty());
        assert_eq!(
            tags_of_body("Text #inbox\n\n```\n#no\n```\n#a/b"),
            ["inbox", "a/b"]
        );
        assert!(tags_of_body("```\n#fenced\n```\n").is_empty());
    }

    #[test]
    fn a_nested_tag_is_filed_under_its_parents() {
        let all: Vec<&str> = with_parents("a/b/c").collect();
        assert_eq!(all, ["a/b/c", "a", "a/b"]);
        assert_eq!(with_parents("solo").collect::<Vec<_>>(), ["solo"]);
    }
}
