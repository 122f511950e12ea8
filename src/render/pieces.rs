//! A long text parsed a piece at a time. The Markdown parser builds a tree of its whole
//! input before it hands the first event, some 50 bytes for each bracket, asterisk or
//! line: a note of a few megabytes would hold hundreds of them. A text longer than
//! `PIECE` bytes is therefore cut, and each piece parsed alone. Where to cut, the
//! parser says: a window of the text is parsed, and the cut falls before the last block
//! of the window's top level that starts on a whole line after a blank one (the blocks
//! before it are complete, and the text from there reads as the whole text reads it);
//! only a block longer than a piece is cut inside, at a line (a fenced block goes on
//! in the next piece, its opening line repeated), else at a space. What a piece needs
//! from the others is carried over: link reference definitions (through the parser's
//! broken-link callback; the first of a label wins, as in a whole text) and footnote
//! definitions (restated before the piece that names them, their events dropped). A
//! text of one piece is parsed as it is, with nothing carried.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use pulldown_cmark::{
    BrokenLink, BrokenLinkCallback, CowStr, Event, LinkType, OffsetIter, Parser, Tag,
};

/// Bytes of text parsed at once.
const PIECE: usize = 256 * 1024;

/// A text and the places it is cut at.
pub(crate) struct Split<'a> {
    text: &'a str,
    /// Where each piece after the first starts.
    cuts: Vec<Cut>,
    /// The link reference definitions of the whole text, for a piece that uses one
    /// defined in another (empty for a text of one piece).
    refs: HashMap<String, Definition>,
    /// The footnote labels the whole text defines, lowercased (idem).
    footnotes: HashSet<String>,
    /// Those each piece defines.
    defined: Vec<HashSet<String>>,
}

/// Where a piece starts, and what is open there.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cut {
    at: usize,
    /// Between two blocks: the pieces read as the whole text reads.
    clean: bool,
    /// The opening line of the fenced code block the cut falls in.
    fence: Option<Range<usize>>,
}

/// A link reference definition as the whole text has it.
#[derive(Debug)]
struct Definition {
    dest: String,
    title: String,
    /// Its bytes in the text.
    span: Range<usize>,
}

/// One piece: what the parser reads, and where it lies in the whole text.
pub(crate) struct Piece<'a> {
    text: Cow<'a, str>,
    /// Where `text[skip..]` starts in the whole text.
    start: usize,
    /// Bytes at the start of `text` the whole text does not have there: footnote
    /// definitions carried over, the opening line of a fenced block the piece starts in.
    skip: usize,
    /// Bytes of those that are the footnote definitions, whose events are dropped.
    carried: usize,
}

impl<'a> Split<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Split::with_size(text, PIECE)
    }

    pub(super) fn with_size(text: &'a str, size: usize) -> Self {
        let mut split = Split {
            text,
            cuts: Vec::new(),
            refs: HashMap::new(),
            footnotes: HashSet::new(),
            defined: Vec::new(),
        };
        if text.len() > size {
            split.cut(size.max(16));
        }
        split
    }

    /// Whether every cut falls between two blocks (the pieces read as the whole text).
    #[cfg(test)]
    pub(super) fn is_clean(&self) -> bool {
        self.cuts.iter().all(|cut| cut.clean)
    }

    /// The pieces, in order.
    pub(crate) fn pieces(&self) -> impl Iterator<Item = Piece<'a>> + '_ {
        (0..=self.cuts.len()).map(|i| {
            let start = i.checked_sub(1).map_or(0, |i| self.cuts[i].at);
            let end = self.cuts.get(i).map_or(self.text.len(), |cut| cut.at);
            let fence = i.checked_sub(1).and_then(|i| self.cuts[i].fence.as_ref());
            let needed = if self.footnotes.is_empty() {
                Vec::new()
            } else {
                self.footnotes_needed(i, &self.text[start..end])
            };
            self.piece(start..end, fence, &needed)
        })
    }

    /// The text from `range.start` to `range.end` as a piece: after the footnote
    /// definitions `carried`, and the opening line `fence` of the fenced code block it
    /// starts in.
    fn piece(
        &self,
        range: Range<usize>,
        fence: Option<&Range<usize>>,
        carried: &[&str],
    ) -> Piece<'a> {
        let body = &self.text[range.clone()];
        if fence.is_none() && carried.is_empty() {
            return Piece {
                text: Cow::Borrowed(body),
                start: range.start,
                skip: 0,
                carried: 0,
            };
        }
        let mut text = String::with_capacity(body.len() + 64);
        for label in carried {
            text.push_str("[^");
            text.push_str(label);
            text.push_str("]: .\n\n");
        }
        if !carried.is_empty() {
            // Ends the last definition, so that an indented first line of the piece
            // is not read as the definition's.
            text.push_str("<!-- -->\n\n");
        }
        let carried = text.len();
        if let Some(fence) = fence {
            text.push_str(&self.text[fence.clone()]);
            text.push('\n');
        }
        let skip = text.len();
        text.push_str(body);
        Piece {
            text: Cow::Owned(text),
            start: range.start,
            skip,
            carried,
        }
    }

    /// The footnote labels piece `i` (`body`) names that it does not define and
    /// another piece defines, each once, as written.
    fn footnotes_needed<'b>(&self, i: usize, body: &'b str) -> Vec<&'b str> {
        let here = self.defined.get(i);
        let mut seen = HashSet::new();
        let mut needed = Vec::new();
        let mut rest = body;
        while let Some(at) = rest.find("[^") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(']') else { break };
            let label = &rest[..end];
            if label.is_empty() || label.len() > 999 || label.contains(['[', '\n']) {
                continue;
            }
            let key = label.to_lowercase();
            let defined_here = here.is_some_and(|here| here.contains(&key));
            if self.footnotes.contains(&key) && !defined_here && seen.insert(key) {
                needed.push(label);
            }
        }
        needed
    }
}

