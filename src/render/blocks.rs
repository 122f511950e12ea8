//! Obsidian's block ids: a paragraph or list item ending in ` ^abc-123` is shown
//! without it, and the block gets the id `^abc-123` (lowercased, unique in the page):
//! what a link `[[note#^abc-123]]` puts after `#` (`block_anchor`). A block's events
//! are held until its end shows whether it has an id; past `BLOCK_EVENTS`, it is
//! written without one (the mark is still left out).

use pulldown_cmark::{CowStr, Event, Tag, TagEnd};
use pulldown_cmark_escape::escape_html;

use super::callouts::is_callout_start;
use super::ids::Ids;

/// Events of a block held before its end; past them, it is written as it comes.
const BLOCK_EVENTS: usize = 1024;

/// Characters a block id may have at most.
const ID_CHARS: usize = 64;

/// The block id `text` ends with (` ^abc`, after a space, or the whole text), and
/// where the mark starts; `None` when it ends with none.
pub(crate) fn trailing_id(text: &str) -> Option<(&str, usize)> {
    let trimmed = text.trim_end();
    let caret = trimmed.rfind('^')?;
    let id = &trimmed[caret + 1..];
    let valid = !id.is_empty()
        && id.len() <= ID_CHARS
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let apart = caret == 0 || trimmed[..caret].ends_with(char::is_whitespace);
    (valid && apart).then_some((id, caret))
}

/// The id a block marked `^label` has on a page, and a link to it puts after `#`:
/// `Some` for a link to a block (`^label`), `None` for one to a heading.
pub(crate) fn block_anchor(target: &str) -> Option<String> {
    let label = target.strip_prefix('^')?;
    let (id, _) = trailing_id(target)?;
    (id == label).then(|| format!("^{}", label.to_ascii_lowercase()))
}

/// The block being held.
struct Held<'p> {
    events: Vec<Event<'p>>,
    /// An item (its text ends at its end or at a block inside it) or a paragraph.
    item: bool,
}

/// Block ids in a stream of events (see the module).
#[derive(Default)]
pub(super) struct BlockIds<'p> {
    held: Option<Held<'p>>,
}

impl<'p> BlockIds<'p> {
    /// What `event` becomes, appended to `out`; `ids` gives the page's ids.
    pub(super) fn filter(&mut self, event: Event<'p>, ids: &mut Ids, out: &mut Vec<Event<'p>>) {
        if let Some(held) = &mut self.held {
            let ends = match &event {
                Event::End(TagEnd::Paragraph) => !held.item,
                Event::End(TagEnd::Item) => held.item,
                // A block inside an item ends the item's own text.
                Event::Start(tag) => held.item && !is_inline(tag),
                Event::Html(html) => held.item && is_callout_start(html),
                _ => false,
            };
            if !ends {
                held.events.push(event);
                if held.events.len() > BLOCK_EVENTS {
                    let mut events = std::mem::take(&mut held.events);
                    self.held = None;
                    strip(&mut events);
                    out.extend(events);
                }
                return;
            }
            self.release(ids, out);
        }
        // A code block holds text only: no paragraph starts inside one.
        match event {
            Event::Start(Tag::Paragraph | Tag::Item) => {
                let item = matches!(event, Event::Start(Tag::Item));
                self.held = Some(Held {
                    events: vec![event],
                    item,
                });
            }
            event => out.push(event),
        }
    }

    /// The block held, written with its id (the end of a block or of a piece).
    pub(super) fn release(&mut self, ids: &mut Ids, out: &mut Vec<Event<'p>>) {
        let Some(Held { mut events, item }) = self.held.take() else {
            return;
        };
        let id = strip(&mut events).and_then(|label| ids.block(&label));
        if let Some(id) = id {
            let mut html = String::from(if item { "<li id=\"" } else { "<p id=\"" });
            let _ = escape_html(&mut html, &id);
            html.push_str("\">");
            // A block start of ours: `html.rs` writes it on a line of its own.
            events[0] = Event::InlineHtml(CowStr::from(html));
        }
        out.extend(events);
    }
}

/// Leaves out the block id the events' last text ends with; returns its label.
fn strip(events: &mut Vec<Event<'_>>) -> Option<String> {
    let Some(Event::Text(text)) = events.last() else {
        return None;
    };
    let (label, at) = trailing_id(text)?;
    let label = label.to_string();
    // The whole text is the mark only when it stands apart from what comes before.
    if at == 0 && events.len() > 2 && !ends_apart(&events[events.len() - 2]) {
        return None;
    }
    let kept = text[..at].trim_end().to_string();
    events.pop();
    if !kept.is_empty() {
        events.push(Event::Text(CowStr::from(kept)));
    }
    Some(label)
}

/// Whether what an event writes ends with a space (or a break).
fn ends_apart(event: &Event<'_>) -> bool {
    match event {
        Event::Text(text) => text.ends_with(char::is_whitespace),
        Event::SoftBreak | Event::HardBreak => true,
        _ => false,
    }
}

/// Whether a tag is inline markup (inside a block's text).
fn is_inline(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_ids_are_read() {
        assert_eq!(trailing_id("text ^abc-1"), Some(("abc-1", 5)));
        assert_eq!(trailing_id("^abc "), Some(("abc", 0)));
        assert_eq!(trailing_id("x^2"), None);
        assert_eq!(trailing_id("text ^a_b"), None);
        assert_eq!(trailing_id("text ^"), None);
    }

    #[test]
    fn block_anchors_are_the_ids_blocks_get() {
        assert_eq!(block_anchor("^Step1"), Some("^step1".into()));
        assert_eq!(block_anchor("Heading"), None);
        assert_eq!(block_anchor("^not valid"), None);
    }
}
