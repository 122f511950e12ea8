//! From the parser's events to HTML, one piece of the text at a time (`pieces.rs`).
//! Each event passes the links' routing (`links.rs`) and the allow-list
//! (`sanitize.rs`); a heading's events wait until its text is known, to give it its
//! id (and to leave out a first heading that repeats the title); footnotes get their
//! ids and numbers here, across the whole page; and the HTML is written as it is made.
//! Nothing holds the events of the whole text: what waits is one heading, at most
//! `HEADING_EVENTS` events of it.

use std::cell::Cell;
use std::collections::VecDeque;
use std::fmt;

use pulldown_cmark::{CowStr, Event, HeadingLevel, Tag, TagEnd, html};
use pulldown_cmark_escape::escape_html;

use super::blocks::BlockIds;
use super::callouts::Callouts;
use super::ids::{ID_TEXT_CHARS, Ids};
use super::links::{LinkPlaces, NoteLinks};
use super::math::Math;
use super::obsidian::{Comments, Highlights};
use super::pieces::Split;
use super::sanitize::{TableCells, safe_event};

/// Events of a heading held before its id is given: past them, the id is made from
/// the text seen so far.
const HEADING_EVENTS: usize = 256;

/// Writes the HTML of a text, split in pieces, to `out` (see `render::write_html`);
/// stops at the first error `out` returns.
pub(super) fn write_split(
    split: &Split,
    skip_title: Option<&str>,
    places: &dyn LinkPlaces,
    out: &mut dyn fmt::Write,
) -> fmt::Result {
    let newline = Cell::new(true);
    let mut page = Page {
        links: NoteLinks::new(places),
        table: TableCells::default(),
        comments: Comments::default(),
        math: Math::default(),
        ids: Ids::default(),
        title: skip_title,
        first: true,
        images: 0,
    };
    let mut sink = Sink {
        out,
        newline: &newline,
    };
    for piece in split.pieces() {
        let events = Staged {
            events: piece.events(split).map(|(event, _)| event),
            page: &mut page,
            newline: &newline,
            routed: Vec::new(),
            shown: Vec::new(),
            marked: Vec::new(),
            highlights: Highlights::default(),
            callouts: Callouts::new(true),
            blocks: BlockIds::default(),
            held: Vec::new(),
            heading: None,
            ready: VecDeque::new(),
        };
        html::write_html_fmt(&mut sink, events)?;
        page.links.end_piece();
    }
    Ok(())
}

/// Where `out` is written through, noting whether the last thing written ended a
/// line (as the writer does, for what it writes before a footnote definition).
struct Sink<'o, 'c> {
    out: &'o mut dyn fmt::Write,
    newline: &'c Cell<bool>,
}

impl fmt::Write for Sink<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.out.write_str(s)?;
        if !s.is_empty() {
            self.newline.set(s.ends_with('\n'));
        }
        Ok(())
    }
}

/// What the page's rendering knows across pieces.
struct Page<'l, 't> {
    links: NoteLinks<'l>,
    table: TableCells,
    comments: Comments,
    math: Math,
    ids: Ids,
    /// The title a first level-1 heading is left out for, until the first event.
    title: Option<&'t str>,
    first: bool,
    /// Images open: a footnote inside one is its number in the alt text.
    images: usize,
}