impl<'a> Piece<'a> {
    /// The events of this piece with their bytes in the whole text; the events of the
    /// footnote definitions carried over are left out.
    pub(crate) fn events<'p>(&'p self, split: &'p Split<'_>) -> Events<'p> {
        let parser = Parser::new_with_broken_link_callback(
            &self.text,
            super::options(),
            Some(Lookup(&split.refs)),
        );
        Events {
            inner: parser.into_offset_iter(),
            piece: self,
            refs: &split.refs,
        }
    }

    /// Bytes of the piece's text as bytes of the whole text.
    fn source(&self, range: &Range<usize>) -> Range<usize> {
        let at = |offset: usize| self.start + offset.saturating_sub(self.skip);
        at(range.start)..at(range.end)
    }
}

/// The events of one piece (see [`Piece::events`]).
pub(crate) struct Events<'p> {
    inner: OffsetIter<'p, Lookup<'p>>,
    piece: &'p Piece<'p>,
    refs: &'p HashMap<String, Definition>,
}

impl Events<'_> {
    /// The bytes in the whole text of the link reference definition labelled `label`:
    /// the first of the whole text.
    pub(crate) fn definition(&self, label: &str) -> Option<Range<usize>> {
        if let Some(def) = self.earlier(label) {
            return Some(def.span.clone());
        }
        match self.inner.reference_definitions().get(label) {
            Some(def) => Some(self.piece.source(&def.span)),
            None => self.refs.get(&label_key(label)).map(|def| def.span.clone()),
        }
    }

    /// The definition of `label` in a piece before this one: the first of the whole
    /// text, although this piece defines the label again (the parser reads its own).
    fn earlier(&self, label: &str) -> Option<&Definition> {
        if self.refs.is_empty() {
            return None;
        }
        let def = self.refs.get(&label_key(label))?;
        (def.span.start < self.piece.start).then_some(def)
    }
}

impl<'p> Iterator for Events<'p> {
    type Item = (Event<'p>, Range<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (mut event, range) = self.inner.next()?;
            if range.start < self.piece.carried {
                continue;
            }
            if let Event::Start(
                Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }
                | Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    id,
                },
            ) = &mut event
            {
                self.first_target(*link_type, id, dest_url, title);
            }
            return Some((event, self.piece.source(&range)));
        }
    }
}

impl<'p> Events<'p> {
    /// The target and title of a reference link: those of the label's first definition
    /// in the whole text.
    fn first_target(
        &self,
        link_type: LinkType,
        label: &str,
        dest: &mut CowStr<'p>,
        title: &mut CowStr<'p>,
    ) {
        let by_reference = matches!(
            link_type,
            LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut
        );
        if let Some(def) = self.earlier(label).filter(|_| by_reference) {
            *dest = def.dest.clone().into();
            *title = def.title.clone().into();
        }
    }
}

/// The definitions of the other pieces, for a reference this piece does not define.
struct Lookup<'r>(&'r HashMap<String, Definition>);

impl<'input> BrokenLinkCallback<'input> for Lookup<'_> {
    fn handle_broken_link(
        &mut self,
        link: BrokenLink<'input>,
    ) -> Option<(CowStr<'input>, CowStr<'input>)> {
        if self.0.is_empty() {
            return None;
        }
        let def = self.0.get(&label_key(&link.reference))?;
        Some((def.dest.clone().into(), def.title.clone().into()))
    }
}

/// A reference label as labels are matched: whitespace runs as one space, any case.
fn label_key(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

mod window;

#[cfg(test)]
mod tests;
