//! The heading tree of a note: where each heading and its section lie, in bytes and in
//! lines, read with the renderer's own Markdown options so a heading here is a heading
//! on the page (ATX and setext; a `#` line inside a code fence or an HTML block is not
//! one). Only headings outside block quotes, list items and footnotes open a section:
//! the text "under" a quoted heading has no place of its own to edit.

use std::ops::Range;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// One heading of a note and the section it opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Heading {
    /// 1 to 6.
    pub(crate) level: u8,
    /// The heading as plain text, trimmed (what the page shows).
    pub(crate) text: String,
    /// The texts of its ancestors, then its own.
    pub(crate) path: Vec<String>,
    /// Bytes of the heading's own line(s), through the last line's ending.
    pub(crate) line: Range<usize>,
    /// Bytes of the section: the heading up to the next heading of the same or a
    /// higher level (or the end of the note).
    pub(crate) section: Range<usize>,
    /// 1-based lines of the note: the heading's first line, the section's last line.
    pub(crate) line_start: usize,
    pub(crate) line_end: usize,
    /// The index of the enclosing heading in the list.
    pub(crate) parent: Option<usize>,
}

/// The headings of `text` in document order, looked for from byte `body_start` on (the
/// front matter is not Markdown).
pub(crate) fn headings(text: &str, body_start: usize) -> Vec<Heading> {
    let body = text.get(body_start..).unwrap_or_default();
    let mut found: Vec<(u8, String, Range<usize>)> = Vec::new();
    // Depth of the containers (quotes, items, footnotes) around the current event.
    let mut nested = 0usize;
    let mut current: Option<(u8, String, Range<usize>)> = None;
    for (event, range) in Parser::new_ext(body, crate::render::options()).into_offset_iter() {
        match event {
            Event::Start(Tag::BlockQuote(_) | Tag::Item | Tag::FootnoteDefinition(_)) => {
                nested += 1;
            }
            Event::End(TagEnd::BlockQuote(_) | TagEnd::Item | TagEnd::FootnoteDefinition) => {
                nested = nested.saturating_sub(1);
            }
            Event::Start(Tag::Heading { level, .. }) if nested == 0 => {
                current = Some((level as u8, String::new(), range));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, text, range)) = current.take() {
                    found.push((level, text.trim().to_string(), range));
                }
            }
            Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) | Event::Html(t) => {
                if let Some((_, text, _)) = current.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, text, _)) = current.as_mut() {
                    text.push(' ');
                }
            }
            _ => {}
        }
    }
    let lines = LineStarts::of(text);
    let mut out: Vec<Heading> = Vec::with_capacity(found.len());
    let mut open: Vec<usize> = Vec::new();
    for (level, text_of_heading, range) in found {
        let start = line_start(text, body_start + range.start);
        let end = line_end(text, body_start + range.end.max(range.start + 1));
        while open.last().is_some_and(|&i| out[i].level >= level) {
            open.pop();
        }
        let parent = open.last().copied();
        let mut path = parent.map(|p| out[p].path.clone()).unwrap_or_default();
        path.push(text_of_heading.clone());
        open.push(out.len());
        out.push(Heading {
            level,
            text: text_of_heading,
            path,
            line: start..end,
            section: start..text.len(),
            line_start: lines.line_of(start),
            line_end: 0,
            parent,
        });
    }
    // A section ends where the next heading of the same or a higher level starts.
    for i in 0..out.len() {
        let level = out[i].level;
        if let Some(next) = out[i + 1..].iter().find(|h| h.level <= level) {
            out[i].section.end = next.section.start;
        }
        let last_byte = out[i]
            .section
            .end
            .saturating_sub(1)
            .max(out[i].section.start);
        out[i].line_end = lines.line_of(last_byte);
    }
    out
}

/// Where the line holding byte `at` starts.
fn line_start(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// Where the line holding the byte before `end` ends, its line ending included.
fn line_end(text: &str, end: usize) -> usize {
    let end = end.min(text.len());
    if end > 0 && text.as_bytes()[end - 1] == b'\n' {
        return end;
    }
    text[end..].find('\n').map_or(text.len(), |i| end + i + 1)
}

/// The byte offsets at which the note's lines start, for byte → line lookups.
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn of(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineStarts(starts)
    }

    /// The 1-based line holding byte `at`.
    fn line_of(&self, at: usize) -> usize {
        self.0.partition_point(|&start| start <= at).max(1)
    }
}