impl Page<'_, '_> {
    /// The event as written, once every event before it has been: footnotes get their
    /// markup (their ids are the page's, their numbers the order it names them in).
    fn finish<'p>(&mut self, event: Event<'p>, newline: bool) -> Event<'p> {
        match event {
            Event::FootnoteReference(label) => match self.ids.footnote(&label) {
                Some((_, number)) if self.images > 0 => {
                    Event::Text(CowStr::from(format!("[{number}]")))
                }
                Some((id, number)) => {
                    let mut html = String::from(r##"<sup class="footnote-reference"><a href="#"##);
                    let _ = escape_html(&mut html, &id);
                    html.push_str(&format!("\">{number}</a></sup>"));
                    Event::Html(CowStr::from(html))
                }
                None => Event::Text(CowStr::from(format!("[^{label}]"))),
            },
            Event::Start(Tag::FootnoteDefinition(label)) => {
                let mut html = String::from(if newline { "" } else { "\n" });
                html.push_str(r#"<div class="footnote-definition""#);
                if let Some((id, number)) = self.ids.definition(&label) {
                    html.push_str(" id=\"");
                    let _ = escape_html(&mut html, &id);
                    html.push_str(&format!(
                        "\"><sup class=\"footnote-definition-label\">{number}</sup>"
                    ));
                } else {
                    html.push('>');
                }
                Event::Html(CowStr::from(html))
            }
            Event::End(TagEnd::FootnoteDefinition) => Event::Html(CowStr::Borrowed("</div>\n")),
            // After the allow-list, inline HTML is only a block start of ours, with an
            // id (`blocks.rs`): written on a line of its own, as the writer would.
            Event::InlineHtml(html) if newline => Event::Html(html),
            Event::InlineHtml(html) => Event::Html(CowStr::from(format!("\n{html}"))),
            event @ Event::Start(Tag::Image { .. }) => {
                self.images += 1;
                event
            }
            event @ Event::End(TagEnd::Image) => {
                self.images = self.images.saturating_sub(1);
                event
            }
            event => event,
        }
    }
}

/// The events of one piece as they are written.
struct Staged<'s, 'l, 't, 'p, I> {
    events: I,
    page: &'s mut Page<'l, 't>,
    newline: &'s Cell<bool>,
    /// What the links' routing made of one event.
    routed: Vec<Event<'p>>,
    /// What hiding comments made of one event.
    shown: Vec<Event<'p>>,
    /// What highlighting made of one event.
    marked: Vec<Event<'p>>,
    highlights: Highlights<'p>,
    callouts: Callouts<'p>,
    blocks: BlockIds<'p>,
    /// What callouts and block ids made of one event.
    held: Vec<Event<'p>>,
    /// The heading whose events wait for its id.
    heading: Option<Heading<'p, 't>>,
    /// Events ready to be written, in order.
    ready: VecDeque<Event<'p>>,
}

impl<'p, I: Iterator<Item = Event<'p>>> Iterator for Staged<'_, '_, '_, 'p, I> {
    type Item = Event<'p>;

    fn next(&mut self) -> Option<Event<'p>> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Some(self.page.finish(event, self.newline.get()));
            }
            let Some(event) = self.events.next() else {
                let mut marked = std::mem::take(&mut self.marked);
                self.highlights.give_up(&mut marked);
                for event in marked.drain(..) {
                    self.obsidian(event);
                }
                let mut held = std::mem::take(&mut self.held);
                self.callouts.finish(&mut held);
                let mut ended = Vec::new();
                for event in held.drain(..) {
                    self.blocks.filter(event, &mut self.page.ids, &mut ended);
                }
                self.blocks.release(&mut self.page.ids, &mut ended);
                for event in ended {
                    self.stage(event);
                }
                // A piece ends every heading it starts; were one still open, it is
                // written as it stands.
                let mut heading = self.heading.take()?;
                if !heading.released {
                    let id = self.page.ids.heading(&heading.text);
                    heading.release(id, &mut self.ready);
                }
                continue;
            };
            let Page {
                links,
                table,
                comments,
                math,
                ..
            } = &mut *self.page;
            let mut shown = std::mem::take(&mut self.shown);
            let mut routed = std::mem::take(&mut self.routed);
            comments.filter(event, &mut shown);
            for event in shown.drain(..) {
                links.route(event, &mut routed, |event| safe_event(event, table));
            }
            let mut marked = std::mem::take(&mut self.marked);
            for event in routed.drain(..) {
                self.highlights.filter(math.event(event), &mut marked);
            }
            for event in marked.drain(..) {
                self.obsidian(event);
            }
            self.marked = marked;
            self.shown = shown;
            self.routed = routed;
        }
    }
}

