//! The plain text of a note as a reader sees it: page descriptions and feed summaries,
//! the quoted line of a backlink, and what the search index reads.

use pulldown_cmark::{Event, LinkType, Tag, TagEnd};

use super::blocks::trailing_id;
use super::callouts::Callouts;
use super::links::wiki_label;
use super::obsidian::{Comments, Highlights};
use super::pieces::Split;

/// The opening words of a note body as plain text, at most `max` characters (cut at a
/// word, with `…`), for page descriptions and feed summaries. Headings, code blocks
/// and raw HTML are left out; blocks (paragraphs, list items, table cells, quotes) are
/// kept apart by a space, so list items never run together.
pub(crate) fn summary(markdown: &str, max: usize) -> String {
    cut_words(&reader_text(markdown, Reading::Summary, max), max)
}

/// A line of a note as a reader sees it (Markdown marks left out, a wikilink as its
/// label, a heading or list item as its text), at most `max` characters cut at a word:
/// what a list of the notes linking here quotes of each link's line.
pub(crate) fn line_text(line: &str, max: usize) -> String {
    cut_words(&reader_text(line, Reading::Page, max), max)
}

/// The words of `text` on one line, at most `max` characters, cut at a word with `…`.
fn cut_words(text: &str, max: usize) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
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

/// The text a reader sees on a note's page, for the search index and its snippets:
/// Markdown marks, link targets, footnote labels and task boxes are left out, an image
/// is its alt text, raw HTML is the text the page shows for it. Obsidian's marks too:
/// `==` around a highlight, a callout's `[!type]` (its title is kept), a block's `^id`, a file's embed
/// `![[x.png]]` (nothing of it is read; a note's embed reads as its name); math is its
/// source. Each block (paragraph,
/// heading, list item, table cell, code block) starts on a line of its own.
pub fn visible_text(markdown: &str) -> String {
    reader_text(markdown, Reading::Page, usize::MAX)
        .trim()
        .to_string()
}

/// What `reader_text` keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Everything the page shows.
    Page,
    /// The prose only: no headings, code blocks or raw HTML.
    Summary,
}

/// The text of a body's events, blocks kept apart by line breaks; stops once it holds
/// more than `max` characters.
fn reader_text(markdown: &str, reading: Reading, max: usize) -> String {
    let mut text = ReaderText::new(reading);
    let mut chars = 0usize;
    let split = Split::new(markdown);
    for piece in split.pieces() {
        for (event, _) in piece.events(&split) {
            let before = text.text.len();
            text.push(&event);
            if max != usize::MAX {
                // Leaving out a block id may have shortened the text.
                chars = match text.text.get(before..) {
                    Some(added) => chars + added.chars().count(),
                    None => text.text.chars().count(),
                };
                if chars > max {
                    return text.text;
                }
            }
        }
    }
    text.end();
    text.text
}

/// `visible_text` fed the events of a parse made for something else as well (the
/// indexer finds a note's links in the same parse): parsed with `options()`.
pub(crate) struct VisibleText(ReaderText);

impl VisibleText {
    pub(crate) fn new() -> Self {
        VisibleText(ReaderText::new(Reading::Page))
    }

    pub(crate) fn push(&mut self, event: &Event) {
        self.0.push(event);
    }

    pub(crate) fn finish(mut self) -> String {
        self.0.end();
        self.0.text.trim().to_string()
    }
}

/// The reader's text of the events pushed so far.
struct ReaderText {
    text: String,
    /// `%%comments%%` are not seen.
    comments: Comments,
    /// What hiding comments made of one event.
    shown: Vec<Event<'static>>,
    /// Callouts' markers left out.
    callouts: Callouts<'static>,
    /// What that made of one event.
    called: Vec<Event<'static>>,
    /// `==highlights==` read without their marks.
    highlights: Highlights<'static>,
    /// What that made of one event.
    marked: Vec<Event<'static>>,
    summary: bool,
    /// Depth of the blocks left out (a summary's headings, code and HTML).
    skip: usize,
    /// Inside a wikilink without `|label`: its text (the target as written) reads as
    /// the label a page shows for it.
    bare_wiki: bool,
    /// Inside an embed `![[…]]`: nothing of it is read.
    embed: bool,
}

