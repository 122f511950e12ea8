//! Finding the links of a note's text with the renderer's own Markdown parser (its
//! wikilink extension on), so a link is found exactly where a page shows one: never in
//! a code span or block, never in the front matter.

use std::borrow::Cow;
use std::ops::Range;

use percent_encoding::percent_decode_str;
use pulldown_cmark::{Event, LinkType, Tag, TagEnd};

use super::source::{LineIndex, definition_dest, inline_dest};
use super::{Link, LinkKind};
use crate::ops::front_matter;
use crate::render::Split;

/// Every note link and attachment link of `text` (a whole note file), in the order they
/// appear. External links (`https:`, `mailto:`…), absolute paths and same-page
/// `#anchors` in Markdown syntax are not links between notes and are left out.
pub(crate) fn links_of(text: &str) -> Vec<Link> {
    let mut links = Vec::new();
    each_link(text, body_start(text), &mut |_| {}, &mut |link| {
        links.push(link)
    });
    links
}

/// The links of `text` (a whole note file) handed to `found` one at a time, in order:
/// `links_of` without the list.
pub(crate) fn for_each_link(text: &str, found: &mut dyn FnMut(Link)) {
    each_link(text, body_start(text), &mut |_| {}, found);
}

/// `links_of` for a caller that has parsed the front matter already (the body starts
/// at byte `base` of `text`, as `body_start` finds it), and that wants every event of
/// the body's parse as well (`each`; parsed with `render::options()`).
pub(crate) fn links_in(text: &str, base: usize, each: &mut dyn FnMut(&Event)) -> Vec<Link> {
    let mut links = Vec::new();
    each_link(text, base, each, &mut |link| links.push(link));
    links
}

/// The links of the body of `text` (from byte `base`) handed to `found` one at a time,
/// in order, none kept: a caller that keeps a few of a note's links (its files) holds
/// no list of all. The body is parsed a piece at a time, as the renderer parses it
/// (`render::Split`).
fn each_link(text: &str, base: usize, each: &mut dyn FnMut(&Event), found: &mut dyn FnMut(Link)) {
    let body = &text[base..];
    let lines = LineIndex::new(text);
    let split = Split::new(body);
    for piece in split.pieces() {
        let mut events = piece.events(&split);
        let mut open: Vec<Open> = Vec::new();
        while let Some((event, range)) = events.next() {
            each(&event);
            match event {
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    id,
                    ..
                }) => open.push(Open::new(
                    false,
                    link_type,
                    dest_url.into(),
                    id.into(),
                    &range,
                )),
                Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    id,
                    ..
                }) => open.push(Open::new(
                    true,
                    link_type,
                    dest_url.into(),
                    id.into(),
                    &range,
                )),
                Event::End(TagEnd::Link | TagEnd::Image) => {
                    let Some(done) = open.pop() else { continue };
                    if let Some(parent) = open.last_mut() {
                        parent.inner_end = parent.inner_end.max(range.end);
                        parent.label.push_str(&done.label);
                    }
                    if let Some(link) = done.finish(body, base, &lines, |id| events.definition(id))
                    {
                        found(link);
                    }
                }
                Event::Text(text) | Event::Code(text) => {
                    if let Some(top) = open.last_mut() {
                        top.label.push_str(&text);
                        top.inner_end = top.inner_end.max(range.end);
                    }
                }
                _ => {
                    if let Some(top) = open.last_mut() {
                        top.inner_end = top.inner_end.max(range.end);
                    }
                }
            }
        }
    }
}

/// Where the body starts: after the front matter block when the note has one that
/// parses (the same split the rest of the product makes), else at 0.
fn body_start(text: &str) -> usize {
    front_matter::parse(text).map_or(0, |doc| text.len() - doc.body.len())
}

/// A link whose end has not been seen yet.
struct Open {
    image: bool,
    link_type: LinkType,
    dest_url: String,
    id: String,
    /// Its bytes in the body.
    range: Range<usize>,
    /// Its text so far (label or alt text).
    label: String,
    /// The end of the last event inside it: the label ends there, the target follows.
    inner_end: usize,
}

impl Open {
    fn new(
        image: bool,
        link_type: LinkType,
        dest_url: String,
        id: String,
        range: &Range<usize>,
    ) -> Self {
        Open {
            image,
            link_type,
            dest_url,
            id,
            range: range.clone(),
            label: String::new(),
            inner_end: range.start,
        }
    }

