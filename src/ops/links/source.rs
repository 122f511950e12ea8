//! Where things are in a note's text: the bytes of a link's target (the parser gives
//! the target's text but not its place, and a move must replace exactly those bytes),
//! and the line of a byte.

use std::ops::Range;

/// The target of an inline link `[label](target "title")`: it follows the first `](`
/// after the label, which ends at `label_end`. The parser gives the target's text but
/// not where it is, and a move must replace exactly those bytes.
pub(super) fn inline_dest(body: &str, label_end: usize, link_end: usize) -> Option<Range<usize>> {
    let window = body.get(label_end..link_end)?;
    let open = label_end + window.find("](")? + 2;
    destination_at(body, open, link_end)
}

/// The target of a reference definition `[label]: target "title"` spanning `span`.
pub(super) fn definition_dest(body: &str, span: Range<usize>) -> Option<Range<usize>> {
    let window = body.get(span.clone())?;
    let colon = span.start + window.find("]:")? + 2;
    destination_at(body, colon, span.end)
}

/// A CommonMark link destination starting after blanks at `from`: `<…>` (its inside) or
/// a run of non-blank characters with balanced parentheses.
fn destination_at(body: &str, from: usize, limit: usize) -> Option<Range<usize>> {
    let bytes = body.as_bytes();
    let limit = limit.min(bytes.len());
    let mut i = from;
    while i < limit && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    if bytes.get(i) == Some(&b'<') {
        let inside = i + 1;
        let close = body.get(inside..limit)?.find('>')?;
        return Some(inside..inside + close);
    }
    let start = i;
    let mut depth = 0usize;
    while i < limit {
        match bytes[i] {
            b'\\' if bytes.get(i + 1).is_some_and(u8::is_ascii_punctuation) => i += 1,
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            byte if byte.is_ascii_whitespace() || byte.is_ascii_control() => break,
            _ => {}
        }
        i += 1;
    }
    (i > start).then_some(start..i)
}

/// Byte offset → 1-based line number.
pub(super) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(super) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    pub(super) fn line_of(&self, offset: usize) -> u32 {
        let line = self.starts.partition_point(|&start| start <= offset);
        u32::try_from(line).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_plain_bracketed_and_with_parentheses() {
        let body = "[a](x.md \"t\") [b]( <a b.md> ) [c](w(1)\\).md) [d](<open";
        let find = |from: &str| {
            let at = body.find(from).unwrap();
            inline_dest(body, at, body.len()).map(|r| &body[r])
        };
        assert_eq!(find("a]"), Some("x.md"));
        assert_eq!(find("b]"), Some("a b.md"));
        assert_eq!(find("c]"), Some("w(1)\\).md"));
        assert_eq!(find("d]"), None);
    }

    #[test]
    fn definitions_and_lines() {
        let body = "[r]:\n   <a b.md> \"t\"\n";
        assert_eq!(
            definition_dest(body, 0..body.len()).map(|r| &body[r]),
            Some("a b.md")
        );
        let lines = LineIndex::new("a\nb\n\nc");
        assert_eq!(
            [0, 1, 2, 3, 4, 5].map(|i| lines.line_of(i)),
            [1, 1, 2, 2, 3, 4]
        );
    }
}
