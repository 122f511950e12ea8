//! Paths, titles and names as the command line prints them: control characters shown
//! as visible escapes, so a name cannot move the cursor, retitle the terminal or start
//! a row of its own.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every character a terminal would act on instead of showing written as
/// an escape: `\n`, `\r` and `\t`, then `\u{1b}`-style for the rest of C0, DEL, C1,
/// the line and paragraph separators and the bidirectional controls (which reorder
/// what follows them on the line). Borrowed when there is nothing to escape.
pub(crate) fn text(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether a terminal would act on `c` rather than show it, or reorder the text after
/// it: the C0 and C1 controls and DEL (`char::is_control`), U+2028 and U+2029, and the
/// bidirectional marks, embeddings, overrides and isolates.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(text("notes/été ✓.md"), Cow::Borrowed(_)));
        assert_eq!(text(""), "");
    }

    #[test]
    fn controls_are_visible_escapes() {
        assert_eq!(text("a\u{1b}]0;pwned\u{7}b"), "a\\u{1b}]0;pwned\\u{7}b");
        assert_eq!(text("one\ntwo\r\tx"), "one\\ntwo\\r\\tx");
        assert_eq!(text("\u{7f}\u{85}\u{9b}"), "\\u{7f}\\u{85}\\u{9b}");
        assert_eq!(text("abc\u{202e}fdp.exe"), "abc\\u{202e}fdp.exe");
        assert_eq!(
            text("\u{2066}x\u{2069}\u{2028}"),
            "\\u{2066}x\\u{2069}\\u{2028}"
        );
        // Nothing escaped is left that a terminal acts on.
        let all: String = (0u32..0x2070).filter_map(char::from_u32).collect();
        assert!(!text(&all).chars().any(needs_escape));
    }
}
