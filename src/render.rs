//! The one Markdown renderer of the product: web note pages, the editor's preview and
//! public pages all turn a note's body into HTML here, and nowhere else. The output can
//! carry no script: raw HTML is shown as text, no attribute comes from the note's author
//! (ids and classes are made here), and links and images keep only navigating schemes.
//! Links between notes (`[[wikilinks]]`, embeds, relative Markdown links) go where the
//! page's `LinkPlaces` says; the markup around them is still written here.

mod links;

use std::collections::{HashMap, HashSet};

use pulldown_cmark::{
    Alignment, CodeBlockKind, CowStr, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd,
    html,
};

use self::links::NoteLinks;
#[cfg(test)]
pub(crate) use self::links::Unlinked;
pub(crate) use self::links::{LinkForm, LinkPlaces, Place, wiki_label};

/// Tables, footnotes, strikethrough, task lists and wikilinks (`[[note]]`, `![[note]]`:
/// what a link between notes is, everywhere a note is read). Heading attributes
/// (`# Title {#id .class key=value}`) stay off: they would let a note put any attribute,
/// an event handler included, on a page that shares its origin with the API. Such a block
/// is shown as the text it is.
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_WIKILINKS
}

/// Renders a note body to an HTML fragment.
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
/// card (`a.embed`) with its title; a missing note is a link of class `missing` or
/// plain text. Whatever `places` answers, its `href` passes the same scheme check as any
/// link, and every text is escaped.
pub(crate) fn to_html(markdown: &str, skip_title: Option<&str>, places: &dyn LinkPlaces) -> String {
    let mut footnotes = FootnoteIds::default();
    let mut table = TableCells::default();
    let mut links = NoteLinks::new(places);
    let mut events: Vec<Event> = Vec::new();
    for event in Parser::new_ext(markdown, options()) {
        links.route(event, &mut events, |event| {
            safe_event(event, &mut footnotes, &mut table)
        });
    }
    let events = drop_title(events, skip_title);
    let events = with_heading_ids(events, footnotes.used);
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events.into_iter());
    out
}

/// One event as it may reach a page: every variant is named, so an event a new parser
/// version adds cannot slip through unseen.
fn safe_event<'a>(
    event: Event<'a>,
    footnotes: &mut FootnoteIds,
    table: &mut TableCells,
) -> Event<'a> {
    match event {
        Event::Start(tag) => safe_start(tag, footnotes, table),
        Event::End(tag) => safe_end(tag, table),
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        // Math is not enabled; were it ever, it is shown as the code it is.
        Event::InlineMath(text) | Event::DisplayMath(text) => Event::Code(text),
        Event::FootnoteReference(label) => {
            Event::FootnoteReference(CowStr::from(footnotes.id(&label)))
        }
        event @ (Event::Text(_)
        | Event::Code(_)
        | Event::SoftBreak
        | Event::HardBreak
        | Event::Rule
        | Event::TaskListMarker(_)) => event,
    }
}

