//! Links between notes in the renderer's stream of events: each link and image asks the
//! page's `LinkPlaces` where it goes (the question, `LinkForm`, and the answer, `Place`,
//! are defined here), and becomes a link, a link styled as missing, plain text or an
//! embed card. The markup made here carries only our classes and an `href`
//! that passed the scheme check; every text in it is escaped. A page shows at most
//! `MAX_EMBEDS` embeds (cards and images), each card's title cut to `TITLE_CHARS`:
//! past them an embed is a plain link, so what a page weighs follows its text's length.

use std::borrow::Cow;

use pulldown_cmark::{CowStr, Event, LinkType, Tag, TagEnd};
use pulldown_cmark_escape::{escape_href, escape_html};

use super::sanitize::safe_url;

/// Embeds (note cards and images) one page shows; the ones after are plain links.
pub(crate) const MAX_EMBEDS: usize = 100;

/// Characters of a title an embed card shows, `…` included.
pub(crate) const TITLE_CHARS: usize = 200;

/// How a link is written in a note, as the page asks where it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkForm {
    /// `[[target]]`, `[[target|label]]`, `[[target#Heading]]`.
    Wiki,
    /// `![[target]]`.
    Embed,
    /// `[label](url)`, inline or by reference.
    Link,
    /// `![alt](url)`.
    Image,
}

/// Where a link goes on the page being rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// A note that may be linked to from this page: the link goes to `href`; an embed
    /// shows `title` in its card (cut to `TITLE_CHARS`; a page answers it for an
    /// embed only, see [`card_title`]).
    Note { href: String, title: String },
    /// No note this page may link to (missing, or private on a public page): with
    /// `href`, a link of class `missing` (to where the note can be made); without, the
    /// link's text alone, plain.
    Missing { href: Option<String> },
    /// A file that is not a note (an attachment): a plain link to `href`.
    File { href: String },
    /// Not a link between notes (an external URL, a `#anchor`): a Markdown link or image
    /// is kept as written (its URL checked like any), a wikilink is its text.
    AsWritten,
}

/// What a page answers for each link between notes it shows. The web interface and the
/// public pages each have theirs; the renderer only asks.
pub(crate) trait LinkPlaces {
    /// Where a link written as `form` with destination `dest` goes: `dest` is what the
    /// parser hands (a wikilink's text before `|`, a Markdown link's URL).
    fn place(&self, form: LinkForm, dest: &str) -> Place;
}

/// A page where no link between notes leads anywhere: wikilinks show as their text,
/// Markdown links stay as written.
#[cfg(test)]
pub(crate) struct Unlinked;

#[cfg(test)]
impl LinkPlaces for Unlinked {
    fn place(&self, _: LinkForm, _: &str) -> Place {
        Place::AsWritten
    }
}

/// `Rust async` → `Rust async`, `Rust async#Setup` → `Rust async > Setup`, `#Setup` →
/// `Setup`: the text a wikilink without `|label` shows (the author's own words, never
/// a path or title found by resolving it).
pub(crate) fn wiki_label(dest: &str) -> String {
    match dest.split_once('#') {
        Some((note, heading)) if note.trim().is_empty() => heading.trim().to_string(),
        Some((note, heading)) if heading.trim().is_empty() => note.trim().to_string(),
        Some((note, heading)) => format!("{} > {}", note.trim(), heading.trim()),
        None => dest.trim().to_string(),
    }
}

/// The title an embed card of a note titled `title` shows: at most `TITLE_CHARS`
/// characters, a longer one cut with `…`.
pub(crate) fn card_title(title: &str) -> Cow<'_, str> {
    match title.char_indices().nth(TITLE_CHARS) {
        None => Cow::Borrowed(title),
        Some(_) => {
            let end = title
                .char_indices()
                .nth(TITLE_CHARS - 1)
                .map_or(title.len(), |(at, _)| at);
            Cow::Owned(format!("{}…", title[..end].trim_end()))
        }
    }
}

