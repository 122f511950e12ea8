//! Links between notes and embeds: where the page says they lead, what a missing or
//! hostile one becomes, and the cap on embeds.

use super::super::links::{MAX_EMBEDS, wiki_label};
use super::*;

#[test]
fn wikilinks_show_their_label_and_go_where_the_page_says() {
    let html = crate::render::to_html(
        "[[note]], [[note|the *label*]], [[note#Part two]] and [[#Part two]].\n",
        None,
        &Fixed,
    );
    assert_eq!(
        html,
        "<p><a href=\"/note/note.md\">note</a>, \
         <a href=\"/note/note.md\">the <em>label</em></a>, \
         <a href=\"/note/note.md#part-two\">note &gt; Part two</a> and Part two.</p>\n"
    );
    assert!(violations(&html).is_empty(), "{html}");
}

#[test]
fn missing_notes_are_styled_or_plain_text() {
    let html = crate::render::to_html(
        "[[gone]] [[gone|make *it*]] [[private]] [[private|a label]] [p](private.md) [n](note.md \"T\")\n",
        None,
        &Fixed,
    );
    assert_eq!(
        html,
        "<p><a class=\"missing\" href=\"/new?path=gone.md\">gone</a> \
         <a class=\"missing\" href=\"/new?path=gone.md\">make <em>it</em></a> \
         private a label p <a href=\"/note/note.md\" title=\"T\">n</a></p>\n"
    );
    assert!(violations(&html).is_empty(), "{html}");
}

#[test]
fn embeds_are_cards_for_notes_images_for_images_and_links_for_files() {
    let html = crate::render::to_html(
        "![[note]]\n\n![[pic.png]] ![[gone]] ![[private]] ![alt](note.md) ![kept](x.png) ![[doc.pdf]]\n",
        None,
        &Fixed,
    );
    assert_eq!(
        html,
        "<p><a class=\"embed\" href=\"/note/note.md\"><span class=\"embed-title\">The &lt;Note&gt;</span></a></p>\n\
         <p><img src=\"pic.png\" alt=\"pic.png\" /> <a class=\"missing\" href=\"/new?path=gone.md\">gone</a> \
         private <a class=\"embed\" href=\"/note/note.md\"><span class=\"embed-title\">The &lt;Note&gt;</span></a> \
         <img src=\"x.png\" alt=\"kept\" /> doc.pdf</p>\n"
    );
    assert!(violations(&html).is_empty(), "{html}");
}

#[test]
fn escaped_pipes_in_tables_and_image_sizes() {
    let html = crate::render::to_html(
        "| a | b |\n|---|---|\n| [[note\\|shown]] | ![[pic.png\\|100]] |\n\n\
         ![[pic.png|100x50]] ![[pic.png|A <cat>]] ![[gone|100]]\n",
        None,
        &Fixed,
    );
    assert!(
        html.contains("<td><a href=\"/note/note.md\">shown</a></td>"),
        "{html}"
    );
    assert!(
        html.contains("<td><img src=\"pic.png\" alt=\"pic.png\" width=\"100\" /></td>"),
        "{html}"
    );
    assert!(
        html.contains(
            "<p><img src=\"pic.png\" alt=\"pic.png\" width=\"100\" height=\"50\" /> \
             <img src=\"pic.png\" alt=\"A &lt;cat&gt;\" /> \
             <a class=\"missing\" href=\"/new?path=gone.md\">100</a></p>"
        ),
        "{html}"
    );
    assert!(violations(&html).is_empty(), "{html}");
}

#[test]
fn hostile_link_targets_stay_text_or_neutral() {
    // A wikilink to a URL is no link between notes: its text, never a link.
    let html = crate::render::to_html(
        "[[javascript:alert(1)]] [[x\" onclick=\"y]] ![[javascript:alert(1)|a]]\n",
        None,
        &Fixed,
    );
    assert_eq!(html, "<p>javascript:alert(1) x\" onclick=\"y a</p>\n");
    // A page that hands the destination back as it is gets no script and no
    // attribute of the author's: the scheme check and the escaping still hold.
    for md in [
        "[[javascript:alert(1)]]",
        "[[x\" onclick=\"y]]",
        "![[javascript:alert(1)]]",
        "![[x\" onclick=\"y]]",
        "[[JAVA\tSCRIPT:x|l]]",
        "[[ javascript:alert(1)]]",
        "[[x'><script>alert(1)</script>]]",
    ] {
        for places in [&Echo as &dyn LinkPlaces, &Fixed, &Unlinked] {
            let html = crate::render::to_html(md, None, places);
            // Parsed as a browser parses it: no attribute but ours, whatever the
            // text says (`x" onclick="y` stays text).
            assert!(violations(&html).is_empty(), "{md}: {html}");
            assert!(!html.contains("<script"), "{md}: {html}");
        }
    }
    // A page that answers a scripting URL as a note's place gets `#`.
    let html = crate::render::to_html("[[javascript:alert(12)]]", None, &Echo);
    assert_eq!(
        html, "<p><a href=\"#\">javascript:alert(12)</a></p>\n",
        "{html}"
    );
}

#[test]
fn wikilinks_read_as_their_label() {
    assert_eq!(
        summary("See [[a|the label]], [[b#Part]] and ![[c]].", 100),
        "See the label, b > Part and c."
    );
    assert_eq!(visible_text("[[Rust async]]"), "Rust async");
    assert_eq!(
        line_text("- [ ] ask **Ann** about [[bread|the loaf]]", 100),
        "ask Ann about the loaf"
    );
    assert_eq!(line_text("## Heading [[x]]", 8), "Heading…");
    assert_eq!(wiki_label(" a # b "), "a > b");
    assert_eq!(wiki_label("#b"), "b");
    assert_eq!(wiki_label("a#"), "a");
}

#[test]
fn embeds_past_the_cap_are_links_and_card_titles_are_cut() {
    struct Long;
    impl LinkPlaces for Long {
        fn place(&self, _: LinkForm, dest: &str) -> Place {
            match dest {
                "big" => Place::Note {
                    href: "/note/big.md".into(),
                    title: "<x> ".repeat(1000),
                },
                _ => Place::File {
                    href: "pic.png".into(),
                },
            }
        }
    }
    let markdown = "![[big]] ![[pic.png]] ![alt](pic.png)\n".repeat(60);
    let html = crate::render::to_html(&markdown, None, &Long);
    assert_eq!(html.matches("class=\"embed\"").count(), 34, "{html}");
    assert_eq!(html.matches("<img").count(), MAX_EMBEDS - 34);
    assert_eq!(
        html.matches(r#"<a href="/note/big.md">big</a>"#).count(),
        26
    );
    assert_eq!(
        html.matches(r#"<a href="pic.png">alt</a>"#).count(),
        60 - 33
    );
    let card = html.split("embed-title\">").nth(1).unwrap();
    let title = card.split("</span>").next().unwrap();
    assert!(
        title.ends_with("&lt;x&gt;…") && title.matches("&lt;x&gt;").count() == 50,
        "{title}"
    );
    assert!(violations(&html).is_empty());
    assert!(html.len() < 100 * 1000, "{}", html.len());
}
