//! Cutting a long text into pieces: where the cuts fall, and what each piece carries.

use super::*;

/// The pieces' texts (what is the whole text's only).
fn parts(text: &str, size: usize) -> Vec<String> {
    let split = Split::with_size(text, size);
    split
        .pieces()
        .map(|p| p.text[p.skip..].to_string())
        .collect()
}

#[test]
fn a_short_text_is_one_piece_as_it_is() {
    let split = Split::with_size("# A\n\ntext\n", 64);
    let pieces: Vec<_> = split.pieces().collect();
    assert_eq!(pieces.len(), 1);
    assert!(matches!(pieces[0].text, Cow::Borrowed("# A\n\ntext\n")));
}

#[test]
fn cuts_fall_between_blocks_when_there_are_some() {
    let block = "A paragraph of text.\nStill it.\n\n";
    let text = block.repeat(10);
    let parts = parts(&text, 100);
    assert!(parts.len() > 1, "{parts:?}");
    assert_eq!(parts.concat(), text);
    for part in &parts {
        assert!(part.len() <= 100, "{part:?}");
        assert!(part.starts_with("A paragraph"), "{part:?}");
    }
}

#[test]
fn no_cut_before_a_list_item_or_in_a_fence_when_better_is_in_reach() {
    let text = format!(
        "Intro.\n\n- one\n\n- two\n\n```\ncode\n\nmore\n```\n\n{}",
        "End of it all.\n\n".repeat(8)
    );
    for size in [40, 50, 60, 70] {
        let parts = parts(&text, size);
        assert_eq!(parts.concat(), text);
        for part in &parts[1..] {
            assert!(
                part.starts_with("- one") || part.starts_with("End") || part.starts_with("```"),
                "{size}: {parts:?}"
            );
        }
    }
}

#[test]
fn one_long_paragraph_is_cut_at_lines_then_at_spaces() {
    let text = "[[a]] ".repeat(100);
    let spaced = parts(&text, 64);
    assert_eq!(spaced.concat(), text);
    assert!(
        spaced.iter().all(|p| p.len() <= 64 && p.ends_with(' ')),
        "{spaced:?}"
    );
    let text = "[[a]]\n".repeat(100);
    let lines = parts(&text, 64);
    assert_eq!(lines.concat(), text);
    assert!(
        lines.iter().all(|p| p.len() <= 64 && p.ends_with('\n')),
        "{lines:?}"
    );
    // No space at all: at a character boundary.
    let text = "é".repeat(100);
    assert_eq!(parts(&text, 33).concat(), text);
}

#[test]
fn a_long_fence_goes_on_in_the_next_piece() {
    let text = format!("~~~rust\n{}~~~\n\nAfter.\n", "let x = 1;\n".repeat(20));
    let html = rendered(&text, 64);
    let code = html.iter().filter(|h| h.contains("language-rust")).count();
    assert_eq!(code, html.len() - 1, "{html:?}");
    assert!(html.last().unwrap().contains("<p>After.</p>"), "{html:?}");
    assert!(!html.concat().contains("<p>let"), "{html:?}");
}

/// Each piece of `text` cut at `size` bytes, rendered alone.
fn rendered(text: &str, size: usize) -> Vec<String> {
    let split = Split::with_size(text, size);
    split
        .pieces()
        .map(|p| {
            let mut out = String::new();
            pulldown_cmark::html::push_html(&mut out, p.events(&split).map(|(e, _)| e));
            out
        })
        .collect()
}

#[test]
fn a_fence_that_interrupts_a_paragraph_goes_on_too() {
    let text = format!("Intro.\n```sh\n{}```\n\nAfter.\n", "echo one\n".repeat(30));
    let html = rendered(&text, 64);
    assert!(html.len() > 3, "{html:?}");
    assert!(!html.concat().contains("<p>echo"), "{html:?}");
    assert!(html[0].starts_with("<p>Intro.</p>"), "{html:?}");
    assert!(html.last().unwrap().contains("<p>After.</p>"), "{html:?}");
}

#[test]
fn definitions_reach_across_pieces() {
    let filler = "Filler paragraph here.\n\n".repeat(6);
    let text = format!(
        "See [the site][s] and [s], a note[^n] and [^N].\n\n{filler}[s]: https://example.org \"T\"\n\n[^n]: The note.\n"
    );
    let split = Split::with_size(&text, 64);
    assert!(split.cuts.len() > 2);
    let first = split.pieces().next().unwrap();
    let events: Vec<_> = first.events(&split).collect();
    let links = events
        .iter()
        .filter(|(e, _)| matches!(e, Event::Start(pulldown_cmark::Tag::Link { dest_url, .. }) if dest_url.as_ref() == "https://example.org"))
        .count();
    assert_eq!(links, 2, "{events:?}");
    let notes = events
        .iter()
        .filter(|(e, _)| matches!(e, Event::FootnoteReference(_)))
        .count();
    assert_eq!(notes, 2, "{events:?}");
    // Nothing of the restated definitions is seen, and every range is the text's.
    assert!(
        !events
            .iter()
            .any(|(e, _)| matches!(e, Event::Start(pulldown_cmark::Tag::FootnoteDefinition(_))))
    );
    assert!(events.iter().all(|(_, r)| r.end <= split.cuts[0].at));
    let events = first.events(&split);
    let span = events.definition("S").unwrap();
    assert_eq!(&text[span], "[s]: https://example.org \"T\"");
}

#[test]
fn html_blocks_that_span_blank_lines_are_not_cut_between_blocks() {
    let text = format!("<!--\n\nhidden\n\n-->\n\n{}", "Text here.\n\n".repeat(10));
    let parts = parts(&text, 40);
    assert_eq!(parts.concat(), text);
    assert!(!parts.iter().any(|p| p.starts_with("hidden")), "{parts:?}");
}
