//! The linear pre-scan of a front matter: how deeply its collections nest and whether it
//! uses aliases, decided before the YAML parser sees the text (whose cost grows with the
//! square of the flow nesting depth).
//!
//! The scan follows the YAML scanner's own rules for what is a token start, a quoted
//! scalar, a comment and a block scalar, and where it cannot be sure it counts brackets
//! rather than skip them: it may overestimate a depth, never underestimate one the
//! parser would reach.

/// What the scan found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Shape {
    /// The deepest nesting of collections (block and flow), up to the first level past
    /// the limit the scan was given: it stops there.
    pub(crate) depth: usize,
    /// How many aliases (`*name`) the text uses.
    pub(crate) aliases: usize,
    /// Bytes looked at plus entries pushed and popped: the work done.
    pub(crate) steps: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A block sequence (`- `).
    Seq,
    /// A block mapping (a `key: ` or `? ` was seen at this column).
    Map,
    /// Content at this column not known to be a collection (a scalar so far).
    Node,
}

#[derive(Debug, Clone, Copy)]
struct Block {
    indent: usize,
    kind: Kind,
}

/// Where the scan stands inside a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// At the start of a token: quotes, brackets, anchors, tags and block scalars begin here.
    Start,
    /// Inside a plain scalar.
    Plain,
    /// Just after a complete node (quoted scalar, alias, closed flow collection).
    After,
    /// Unsure what the parser sees: brackets count, nothing is skipped.
    Loose,
}

/// A block scalar (`|`, `>`) whose lines are being skipped.
#[derive(Debug, Clone, Copy)]
struct BlockScalar {
    /// Indentation of its content, once known.
    indent: Option<usize>,
    /// The innermost collection's column (-1 at top level).
    parent: isize,
    /// The explicit indentation indicator (`|2`), if any.
    explicit: Option<usize>,
    /// Spaces of the longest blank line before the first content line.
    leading: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    Single,
    Double,
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    limit: usize,
    shape: Shape,
    blocks: Vec<Block>,
    /// Block collections (not `Node`s) in `blocks`.
    collections: usize,
    flow: usize,
    mode: Mode,
    quote: Option<Quote>,
    block_scalar: Option<BlockScalar>,
    /// A plain scalar in block context reached the end of the last content line, so a
    /// more indented line continues it.
    plain_open: bool,
}

