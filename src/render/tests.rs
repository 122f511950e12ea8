//! The renderer's promises, tested: the HTML each construct becomes, links between
//! notes, ids, the plain-text readings, and generated hostile Markdown that never gets
//! past the allow-list.

use super::*;

/// A body rendered on a page where no link between notes leads anywhere.
fn to_html(markdown: &str, skip_title: Option<&str>) -> String {
    super::to_html(markdown, skip_title, &Unlinked)
}

/// A page that knows a few notes: `note` (with a heading), a missing `gone` that can
/// be made, a `private` one that may not be linked to, a file `pic.png`.
struct Fixed;

impl LinkPlaces for Fixed {
    fn place(&self, _: LinkForm, dest: &str) -> Place {
        match dest {
            "note" | "note.md" => Place::Note {
                href: "/note/note.md".into(),
                title: "The <Note>".into(),
            },
            "note#Part two" => Place::Note {
                href: "/note/note.md#part-two".into(),
                title: "The <Note>".into(),
            },
            "gone" => Place::Missing {
                href: Some("/new?path=gone.md".into()),
            },
            "private" | "private.md" => Place::Missing { href: None },
            "pic.png" => Place::File {
                href: "pic.png".into(),
            },
            _ => Place::AsWritten,
        }
    }
}

/// A page whose answers are made of the link's own destination, as a careless page
/// might: whatever it answers, the output keeps to the allow-list.
struct Echo;

impl LinkPlaces for Echo {
    fn place(&self, _: LinkForm, dest: &str) -> Place {
        match dest.len() % 5 {
            0 => Place::Note {
                href: dest.to_string(),
                title: dest.to_string(),
            },
            1 => Place::Missing {
                href: Some(dest.to_string()),
            },
            2 => Place::Missing { href: None },
            3 => Place::File {
                href: dest.to_string(),
            },
            _ => Place::AsWritten,
        }
    }
}