fn safe_start<'a>(tag: Tag<'a>, footnotes: &mut FootnoteIds, table: &mut TableCells) -> Event<'a> {
    let tag = match tag {
        // An HTML block is shown as the code it is.
        Tag::HtmlBlock => Tag::CodeBlock(CodeBlockKind::Indented),
        // The id is made later from the heading's text; nothing the author wrote stays.
        Tag::Heading { level, .. } => Tag::Heading {
            level,
            id: None,
            classes: Vec::new(),
            attrs: Vec::new(),
        },
        Tag::CodeBlock(CodeBlockKind::Fenced(info)) => {
            Tag::CodeBlock(CodeBlockKind::Fenced(CowStr::from(language(&info))))
        }
        Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        } => Tag::Link {
            link_type,
            dest_url: safe_url(dest_url, false),
            title,
            id,
        },
        Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        } => Tag::Image {
            link_type,
            dest_url: safe_url(dest_url, true),
            title,
            id,
        },
        Tag::FootnoteDefinition(label) => {
            Tag::FootnoteDefinition(CowStr::from(footnotes.definition_id(&label)))
        }
        // Cells are written here, with a class for their alignment instead of the
        // `style` the stock writer would put on them.
        Tag::Table(alignments) => {
            *table = TableCells {
                alignments,
                ..TableCells::default()
            };
            Tag::Table(Vec::new())
        }
        Tag::TableHead => {
            table.head = true;
            table.column = 0;
            Tag::TableHead
        }
        Tag::TableRow => {
            table.column = 0;
            Tag::TableRow
        }
        Tag::TableCell => return Event::Html(CowStr::Borrowed(table.open())),
        // Alert blockquotes are not enabled; a plain quote is what the note says.
        Tag::BlockQuote(_) => Tag::BlockQuote(None),
        tag @ (Tag::Paragraph
        | Tag::CodeBlock(CodeBlockKind::Indented)
        | Tag::List(_)
        | Tag::Item
        | Tag::DefinitionList
        | Tag::DefinitionListTitle
        | Tag::DefinitionListDefinition
        | Tag::Emphasis
        | Tag::Strong
        | Tag::Strikethrough
        | Tag::Superscript
        | Tag::Subscript
        | Tag::MetadataBlock(_)) => tag,
    };
    Event::Start(tag)
}

fn safe_end<'a>(tag: TagEnd, table: &mut TableCells) -> Event<'a> {
    match tag {
        TagEnd::HtmlBlock => Event::End(TagEnd::CodeBlock),
        TagEnd::TableHead => {
            table.head = false;
            Event::End(TagEnd::TableHead)
        }
        TagEnd::TableCell => Event::Html(CowStr::Borrowed(table.close())),
        TagEnd::BlockQuote(_) => Event::End(TagEnd::BlockQuote(None)),
        tag => Event::End(tag),
    }
}

/// Where the table being written is: its columns' alignments, head or body, which column.
#[derive(Default)]
struct TableCells {
    alignments: Vec<Alignment>,
    head: bool,
    column: usize,
}

impl TableCells {
    fn open(&self) -> &'static str {
        let alignment = self.alignments.get(self.column).copied();
        match (self.head, alignment) {
            (true, Some(Alignment::Left)) => r#"<th class="align-left">"#,
            (true, Some(Alignment::Center)) => r#"<th class="align-center">"#,
            (true, Some(Alignment::Right)) => r#"<th class="align-right">"#,
            (true, _) => "<th>",
            (false, Some(Alignment::Left)) => r#"<td class="align-left">"#,
            (false, Some(Alignment::Center)) => r#"<td class="align-center">"#,
            (false, Some(Alignment::Right)) => r#"<td class="align-right">"#,
            (false, _) => "<td>",
        }
    }

    fn close(&mut self) -> &'static str {
        self.column += 1;
        if self.head { "</th>" } else { "</td>" }
    }
}

/// Footnote ids made from their labels: `fn-` and a slug, unique in the page; one label
/// (compared without case, as the parser matches them) always gets the same id.
#[derive(Default)]
struct FootnoteIds {
    by_label: HashMap<String, String>,
    defined: HashSet<String>,
    /// Every id given, with how often its base was asked for (see [`unique`]).
    used: HashMap<String, usize>,
}

impl FootnoteIds {
    /// The id a reference to `label` links to.
    fn id(&mut self, label: &str) -> String {
        let key = label.to_lowercase();
        if let Some(id) = self.by_label.get(&key) {
            return id.clone();
        }
        let id = self.fresh(label);
        self.by_label.insert(key, id.clone());
        id
    }

    /// The id of a definition of `label`: a label defined twice gets a second id for its
    /// second definition, so no id appears twice in a page.
    fn definition_id(&mut self, label: &str) -> String {
        if self.defined.insert(label.to_lowercase()) {
            self.id(label)
        } else {
            self.fresh(label)
        }
    }

