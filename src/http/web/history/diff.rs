//! A readable diff of two versions of a note: `similar`'s line diff, grouped into hunks
//! with three lines of context like a unified diff, rendered as an HTML table whose
//! every line is text escaped by `maud` (a `<script>` line in a note shows as text).
//! Each line of the table weighs some 150 bytes of markup, so two versions over
//! `MAX_BYTES` or `MAX_LINES` together are not compared here: the page says so, and
//! where a comparison of any size is made (`notes diff`).

use std::time::Duration;

use maud::{Markup, html};
use similar::{ChangeTag, TextDiff};

/// Lines of unchanged text kept around each change.
const CONTEXT: usize = 3;
/// A diff taking longer than this is finished with coarser hunks rather than waited for.
const TIMEOUT: Duration = Duration::from_secs(1);
/// Bytes of the two versions together past which they are not compared.
pub(super) const MAX_BYTES: u64 = 1024 * 1024;
/// Lines of the two versions together past which they are not compared.
const MAX_LINES: usize = 20_000;

/// Whether versions of `old` and `new` bytes may be compared here (the texts are not
/// even read when they may not).
pub(super) fn fits(old: u64, new: u64) -> bool {
    old.saturating_add(new) <= MAX_BYTES
}

/// What the page shows for two versions too large to compare here.
pub(super) fn too_large(old: u64, new: u64, lines: Option<usize>) -> Markup {
    html! {
        p.meta.too-large role="status" {
            "These versions are too large to compare here ("
            (super::super::views::size(old)) " and " (super::super::views::size(new))
            @if let Some(lines) = lines { ", " (lines) " lines" }
            "; a comparison shows up to " (super::super::views::size(MAX_BYTES))
            " and " (MAX_LINES) " lines of the two together). View each version below, "
            "or compare them in full with " code { "notes diff" } "."
        }
    }
}

/// The diff from `old` to `new`: a summary (`+N −M`) and the hunks, or a sentence
/// saying that the two texts are the same.
pub(in crate::http::web) fn render(old: &str, new: &str) -> Markup {
    if !fits(old.len() as u64, new.len() as u64) {
        return too_large(old.len() as u64, new.len() as u64, None);
    }
    let lines = old.lines().count() + new.lines().count();
    if lines > MAX_LINES {
        return too_large(old.len() as u64, new.len() as u64, Some(lines));
    }
    let diff = TextDiff::configure().timeout(TIMEOUT).diff_lines(old, new);
    let (mut added, mut removed) = (0usize, 0usize);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    if added == 0 && removed == 0 {
        return html! { p.meta.same { "The two versions have the same text." } };
    }
    html! {
        p.meta.summary {
            span.added { "+" (added) } " " span.removed { "−" (removed) }
            " lines"
        }
        div.diff-scroll {
            table.diff {
                @for group in diff.grouped_ops(CONTEXT) {
                    @let first = group.first().map(|op| (op.old_range().start, op.new_range().start));
                    @let (old_at, new_at) = first.unwrap_or_default();
                    tbody {
                        tr.hunk {
                            td colspan="4" { "@@ line " (old_at + 1) " → line " (new_at + 1) " @@" }
                        }
                        @for op in &group {
                            @for change in diff.iter_changes(op) {
                                @let (class, sign) = match change.tag() {
                                    ChangeTag::Insert => ("add", "+"),
                                    ChangeTag::Delete => ("del", "−"),
                                    ChangeTag::Equal => ("ctx", " "),
                                };
                                @let text = change.to_string_lossy();
                                tr class=(class) {
                                    td.num { @if let Some(n) = change.old_index() { (n + 1) } }
                                    td.num { @if let Some(n) = change.new_index() { (n + 1) } }
                                    td.sign aria-hidden="true" { (sign) }
                                    td.text {
                                        @match change.tag() {
                                            ChangeTag::Insert => ins { (text.trim_end_matches(['\n', '\r'])) },
                                            ChangeTag::Delete => del { (text.trim_end_matches(['\n', '\r'])) },
                                            ChangeTag::Equal => (text.trim_end_matches(['\n', '\r'])),
                                        }
                                        @if change.missing_newline() {
                                            span.eof { " (no line break at the end)" }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_and_removed_lines_are_marked_and_escaped() {
        let out = render("a\nold <b>\nc\n", "a\n<script>x()</script>\nc\n").into_string();
        assert!(out.contains("<tr class=\"del\">"), "{out}");
        assert!(out.contains("<del>old &lt;b&gt;</del>"), "{out}");
        assert!(
            out.contains("<ins>&lt;script&gt;x()&lt;/script&gt;</ins>"),
            "{out}"
        );
        assert!(!out.contains("<script>"), "{out}");
        assert!(
            out.contains("+1</span> <span class=\"removed\">−1"),
            "{out}"
        );
    }

    #[test]
    fn far_apart_changes_are_separate_hunks_and_equal_texts_say_so() {
        let old: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let new = old
            .replace("line 2\n", "line two\n")
            .replace("line 28\n", "");
        let out = render(&old, &new).into_string();
        assert_eq!(out.matches("class=\"hunk\"").count(), 2, "{out}");
        assert!(!out.contains("line 15"), "{out}");
        assert!(render(&old, &old).into_string().contains("the same text"));
    }

    #[test]
    fn versions_past_the_limits_are_not_compared() {
        let many: String = (0..MAX_LINES).map(|n| format!("{n}\n")).collect();
        let out = render("a\n", &many).into_string();
        assert!(out.contains("too large to compare"), "{out}");
        assert!(!out.contains("<table"), "{out}");
        let big = "x".repeat(MAX_BYTES as usize);
        let out = render("a\n", &big).into_string();
        assert!(out.contains("too large to compare"), "{out}");
        assert!(out.len() < 1024, "{out}");
        assert!(render("a\n", "b\n").into_string().contains("<table"));
    }
}