#[test]
fn extensions_are_on() {
    let html = to_html(
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~\n\n- [x] done\n- [ ] todo\n\nNote[^1].\n\n[^1]: The footnote.\n",
        None,
    );
    assert!(html.contains("<table>"), "{html}");
    assert!(html.contains("<del>old</del>"), "{html}");
    assert!(
        html.contains(r#"<input disabled="" type="checkbox" checked=""/>"#),
        "{html}"
    );
    assert!(html.contains("footnote-definition"), "{html}");
}

#[test]
fn raw_html_is_shown_as_text() {
    let html = to_html(
        "<script>alert(1)</script>\n\nhi <b onclick=\"x\">there</b>\n",
        None,
    );
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<b "), "{html}");
    assert!(
        html.starts_with("<pre><code>&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>"),
        "{html}"
    );
    assert!(
        html.contains("<p>hi &lt;b onclick=\"x\"&gt;there&lt;/b&gt;</p>"),
        "{html}"
    );
}

#[test]
fn scripting_links_are_neutralised() {
    let html = to_html(
        "[a](javascript:alert(1)) [b](JaVaScript:x) [h](<java\tscript:x>) ![c](data:text/html,x) \
         [d](https://e.org/x:y) [e](rel/x.md) [f](mailto:a@b.c) [g](#top)\n",
        None,
    );
    assert!(!html.to_lowercase().contains("script:"), "{html}");
    assert!(!html.contains("data:"), "{html}");
    assert!(
        html.contains(r#"<a href="https://e.org/x:y">d</a>"#),
        "{html}"
    );
    assert!(html.contains(r#"<a href="rel/x.md">e</a>"#), "{html}");
    assert!(html.contains(r#"<a href="mailto:a@b.c">f</a>"#), "{html}");
    assert!(html.contains(r##"<a href="#top">g</a>"##), "{html}");
    assert_eq!(html.matches(r##"href="#""##).count(), 3, "{html}");
    assert!(html.contains(r##"<img src="#""##), "{html}");
}

#[test]
fn headings_get_unique_ids() {
    let html = to_html(
        "## Été à Paris!\n\n## Été à Paris\n\n## Named {#custom}\n\n## Custom\n\n## Named custom\n",
        None,
    );
    assert!(html.contains(r#"<h2 id="été-à-paris">"#), "{html}");
    assert!(html.contains(r#"<h2 id="été-à-paris-1">"#), "{html}");
    // An attribute block is text like any other: the id is still ours.
    assert!(
        html.contains(r#"<h2 id="named-custom">Named {#custom}</h2>"#),
        "{html}"
    );
    assert!(html.contains(r#"<h2 id="custom">Custom</h2>"#), "{html}");
    assert!(
        html.contains(r#"<h2 id="named-custom-1">Named custom</h2>"#),
        "{html}"
    );
}

#[test]
fn a_leading_title_heading_is_not_repeated() {
    assert_eq!(to_html("# Hello\n\nText\n", Some("Hello")), "<p>Text</p>\n");
    assert!(to_html("# Other\n\nText\n", Some("Hello")).contains("<h1"));
    assert!(to_html("Intro\n\n# Hello\n", Some("Hello")).contains("<h1"));
}

#[test]
fn summaries_are_plain_text_cut_at_a_word() {
    let md =
        "# Title\n\nSome *emphasis* and `code`.\n\n```\nskipped()\n```\n\nSecond paragraph here.\n";
    assert_eq!(
        summary(md, 200),
        "Some emphasis and code. Second paragraph here."
    );
    assert_eq!(summary(md, 20), "Some emphasis and…");
    assert_eq!(
        summary("<div>\nhidden\n</div>\n\nshown <b>bold</b>\n", 40),
        "shown bold"
    );
}

#[test]
fn summaries_keep_blocks_apart() {
    let md = "Dough:\n\n- 500 g flour\n- 350 g water\n- 100 g starter\n\n\
              | a | b |\n|---|---|\n| one | two |\n\n> quoted\n\nEnd.";
    assert_eq!(
        summary(md, 200),
        "Dough: 500 g flour 350 g water 100 g starter a b one two quoted End."
    );
    // Inline marks join no words and split none.
    assert_eq!(
        summary("un*break*able [li**nk**](x.html)", 50),
        "unbreakable link"
    );
    assert_eq!(
        summary("line one\nline two  \nthree", 50),
        "line one line two three"
    );
    assert_eq!(summary("- [x] done\n- [ ] open", 50), "done open");
}

#[test]
fn visible_text_is_what_a_reader_sees() {
    let md = "# Tokio\n\nAn *async* runtime, see [the docs](https://docs.rs/tokio) \
              and ![diagram of tasks](img/tasks.png).[^1]\n\n\
              ```rust\nfn main() {}\n```\n\n- one\n- two\n\n[^1]: A footnote.\n";
    assert_eq!(
        visible_text(md),
        "Tokio\nAn async runtime, see the docs and diagram of tasks.\n\
         fn main() {}\none\ntwo\nA footnote."
    );
    // Raw HTML is shown as text on the page, so it is text here too.
    assert_eq!(visible_text("a <b>bold</b> move"), "a <b>bold</b> move");
    assert_eq!(visible_text(""), "");
}

mod checker;
mod hostile;
mod links;
mod obsidian;

use checker::violations;

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    #[test]
    fn hostile_markdown_renders_only_allowed_html(
        markdown in hostile::markdown(),
        skip in proptest::prelude::any::<bool>(),
    ) {
        let html = to_html(&markdown, skip.then_some("text"));
        let found = violations(&html);
        proptest::prop_assert!(found.is_empty(), "{found:?}\nmarkdown: {markdown:?}\nhtml: {html}");
    }

    #[test]
    fn hostile_links_render_only_allowed_html_whatever_the_page_answers(
        markdown in hostile::markdown(),
    ) {
        for places in [&Echo as &dyn LinkPlaces, &Fixed] {
            let html = super::to_html(&markdown, None, places);
            let found = violations(&html);
            proptest::prop_assert!(found.is_empty(), "{found:?}\nmarkdown: {markdown:?}\nhtml: {html}");
        }
    }

    #[test]
    fn a_text_cut_between_blocks_renders_as_it_does_whole(
        blocks in proptest::collection::vec(hostile::markdown(), 2..6),
        size in 48usize..400,
    ) {
        // References and footnotes defined far from where they are used.
        let markdown = format!(
            "See [far][f], [f] and[^far].\n\n{}\n\n[f]: https://far.example/ \"T\"\n\n[^far]: Far.\n",
            blocks.join("\n\nBetween.\n\n")
        );
        for places in [&Echo as &dyn LinkPlaces, &Fixed] {
            let whole = super::to_html(&markdown, Some("text"), places);
            let split = pieces::Split::with_size(&markdown, size);
            let mut cut = String::new();
            html::write_split(&split, Some("text"), places, &mut cut).unwrap();
            if split.is_clean() {
                proptest::prop_assert_eq!(&cut, &whole, "markdown: {:?}", markdown);
            }
            let found = violations(&cut);
            proptest::prop_assert!(found.is_empty(), "{found:?}\nmarkdown: {markdown:?}\nhtml: {cut}");
        }
    }
}

#[test]
fn a_long_text_is_rendered_in_pieces_as_it_reads_whole() {
    let block = "## Part\n\nSome *text*[^n] with [a link][r] and [[note]].\n\n- one\n- two\n\n";
    let markdown = format!(
        "{}[r]: https://example.org\n\n[^n]: The note.\n",
        block.repeat(40)
    );
    let whole = super::to_html(&markdown, None, &Fixed);
    let split = pieces::Split::with_size(&markdown, 256);
    assert!(split.is_clean());
    let mut cut = String::new();
    html::write_split(&split, None, &Fixed, &mut cut).unwrap();
    assert_eq!(cut, whole);
    assert!(cut.contains(r##"<sup class="footnote-reference"><a href="#fn-n">1</a></sup>"##));
    assert!(cut.contains(r#"<a href="https://example.org">a link</a>"#));
    assert!(cut.contains(r#"<h2 id="part-39">"#));
}

#[test]
fn the_checker_sees_what_it_must_refuse() {
    for bad in [
        r#"<h1 id="hi" autofocus="" onfocus="alert(1)">x</h1>"#,
        r#"<table><tr><td style="text-align: center">x</td></tr></table>"#,
        r#"<a href="javascript:alert(1)">x</a>"#,
        r#"<a href=" JAVA&#9;SCRIPT:alert(1)">x</a>"#,
        r#"<img src="data:image/svg+xml,x">"#,
        r#"<a href="data:image/png;base64,AAAA">x</a>"#,
        r#"<h2 id="a b">x</h2>"#,
        r#"<h2 id="a">x</h2><h2 id="a">y</h2>"#,
        r#"<div class="footnote-definition" id="evil">x</div>"#,
        r#"<code class="language-x y">x</code>"#,
        "<script>x</script>",
        r#"<p title="x">y</p>"#,
    ] {
        assert!(!violations(bad).is_empty(), "{bad}");
    }
    assert!(violations(r#"<img src="data:image/png;base64,AAAA" alt="a">"#).is_empty());
    assert!(violations(r##"<a href="#fn-1">1</a><a href="rel/x:y">r</a>"##).is_empty());
}

#[test]
fn heading_attributes_stay_text() {
    let html = to_html("# Hi {autofocus onfocus=alert(document.domain)}\n", None);
    assert_eq!(
        html,
        "<h1 id=\"hi-autofocus-onfocus-alert-document-domain\">Hi {autofocus onfocus=alert(document.domain)}</h1>\n"
    );
    let html = to_html("## A {#evil .pwn style=color:red}\n", None);
    assert_eq!(
        html,
        "<h2 id=\"a-evil-pwn-style-color-red\">A {#evil .pwn style=color:red}</h2>\n"
    );
}

#[test]
fn table_alignment_is_a_class() {
    let html = to_html(
        "| a | b | c | d |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |\n",
        None,
    );
    assert_eq!(
        html,
        "<table><thead><tr><th class=\"align-left\">a</th><th class=\"align-center\">b</th>\
         <th class=\"align-right\">c</th><th>d</th></tr></thead><tbody>\n\
         <tr><td class=\"align-left\">1</td><td class=\"align-center\">2</td>\
         <td class=\"align-right\">3</td><td>4</td></tr>\n</tbody></table>\n"
    );
    assert!(!html.contains("style"), "{html}");
}

#[test]
fn footnote_ids_are_made_from_their_labels() {
    let html = to_html(
        "One[^\"><b onclick=x>] two[^fn 1] three[^A].\n\n\
         [^\"><b onclick=x>]: First.\n[^fn 1]: Second.\n[^a]: Third.\n[^A]: Again.\n\n## Fn note\n",
        None,
    );
    assert!(
        html.contains(r##"<a href="#fn-b-onclick-x">1</a>"##),
        "{html}"
    );
    assert!(html.contains(r#"id="fn-b-onclick-x""#), "{html}");
    assert!(html.contains(r##"<a href="#fn-fn-1">2</a>"##), "{html}");
    assert!(html.contains(r##"<a href="#fn-a">3</a>"##), "{html}");
    assert!(
        html.contains(r#"<div class="footnote-definition" id="fn-a">"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<div class="footnote-definition" id="fn-a-1">"#),
        "{html}"
    );
    assert!(html.contains(r#"<h2 id="fn-note">"#), "{html}");
    assert!(!html.contains("onclick=x>"), "{html}");
    assert!(violations(&html).is_empty(), "{html}");
}

#[test]
fn code_languages_are_cut_to_a_class_name() {
    let html = to_html(
        "```\"><img onerror=x>\nx\n```\n\n```c# extra\ny\n```\n\n```\"\nz\n```\n",
        None,
    );
    assert!(
        html.contains(r#"<pre><code class="language-img">x"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<pre><code class="language-c#">y"#),
        "{html}"
    );
    assert!(html.contains("<pre><code>z"), "{html}");
    assert!(violations(&html).is_empty(), "{html}");
}

#[test]
fn raster_data_images_stay_and_other_data_goes() {
    let html = to_html(
        "![a](data:image/png;base64,iVBORw0KGgo=) ![b](data:image/svg+xml,<svg>) \
         [c](data:image/png;base64,iVBORw0KGgo=) ![d](DATA:image/webp,x)\n",
        None,
    );
    assert!(
        html.contains(r#"<img src="data:image/png;base64,iVBORw0KGgo=" alt="a" />"#),
        "{html}"
    );
    assert!(html.contains(r##"<img src="#" alt="b" />"##), "{html}");
    assert!(html.contains(r##"<a href="#">c</a>"##), "{html}");
    assert!(
        html.contains(r#"<img src="DATA:image/webp,x" alt="d" />"#),
        "{html}"
    );
    assert!(violations(&html).is_empty(), "{html}");
}

#[test]
fn many_repeated_ids_cost_linear_time() {
    // 20 000 headings of one text and definitions of one footnote label: each gets
    // its own id without scanning the ones before it.
    let md = "## Same\n\nText[^n].\n\n[^n]: Note.\n\n".repeat(20_000);
    let started = std::time::Instant::now();
    let html = to_html(&md, None);
    let took = started.elapsed();
    assert!(html.contains(r#"<h2 id="same-19999">"#));
    assert!(html.contains(r#"id="fn-n-19999""#));
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
}