impl<'p, 't, I> Staged<'_, '_, 't, 'p, I> {
    /// Passes `event` through callouts and block ids, then stages what they make.
    fn obsidian(&mut self, event: Event<'p>) {
        let mut held = std::mem::take(&mut self.held);
        let mut blocks = Vec::new();
        self.callouts.filter(event, &mut held);
        for event in held.drain(..) {
            self.blocks.filter(event, &mut self.page.ids, &mut blocks);
        }
        self.held = held;
        for event in blocks {
            self.stage(event);
        }
    }

    /// Makes `event` ready, or holds it with the heading it belongs to.
    fn stage(&mut self, event: Event<'p>) {
        let first = std::mem::replace(&mut self.page.first, false);
        let title = self.page.title.take().filter(|_| first);
        if let Event::End(TagEnd::Heading(_)) = event
            && let Some(heading) = self.heading.take()
        {
            self.end_heading(heading, event);
            return;
        }
        if let Some(heading) = &mut self.heading {
            if heading.released {
                self.ready.push_back(event);
                return;
            }
            heading.push(event);
            if heading.events.len() >= HEADING_EVENTS || heading.text_full() {
                let id = self.page.ids.heading(&heading.text);
                heading.title = None;
                heading.release(id, &mut self.ready);
            }
            return;
        }
        if let Event::Start(Tag::Heading { level, .. }) = &event {
            let title = title.filter(|_| *level == HeadingLevel::H1);
            self.heading = Some(Heading::new(event, title));
            return;
        }
        self.ready.push_back(event);
    }

    /// Writes a heading whose end is `end`, with its id; leaves out a first heading
    /// that says the title.
    fn end_heading(&mut self, mut heading: Heading<'p, 't>, end: Event<'p>) {
        if !heading.released {
            if heading.is_title() {
                return;
            }
            let id = self.page.ids.heading(&heading.text);
            heading.release(id, &mut self.ready);
        }
        self.ready.push_back(end);
    }
}

/// A heading's events until its id is given, and its text.
struct Heading<'p, 't> {
    events: Vec<Event<'p>>,
    /// Its plain text so far (as much as its id or a title comparison needs).
    text: String,
    /// The title it is left out for when its text is exactly that.
    title: Option<&'t str>,
    /// Its start has been written: the rest passes as it comes.
    released: bool,
}

impl<'p, 't> Heading<'p, 't> {
    fn new(start: Event<'p>, title: Option<&'t str>) -> Self {
        Heading {
            events: vec![start],
            text: String::new(),
            title,
            released: false,
        }
    }

    fn push(&mut self, event: Event<'p>) {
        if let Event::Text(text) | Event::Code(text) = &event
            && !self.text_full()
        {
            self.text.push_str(text);
        }
        self.events.push(event);
    }

    /// Whether the text seen so far decides the id, and is longer than the title.
    fn text_full(&self) -> bool {
        // A title is compared trimmed: room for the spaces around it.
        let needed = (ID_TEXT_CHARS * 4).max(self.title.map_or(0, |t| t.len() * 2 + 64));
        self.text.len() >= needed
    }

    fn is_title(&self) -> bool {
        self.title
            .is_some_and(|title| !self.text_full() && self.text.trim() == title.trim())
    }

    /// Makes its events ready, `id` on its start; what follows passes as it comes.
    fn release(&mut self, id: Option<String>, ready: &mut VecDeque<Event<'p>>) {
        if let Some(Event::Start(Tag::Heading { id: slot, .. })) = self.events.first_mut() {
            *slot = id.map(CowStr::from);
        }
        ready.extend(self.events.drain(..));
        self.released = true;
    }
}