/// Links open in the text being rendered, and the page's answers.
pub(super) struct NoteLinks<'p> {
    places: &'p dyn LinkPlaces,
    /// What closes each link or image open, innermost last.
    open: Vec<Close>,
    /// Above 0 while inside a link whose own text is replaced: the events inside are
    /// dropped, nested links and images counted so the right end is found.
    skipping: usize,
    /// Embeds shown so far on the page.
    embeds: usize,
}

/// How a link or image open in the text ends.
enum Close {
    /// With the end the text has (the author's link, or one whose target was replaced).
    AsIs,
    /// With this markup, or nothing (plain text, a card made whole at its start).
    With(Option<Event<'static>>),
    /// An embedded image with text after `|` (`![[a.png|100x50]]`, `![[a.png|A cat]]`):
    /// the `<img>` is made at its end, once its text (a size, or the alt text) is read.
    /// `depth` counts links and images nested in the text.
    Sized {
        src: String,
        name: String,
        text: String,
        depth: usize,
    },
}

impl<'p> NoteLinks<'p> {
    pub(super) fn new(places: &'p dyn LinkPlaces) -> Self {
        NoteLinks {
            places,
            open: Vec::new(),
            skipping: 0,
            embeds: 0,
        }
    }

    /// A piece of the text ends: every link in it has ended (the parser closes them at
    /// the end of their block); nothing is carried to the next.
    pub(super) fn end_piece(&mut self) {
        self.open.clear();
        self.skipping = 0;
    }

    /// Whether one more embed may be shown, counting it.
    fn embed(&mut self) -> bool {
        let shown = self.embeds < MAX_EMBEDS;
        self.embeds += usize::from(shown);
        shown
    }

