//! The allow-list every event of a note's text passes before it is written: raw HTML
//! becomes text, no attribute the author wrote survives (heading attributes, a fenced
//! block's info string beyond a class name, table alignment as a style), and link and
//! image targets keep only navigating schemes.

use pulldown_cmark::{Alignment, CodeBlockKind, CowStr, Event, Tag, TagEnd};

/// One event as it may reach a page: every variant is named, so an event a new parser
/// version adds cannot slip through unseen. Footnote labels pass as they are: the
/// writer (`html.rs`) makes their ids and markup.
pub(super) fn safe_event<'a>(event: Event<'a>, table: &mut TableCells) -> Event<'a> {
    match event {
        Event::Start(tag) => safe_start(tag, table),
        Event::End(tag) => safe_end(tag, table),
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        // Made MathML later (`math.rs`); as it stands, the writer escapes it.
        event @ (Event::InlineMath(_)
        | Event::DisplayMath(_)
        | Event::Text(_)
        | Event::Code(_)
        | Event::FootnoteReference(_)
        | Event::SoftBreak
        | Event::HardBreak
        | Event::Rule
        | Event::TaskListMarker(_)) => event,
    }
}

fn safe_start<'a>(tag: Tag<'a>, table: &mut TableCells) -> Event<'a> {
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
        mut tag @ (Tag::Link { .. } | Tag::Image { .. }) => {
            let image = matches!(tag, Tag::Image { .. });
            if let Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } = &mut tag {
                *dest_url = safe_url(std::mem::replace(dest_url, CowStr::Borrowed("")), image);
            }
            tag
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
        | Tag::FootnoteDefinition(_)
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
pub(super) struct TableCells {
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
pub(super) fn safe_url(url: CowStr<'_>, image: bool) -> CowStr<'_> {
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
