//! Obsidian's own marks, read from the parser's events (the parser has no option for
//! them): `%%comments%%`, hidden from every page and from the text a reader sees
//! (and so from the search index). Every page and reading passes its events here
//! before anything else looks at them.

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
