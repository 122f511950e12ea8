//! The one Markdown renderer of the product: web note pages, the editor's preview and
//! public pages all turn a note's body into HTML here, and nowhere else. The output can
//! carry no script: raw HTML is shown as text, no attribute comes from the note's author
//! (ids and classes are made here), and links and images keep only navigating schemes
//! (`sanitize.rs`). Links between notes (`[[wikilinks]]`, embeds, relative Markdown
//! links) go where the page's `LinkPlaces` says (`links.rs`); the markup around them is
//! still written here. What a page costs follows its text's length: the text is parsed
//! a piece at a time (`pieces.rs`), written as it is made (`html.rs`), with a bounded
//! number of embeds and ids. Also here: the plain-text readings of a note (`text.rs`),
//! heading ids (`ids.rs`) and the URL encoders of the pages (`urls.rs`).

mod blocks;
mod callouts;
mod html;
mod ids;
mod links;
mod math;
mod obsidian;
mod pieces;
mod sanitize;
mod text;
mod urls;

use std::fmt;

use pulldown_cmark::Options;

pub(crate) use self::blocks::block_anchor;
pub(crate) use self::ids::heading_id;
#[cfg(test)]
pub(crate) use self::links::Unlinked;
pub(crate) use self::links::{LinkForm, LinkPlaces, Place, card_title};
pub(crate) use self::pieces::Split;
pub use self::text::visible_text;
pub(crate) use self::text::{VisibleText, line_text, summary};
pub(crate) use self::urls::{url_opaque, url_segment};

/// Tables, footnotes, strikethrough, task lists, math (`$…$`, `$$…$$`) and wikilinks
/// (`[[note]]`, `![[note]]`: what a link between notes is, everywhere a note is read). Heading attributes
/// (`# Title {#id .class key=value}`) stay off: they would let a note put any attribute,
/// an event handler included, on a page that shares its origin with the API. Such a block
/// is shown as the text it is.
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_WIKILINKS
        | Options::ENABLE_MATH
}

/// Renders a note body to an HTML fragment, written to `out` as it is made (a page is
/// sent or written while it is rendered); stops at the first error `out` returns.
///
/// Raw HTML in the Markdown is escaped and shown as text: pages are shared with people
/// who did not write them, so a note can never inject a script or a form into one
/// (an HTML block appears as a code block, inline HTML as text). Every heading gets an
/// id made from its text (unique in the page), so every section can be linked to;
/// footnotes get `fn-` ids made from their labels. Table alignment becomes an
/// `align-left|center|right` class (pages allow no inline style); a fenced code block's
/// language becomes a `language-…` class of letters, digits and `_+#.-` only. A link
/// keeps its target only when it is relative or `http`, `https`, `mailto`, `tel` or
/// `ftp`; an image may also show a `data:` PNG, GIF, JPEG or WebP.
/// When `skip_title` is given and the body opens with a level-1 heading of exactly that
/// text, the heading is left out (the page already shows the title above the body).
///
/// Links between notes go where `places` says (see [`Place`]): a wikilink shows its
/// `|label`, else its target (`note > Heading` for a heading); an embedded note is a
/// card (`a.embed`) with its title (at most 200 characters); a missing note is a link
/// of class `missing` or plain text. Past the page's first 100 embeds (cards and
/// images), an embed is a plain link. Whatever `places` answers, its `href` passes the
/// same scheme check as any link, and every text is escaped.
pub(crate) fn write_html(
    markdown: &str,
    skip_title: Option<&str>,
    places: &dyn LinkPlaces,
    out: &mut dyn fmt::Write,
) -> fmt::Result {
    html::write_split(&Split::new(markdown), skip_title, places, out)
}

/// `write_html` into a String.
#[cfg(test)]
pub(crate) fn to_html(markdown: &str, skip_title: Option<&str>, places: &dyn LinkPlaces) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = write_html(markdown, skip_title, places, &mut out);
    out
}

#[cfg(test)]
mod tests;