    /// Adds what `event` becomes to `out`: the author's events go through `safe` (the
    /// renderer's allow-list); the markup made here is pushed as it is.
    pub(super) fn route<'a>(
        &mut self,
        event: Event<'a>,
        out: &mut Vec<Event<'a>>,
        mut safe: impl FnMut(Event<'a>) -> Event<'a>,
    ) {
        if let Some(Close::Sized { text, depth, .. }) = self.open.last_mut() {
            match event {
                Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) | Event::Html(t) => {
                    text.push_str(&t)
                }
                Event::Start(Tag::Link { .. } | Tag::Image { .. }) => *depth += 1,
                Event::End(TagEnd::Link | TagEnd::Image) if *depth > 0 => *depth -= 1,
                Event::End(TagEnd::Image) => {
                    if let Some(Close::Sized {
                        src, name, text, ..
                    }) = self.open.pop()
                    {
                        out.push(Event::Html(CowStr::from(sized_image(&src, &name, &text))));
                    }
                }
                _ => {}
            }
            return;
        }
        if self.skipping > 0 {
            match &event {
                Event::Start(Tag::Link { .. } | Tag::Image { .. }) => self.skipping += 1,
                Event::End(TagEnd::Link | TagEnd::Image) if self.skipping > 1 => self.skipping -= 1,
                // The end of the link whose text was replaced: closed below.
                Event::End(TagEnd::Link | TagEnd::Image) => self.skipping = 0,
                _ => {}
            }
            if self.skipping > 0 {
                return;
            }
        }
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let as_written = |dest_url, title| Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                };
                if matches!(link_type, LinkType::Autolink | LinkType::Email) {
                    self.open_as_is(as_written(dest_url, title), out, &mut safe);
                    return;
                }
                let dest_url = unescaped_pipe(link_type, dest_url);
                let form = match link_type {
                    LinkType::WikiLink { .. } => LinkForm::Wiki,
                    _ => LinkForm::Link,
                };
                let label = bare_label(link_type, &dest_url);
                match self.places.place(form, &dest_url) {
                    Place::Note { href, .. } | Place::File { href } => {
                        // The author's title attribute stays on a Markdown link.
                        let title = if form == LinkForm::Link {
                            title
                        } else {
                            CowStr::Borrowed("")
                        };
                        out.push(safe(link_to(CowStr::from(href), title)));
                        self.open.push(Close::AsIs);
                    }
                    Place::Missing { href } => self.missing(href, out),
                    Place::AsWritten if form == LinkForm::Wiki => self.missing(None, out),
                    Place::AsWritten => {
                        self.open_as_is(as_written(dest_url, title), out, &mut safe)
                    }
                }
                self.label(label, out);
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let image_tag = |link_type, dest_url, title| Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    id,
                };
                let dest_url = unescaped_pipe(link_type, dest_url);
                let form = match link_type {
                    LinkType::WikiLink { .. } => LinkForm::Embed,
                    _ => LinkForm::Image,
                };
                let label = bare_label(link_type, &dest_url);
                let place = self.places.place(form, &dest_url);
                let image = match &place {
                    Place::Note { .. } => true,
                    Place::File { href } => form == LinkForm::Image || shows_as_image(href),
                    Place::AsWritten => form == LinkForm::Image,
                    Place::Missing { .. } => false,
                };
                if image && !self.embed() {
                    // Past the page's embeds: a plain link, with the embed's text.
                    let href = match place {
                        Place::Note { href, .. } | Place::File { href } => CowStr::from(href),
                        _ => dest_url,
                    };
                    out.push(safe(link_to(href, title)));
                    self.open.push(Close::With(Some(Event::End(TagEnd::Link))));
                    self.label(label, out);
                    return;
                }
                match place {
                    Place::Note { href, title } => {
                        out.push(Event::Html(CowStr::from(card(&href, &title))));
                        self.open.push(Close::With(None));
                        // The card says all: the alt text or target is not repeated.
                        self.skipping = 1;
                        return;
                    }
                    // An image embedded with `|text`: a size or its alt text.
                    Place::File { href }
                        if image && link_type == (LinkType::WikiLink { has_pothole: true }) =>
                    {
                        let name = dest_url.rsplit('/').next().unwrap_or_default();
                        self.open.push(Close::Sized {
                            src: href,
                            name: name.to_string(),
                            text: String::new(),
                            depth: 0,
                        });
                        return;
                    }
                    // An image shows as one (a Markdown image, or an embed of an image
                    // file); another file embedded is a link to it.
                    Place::File { href } if image => {
                        let tag = image_tag(LinkType::Inline, CowStr::from(href), title);
                        self.open_as_is(tag, out, &mut safe);
                    }
                    Place::File { href } => {
                        out.push(safe(link_to(CowStr::from(href), CowStr::Borrowed(""))));
                        self.open.push(Close::With(Some(Event::End(TagEnd::Link))));
                    }
                    Place::Missing { href } => self.missing(href, out),
                    Place::AsWritten if form == LinkForm::Embed => self.missing(None, out),
                    Place::AsWritten => {
                        self.open_as_is(image_tag(link_type, dest_url, title), out, &mut safe)
                    }
                }
                self.label(label, out);
            }
            Event::End(end @ (TagEnd::Link | TagEnd::Image)) => match self.open.pop() {
                Some(Close::With(close)) => out.extend(close),
                Some(Close::AsIs | Close::Sized { .. }) | None => out.push(safe(Event::End(end))),
            },
            event => out.push(safe(event)),
        }
    }

    /// Opens `tag` as the author wrote it (through `safe`); its end passes as it is.
    fn open_as_is<'a>(
        &mut self,
        tag: Tag<'a>,
        out: &mut Vec<Event<'a>>,
        safe: &mut impl FnMut(Event<'a>) -> Event<'a>,
    ) {
        out.push(safe(Event::Start(tag)));
        self.open.push(Close::AsIs);
    }

    /// Opens a link to a note this page may not link to: styled as missing when there is
    /// somewhere to go, plain text otherwise.
    fn missing<'a>(&mut self, href: Option<String>, out: &mut Vec<Event<'a>>) {
        match href {
            Some(href) => {
                let mut open = String::from(r#"<a class="missing" href=""#);
                push_href(&mut open, href);
                open.push_str("\">");
                out.push(Event::Html(CowStr::from(open)));
                self.open
                    .push(Close::With(Some(Event::Html(CowStr::Borrowed("</a>")))));
            }
            None => self.open.push(Close::With(None)),
        }
    }

    /// For a wikilink without `|label`, shows our label in place of its text.
    fn label<'a>(&mut self, label: Option<String>, out: &mut Vec<Event<'a>>) {
        if let Some(label) = label {
            out.push(Event::Text(CowStr::from(label)));
            self.skipping = 1;
        }
    }
}

