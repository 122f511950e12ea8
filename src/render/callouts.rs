//! Obsidian's callouts: a quote whose first line is `[!type]`, `[!type]+` or
//! `[!type]-`, then an optional title. On a page it becomes a `div.callout` (a
//! `details.callout` when foldable, open for `+`) with a title and a content block;
//! in a reader's text the marker is left out and the title kept. Fed events that
//! passed the allow-list: the only markup it writes is its own.

use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

/// Events of a title held until it ends; past them, the rest is content.
const TITLE_EVENTS: usize = 256;

/// Types with a style of their own; another type is styled as `note`.
const KNOWN: &[(&str, &str)] = &[
    ("note", "note"),
    ("abstract", "abstract"),
    ("summary", "abstract"),
    ("tldr", "abstract"),
    ("info", "info"),
    ("todo", "todo"),
    ("tip", "tip"),
    ("hint", "tip"),
    ("important", "tip"),
    ("success", "success"),
    ("check", "success"),
    ("done", "success"),
    ("question", "question"),
    ("help", "question"),
    ("faq", "question"),
    ("warning", "warning"),
    ("caution", "warning"),
    ("attention", "warning"),
    ("failure", "failure"),
    ("fail", "failure"),
    ("missing", "failure"),
    ("danger", "danger"),
    ("error", "danger"),
    ("bug", "bug"),
    ("example", "example"),
    ("quote", "quote"),
    ("cite", "quote"),
];

/// Whether `html` is the start of a callout as written here (a block).
pub(super) fn is_callout_start(html: &str) -> bool {
    html.starts_with("<div class=\"callout ") || html.starts_with("<details class=\"callout ")
}

/// How a callout folds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Fold {
    /// No `+` or `-`: always open.
    None,
    /// `+`: foldable, open.
    Open,
    /// `-`: foldable, closed.
    Closed,
}

/// A callout's marker: its type as written, how it folds, and the bytes it takes.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Marker {
    pub(super) kind: String,
    pub(super) fold: Fold,
    pub(super) len: usize,
}

/// What the start of a quote's first line says.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Read {
    Callout(Marker),
    Not,
    /// Could still be a marker: more text is needed.
    More,
}

/// Reads `[!type]`, `[!type]+` or `[!type]-` at the start of `text` (type: letters,
/// digits, `-` and `_`, at most 64); `complete` when no more text follows.
pub(super) fn read_marker(text: &str, complete: bool) -> Read {
    let Some(rest) = text.strip_prefix("[!") else {
        return if "[!".starts_with(text) {
            Read::More
        } else {
            Read::Not
        };
    };
    let kind_len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    if kind_len > 64 {
        return Read::Not;
    }
    let after = &rest[kind_len..];
    if after.is_empty() {
        return Read::More;
    }
    if kind_len == 0 || !after.starts_with(']') {
        return Read::Not;
    }
    if after.len() == 1 && !complete {
        return Read::More;
    }
    let (fold, sign) = match after[1..].chars().next() {
        Some('+') => (Fold::Open, 1),
        Some('-') => (Fold::Closed, 1),
        _ => (Fold::None, 0),
    };
    Read::Callout(Marker {
        kind: rest[..kind_len].to_string(),
        fold,
        len: 2 + kind_len + 1 + sign,
    })
}

/// The class of a callout's type: its own for a known type, else `note`'s.
fn class(kind: &str) -> &'static str {
    let kind = kind.to_lowercase();
    KNOWN
        .iter()
        .find(|(name, _)| *name == kind)
        .map_or("note", |(_, class)| class)
}

