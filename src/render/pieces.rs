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
    BrokenLink, BrokenLinkCallback, CodeBlockKind, CowStr, Event, LinkType, OffsetIter, Parser,
    Tag, TagEnd,
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

    /// Finds the cuts, a window of `size` bytes at a time, and the definitions of
    /// each piece.
    fn cut(&mut self, size: usize) {
        let mut start = 0;
        let mut fence: Option<Range<usize>> = None;
        loop {
            let last = self.text.len() - start <= size;
            let mut end = if last { self.text.len() } else { start + size };
            while !self.text.is_char_boundary(end) {
                end -= 1;
            }
            // Lines the window holds whole: a cut is made at the start of one.
            let whole = if last {
                end
            } else {
                self.text[start..end]
                    .rfind('\n')
                    .map_or(start, |at| start + at + 1)
            };
            let window = self.piece(start..end, fence.as_ref(), &[]);
            // The last window is read for its definitions only.
            let read = if last && !window.text.contains("]:") {
                Window::default()
            } else {
                Window::read(self.text, &window, whole, fence.as_ref())
            };
            let cut = if last {
                None
            } else if let Some(at) = read.last_block.filter(|&at| at > start) {
                Some(Cut {
                    at,
                    clean: true,
                    fence: None,
                })
            } else {
                // One block longer than a piece: cut inside it, at a line if there is
                // one; a fenced block goes on in the next piece.
                let at = if whole > start {
                    whole
                } else {
                    within_line(self.text, start, end)
                };
                Some(Cut {
                    at,
                    clean: false,
                    fence: read.open_fence,
                })
            };
            let boundary = cut.as_ref().map_or(self.text.len(), |cut| cut.at);
            for (label, def) in read.refs {
                if def.span.end <= boundary {
                    self.refs.entry(label).or_insert(def);
                }
            }
            let defined: HashSet<String> = read
                .footnotes
                .into_iter()
                .filter(|(_, at)| *at < boundary)
                .map(|(label, _)| label)
                .collect();
            self.footnotes.extend(defined.iter().cloned());
            self.defined.push(defined);
            let Some(cut) = cut else { break };
            start = cut.at;
            fence = cut.fence.clone();
            self.cuts.push(cut);
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

/// What the parse of a window says.
#[derive(Default)]
struct Window {
    /// The line start of the last block of the top level that starts on a whole line
    /// after a blank one (and inside the window's own text).
    last_block: Option<usize>,
    /// The opening line of the fenced code block open at the end of the window's whole
    /// lines, if the block of the top level there is one.
    open_fence: Option<Range<usize>>,
    refs: Vec<(String, Definition)>,
    /// Footnote labels defined, lowercased, and where.
    footnotes: Vec<(String, usize)>,
}

impl Window {
    /// Parses `window`, a piece of `text` whose whole lines end at `whole`, which
    /// starts in the fenced code block opened at `fence` if any.
    fn read(text: &str, window: &Piece, whole: usize, fence: Option<&Range<usize>>) -> Self {
        let parser = Parser::new_ext(&window.text, super::options());
        let refs = parser
            .reference_definitions()
            .iter()
            .map(|(label, def)| {
                let def = Definition {
                    dest: def.dest.to_string(),
                    title: def.title.as_deref().unwrap_or_default().to_string(),
                    span: window.source(&def.span),
                };
                (label_key(label), def)
            })
            .collect();
        let mut read = Window {
            last_block: None,
            open_fence: None,
            refs,
            footnotes: Vec::new(),
        };
        let mut depth = 0usize;
        for (event, range) in parser.into_offset_iter() {
            let top = depth == 0;
            match &event {
                Event::Start(_) => depth += 1,
                Event::End(_) => depth = depth.saturating_sub(1),
                _ => {}
            }
            if let Event::Start(Tag::FootnoteDefinition(label)) = &event {
                let at = window.source(&range).start;
                read.footnotes.push((label.to_lowercase(), at));
            }
            let source = window.source(&range);
            // A fenced block its closing fence ends leaves nothing open.
            if depth == 0
                && matches!(event, Event::End(TagEnd::CodeBlock))
                && let Some(opener) = &read.open_fence
                && closes(&text[opener.clone()], last_line(text, source.clone()))
            {
                read.open_fence = None;
            }
            let block = matches!(event, Event::Start(_) | Event::Rule);
            if !top || !block {
                continue;
            }
            let line = line_start(text, source.start);
            if line >= whole {
                continue;
            }
            // After a blank line only: a paragraph whose first lines were link
            // reference definitions starts on a line that continues them.
            let after_blank = line > 0 && text[line_start(text, line - 1)..line].trim().is_empty();
            if range.start >= window.skip && after_blank {
                read.last_block = Some(line);
            }
            read.open_fence = match (&event, fence) {
                (Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))), fence) => {
                    Some(match fence {
                        // The block the window starts in.
                        Some(fence) if range.start < window.skip => fence.clone(),
                        _ => line..text[line..].find('\n').map_or(text.len(), |at| line + at),
                    })
                }
                _ => None,
            };
        }
        read
    }
}

/// The last line of `range` in `text` after its first, without its line break (empty
/// for a range of one line).
fn last_line(text: &str, range: Range<usize>) -> &str {
    let block = text[range].trim_end_matches(['\n', '\r']);
    block.rsplit_once('\n').map_or("", |(_, last)| last)
}

/// Whether `line` is a closing fence of the block that `opener` opens.
fn closes(opener: &str, line: &str) -> bool {
    let opener = opener.trim_start();
    let Some(mark) = opener.chars().next() else {
        return false;
    };
    let opening = opener.chars().take_while(|&c| c == mark).count();
    let line = line.trim();
    let closing = line.chars().take_while(|&c| c == mark).count();
    closing >= opening.max(3) && closing == line.chars().count()
}

/// The start of the line byte `at` of `text` is on.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |nl| nl + 1)
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
            let (event, range) = self.inner.next()?;
            if range.start < self.piece.carried {
                continue;
            }
            let event = match event {
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }) => {
                    let (dest_url, title) = self.first_target(link_type, &id, dest_url, title);
                    Event::Start(Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    })
                }
                Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    id,
                }) => {
                    let (dest_url, title) = self.first_target(link_type, &id, dest_url, title);
                    Event::Start(Tag::Image {
                        link_type,
                        dest_url,
                        title,
                        id,
                    })
                }
                event => event,
            };
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
        dest: CowStr<'p>,
        title: CowStr<'p>,
    ) -> (CowStr<'p>, CowStr<'p>) {
        let by_reference = matches!(
            link_type,
            LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut
        );
        match self.earlier(label).filter(|_| by_reference) {
            Some(def) => (def.dest.clone().into(), def.title.clone().into()),
            None => (dest, title),
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

/// A place in `(start, limit]` to cut a line longer than a piece: after its last
/// space or tab, else at a character boundary.
fn within_line(text: &str, start: usize, limit: usize) -> usize {
    let bytes = &text.as_bytes()[start..limit];
    match bytes.iter().rposition(|b| matches!(b, b' ' | b'\t')) {
        Some(at) => start + at + 1,
        _ => {
            let mut at = limit;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        }
    }
}

#[cfg(test)]
mod tests;