    fn fresh(&mut self, label: &str) -> String {
        unique(&mut self.used, format!("fn-{}", slug(label, "note")))
    }
}

/// The `language-…` class name of a fenced block's info string: its first word, cut to
/// letters, digits and `_+#.-` (at most 32), or nothing.
fn language(info: &str) -> String {
    info.split_ascii_whitespace()
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '#' | '.' | '-'))
        .take(32)
        .collect()
}

/// The scheme of a URL as a browser reads it (leading and trailing controls and spaces
/// dropped, tabs and newlines ignored anywhere), lowercased; `None` when relative.
fn scheme(url: &str) -> Option<String> {
    let mut scheme = String::new();
    let chars = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'));
    for c in chars {
        match c {
            ':' if !scheme.is_empty() => return Some(scheme.to_ascii_lowercase()),
            c if c.is_ascii_alphabetic() => scheme.push(c),
            c if !scheme.is_empty() && (c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) => {
                scheme.push(c)
            }
            _ => return None,
        }
    }
    None
}

/// A link or image target kept when it is relative or uses a scheme that only navigates
/// (`http`, `https`, `mailto`, `tel`, `ftp`), and for an image also a `data:` PNG, GIF,
/// JPEG or WebP; any other (`javascript:`, `vbscript:`, `data:text/html`…) becomes `#`.
fn safe_url(url: CowStr<'_>, image: bool) -> CowStr<'_> {
    let Some(scheme) = scheme(&url) else {
        return url;
    };
    let navigates = ["http", "https", "mailto", "tel", "ftp"].contains(&scheme.as_str());
    if navigates || (image && scheme == "data" && is_raster_data(&url)) {
        url
    } else {
        CowStr::Borrowed("#")
    }
}

/// Whether a `data:` URL holds a PNG, GIF, JPEG or WebP image (formats that carry no
/// script, unlike SVG).
fn is_raster_data(url: &str) -> bool {
    let cleaned: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .take(32)
        .collect::<String>()
        .to_ascii_lowercase();
    let Some(media) = cleaned.strip_prefix("data:") else {
        return false;
    };
    ["image/png", "image/gif", "image/jpeg", "image/webp"]
        .iter()
        .any(|kind| {
            media
                .strip_prefix(kind)
                .is_some_and(|rest| rest.starts_with([';', ',']))
        })
}

/// Characters left as they are in a URL path segment (RFC 3986 unreserved).
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A URL path segment or query value as it is written into a page:
/// `what? #1.html` → `what%3F%20%231.html`.
pub(crate) fn url_segment(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, SEGMENT).to_string()
}

