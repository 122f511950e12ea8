//! Where a long text is cut: a window of it parsed at a time, the cut before the last
//! block of the window's top level that starts after a blank line, else inside a block
//! too long for a piece; and the definitions each piece holds.

use std::collections::HashSet;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use super::{Cut, Definition, Piece, Split, label_key};

impl Split<'_> {
    /// Finds the cuts, a window of `size` bytes at a time, and the definitions of
    /// each piece.
    pub(super) fn cut(&mut self, size: usize) {
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
        let parser = Parser::new_ext(&window.text, crate::render::options());
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