    /// The link, when it is one between notes or to an attachment. `definition` gives the
    /// bytes of a reference definition by its label.
    fn finish(
        self,
        body: &str,
        base: usize,
        lines: &LineIndex,
        definition: impl Fn(&str) -> Option<Range<usize>>,
    ) -> Option<Link> {
        let line = lines.line_of(base + self.range.start);
        match self.link_type {
            LinkType::WikiLink { has_pothole } => self.wiki(body, base, line, has_pothole),
            LinkType::Inline => {
                let dest = inline_dest(body, self.inner_end, self.range.end)?;
                self.markdown(body, base, line, dest)
            }
            // `…Unknown`: defined in another piece of a long text (`render::Split`).
            LinkType::Reference
            | LinkType::Collapsed
            | LinkType::Shortcut
            | LinkType::ReferenceUnknown
            | LinkType::CollapsedUnknown
            | LinkType::ShortcutUnknown => {
                let span = definition(&self.id)?;
                let dest = definition_dest(body, span)?;
                self.markdown(body, base, line, dest)
            }
            LinkType::Autolink | LinkType::Email => None,
        }
    }

    fn wiki(self, body: &str, base: usize, line: u32, has_pothole: bool) -> Option<Link> {
        // The parser hands the wikilink's target as the slice of text after `[[`.
        let start = self.range.start + if self.image { 3 } else { 2 };
        // `[[Note\|label]]` (the escape a table needs): the `\` is not the target's.
        let written = unescaped_pipe(&self.dest_url);
        let end = start + written.len();
        if body.get(start..end) != Some(written) {
            return None;
        }
        let kind = if self.image {
            LinkKind::WikiEmbed
        } else {
            LinkKind::Wiki
        };
        let mut link = wiki_link(kind, written)?;
        link.label = has_pothole.then_some(self.label);
        link.line = line;
        link.dest = base + start..base + end;
        Some(link)
    }

    fn markdown(self, body: &str, base: usize, line: u32, dest: Range<usize>) -> Option<Link> {
        let kind = if self.image {
            LinkKind::MarkdownImage
        } else {
            LinkKind::Markdown
        };
        let mut link = markdown_link(kind, &self.dest_url)?;
        link.target = body[dest.clone()].to_string();
        link.label = Some(self.label);
        link.line = line;
        link.dest = base + dest.start..base + dest.end;
        Some(link)
    }
}

/// The link a destination stands for, as a page shows it: `dest` is what the parser
/// hands for a link of `kind` (a wikilink's text before `|`, a Markdown link's URL).
/// It is read exactly as `links_of` reads links in a file, but located nowhere: no
/// label, line 0, an empty `dest` range. `None` when it is no link between notes nor
/// to an attachment (an external URL, a same-page `#anchor`, an absolute path).
pub(crate) fn link_of(kind: LinkKind, dest: &str) -> Option<Link> {
    match kind {
        LinkKind::Wiki | LinkKind::WikiEmbed => wiki_link(kind, dest),
        LinkKind::Markdown | LinkKind::MarkdownImage => markdown_link(kind, dest),
    }
}

/// A wikilink's target without the `\` of an escaped `|` (`[[Note\|label]]`, as
/// Obsidian writes a link with a label in a table): the parser ends the target there.
fn unescaped_pipe(target: &str) -> &str {
    target.strip_suffix('\\').unwrap_or(target)
}

/// A wikilink's target `note#Heading`, trimmed; `None` when the note part is a URL.
fn wiki_link(kind: LinkKind, target: &str) -> Option<Link> {
    let target = unescaped_pipe(target);
    let (note, heading) = match target.split_once('#') {
        Some((note, heading)) => (note.trim().to_string(), Some(heading.trim().to_string())),
        None => (target.trim().to_string(), None),
    };
    if has_scheme(&note) {
        return None;
    }
    let to_note = note.ends_with(".md") || extension(&note).is_none();
    Some(Link {
        kind,
        target: target.to_string(),
        note,
        heading: heading.filter(|h| !h.is_empty()),
        label: None,
        line: 0,
        dest: 0..0,
        to_note,
    })
}

/// A Markdown link's URL `path#heading` (query left out, percent-decoded); `None` when
/// it is external, absolute or a same-page anchor.
fn markdown_link(kind: LinkKind, url: &str) -> Option<Link> {
    if url.is_empty() || has_scheme(url) || url.starts_with('/') || url.starts_with('#') {
        return None;
    }
    let (path, heading) = match url.split_once('#') {
        Some((path, heading)) => (path, Some(heading)),
        None => (url, None),
    };
    let path = path.split_once('?').map_or(path, |(path, _)| path);
    let note = decode(path).into_owned();
    if note.is_empty() {
        return None;
    }
    Some(Link {
        kind,
        target: url.to_string(),
        to_note: note.ends_with(".md"),
        note,
        heading: heading
            .map(|h| decode(h).into_owned())
            .filter(|h| !h.is_empty()),
        label: None,
        line: 0,
        dest: 0..0,
    })
}