/// The end of the last line of `range` that is not blank (its line ending included),
/// or `range.start` when every line is blank.
pub(crate) fn last_content_end(text: &str, range: Range<usize>) -> usize {
    let mut end = range.start;
    let mut at = range.start;
    for line in text[range.clone()].split_inclusive('\n') {
        at += line.len();
        if !line.trim().is_empty() {
            end = at;
        }
    }
    end
}

/// The start of the first line of `range` that is not blank, or `range.end`.
pub(crate) fn first_content_start(text: &str, range: Range<usize>) -> usize {
    let mut at = range.start;
    for line in text[range.clone()].split_inclusive('\n') {
        if !line.trim().is_empty() {
            return at;
        }
        at += line.len();
    }
    range.end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<String> {
        headings(text, 0).iter().map(|h| h.path.join("/")).collect()
    }

    #[test]
    fn atx_and_setext_headings_nest_by_level() {
        let text = "# Top\nintro\n## Sub *one*\nx\n### Deep `code` ##\ny\n## Two\nz\n\nSetext\n======\nw\n\nUnder\n---\nv\n";
        let found = headings(text, 0);
        assert_eq!(
            paths(text),
            [
                "Top",
                "Top/Sub one",
                "Top/Sub one/Deep code",
                "Top/Two",
                "Setext",
                "Setext/Under"
            ]
        );
        let sub = &found[1];
        assert_eq!(sub.level, 2);
        assert_eq!(&text[sub.line.clone()], "## Sub *one*\n");
        assert_eq!(
            &text[sub.section.clone()],
            "## Sub *one*\nx\n### Deep `code` ##\ny\n"
        );
        assert_eq!((sub.line_start, sub.line_end), (3, 6));
        let setext = &found[4];
        assert_eq!(&text[setext.line.clone()], "Setext\n======\n");
        assert_eq!((setext.line_start, setext.line_end), (10, 16));
        assert_eq!(&text[found[5].section.clone()], "Under\n---\nv\n");
        assert_eq!(found[2].parent, Some(1));
        assert_eq!(found[4].parent, None);
    }

    #[test]
    fn code_fences_quotes_and_lists_hold_no_sections() {
        let text = "# A\n```\n# not a heading\n```\n> # quoted\n- # in a list\n\n    # indented code\n# B\n";
        assert_eq!(paths(text), ["A", "B"]);
        let a = &headings(text, 0)[0];
        assert_eq!(a.section, 0..text.find("# B").unwrap());
    }

    #[test]
    fn front_matter_is_skipped_and_lines_count_from_the_top_of_the_note() {
        let text = "---\ntitle: T\n---\n# A\nbody";
        let start = text.find("# A").unwrap();
        let found = headings(text, start);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].line_start, found[0].line_end), (4, 5));
        assert_eq!(&text[found[0].line.clone()], "# A\n");
        assert_eq!(found[0].section.end, text.len());
    }

    #[test]
    fn crlf_and_a_last_line_without_newline() {
        let text = "# A\r\nx\r\n## B";
        let found = headings(text, 0);
        assert_eq!(&text[found[0].line.clone()], "# A\r\n");
        assert_eq!(&text[found[1].line.clone()], "## B");
        assert_eq!(found[1].section, 8..12);
        assert_eq!((found[1].line_start, found[1].line_end), (3, 3));
    }

    #[test]
    fn skipped_levels_and_duplicate_texts() {
        let text = "# A\n### C\n## B\n# A\n### C\n";
        assert_eq!(paths(text), ["A", "A/C", "A/B", "A", "A/C"]);
    }

    #[test]
    fn blank_lines_around_content() {
        let text = "# A\n\n\nx\ny\n\n\n# B\n";
        let h = &headings(text, 0)[0];
        let inner = h.line.end..h.section.end;
        assert_eq!(
            &text[first_content_start(text, inner.clone())..],
            "x\ny\n\n\n# B\n"
        );
        assert_eq!(
            &text[..last_content_end(text, inner.clone())],
            "# A\n\n\nx\ny\n"
        );
        assert_eq!(last_content_end(text, 4..6), 4);
        assert_eq!(first_content_start(text, 4..6), 6);
    }
}
