//! Obsidian's marks, tested: the exact HTML they become and what a reader's text keeps:
//! comments, highlights, callouts, block ids, math and task lists.

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

#[test]
fn callouts_have_a_type_a_title_and_content() {
    assert_eq!(
        to_html("> [!tip] Where to begin\n> Read the ==notes==.\n", None),
        "<div class=\"callout callout-tip\">\n<div class=\"callout-title\">Where to begin</div>\n\
         <div class=\"callout-content\">\n<p>Read the <mark>notes</mark>.</p>\n</div>\n</div>\n"
    );
    // No title: the type, capitalised; an unknown type is styled as a note.
    assert_eq!(
        to_html("> [!Custom]\n>\n> para\n", None),
        "<div class=\"callout callout-note\">\n<div class=\"callout-title\">Custom</div>\n\
         <div class=\"callout-content\">\n<p>para</p>\n</div>\n</div>\n"
    );
    assert_eq!(
        to_html("> [!info] Just a title\n", None),
        "<div class=\"callout callout-info\">\n<div class=\"callout-title\">Just a title</div>\n\
         <div class=\"callout-content\">\n</div>\n</div>\n"
    );
}

#[test]
fn foldable_callouts_are_details_and_nest() {
    assert_eq!(
        to_html("> [!warning]-\n> Careful.\n", None),
        "<details class=\"callout callout-warning\">\n<summary class=\"callout-title\">Warning</summary>\n\
         <div class=\"callout-content\">\n<p>Careful.</p>\n</div>\n</details>\n"
    );
    assert_eq!(
        to_html(
            "> [!note]+ Outer *title*\n> Text\n> > [!bug] Inner\n> > inside\n",
            None
        ),
        "<details class=\"callout callout-note\" open=\"\">\n\
         <summary class=\"callout-title\">Outer <em>title</em></summary>\n\
         <div class=\"callout-content\">\n<p>Text</p>\n\
         <div class=\"callout callout-bug\">\n<div class=\"callout-title\">Inner</div>\n\
         <div class=\"callout-content\">\n<p>inside</p>\n</div>\n</div>\n</div>\n</details>\n"
    );
}

#[test]
fn plain_quotes_stay_quotes() {
    assert_eq!(
        to_html("> [x] not\n> quote\n\n> plain\n\n> [!a b] no\n", None),
        "<blockquote>\n<p>[x] not\nquote</p>\n</blockquote>\n<blockquote>\n<p>plain</p>\n\
         </blockquote>\n<blockquote>\n<p>[!a b] no</p>\n</blockquote>\n"
    );
    // What the title says is escaped like any text.
    assert_eq!(
        to_html("> [!tip] <script>x</script>\n", None),
        "<div class=\"callout callout-tip\">\n<div class=\"callout-title\">&lt;script&gt;x&lt;/script&gt;</div>\n\
         <div class=\"callout-content\">\n</div>\n</div>\n"
    );
}

#[test]
fn block_ids_are_ids_not_text() {
    assert_eq!(
        to_html(
            "A paragraph. ^abc123\n\n- item one ^Item-1\n- item two\n  - sub ^sub\n\ntext^no and `code ^no`\n",
            None
        ),
        "<p id=\"^abc123\">A paragraph.</p>\n<ul>\n<li id=\"^item-1\">item one</li>\n<li>item two\n\
         <ul>\n<li id=\"^sub\">sub</li>\n</ul>\n</li>\n</ul>\n<p>text^no and <code>code ^no</code></p>\n"
    );
    // Twice the same id: the second is made unique; a heading's id never has `^`.
    assert_eq!(
        to_html("# Intro\n\na ^x\n\nb ^x\n", None),
        "<h1 id=\"intro\">Intro</h1>\n<p id=\"^x\">a</p>\n<p id=\"^x-1\">b</p>\n"
    );
    // The id a link to the block puts after `#` is the block's.
    assert_eq!(crate::ops::links::heading_anchor("^ABC123"), "^abc123");
}

#[test]
fn math_is_mathml_and_errors_are_source() {
    assert_eq!(
        to_html(
            "Energy $E = mc^2$ and\n\n$$\na \\\\ b\n$$\n\nbad $\\frac{a}$ end\n",
            None
        ),
        "<p>Energy <math display=\"inline\"><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></math> and</p>\n\
         <p><math display=\"block\"><mtable><mtr><mtd><mi>a</mi></mtd></mtr><mtr><mtd><mi>b</mi></mtd></mtr></mtable></math></p>\n\
         <p>bad <code class=\"math-source\">\\frac{a}</code> end</p>\n"
    );
    assert_eq!(
        to_html("$\\unknowncommand<b>$\n", None),
        "<p><code class=\"math-source\">\\unknowncommand&lt;b&gt;</code></p>\n"
    );
}

#[test]
fn task_lists_are_disabled_checkboxes() {
    assert_eq!(
        to_html("- [ ] todo\n- [x] done ^t1\n", None),
        "<ul>\n<li><input disabled=\"\" type=\"checkbox\"/>\ntodo</li>\n\
         <li id=\"^t1\"><input disabled=\"\" type=\"checkbox\" checked=\"\"/>\ndone</li>\n</ul>\n"
    );
}

#[test]
fn the_visible_text_has_no_obsidian_marks() {
    assert_eq!(
        visible_text(
            "> [!tip] Where to begin\n> Read ==this==.\n\nPara ^abc\n\nSee ![[x.png]] and ![[y.png|100]] $x^2$ ![[Note]]\n\n- a ^i1\n"
        ),
        "Where to begin\nRead this.\nPara\nSee  and  x^2 Note\na"
    );
    assert_eq!(
        visible_text("> [!warning]-\n> Careful.\n"),
        "Warning\nCareful."
    );
}

#[test]
fn summaries_leave_out_block_ids() {
    assert_eq!(
        crate::render::summary("The garden grows. ^garden\n\nNext ^b2\n", 100),
        "The garden grows. Next"
    );
}

#[test]
fn block_ids_after_code_and_before_callouts() {
    assert_eq!(
        to_html(
            "- ~~~\n  x\n\nAfter ^a\n\n- item ^i\n  > [!note]\n  > inside ^b\n",
            None
        ),
        "<ul>\n<li>\n<pre><code>x\n\n</code></pre>\n</li>\n</ul>\n<p id=\"^a\">After</p>\n<ul>\n\
         <li id=\"^i\">item<div class=\"callout callout-note\">\n<div class=\"callout-title\">Note</div>\n\
         <div class=\"callout-content\">\n<p id=\"^b\">inside</p>\n</div>\n</div>\n</li>\n</ul>\n"
    );
}
