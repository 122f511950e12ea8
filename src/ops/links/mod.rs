//! Links between notes: the one place that says what a link is (`parse`), which note or
//! file it points to (`resolve`, Obsidian's rules), and how its target is changed in
//! place (`rewrite`); where a link shown on a page leads (`targets`) and the keys the
//! index finds backlinks by (`keys`). Every reader of links (backlinks, the check, a move, the pages) goes
//! through here, so a link means the same note everywhere.

mod keys;
mod parse;
mod resolve;
mod rewrite;
mod source;
mod targets;

use std::ops::Range;

pub(crate) use keys::{keys_of_links, keys_of_note};
pub(crate) use parse::{for_each_link, links_in, links_of};
pub(crate) use resolve::Resolver;
pub(crate) use rewrite::rewrite;
pub(crate) use targets::{Destination, LinkCache, LinkTargets, attachment_path, fragment};

/// How a link is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkKind {
    /// `[[target]]`, `[[target|label]]`, `[[target#Heading]]`, `[[#Heading]]`.
    Wiki,
    /// `![[target]]`.
    WikiEmbed,
    /// `[label](relative/path.md#heading)`, inline or by reference.
    Markdown,
    /// `![alt](relative/path.png)`.
    MarkdownImage,
}

/// One link found in a note's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) kind: LinkKind,
    /// The target as written, e.g. `Rust async#Setup` or `../a/b%20c.md#x`: the text at
    /// `dest`.
    pub(crate) target: String,
    /// The note (or file) part of the target, without the heading; percent-decoded for
    /// Markdown links. Empty for `[[#Heading]]` (this note).
    pub(crate) note: String,
    pub(crate) heading: Option<String>,
    /// The text shown: a wikilink's text after `|`, a Markdown link's text or an image's
    /// alt text. `None` for a wikilink without `|`.
    pub(crate) label: Option<String>,
    /// 1-based line of the link in the file as stored, front matter included.
    pub(crate) line: u32,
    /// Bytes of the target text in the file: what a move replaces. For a reference link,
    /// the target of its definition (shared by every use of that definition).
    pub(crate) dest: Range<usize>,
    /// Whether the target is a note (a wikilink without extension or ending in `.md`, a
    /// Markdown link to a `.md` file) rather than an attachment (`img.png`, `doc.pdf`).
    pub(crate) to_note: bool,
}

impl Link {
    /// True when the link points to a note; false for an attachment.
    pub(crate) fn is_note(&self) -> bool {
        self.to_note
    }

    /// True for a wikilink or embed, resolved by name; false for a Markdown link,
    /// resolved as a path relative to the linking note's folder.
    pub(crate) fn is_wiki(&self) -> bool {
        matches!(self.kind, LinkKind::Wiki | LinkKind::WikiEmbed)
    }
}

/// The `#fragment` a link to heading `heading` uses: the id the renderer gives that
/// heading (or block, for `^id`), so a link and its target agree.
pub(crate) fn heading_anchor(heading: &str) -> String {
    crate::render::block_anchor(heading).unwrap_or_else(|| crate::render::heading_id(heading))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_anchors_are_the_renderers_ids() {
        assert_eq!(heading_anchor("Été à Paris!"), "été-à-paris");
        let html =
            crate::render::to_html("## Set up, then *run*\n", None, &crate::render::Unlinked);
        assert!(
            html.contains(&format!("id=\"{}\"", heading_anchor("Set up, then run"))),
            "{html}"
        );
    }
}