/// Every byte but ASCII letters and digits percent-encoded: the form the feed's entry
/// ids have always had (a feed reader knows an entry by its id).
pub(crate) fn url_opaque(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// The opening words of a note body as plain text, at most `max` characters (cut at a
/// word, with `…`), for page descriptions and feed summaries. Headings, code blocks
/// and raw HTML are left out; blocks (paragraphs, list items, table cells, quotes) are
/// kept apart by a space, so list items never run together.
pub(crate) fn summary(markdown: &str, max: usize) -> String {
    cut_words(&reader_text(markdown, Reading::Summary, max), max)
}

/// A line of a note as a reader sees it (Markdown marks left out, a wikilink as its
/// label, a heading or list item as its text), at most `max` characters cut at a word:
/// what a list of the notes linking here quotes of each link's line.
pub(crate) fn line_text(line: &str, max: usize) -> String {
    cut_words(&reader_text(line, Reading::Page, max), max)
}

/// The words of `text` on one line, at most `max` characters, cut at a word with `…`.
fn cut_words(text: &str, max: usize) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        let extra = usize::from(!out.is_empty());
        if out.chars().count() + extra + word.chars().count() > max {
            out.push('…');
            return out;
        }
        if extra == 1 {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The text a reader sees on a note's page, for the search index and its snippets:
/// Markdown marks, link targets, footnote labels and task boxes are left out, an image
/// is its alt text, raw HTML is the text the page shows for it. Each block (paragraph,
/// heading, list item, table cell, code block) starts on a line of its own.
pub fn visible_text(markdown: &str) -> String {
    reader_text(markdown, Reading::Page, usize::MAX)
        .trim()
        .to_string()
}

/// What `reader_text` keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Everything the page shows.
    Page,
    /// The prose only: no headings, code blocks or raw HTML.
    Summary,
}

/// The text of a body's events, blocks kept apart by line breaks; stops once it holds
/// more than `max` characters.
fn reader_text(markdown: &str, reading: Reading, max: usize) -> String {
    let mut text = ReaderText::new(reading);
    let mut chars = 0usize;
    for event in Parser::new_ext(markdown, options()) {
        let before = text.text.len();
        text.push(&event);
        if max != usize::MAX {
            chars += text.text[before..].chars().count();
            if chars > max {
                break;
            }
        }
    }
    text.text
}

/// `visible_text` fed the events of a parse made for something else as well (the
/// indexer finds a note's links in the same parse): parsed with `options()`.
pub(crate) struct VisibleText(ReaderText);

impl VisibleText {
    pub(crate) fn new() -> Self {
        VisibleText(ReaderText::new(Reading::Page))
    }

    pub(crate) fn push(&mut self, event: &Event) {
        self.0.push(event);
    }

    pub(crate) fn finish(self) -> String {
        self.0.text.trim().to_string()
    }
}

/// The reader's text of the events pushed so far.
struct ReaderText {
    text: String,
    summary: bool,
    /// Depth of the blocks left out (a summary's headings, code and HTML).
    skip: usize,
    /// Inside a wikilink without `|label`: its text (the target as written) reads as
    /// the label a page shows for it.
    bare_wiki: bool,
}

impl ReaderText {
    fn new(reading: Reading) -> Self {
        ReaderText {
            text: String::new(),
            summary: reading == Reading::Summary,
            skip: 0,
            bare_wiki: false,
        }
    }

    fn push(&mut self, event: &Event) {
        let summary = self.summary;
        let text = &mut self.text;
        match event {
            Event::Start(
                Tag::Link {
                    link_type: LinkType::WikiLink { has_pothole: false },
                    dest_url,
                    ..
                }
                | Tag::Image {
                    link_type: LinkType::WikiLink { has_pothole: false },
                    dest_url,
                    ..
                },
            ) if self.skip == 0 => {
                text.push_str(&wiki_label(dest_url));
                self.bare_wiki = true;
            }
            Event::End(TagEnd::Link | TagEnd::Image) => self.bare_wiki = false,
            _ if self.bare_wiki => {}
            Event::Start(Tag::Heading { .. } | Tag::CodeBlock(_) | Tag::HtmlBlock) if summary => {
                self.skip += 1;
                new_line(text);
            }
            Event::End(TagEnd::Heading(_) | TagEnd::CodeBlock | TagEnd::HtmlBlock) if summary => {
                self.skip = self.skip.saturating_sub(1);
            }
            _ if self.skip > 0 => {}
            Event::Text(t) | Event::Code(t) => text.push_str(t),
            Event::Html(t) | Event::InlineHtml(t) if !summary => text.push_str(t),
            Event::SoftBreak => space(text),
            Event::HardBreak | Event::Rule => new_line(text),
            Event::Start(tag) if is_block(&tag.to_end()) => new_line(text),
            Event::End(tag) if is_block(tag) => new_line(text),
            _ => {}
        }
    }
}

/// Whether a tag is a block (its text stands apart from what comes before and after)
/// rather than inline markup (emphasis, links, images).
fn is_block(tag: &TagEnd) -> bool {
    !matches!(
        tag,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
    )
}

/// Ends the current line, unless the text is empty or already ends with a break.
fn new_line(text: &mut String) {
    if text.ends_with(' ') {
        text.pop();
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
}

/// A space, unless the text is empty or already ends with whitespace.
fn space(text: &mut String) {
    if !text.is_empty() && !text.ends_with(char::is_whitespace) {
        text.push(' ');
    }
}

/// The plain text of a run of inline events (for heading ids and titles).
fn plain_text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
            _ => None,
        })
        .collect()
}