impl ReaderText {
    fn new(reading: Reading) -> Self {
        ReaderText {
            text: String::new(),
            comments: Comments::default(),
            shown: Vec::new(),
            callouts: Callouts::new(false),
            called: Vec::new(),
            highlights: Highlights::text_only(),
            marked: Vec::new(),
            summary: reading == Reading::Summary,
            skip: 0,
            bare_wiki: false,
            embed: false,
        }
    }

    fn push(&mut self, event: &Event) {
        let mut shown = std::mem::take(&mut self.shown);
        let mut called = std::mem::take(&mut self.called);
        self.comments
            .filter(event.clone().into_static(), &mut shown);
        for event in shown.drain(..) {
            self.callouts.filter(event, &mut called);
        }
        let mut marked = std::mem::take(&mut self.marked);
        for event in called.drain(..) {
            self.highlights.filter(event, &mut marked);
        }
        for event in marked.drain(..) {
            self.push_shown(&event);
        }
        self.shown = shown;
        self.called = called;
        self.marked = marked;
    }

    /// The end of the text: what callouts still hold is read.
    fn end(&mut self) {
        let mut called = std::mem::take(&mut self.called);
        let mut marked = Vec::new();
        self.callouts.finish(&mut called);
        for event in called {
            self.highlights.filter(event, &mut marked);
        }
        self.highlights.give_up(&mut marked);
        for event in marked {
            self.push_shown(&event);
        }
        end_block(&mut self.text);
    }

    fn push_shown(&mut self, event: &Event) {
        let summary = self.summary;
        let text = &mut self.text;
        match event {
            Event::Start(Tag::Image {
                link_type: LinkType::WikiLink { .. },
                dest_url,
                ..
            }) if is_file(dest_url) => self.embed = true,
            Event::End(TagEnd::Image) if self.embed => self.embed = false,
            _ if self.embed => {}
            Event::Start(
                Tag::Link {
                    link_type: LinkType::WikiLink { has_pothole: false },
                    dest_url,
                    ..
                }
                | Tag::Image {
                    link_type: LinkType::WikiLink { has_pothole: false },
                    dest_url,
                    ..
                },
            ) if self.skip == 0 => {
                text.push_str(&wiki_label(dest_url));
                self.bare_wiki = true;
            }
            Event::End(TagEnd::Link | TagEnd::Image) => self.bare_wiki = false,
            _ if self.bare_wiki => {}
            Event::Start(Tag::Heading { .. } | Tag::CodeBlock(_) | Tag::HtmlBlock) if summary => {
                self.skip += 1;
                new_line(text);
            }
            Event::End(TagEnd::Heading(_) | TagEnd::CodeBlock | TagEnd::HtmlBlock) if summary => {
                self.skip = self.skip.saturating_sub(1);
            }
            _ if self.skip > 0 => {}
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                text.push_str(t)
            }
            Event::Html(t) | Event::InlineHtml(t) if !summary => text.push_str(t),
            Event::SoftBreak => space(text),
            Event::HardBreak | Event::Rule => new_line(text),
            Event::Start(tag) if is_block(&tag.to_end()) => new_line(text),
            Event::End(tag) if is_block(tag) => new_line(text),
            _ => {}
        }
    }
}

/// Whether a wikilink's target names a file (an extension other than `.md`): its
/// embed shows the file, no text.
fn is_file(target: &str) -> bool {
    let name = target.split(['#', '|']).next().unwrap_or_default();
    let name = name.rsplit('/').next().unwrap_or_default();
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| !ext.is_empty() && !ext.eq_ignore_ascii_case("md"))
}

/// Whether a tag is a block (its text stands apart from what comes before and after)
/// rather than inline markup (emphasis, links, images).
fn is_block(tag: &TagEnd) -> bool {
    !matches!(
        tag,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
    )
}

/// Ends the current line, unless the text is empty or already ends with a break.
fn new_line(text: &mut String) {
    end_block(text);
    if text.ends_with(' ') {
        text.pop();
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
}

/// Leaves out the block id (` ^abc`) the current line ends with.
fn end_block(text: &mut String) {
    let line = text.rfind('\n').map_or(0, |at| at + 1);
    if let Some((_, at)) = trailing_id(&text[line..]) {
        text.truncate(line + at);
        let kept = text.trim_end().len();
        text.truncate(kept);
    }
}

/// A space, unless the text is empty or already ends with whitespace.
fn space(text: &mut String) {
    if !text.is_empty() && !text.ends_with(char::is_whitespace) {
        text.push(' ');
    }
}
