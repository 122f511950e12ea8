//! Obsidian's marks, tested: the exact HTML they become and what a reader's text keeps.

use super::to_html;
use crate::render::visible_text;

#[test]
fn inline_comments_are_hidden() {
    assert_eq!(
        to_html("Seen %%not seen%% and seen.\n", None),
        "<p>Seen  and seen.</p>\n"
    );
    assert_eq!(
        to_html("A %%hidden **bold** [[note]]%% b\n", None),
        "<p>A  b</p>\n"
    );
}

#[test]
fn block_comments_are_hidden_with_their_blocks() {
    assert_eq!(
        to_html(
            "Before\n\n%%\nsecret line\n\n# Secret heading\n\n- secret item\n%%\n\nAfter\n",
            None
        ),
        "<p>Before</p>\n<p>After</p>\n"
    );
    assert_eq!(to_html("%%\nonly a comment\n%%\n", None), "");
}

#[test]
fn a_comment_ending_mid_paragraph_keeps_the_rest() {
    assert_eq!(
        to_html("%%\nhidden\n\nstill hidden%% shown\n", None),
        "<p> shown</p>\n"
    );
}

#[test]
fn comment_marks_in_code_are_text() {
    assert_eq!(
        to_html("`50%%` and\n\n```\n%% kept %%\n```\n", None),
        "<p><code>50%%</code> and</p>\n<pre><code>%% kept %%\n</code></pre>\n"
    );
}

#[test]
fn an_unclosed_comment_hides_the_rest() {
    assert_eq!(
        to_html("Shown\n\n%% hidden\n\nhidden too\n", None),
        "<p>Shown</p>\n"
    );
}

#[test]
fn comments_are_not_in_the_visible_text() {
    assert_eq!(
        visible_text("Seen %%zebra%% text.\n\n%%\nquokka\n\n## Heading\n%%\n\nEnd\n"),
        "Seen  text.\nEnd"
    );
    let mut visible = crate::render::VisibleText::new();
    let split = crate::render::Split::new("a %%zebra%% b\n");
    for piece in split.pieces() {
        for (event, _) in piece.events(&split) {
            visible.push(&event);
        }
    }
    assert_eq!(visible.finish(), "a  b");
}

#[test]
fn highlights_are_marks() {
    assert_eq!(
        to_html("A ==marked **bold**== word and a==b.\n", None),
        "<p>A <mark>marked <strong>bold</strong></mark> word and a==b.</p>\n"
    );
    assert_eq!(
        to_html("==<script>x</script>== and `==code==` and ====\n", None),
        "<p><mark>&lt;script&gt;x&lt;/script&gt;</mark> and <code>==code==</code> and ====</p>\n"
    );
    assert_eq!(
        to_html("**a ==b** c==\n\n==open\n\nnext==\n", None),
        "<p><strong>a ==b</strong> c==</p>\n<p>==open</p>\n<p>next==</p>\n"
    );
}