fn drop_title<'a>(events: Vec<Event<'a>>, title: Option<&str>) -> Vec<Event<'a>> {
    let Some(title) = title else { return events };
    let opens_with_h1 = matches!(
        events.first(),
        Some(Event::Start(Tag::Heading {
            level: HeadingLevel::H1,
            ..
        }))
    );
    if !opens_with_h1 {
        return events;
    }
    let Some(end) = events
        .iter()
        .position(|e| matches!(e, Event::End(TagEnd::Heading(_))))
    else {
        return events;
    };
    if plain_text(&events[1..end]).trim() != title.trim() {
        return events;
    }
    events.into_iter().skip(end + 1).collect()
}

/// Gives every heading an id made from its text, unique in the page and never one of
/// the footnotes' ids (`used`, the ids given so far).
fn with_heading_ids(
    mut events: Vec<Event<'_>>,
    mut used: HashMap<String, usize>,
) -> Vec<Event<'_>> {
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { .. }) = &events[i] {
            let end = events[i..]
                .iter()
                .position(|e| matches!(e, Event::End(TagEnd::Heading(_))))
                .map_or(events.len(), |offset| i + offset);
            let id = unique(&mut used, heading_id(&plain_text(&events[i + 1..end])));
            if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[i] {
                *slot = Some(CowStr::from(id));
            }
            i = end;
        }
        i += 1;
    }
    events
}

/// The id a heading of text `text` gets on a page (before `-1`, `-2`… make a repeated
/// one unique): what a link to that heading puts after `#`.
pub(crate) fn heading_id(text: &str) -> String {
    slug(text, "section")
}

/// `Été à Paris!` → `été-à-paris`: lowercase letters and digits, `-` between words;
/// `fallback` when nothing is left.
fn slug(text: &str, fallback: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        fallback.to_string()
    } else {
        trimmed.to_string()
    }
}