/// Scans `yaml` (the text between the `---` lines), stopping as soon as the nesting
/// goes past `limit`.
pub(crate) fn shape(yaml: &str, limit: usize) -> Shape {
    let mut scanner = Scanner {
        bytes: yaml.as_bytes(),
        pos: 0,
        limit,
        shape: Shape::default(),
        blocks: Vec::new(),
        collections: 0,
        flow: 0,
        mode: Mode::Start,
        quote: None,
        block_scalar: None,
        plain_open: false,
    };
    scanner.run();
    scanner.shape
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn is_break(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// The characters of an anchor or alias name.
fn is_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// The characters of a tag (without `<…>`), as the YAML scanner takes them.
fn is_tag(b: u8) -> bool {
    is_name(b) || b";/?:@&=+$.%!~*'()".contains(&b)
}

impl Scanner<'_> {
    fn over(&self) -> bool {
        self.shape.depth > self.limit
    }

    fn peek(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    /// Whether the byte at `at` is a blank, a line break or the end.
    fn blankz(&self, at: usize) -> bool {
        self.peek(at).is_none_or(|b| is_blank(b) || is_break(b))
    }

    fn depth_now(&self) -> usize {
        self.collections + self.flow
    }

    fn deeper(&mut self) {
        self.shape.depth = self.shape.depth.max(self.depth_now());
    }

    fn push(&mut self, indent: usize, kind: Kind) {
        self.shape.steps += 1;
        self.blocks.push(Block { indent, kind });
        if kind != Kind::Node {
            self.collections += 1;
            self.deeper();
        }
    }

    fn pop(&mut self) {
        self.shape.steps += 1;
        if let Some(block) = self.blocks.pop()
            && block.kind != Kind::Node
        {
            self.collections -= 1;
        }
    }

    /// The top entry becomes a mapping (a `key: ` was seen on its line).
    fn mark_map(&mut self) {
        if let Some(top) = self.blocks.last_mut()
            && top.kind == Kind::Node
        {
            top.kind = Kind::Map;
            self.collections += 1;
            self.deeper();
        }
    }

    /// The column of the innermost block collection, as the YAML scanner's indentation.
    fn parent_indent(&self) -> isize {
        self.blocks
            .iter()
            .rev()
            .find(|b| b.kind != Kind::Node)
            .map_or(-1, |b| b.indent as isize)
    }

    fn run(&mut self) {
        while self.pos < self.bytes.len() && !self.over() {
            self.line();
        }
    }

    /// One line, from `pos` to after its line break.
    fn line(&mut self) {
        let start = self.pos;
        let end = self.bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.bytes.len(), |i| start + i);
        self.shape.steps += end - start + 1;
        if self.quote.is_some() || self.flow > 0 {
            self.inline(start, end);
        } else {
            self.block_line(start, end);
        }
        self.pos = (end + 1).min(self.bytes.len());
    }

    fn block_line(&mut self, start: usize, end: usize) {
        let indent = self.bytes[start..end]
            .iter()
            .take_while(|&&b| b == b' ')
            .count();
        self.shape.steps += indent;
        let first = start + indent;
        let blank = self.bytes[first..end].iter().all(|&b| b == b'\r');
        if let Some(scalar) = self.block_scalar.as_mut() {
            if blank {
                scalar.leading = scalar.leading.max(indent);
                return;
            }
            let needed = match (scalar.indent, scalar.explicit) {
                (Some(known), _) => known,
                (None, Some(n)) => (scalar.parent.max(0) as usize) + n,
                (None, None) => {
                    let floor = (scalar.parent + 1).max(1) as usize;
                    let detected = indent.max(scalar.leading).max(floor);
                    scalar.indent = Some(detected);
                    detected
                }
            };
            if indent >= needed {
                scalar.indent = Some(needed);
                return;
            }
            self.block_scalar = None;
        }
        if blank {
            return;
        }
        let lead = self.bytes[first];
        if lead == b'#' {
            self.plain_open = false;
            return;
        }
        if indent == 0 && self.document_marker(first) {
            self.plain_open = false;
            while !self.blocks.is_empty() {
                self.pop();
            }
            self.mode = Mode::Start;
            self.inline(first + 3, end);
            return;
        }
        if self.plain_open && indent as isize > self.parent_indent() {
            // The plain scalar of an earlier line goes on.
            self.mode = Mode::Plain;
            self.inline(first, end);
            return;
        }
        self.plain_open = false;
        while self.blocks.last().is_some_and(|b| b.indent > indent) {
            self.pop();
        }
        let mut col = indent;
        let mut at = first;
        let mut line_start = true;
        loop {
            let Some(b) = self.peek(at).filter(|_| at < end) else {
                self.mode = Mode::Start;
                return;
            };
            let indicator = matches!(b, b'-' | b'?' | b':') && self.blankz(at + 1);
            if !indicator {
                break;
            }
            match b {
                b'-' => match self.blocks.last() {
                    Some(top) if top.indent == col && top.kind == Kind::Seq => {}
                    Some(top) if top.indent == col && top.kind == Kind::Node => {
                        // A dash under a scalar of the same column: the scalar is done.
                        self.pop();
                        self.open_seq(col);
                    }
                    _ => self.open_seq(col),
                },
                _ => match self.blocks.last() {
                    Some(top) if top.indent == col => self.mark_map(),
                    _ => self.push(col, Kind::Map),
                },
            }
            if self.over() {
                return;
            }
            line_start = false;
            at += 1;
            col += 1;
            while at < end && is_blank(self.bytes[at]) {
                at += 1;
                col += 1;
                self.shape.steps += 1;
            }
        }
        if line_start
            && let Some(top) = self.blocks.last()
            && top.indent == col
            && top.kind == Kind::Seq
        {
            // Content at the column of a sequence that is not an entry ends it.
            self.pop();
        }
        match self.blocks.last() {
            Some(top) if top.indent == col => {}
            _ => self.push(col, Kind::Node),
        }
        self.mode = Mode::Start;
        self.inline(at, end);
    }

    fn open_seq(&mut self, col: usize) {
        self.push(col, Kind::Seq);
    }

    /// `---` or `...` at the start of a line, followed by a blank or the end.
    fn document_marker(&self, at: usize) -> bool {
        let marker = self.bytes.get(at..at + 3);
        (marker == Some(b"---") || marker == Some(b"...")) && self.blankz(at + 3)
    }
}

mod inline;

#[cfg(test)]
mod tests;