/// The title of a callout that names none: its type, first letter capitalised.
pub(super) fn default_title(kind: &str) -> String {
    let mut chars = kind.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// Where the reading of the quote's start is.
enum State<'p> {
    Idle,
    /// A quote started: its events so far (the quote, its paragraph, texts) and the
    /// text read.
    Start(Vec<Event<'p>>, String),
    /// In the title of a callout: its events so far and the inline depth.
    Title(Marker, Vec<Event<'p>>, usize),
}

/// Callouts in a stream of events (see the module).
pub(super) struct Callouts<'p> {
    /// Write a page's markup (else a reader's text: the marker left out only).
    markup: bool,
    /// Each quote open: how a callout folds, `None` for a plain quote.
    quotes: Vec<Option<Fold>>,
    state: State<'p>,
}

impl<'p> Callouts<'p> {
    pub(super) fn new(markup: bool) -> Self {
        Callouts {
            markup,
            quotes: Vec::new(),
            state: State::Idle,
        }
    }

    /// What `event` becomes, appended to `out`.
    pub(super) fn filter(&mut self, event: Event<'p>, out: &mut Vec<Event<'p>>) {
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Idle => self.idle(event, out),
            State::Start(mut held, mut text) => match event {
                Event::Start(Tag::Paragraph) if held.len() == 1 => {
                    held.push(event);
                    self.state = State::Start(held, text);
                }
                Event::Text(t) if held.len() >= 2 => {
                    text.push_str(&t);
                    held.push(Event::Text(t));
                    self.decide(held, text, false, out);
                }
                event if held.len() >= 2 && !text.is_empty() => {
                    self.decide(held, text, true, out);
                    self.filter(event, out);
                }
                event => {
                    self.plain(held, out);
                    self.idle(event, out);
                }
            },
            State::Title(marker, mut events, depth) => match event {
                Event::SoftBreak | Event::HardBreak if depth == 0 => {
                    self.open(marker, events, out);
                    out.push(if self.markup {
                        Event::Start(Tag::Paragraph)
                    } else {
                        // The title stands on a line of its own.
                        Event::HardBreak
                    });
                }
                Event::End(TagEnd::Paragraph) if depth == 0 => {
                    self.open(marker, events, out);
                    if !self.markup {
                        out.push(event);
                    }
                }
                Event::Text(t) if events.is_empty() => {
                    let title = t.trim_start();
                    if !title.is_empty() {
                        events.push(Event::Text(CowStr::from(title.to_string())));
                    }
                    self.state = State::Title(marker, events, depth);
                }
                event => {
                    let depth = match &event {
                        Event::Start(_) => depth + 1,
                        Event::End(_) => depth.saturating_sub(1),
                        _ => depth,
                    };
                    events.push(event);
                    if events.len() > TITLE_EVENTS {
                        self.open(marker, Vec::new(), out);
                        out.extend(events);
                    } else {
                        self.state = State::Title(marker, events, depth);
                    }
                }
            },
        }
    }

    /// Whatever is held, written as it stands (the end of a piece).
    pub(super) fn finish(&mut self, out: &mut Vec<Event<'p>>) {
        match std::mem::replace(&mut self.state, State::Idle) {
            State::Idle => {}
            State::Start(held, _) => self.plain(held, out),
            State::Title(marker, events, _) => self.open(marker, events, out),
        }
    }

    /// Reads the quote's first text so far (`complete`: no more text follows).
    fn decide(
        &mut self,
        held: Vec<Event<'p>>,
        text: String,
        complete: bool,
        out: &mut Vec<Event<'p>>,
    ) {
        match read_marker(&text, complete) {
            Read::More if !complete => self.state = State::Start(held, text),
            Read::More | Read::Not => self.plain(held, out),
            Read::Callout(marker) => {
                let title = text[marker.len..].trim_start().to_string();
                let mut events = Vec::new();
                if !title.is_empty() {
                    events.push(Event::Text(CowStr::from(title)));
                }
                self.state = State::Title(marker, events, 0);
            }
        }
    }

    fn idle(&mut self, event: Event<'p>, out: &mut Vec<Event<'p>>) {
        match event {
            Event::Start(Tag::BlockQuote(_)) => {
                self.state = State::Start(vec![event], String::new());
            }
            Event::End(TagEnd::BlockQuote(_)) => match self.quotes.pop() {
                Some(Some(fold)) if self.markup => {
                    let close = if fold == Fold::None {
                        "</div>\n</div>\n"
                    } else {
                        "</div>\n</details>\n"
                    };
                    out.push(Event::Html(CowStr::Borrowed(close)));
                }
                _ => out.push(event),
            },
            event => out.push(event),
        }
    }

    /// The quote's start was a plain quote's.
    fn plain(&mut self, held: Vec<Event<'p>>, out: &mut Vec<Event<'p>>) {
        self.quotes.push(None);
        out.extend(held);
    }

    /// Writes the opening of a callout and its title (`title`, else the default).
    fn open(&mut self, marker: Marker, title: Vec<Event<'p>>, out: &mut Vec<Event<'p>>) {
        self.quotes.push(Some(marker.fold));
        let title = if title.is_empty() {
            vec![Event::Text(CowStr::from(default_title(&marker.kind)))]
        } else {
            title
        };
        if !self.markup {
            out.push(Event::Start(Tag::BlockQuote(None)));
            out.push(Event::Start(Tag::Paragraph));
            out.extend(title);
            return;
        }
        let class = class(&marker.kind);
        let html: String = match marker.fold {
            Fold::None => {
                format!("<div class=\"callout callout-{class}\">\n<div class=\"callout-title\">")
            }
            Fold::Open => format!(
                "<details class=\"callout callout-{class}\" open=\"\">\n<summary class=\"callout-title\">"
            ),
            Fold::Closed => {
                format!(
                    "<details class=\"callout callout-{class}\">\n<summary class=\"callout-title\">"
                )
            }
        };
        // The class is one of ours: nothing the note wrote is in this markup.
        out.push(Event::Html(CowStr::from(html)));
        out.extend(title);
        let close = if marker.fold == Fold::None {
            "</div>\n<div class=\"callout-content\">\n"
        } else {
            "</summary>\n<div class=\"callout-content\">\n"
        };
        out.push(Event::Html(CowStr::Borrowed(close)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_read() {
        let callout = |kind: &str, fold, len| {
            Read::Callout(Marker {
                kind: kind.into(),
                fold,
                len,
            })
        };
        assert_eq!(
            read_marker("[!tip] Title", false),
            callout("tip", Fold::None, 6)
        );
        assert_eq!(
            read_marker("[!FAQ]- x", false),
            callout("FAQ", Fold::Closed, 7)
        );
        assert_eq!(
            read_marker("[!my-type]+", false),
            callout("my-type", Fold::Open, 11)
        );
        assert_eq!(read_marker("[", false), Read::More);
        assert_eq!(read_marker("[!tip]", false), Read::More);
        assert_eq!(read_marker("[!tip]", true), callout("tip", Fold::None, 6));
        assert_eq!(read_marker("[!tip", false), Read::More);
        assert_eq!(read_marker("[x]", false), Read::Not);
        assert_eq!(read_marker("[!]", false), Read::Not);
        assert_eq!(read_marker("[!a b]", false), Read::Not);
        assert_eq!(read_marker("plain", false), Read::Not);
    }

    #[test]
    fn types_have_classes_and_default_titles() {
        assert_eq!(class("Warning"), "warning");
        assert_eq!(class("faq"), "question");
        assert_eq!(class("whatever"), "note");
        assert_eq!(default_title("tip"), "Tip");
        assert_eq!(default_title("éclair"), "Éclair");
    }
}
