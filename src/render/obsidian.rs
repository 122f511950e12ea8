//! Obsidian's own marks, read from the parser's events (the parser has no option for
//! them): `%%comments%%`, hidden from every page and from the text a reader sees
//! (and so from the search index): every page and reading passes its events here
//! before anything else looks at them; and `==highlights==`, made `<mark>` after the
//! allow-list.

use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

/// The mark that opens and closes a comment.
const COMMENT: &str = "%%";

/// Hides what lies between two `%%` marks: inline (`a %%b%% c`) or over blocks
/// (`%%` alone on a line, the hidden blocks, `%%` again). A mark inside code is text.
/// Blocks that open inside a comment and close after it are opened again where it
/// ends; a paragraph left empty by a comment is left out.
#[derive(Default)]
pub(super) struct Comments {
    /// Between two marks.
    open: bool,
    /// Tags started inside the comment, still open (dropped so far).
    hidden: Vec<Tag<'static>>,
    /// Tags started but not written yet: a paragraph until something shows in it, the
    /// tags a comment opened and left open. Closed empty, they are left out.
    waiting: Vec<Tag<'static>>,
    /// Inside a code block: its text is code, its marks are text.
    code: usize,
}

impl Comments {
    /// What `event` becomes once comments are hidden: none, one or a few events,
    /// appended to `out`.
    pub(super) fn filter<'a>(&mut self, event: Event<'a>, out: &mut Vec<Event<'a>>) {
        match event {
            Event::Start(Tag::CodeBlock(_)) | Event::End(TagEnd::CodeBlock) if self.open => {
                self.hidden_event(event, out);
            }
            Event::Start(tag @ Tag::CodeBlock(_)) => {
                self.code += 1;
                self.show(Event::Start(tag), out);
            }
            Event::End(TagEnd::CodeBlock) => {
                self.code = self.code.saturating_sub(1);
                self.show(Event::End(TagEnd::CodeBlock), out);
            }
            Event::Text(text) if self.code == 0 && text.contains(COMMENT) => {
                self.text(text, out);
            }
            event if self.open => self.hidden_event(event, out),
            Event::Start(Tag::Paragraph) => self.waiting.push(Tag::Paragraph),
            event => self.show(event, out),
        }
    }

    /// An event inside a comment: dropped; its tags noted, to be opened again if the
    /// comment ends before they close. The end of a tag opened before the comment is
    /// written.
    fn hidden_event<'a>(&mut self, event: Event<'a>, out: &mut Vec<Event<'a>>) {
        match event {
            Event::Start(tag) => self.hidden.push(tag.into_static()),
            Event::End(tag) => match self.hidden.pop().or_else(|| self.waiting.pop()) {
                Some(_) => {}
                None => out.push(Event::End(tag)),
            },
            _ => {}
        }
    }

    /// A text with marks in it: the parts outside comments are kept.
    fn text<'a>(&mut self, text: CowStr<'a>, out: &mut Vec<Event<'a>>) {
        for (i, part) in text.split(COMMENT).enumerate() {
            if i > 0 {
                self.open = !self.open;
                if !self.open {
                    self.waiting.append(&mut self.hidden);
                }
            }
            if !self.open && !part.is_empty() {
                self.show(Event::Text(CowStr::from(part.to_string())), out);
            }
        }
    }

    /// Writes `event`, after the tags waiting; the end of a tag still waiting is
    /// dropped with it.
    fn show<'a>(&mut self, event: Event<'a>, out: &mut Vec<Event<'a>>) {
        if let Event::End(_) = event
            && self.waiting.pop().is_some()
        {
            return;
        }
        out.extend(self.waiting.drain(..).map(Event::Start));
        out.push(event);
    }
}

/// The mark around a highlight.
const HIGHLIGHT: &str = "==";

/// Events a highlight holds before its closing mark; past them, its opening mark is
/// text (what a page holds waiting stays bounded).
const HIGHLIGHT_EVENTS: usize = 1024;

/// `==highlight==` as `<mark>`: what lies between two marks in one run of inline text
/// (a block's end, or the end of markup opened before the first mark, leaves the
/// first mark as text). Fed events that passed the allow-list: the only markup it
/// writes is its own `<mark>` and `</mark>`.
#[derive(Default)]
pub(super) struct Highlights<'p> {
    /// The events since an opening mark, when one is open.
    held: Option<Vec<Event<'p>>>,
    /// Tags opened since the opening mark and still open.
    depth: usize,
    /// Inside a code block: its marks are text.
    code: usize,
    /// For a reader's text: the marks are left out, no `<mark>` written.
    text_only: bool,
}

impl<'p> Highlights<'p> {
    /// Highlights for a reader's text: what they hold, without marks.
    pub(super) fn text_only() -> Self {
        Highlights {
            text_only: true,
            ..Highlights::default()
        }
    }

    /// What `event` becomes, appended to `out`.
    pub(super) fn filter(&mut self, event: Event<'p>, out: &mut Vec<Event<'p>>) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => self.code += 1,
            Event::End(TagEnd::CodeBlock) => self.code = self.code.saturating_sub(1),
            _ => {}
        }
        match event {
            Event::Text(text) if self.code == 0 && text.contains(HIGHLIGHT) => {
                let parts: Vec<&str> = text.split(HIGHLIGHT).collect();
                for (i, part) in parts.iter().enumerate() {
                    if i > 0 {
                        self.mark(out);
                    }
                    if !part.is_empty() {
                        self.pass(Event::Text(CowStr::from(part.to_string())), out);
                    }
                }
            }
            event => self.pass(event, out),
        }
    }

    /// An event outside the marks, or held inside them.
    fn pass(&mut self, event: Event<'p>, out: &mut Vec<Event<'p>>) {
        let Some(held) = &mut self.held else {
            out.push(event);
            return;
        };
        match &event {
            Event::Start(_) => self.depth += 1,
            Event::End(_) if self.depth == 0 => {
                self.give_up(out);
                out.push(event);
                return;
            }
            Event::End(_) => self.depth -= 1,
            _ => {}
        }
        held.push(event);
        if held.len() > HIGHLIGHT_EVENTS {
            self.give_up(out);
        }
    }

    /// A mark: opens a highlight, or closes the open one.
    fn mark(&mut self, out: &mut Vec<Event<'p>>) {
        match self.held.take() {
            None => {
                self.held = Some(Vec::new());
                self.depth = 0;
            }
            Some(held) if self.depth == 0 && !held.is_empty() && self.text_only => {
                out.extend(held);
            }
            Some(held) if self.depth == 0 && !held.is_empty() => {
                out.push(Event::Html(CowStr::Borrowed("<mark>")));
                out.extend(held);
                out.push(Event::Html(CowStr::Borrowed("</mark>")));
            }
            Some(mut held) => {
                held.push(Event::Text(CowStr::Borrowed(HIGHLIGHT)));
                self.held = Some(held);
            }
        }
    }

    /// The open mark was text after all.
    pub(super) fn give_up(&mut self, out: &mut Vec<Event<'p>>) {
        if let Some(held) = self.held.take() {
            out.push(Event::Text(CowStr::Borrowed(HIGHLIGHT)));
            out.extend(held);
        }
    }
}
