//! The scan inside a line: quoted scalars, flow brackets, anchors, aliases and tags,
//! byte by byte in block and in flow context.

use super::*;

impl Scanner<'_> {
    /// The rest of a line from `at`, in the current mode and context.
    pub(super) fn inline(&mut self, mut at: usize, end: usize) {
        let mut prev_blank = at == 0 || self.bytes.get(at - 1).is_none_or(|&b| is_blank(b));
        // Inside flow collections or a continued plain scalar, a line break is blank.
        if self.quote.is_none() && at > 0 && self.bytes.get(at - 1) == Some(&b'\n') {
            prev_blank = true;
        }
        while at < end {
            if self.over() {
                return;
            }
            self.shape.steps += 1;
            let b = self.bytes[at];
            if let Some(quote) = self.quote {
                at = self.in_quote(quote, at, end);
                prev_blank = false;
                continue;
            }
            if is_blank(b) || b == b'\r' {
                prev_blank = true;
                at += 1;
                continue;
            }
            let after_blank = prev_blank;
            prev_blank = false;
            if b == b'#' && (after_blank || self.mode == Mode::Start) {
                // A comment: the rest of the line.
                if self.flow == 0 {
                    self.plain_open = false;
                }
                return;
            }
            if self.flow > 0 {
                at = self.flow_byte(b, at, end);
            } else {
                at = self.block_byte(b, at, end);
            }
        }
        if self.flow == 0 && self.quote.is_none() {
            self.plain_open = self.mode == Mode::Plain;
        }
    }

    /// Skips through a quoted scalar; returns where to go on.
    fn in_quote(&mut self, quote: Quote, mut at: usize, end: usize) -> usize {
        while at < end {
            self.shape.steps += 1;
            let b = self.bytes[at];
            match quote {
                Quote::Double if b == b'\\' => {
                    at += 2;
                    continue;
                }
                Quote::Double if b == b'"' => {
                    self.quote = None;
                    self.mode = Mode::After;
                    return at + 1;
                }
                Quote::Single if b == b'\'' => {
                    if self.peek(at + 1) == Some(b'\'') {
                        at += 2;
                        continue;
                    }
                    self.quote = None;
                    self.mode = Mode::After;
                    return at + 1;
                }
                _ => at += 1,
            }
        }
        at
    }

    fn open_flow(&mut self) {
        self.flow += 1;
        self.deeper();
        self.mode = Mode::Start;
    }

    fn close_flow(&mut self) {
        self.flow = self.flow.saturating_sub(1);
        self.mode = Mode::After;
    }

    /// Anchors, tags and aliases at a token start; returns where to go on, or `None`.
    fn properties(&mut self, b: u8, at: usize) -> Option<usize> {
        match b {
            b'&' | b'*' => {
                let mut next = at + 1;
                while self.peek(next).is_some_and(is_name) {
                    next += 1;
                }
                self.shape.steps += next - at;
                if b == b'*' {
                    self.shape.aliases += 1;
                    self.mode = Mode::After;
                }
                Some(next)
            }
            b'!' => {
                let mut next = at + 1;
                if self.peek(next) == Some(b'<') {
                    while self
                        .peek(next)
                        .is_some_and(|c| is_tag(c) || matches!(c, b'<' | b',' | b'[' | b']'))
                    {
                        next += 1;
                        if self.peek(next - 1) == Some(b'>') {
                            break;
                        }
                    }
                } else {
                    while self.peek(next).is_some_and(is_tag) {
                        next += 1;
                    }
                }
                self.shape.steps += next - at;
                Some(next)
            }
            _ => None,
        }
    }

    fn block_byte(&mut self, b: u8, at: usize, end: usize) -> usize {
        match self.mode {
            Mode::Start => {
                if let Some(next) = self.properties(b, at) {
                    return next;
                }
                match b {
                    b'[' | b'{' => self.open_flow(),
                    b'"' => self.quote = Some(Quote::Double),
                    b'\'' => self.quote = Some(Quote::Single),
                    b'|' | b'>' => {
                        self.block_scalar = Some(BlockScalar {
                            indent: None,
                            parent: self.parent_indent(),
                            // The header: `|` or `>`, then at most a digit and a `+`/`-`.
                            explicit: self.bytes[at + 1..end.min(at + 3)]
                                .iter()
                                .find(|c| matches!(c, b'1'..=b'9'))
                                .map(|c| usize::from(c - b'0')),
                            leading: 0,
                        });
                        self.mode = Mode::After;
                        self.shape.steps += end - at;
                        return end;
                    }
                    _ => self.mode = Mode::Plain,
                }
            }
            Mode::Plain | Mode::After => {
                if b == b':' && self.blankz(at + 1) {
                    self.mark_map();
                    self.mode = Mode::Start;
                } else if self.mode == Mode::After {
                    self.mode = Mode::Loose;
                    return self.block_byte(b, at, end);
                }
            }
            Mode::Loose => match b {
                b'[' | b'{' => {
                    self.flow += 1;
                    self.deeper();
                }
                b']' | b'}' => self.flow = self.flow.saturating_sub(1),
                b':' if self.blankz(at + 1) => {
                    self.mark_map();
                    self.mode = Mode::Start;
                }
                _ => {}
            },
        }
        at + 1
    }

    fn flow_byte(&mut self, b: u8, at: usize, _end: usize) -> usize {
        match b {
            b'[' | b'{' => {
                self.open_flow();
                return at + 1;
            }
            b']' | b'}' => {
                self.close_flow();
                return at + 1;
            }
            b',' => {
                self.mode = Mode::Start;
                return at + 1;
            }
            _ => {}
        }
        match self.mode {
            Mode::Start => {
                if let Some(next) = self.properties(b, at) {
                    return next;
                }
                match b {
                    b'"' => self.quote = Some(Quote::Double),
                    b'\'' => self.quote = Some(Quote::Single),
                    b'?' | b':' if self.blankz(at + 1) => {}
                    b':' => {}
                    _ => self.mode = Mode::Plain,
                }
            }
            Mode::Plain => {
                let ends = self
                    .peek(at + 1)
                    .is_none_or(|c| is_blank(c) || is_break(c) || b",?[]{}".contains(&c));
                if b == b':' && ends {
                    self.mode = Mode::Start;
                }
            }
            Mode::After => {
                if b == b':' {
                    self.mode = Mode::Start;
                } else {
                    self.mode = Mode::Loose;
                }
            }
            Mode::Loose => {}
        }
        at + 1
    }
}