/// A wikilink's target without the `\\` of `[[Note\\|label]]` (the escape Obsidian needs
/// inside a table: the parser ends the target before the `|`).
fn unescaped_pipe(link_type: LinkType, dest: CowStr<'_>) -> CowStr<'_> {
    match link_type {
        LinkType::WikiLink { .. } if dest.ends_with('\\') => {
            CowStr::from(dest[..dest.len() - 1].to_string())
        }
        _ => dest,
    }
}

/// The label a wikilink or embed without `|label` shows; `None` for any other link,
/// whose text is the author's.
fn bare_label(link_type: LinkType, dest: &str) -> Option<String> {
    matches!(link_type, LinkType::WikiLink { has_pothole: false }).then(|| wiki_label(dest))
}

/// Whether the file at `href` is an image a page can show (by its extension: PNG, JPEG,
/// GIF, WebP, SVG, AVIF…).
fn shows_as_image(href: &str) -> bool {
    let path = href.split(['?', '#']).next().unwrap_or(href);
    mime_guess::from_path(path)
        .first()
        .is_some_and(|mime| mime.type_() == mime_guess::mime::IMAGE)
}

/// The start of a plain link to `href` (its scheme is checked by the caller's `safe`).
fn link_to<'a>(href: CowStr<'a>, title: CowStr<'a>) -> Event<'a> {
    Event::Start(Tag::Link {
        link_type: LinkType::Inline,
        dest_url: href,
        title,
        id: CowStr::Borrowed(""),
    })
}

/// `href`, checked like any link target, escaped into an attribute value.
fn push_href(out: &mut String, href: String) {
    let href = safe_url(CowStr::from(href), false);
    // Writing into a String cannot fail.
    let _ = escape_href(&mut *out, &href);
}

/// A size written after `|` on an image embed: `100` (width) or `100x50`.
fn size_of(text: &str) -> Option<(u32, Option<u32>)> {
    let number = |t: &str| {
        (!t.is_empty() && t.len() <= 5 && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let text = text.trim();
    match text.split_once('x') {
        Some((w, h)) => Some((number(w)?, Some(number(h)?))),
        None => Some((number(text)?, None)),
    }
}

/// The `<img>` of an image embedded with `|text`: a size (`100`, `100x50`) as its
/// width and height, its file name as alt text; any other text is the alt text.
fn sized_image(src: &str, name: &str, text: &str) -> String {
    let mut html = String::from("<img src=\"");
    push_href(&mut html, src.to_string());
    html.push_str("\" alt=\"");
    let size = size_of(text);
    let alt = if size.is_some() { name } else { text };
    let _ = escape_html(&mut html, alt);
    html.push('"');
    if let Some((width, height)) = size {
        html.push_str(&format!(" width=\"{width}\""));
        if let Some(height) = height {
            html.push_str(&format!(" height=\"{height}\""));
        }
    }
    html.push_str(" />");
    html
}

/// The card of an embedded note: a block-looking link holding the note's title.
fn card(href: &str, title: &str) -> String {
    let mut html = String::from(r#"<a class="embed" href=""#);
    push_href(&mut html, href.to_string());
    html.push_str(r#""><span class="embed-title">"#);
    let _ = escape_html(&mut html, &card_title(title));
    html.push_str("</span></a>");
    html
}