fn unique(used: &mut HashMap<String, usize>, base: String) -> String {
    let count = used.entry(base.clone()).or_insert(0);
    *count += 1;
    if *count == 1 {
        return base;
    }
    let mut n = *count - 1;
    loop {
        let candidate = format!("{base}-{n}");
        if !used.contains_key(&candidate) {
            used.insert(candidate.clone(), 1);
            return candidate;
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests {
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
    fn wikilinks_show_their_label_and_go_where_the_page_says() {
        let html = super::to_html(
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
        let html = super::to_html(
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
        let html = super::to_html(
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
    fn hostile_link_targets_stay_text_or_neutral() {
        // A wikilink to a URL is no link between notes: its text, never a link.
        let html = super::to_html(
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
                let html = super::to_html(md, None, places);
                // Parsed as a browser parses it: no attribute but ours, whatever the
                // text says (`x" onclick="y` stays text).
                assert!(violations(&html).is_empty(), "{md}: {html}");
                assert!(!html.contains("<script"), "{md}: {html}");
            }
        }
        // A page that answers a scripting URL as a note's place gets `#`.
        let html = super::to_html("[[javascript:alert(12)]]", None, &Echo);
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
        let md = "# Title\n\nSome *emphasis* and `code`.\n\n```\nskipped()\n```\n\nSecond paragraph here.\n";
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

    /// Hostile Markdown, generated: every construct the renderer knows, fed the payloads
    /// an attacker would try.
    mod hostile {
        use proptest::prelude::*;
        use proptest::sample::select;

        const ATTRS: &[&str] = &[
            "#evil",
            ".pwn",
            "autofocus",
            "onfocus=alert(document.domain)",
            "onmouseover=\"alert(1)\"",
            "style=color:red",
            "id=x",
            "class=y",
            "tabindex=1",
            "#a.b",
            "data-x=1",
            "href=javascript:alert(1)",
            "{",
            "}",
        ];

        const SCHEMES: &[&str] = &[
            "javascript:",
            "JaVaScRiPt:",
            "vbscript:",
            "VBScript:",
            "data:",
            "data:text/html,",
            "data:image/svg+xml,",
            "data:image/png;base64,",
            "DATA:image/gif,",
            "data:image/pngx,",
            "data:image/jpeg",
            "&#106;avascript:",
            "&#x6A;avascript:",
            "&#0000106avascript:",
            "javascript&#58;",
            "javascript&colon;",
            "%6Aavascript:",
            "java\tscript:",
            "java&#9;script:",
            "java&Tab;script:",
            "java&#10;script:",
            "\u{1}javascript:",
            "\u{0}javascript:",
            "\u{7f}javascript:",
            "  javascript:",
            "\\javascript:",
            "https:",
            "http://ok.example/",
            "mailto:",
            "tel:",
            "ftp:",
            "//evil.example/",
            "",
            "#",
            "./",
            "file:",
            "blob:",
            "about:",
            "ws:",
            "x-y.z+1:",
        ];

        const PAYLOADS: &[&str] = &[
            "alert(1)",
            "alert(document.domain)",
            "%0Aalert(1)",
            "x",
            ",<script>alert(1)</script>",
            "AAAA",
            "\"onmouseover=\"alert(1)",
        ];

        const RAW_HTML: &[&str] = &[
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<svg/onload=alert(1)>",
            "<iframe src=javascript:alert(1)>",
            "<style>*{color:red}</style>",
            "<div onclick=\"x\">\n\nhi\n\n</div>",
            "<!-- c -->",
            "<![CDATA[x]]>",
            "<?php x ?>",
            "<!DOCTYPE html>",
            "<details open ontoggle=alert(1)>",
            "<math><mi xlink:href=\"javascript:x\">",
            "<base href=//evil.example/>",
            "<meta http-equiv=refresh content=\"0;url=javascript:x\">",
            "<form action=javascript:x><button>go</button></form>",
            "<textarea>",
            "<plaintext>",
            "</p>",
            "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
            "<b style=\"color:red\" onclick=alert(1)>",
            "<input autofocus onfocus=alert(1)>",
            "&lt;script&gt;",
            "&#x3C;img src=x onerror=alert(1)&#x3E;",
        ];

        const LABELS: &[&str] = &[
            "1",
            "a b",
            "\"><img src=x onerror=alert(1)>",
            "#top",
            "onmouseover=x",
            "Été",
            "x'y",
            "&amp;",
            "fn-1",
            "A",
            "a",
            "-",
            "_",
            "日本",
            "javascript:alert(1)",
        ];

        const CELLS: &[&str] = &[
            "x",
            "`c`",
            "<b onclick=x>",
            "[l](javascript:alert(1))",
            "**b**",
            "a\\|b",
            "![i](x.png)",
            "",
        ];

        const INFOS: &[&str] = &[
            "",
            "rust",
            "\"><img src=x onerror=alert(1)>",
            "js onload=x",
            "c#",
            "{.class #id}",
            "lang\tx",
            "ŝ",
            "a\"b",
        ];

        const INLINE: &[&str] = &[
            "***a**b*",
            "_a *b_ c*",
            "~~x **y~~ z**",
            "**[l](javascript:x)**",
            "*<i onclick=x>*",
            "`<b onclick=x>`",
            "\\<script>",
            "text",
            "Été",
        ];

        fn url() -> impl Strategy<Value = String> {
            (select(SCHEMES), select(PAYLOADS)).prop_map(|(s, p)| format!("{s}{p}"))
        }

        fn link() -> impl Strategy<Value = String> {
            (url(), 0..9u8, select(INLINE)).prop_map(|(url, form, text)| match form {
                0 => format!("[{text}]({url})"),
                1 => format!("[{text}](<{url}>)"),
                2 => format!("[{text}]({url} \"ti\\\"tle\")"),
                3 => format!("![{text}]({url})"),
                4 => format!("![{text}](<{url}> 'x')"),
                5 => format!("<{url}>"),
                6 => format!("[{text}][r]\n\n[r]: {url}\n"),
                7 => format!("![r]\n\n[r]: <{url}> \"t\"\n"),
                _ => format!("[{text}]\n\n[{text}]: {url}\n"),
            })
        }

        fn wikilink() -> impl Strategy<Value = String> {
            (url(), select(INLINE), select(INLINE), 0..5u8).prop_map(
                |(url, text, heading, form)| match form {
                    0 => format!("[[{url}]]"),
                    1 => format!("[[{url}|{text}]]"),
                    2 => format!("[[{url}#{heading}]]"),
                    3 => format!("![[{url}]]"),
                    _ => format!("![[{url}|{text}]]"),
                },
            )
        }

        fn heading() -> impl Strategy<Value = String> {
            (
                1..7usize,
                select(INLINE),
                prop::collection::vec(select(ATTRS), 0..5),
                any::<bool>(),
            )
                .prop_map(|(level, text, attrs, setext)| {
                    let attrs = format!("{{{}}}", attrs.join(" "));
                    if setext {
                        format!("{text} {attrs}\n===\n")
                    } else {
                        format!("{} {text} {attrs}\n", "#".repeat(level))
                    }
                })
        }

        fn table() -> impl Strategy<Value = String> {
            (1..5usize).prop_flat_map(|n| {
                (
                    prop::collection::vec(select(CELLS), n),
                    prop::collection::vec(select(&["---", ":--", ":-:", "--:", ":---:"][..]), n),
                    prop::collection::vec(prop::collection::vec(select(CELLS), n), 0..3),
                )
                    .prop_map(|(head, aligns, rows)| {
                        let row = |cells: &[&str]| format!("| {} |\n", cells.join(" | "));
                        let mut out = row(&head);
                        out.push_str(&row(&aligns));
                        for r in rows {
                            out.push_str(&row(&r));
                        }
                        out
                    })
            })
        }

        fn footnote() -> impl Strategy<Value = String> {
            (select(LABELS), select(LABELS), select(INLINE)).prop_map(|(a, b, text)| {
                format!("{text}[^{a}] and[^{b}].\n\n[^{a}]: {text}\n[^{b}]: <b onclick=x>\n")
            })
        }

        fn code() -> impl Strategy<Value = String> {
            (select(INFOS), select(RAW_HTML), 0..3u8).prop_map(|(info, raw, form)| match form {
                0 => format!("```{info}\n{raw}\n```\n"),
                1 => format!("~~~{info}\n{raw}\n"),
                _ => format!("    {raw}\n"),
            })
        }

        fn piece() -> impl Strategy<Value = String> {
            prop_oneof![
                heading(),
                select(RAW_HTML).prop_map(str::to_string),
                link(),
                wikilink(),
                table(),
                footnote(),
                code(),
                select(INLINE).prop_map(|t| format!("- [x] {t}\n- [ ] {t}\n")),
                select(INLINE).prop_map(str::to_string),
                "[ -~]{0,24}",
            ]
        }

        /// A note body: pieces joined by block and inline separators.
        pub(super) fn markdown() -> impl Strategy<Value = String> {
            let sep = select(&["\n\n", "\n", " ", "", "\n> ", "\n- ", "\n3. ", "\n    "][..]);
            prop::collection::vec((piece(), sep), 1..10).prop_map(|parts| {
                parts
                    .into_iter()
                    .flat_map(|(piece, sep)| [piece, sep.to_string()])
                    .collect()
            })
        }
    }

    /// Parses a rendered fragment as a browser would and lists every way it breaks the
    /// renderer's promise: a tag or attribute not on the allow-list, a URL that is not
    /// relative or navigating, an id not of our shape or not unique.
    fn violations(fragment: &str) -> Vec<String> {
        let parsed = scraper::Html::parse_fragment(fragment);
        let all = scraper::Selector::parse("*").expect("selector");
        let mut found = Vec::new();
        let mut ids = HashSet::new();
        for element in parsed.select(&all) {
            let el = element.value();
            let tag = el.name();
            if tag == "html" {
                continue;
            }
            let allowed: &[&str] = match tag {
                "p" | "em" | "strong" | "del" | "blockquote" | "ul" | "li" | "pre" | "hr"
                | "br" | "table" | "thead" | "tbody" | "tr" => &[],
                "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => &["id"],
                "code" => &["class"],
                "ol" => &["start"],
                "a" => &["href", "title", "class"],
                "span" => &["class"],
                "img" => &["src", "alt", "title"],
                "input" => &["disabled", "type", "checked"],
                "th" | "td" => &["class"],
                "div" => &["class", "id"],
                "sup" => &["class"],
                other => {
                    found.push(format!("tag <{other}>"));
                    &[]
                }
            };
            for (name, value) in el.attrs() {
                if !allowed.contains(&name) {
                    found.push(format!("attribute {name}={value:?} on <{tag}>"));
                    continue;
                }
                let ok = match (tag, name) {
                    (_, "id") => {
                        let shaped = !value.is_empty()
                            && value
                                .chars()
                                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
                            && (tag != "div" || value.starts_with("fn-"));
                        shaped && ids.insert(value.to_string())
                    }
                    ("code", "class") => value.strip_prefix("language-").is_some_and(|l| {
                        !l.is_empty()
                            && l.chars().all(|c| {
                                c.is_ascii_alphanumeric()
                                    || matches!(c, '_' | '+' | '#' | '.' | '-')
                            })
                    }),
                    ("th" | "td", "class") => {
                        ["align-left", "align-center", "align-right"].contains(&value)
                    }
                    ("div", "class") => value == "footnote-definition",
                    ("a", "class") => ["missing", "embed"].contains(&value),
                    ("span", "class") => value == "embed-title",
                    ("sup", "class") => {
                        ["footnote-reference", "footnote-definition-label"].contains(&value)
                    }
                    ("ol", "start") => value.bytes().all(|b| b.is_ascii_digit()),
                    ("input", "type") => value == "checkbox",
                    ("input", _) => value.is_empty(),
                    ("a", "href") => url_allowed(value, false),
                    ("img", "src") => url_allowed(value, true),
                    _ => true,
                };
                if !ok {
                    found.push(format!("value {name}={value:?} on <{tag}>"));
                }
            }
        }
        found
    }

    /// A URL as the browser resolves it is relative, `#…`, or http/https/mailto/tel/ftp;
    /// on an image also a raster `data:` image.
    fn url_allowed(value: &str, image: bool) -> bool {
        let cleaned: String = value
            .trim_matches(|c: char| c <= ' ')
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect();
        let Some((before, after)) = cleaned.split_once(':') else {
            return true;
        };
        let is_scheme = before.starts_with(|c: char| c.is_ascii_alphabetic())
            && before
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if !is_scheme {
            return true;
        }
        let scheme = before.to_ascii_lowercase();
        let after = after.to_ascii_lowercase();
        ["http", "https", "mailto", "tel", "ftp"].contains(&scheme.as_str())
            || (image
                && scheme == "data"
                && ["png", "gif", "jpeg", "webp"].iter().any(|kind| {
                    after.starts_with(&format!("image/{kind};"))
                        || after.starts_with(&format!("image/{kind},"))
                }))
    }

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
}