fn decode(text: &str) -> Cow<'_, str> {
    percent_decode_str(text).decode_utf8_lossy()
}

/// `https:`, `mailto:`, `c:`…: a URL scheme (letters, digits, `+-.`, then `:`).
fn has_scheme(url: &str) -> bool {
    let Some((scheme, _)) = url.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// A file extension of the last name of `note`: 1 to 8 ASCII letters or digits, one
/// letter at least, after a `.` that does not start the name. `Rust 1.75` and `Dr. Who`
/// have none, so they stay note names.
fn extension(note: &str) -> Option<&str> {
    let name = note.rsplit('/').next().unwrap_or(note);
    let (stem, ext) = name.rsplit_once('.')?;
    let plain = !stem.is_empty()
        && (1..=8).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic());
    plain.then_some(ext)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Link {
        let links = links_of(text);
        assert_eq!(links.len(), 1, "{links:#?}");
        links.into_iter().next().unwrap()
    }

    #[test]
    fn wikilinks_in_each_form() {
        let text = "See [[Rust async]] and [[Rust async|the async note]].\n";
        let links = links_of(text);
        assert_eq!(links.len(), 2);
        assert_eq!(links[0].kind, LinkKind::Wiki);
        assert_eq!(links[0].target, "Rust async");
        assert_eq!(links[0].note, "Rust async");
        assert_eq!(links[0].heading, None);
        assert_eq!(links[0].label, None);
        assert_eq!(&text[links[0].dest.clone()], "Rust async");
        assert_eq!(links[1].target, "Rust async");
        assert_eq!(links[1].label.as_deref(), Some("the async note"));
        assert_eq!(&text[links[1].dest.clone()], "Rust async");
        assert!(links.iter().all(Link::is_note));

        let link = one("[[Rust async#Setup]]");
        assert_eq!(link.target, "Rust async#Setup");
        assert_eq!(link.note, "Rust async");
        assert_eq!(link.heading.as_deref(), Some("Setup"));

        let link = one("Up: [[#Setup steps]]");
        assert_eq!(link.note, "");
        assert_eq!(link.heading.as_deref(), Some("Setup steps"));
        assert!(link.is_note());

        let link = one("[[recipes/bread.md|Bread]]");
        assert_eq!(link.note, "recipes/bread.md");
        assert!(link.is_note());
    }

    #[test]
    fn an_escaped_pipe_in_a_table_ends_the_target() {
        let text =
            "| a | b |\n|---|---|\n| [[Note\\|alias]] | ![[img.png\\|100]] |\n\n[[Other\\|x]]\n";
        let links = links_of(text);
        assert_eq!(links.len(), 3, "{links:#?}");
        assert_eq!(links[0].note, "Note");
        assert_eq!(links[0].target, "Note");
        assert_eq!(&text[links[0].dest.clone()], "Note");
        assert_eq!(links[0].label.as_deref(), Some("alias"));
        assert_eq!(links[1].note, "img.png");
        assert!(!links[1].is_note());
        assert_eq!(links[1].label.as_deref(), Some("100"));
        assert_eq!(links[2].note, "Other");
        assert_eq!(link_of(LinkKind::Wiki, "Note\\").unwrap().note, "Note");
    }

    #[test]
    fn embeds_of_notes_and_files() {
        let text = "![[Diagram notes]]\n\n![[photo.jpg]]\n";
        let links = links_of(text);
        assert_eq!(links.len(), 2);
        assert_eq!(links[0].kind, LinkKind::WikiEmbed);
        assert_eq!(&text[links[0].dest.clone()], "Diagram notes");
        assert!(links[0].is_note());
        assert_eq!(links[1].kind, LinkKind::WikiEmbed);
        assert_eq!(links[1].note, "photo.jpg");
        assert!(!links[1].is_note(), "an image is an attachment");
    }

    #[test]
    fn names_with_dots_are_notes_and_files_are_attachments() {
        for note in ["Rust 1.75", "Dr. Who", "v2.0", "a/b.md"] {
            assert!(one(&format!("[[{note}]]")).is_note(), "{note}");
        }
        for file in ["doc.pdf", "a/b/archive.tar.gz", "x.PNG"] {
            assert!(!one(&format!("[[{file}]]")).is_note(), "{file}");
        }
    }

    #[test]
    fn markdown_links_and_images() {
        let text = "[the recipe](recipes/bread.md) and [up](../a/b%20c.md#Some%20part) \
                    ![chart](img/chart.png) [doc](doc.pdf)\n";
        let links = links_of(text);
        assert_eq!(links.len(), 4, "{links:#?}");
        assert_eq!(links[0].kind, LinkKind::Markdown);
        assert_eq!(links[0].target, "recipes/bread.md");
        assert_eq!(links[0].note, "recipes/bread.md");
        assert_eq!(links[0].label.as_deref(), Some("the recipe"));
        assert!(links[0].is_note());
        assert_eq!(links[1].target, "../a/b%20c.md#Some%20part");
        assert_eq!(links[1].note, "../a/b c.md");
        assert_eq!(links[1].heading.as_deref(), Some("Some part"));
        assert_eq!(&text[links[1].dest.clone()], "../a/b%20c.md#Some%20part");
        assert_eq!(links[2].kind, LinkKind::MarkdownImage);
        assert_eq!(links[2].label.as_deref(), Some("chart"));
        assert!(!links[2].is_note());
        assert!(!links[3].is_note());
    }

    #[test]
    fn markdown_targets_that_are_not_notes_are_left_out() {
        let text = "[a](https://example.com/x.md) [b](/abs/x.md) [c](#here) \
                    [d](//host/x.md) [e](mailto:x@y.z) <https://auto.link/x.md> [f]()\n";
        assert_eq!(links_of(text), Vec::new());
    }

    #[test]
    fn destinations_are_found_in_every_form() {
        let text = "[a *b* `c](d`](x.md \"title\") [s](<with space.md>) [p](w(1).md) \
                    [![img](i.png)](y.md)\n";
        let links = links_of(text);
        let dests: Vec<&str> = links.iter().map(|l| &text[l.dest.clone()]).collect();
        assert_eq!(dests, ["x.md", "with space.md", "w(1).md", "i.png", "y.md"]);
        assert_eq!(links[0].label.as_deref(), Some("a b c](d"));
        assert_eq!(links[1].note, "with space.md");
        assert_eq!(links[4].label.as_deref(), Some("img"));
    }

    #[test]
    fn reference_links_point_at_their_definition() {
        let text =
            "See [bread][b] and [Bread] again.\n\n[b]: recipes/bread.md\n[bread]: <a b.md> \"t\"\n";
        let links = links_of(text);
        assert_eq!(links.len(), 2, "{links:#?}");
        assert_eq!(links[0].note, "recipes/bread.md");
        assert_eq!(&text[links[0].dest.clone()], "recipes/bread.md");
        assert_eq!(links[0].line, 1);
        assert_eq!(links[1].note, "a b.md");
        assert_eq!(&text[links[1].dest.clone()], "a b.md");
    }

    #[test]
    fn code_never_holds_links() {
        let text = "`[[in span]]` and\n\n```\n[[in block]] [x](x.md)\n```\n\n    [[indented]]\n\n[[real]]\n";
        let link = one(text);
        assert_eq!(link.note, "real");
        assert_eq!(link.line, 9);
    }

    #[test]
    fn lines_count_the_front_matter_and_it_holds_no_links() {
        let text = "---\ntitle: \"[[not a link]]\"\ntags: [a]\n---\n\nFirst [[one]]\n\n> quoted\n> [[two]]\n";
        let links = links_of(text);
        assert_eq!(links.len(), 2, "{links:#?}");
        assert_eq!((links[0].note.as_str(), links[0].line), ("one", 6));
        assert_eq!((links[1].note.as_str(), links[1].line), ("two", 9));
        assert_eq!(&text[links[1].dest.clone()], "two");
    }

    #[test]
    fn crlf_files_count_lines_too() {
        let text = "---\r\ntitle: T\r\n---\r\n\r\n[x](x.md)\r\n";
        let link = one(text);
        assert_eq!(link.line, 5);
        assert_eq!(&text[link.dest.clone()], "x.md");
    }

    #[test]
    fn links_in_lists_tables_and_headings() {
        let text = "# About [[Title link]]\n\n- [[item]]\n\n| a | b |\n|---|---|\n| [[cell]] | [c](c.md) |\n";
        let notes: Vec<(String, u32)> = links_of(text)
            .into_iter()
            .map(|l| (l.note, l.line))
            .collect();
        assert_eq!(
            notes,
            [
                ("Title link".to_string(), 1),
                ("item".to_string(), 3),
                ("cell".to_string(), 7),
                ("c.md".to_string(), 7)
            ]
        );
    }

    #[test]
    fn hostile_text_does_not_panic() {
        for text in [
            "[[",
            "]]",
            "![[",
            "[[|]]",
            "[[a|]]",
            "[[]]",
            "[](",
            "[a](<b",
            "![[![[x]]]]",
            "[[a]]]]",
            "[x]: <",
            "[x]:",
            "[x][",
            "é[[é|é]]é",
            "[[#]]",
        ] {
            for link in links_of(text) {
                assert!(text.get(link.dest.clone()).is_some(), "{text:?} {link:?}");
            }
        }
    }
}
