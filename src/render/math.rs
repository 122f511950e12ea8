//! `$…$` and `$$…$$` as MathML, made on the server by `pulldown-latex` (no script, no
//! CDN). What the crate writes passes an allow-list of its own: MathML elements and
//! presentation attributes only (no `href`, no `on…`, no `style`), re-written here;
//! anything else, a LaTeX error, a formula too long or a page past its budget is shown
//! as the source it is, in `<code class="math-source">`.

use pulldown_cmark::{CowStr, Event};
use pulldown_cmark_escape::escape_html;
use pulldown_latex::config::DisplayMode;
use pulldown_latex::{Parser, RenderConfig, Storage, push_mathml};

/// Bytes of LaTeX one formula may have.
const SOURCE_BYTES: usize = 4096;

/// Bytes of MathML one formula may become.
const OUTPUT_BYTES: usize = 256 * 1024;

/// Bytes of MathML one page may hold: past them, formulas are shown as source.
const PAGE_BYTES: usize = 4 * 1024 * 1024;

/// The elements a formula may have.
pub(super) const ELEMENTS: &[&str] = &[
    "math",
    "semantics",
    "annotation",
    "mrow",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
    "mspace",
    "msub",
    "msup",
    "msubsup",
    "mfrac",
    "msqrt",
    "mroot",
    "mstyle",
    "merror",
    "mpadded",
    "mphantom",
    "munder",
    "mover",
    "munderover",
    "mtable",
    "mtr",
    "mtd",
    "mmultiscripts",
    "mprescripts",
    "none",
    "menclose",
];

/// The attributes kept (any other is dropped): presentation only.
pub(super) const ATTRIBUTES: &[&str] = &[
    "class",
    "display",
    "displaystyle",
    "mathvariant",
    "stretchy",
    "largeop",
    "movablelimits",
    "symmetric",
    "minsize",
    "maxsize",
    "linethickness",
    "scriptlevel",
    "width",
    "height",
    "depth",
    "lspace",
    "rspace",
    "voffset",
    "accent",
    "accentunder",
    "fence",
    "separator",
    "form",
    "columnalign",
    "rowalign",
    "columnspan",
    "rowspan",
    "notation",
    "encoding",
    "mathsize",
];

/// The formulas of one page.
#[derive(Default)]
pub(super) struct Math {
    /// MathML bytes written so far.
    written: usize,
}

impl Math {
    /// What a math event becomes: MathML, or its source as code. Other events pass.
    pub(super) fn event<'a>(&mut self, event: Event<'a>) -> Event<'a> {
        let (source, display) = match &event {
            Event::InlineMath(source) => (source, false),
            Event::DisplayMath(source) => (source, true),
            _ => return event,
        };
        let made = (self.written < PAGE_BYTES)
            .then(|| mathml(source, display))
            .flatten();
        match made {
            Some(mathml) => {
                self.written += mathml.len();
                Event::Html(CowStr::from(mathml))
            }
            None => {
                let mut html = String::from(r#"<code class="math-source">"#);
                let _ = escape_html(&mut html, source);
                html.push_str("</code>");
                Event::Html(CowStr::from(html))
            }
        }
    }
}

/// The MathML of a formula, through the allow-list; `None` when the crate finds an
/// error, the formula or its MathML is too long, or the MathML has what the list
/// does not allow. Lines broken by `\\` outside an environment (as MathJax and
/// Obsidian allow) are read as a `gathered` block.
pub(super) fn mathml(source: &str, display: bool) -> Option<String> {
    if source.len() > SOURCE_BYTES {
        return None;
    }
    convert(source, display).or_else(|| {
        source
            .contains("\\\\")
            .then(|| {
                convert(
                    &format!("\\begin{{gathered}}{source}\\end{{gathered}}"),
                    display,
                )
            })
            .flatten()
    })
}

/// `mathml` for one reading of the source.
fn convert(source: &str, display: bool) -> Option<String> {
    let storage = Storage::new();
    let events = Parser::new(source, &storage)
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    let config = RenderConfig {
        display_mode: if display {
            DisplayMode::Block
        } else {
            DisplayMode::Inline
        },
        ..RenderConfig::default()
    };
    let mut raw = String::new();
    push_mathml(
        &mut raw,
        events.into_iter().map(Ok::<_, std::fmt::Error>),
        config,
    )
    .ok()?;
    if raw.len() > OUTPUT_BYTES {
        return None;
    }
    allowed(&raw)
}

/// `markup` re-written with the allowed elements and attributes only; `None` when it
/// has another element, is not well formed, or leaves an element open.
fn allowed(markup: &str) -> Option<String> {
    let mut out = String::with_capacity(markup.len());
    let mut open: Vec<&str> = Vec::new();
    let mut rest = markup;
    while let Some(at) = rest.find('<') {
        text(&rest[..at], &mut out)?;
        let end = rest[at..].find('>')? + at;
        tag(&rest[at + 1..end], &mut open, &mut out)?;
        rest = &rest[end + 1..];
    }
    text(rest, &mut out)?;
    open.is_empty().then_some(out)
}

/// Text between tags, kept as written when its `&` start character references.
fn text(text: &str, out: &mut String) -> Option<()> {
    for (i, part) in text.split('&').enumerate() {
        if i > 0 {
            let name = &part[..part.find(';')?];
            let ok = !name.is_empty()
                && name.len() <= 32
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '#');
            if !ok {
                return None;
            }
            out.push('&');
        }
        out.push_str(part);
    }
    Some(())
}

/// One tag (between `<` and `>`), written with its allowed attributes.
fn tag<'m>(inner: &'m str, open: &mut Vec<&'m str>, out: &mut String) -> Option<()> {
    if let Some(name) = inner.strip_prefix('/') {
        if open.pop()? != name {
            return None;
        }
        out.push_str("</");
        out.push_str(name);
        out.push('>');
        return Some(());
    }
    let (inner, closed) = match inner.strip_suffix('/') {
        Some(inner) => (inner, true),
        None => (inner, false),
    };
    let name_end = inner.find(char::is_whitespace).unwrap_or(inner.len());
    let name = &inner[..name_end];
    if !ELEMENTS.contains(&name) {
        return None;
    }
    out.push('<');
    out.push_str(name);
    let mut rest = inner[name_end..].trim_start();
    while !rest.is_empty() {
        let eq = rest.find('=')?;
        let attribute = &rest[..eq];
        let value_rest = rest[eq + 1..].strip_prefix('"')?;
        let close = value_rest.find('"')?;
        let value = &value_rest[..close];
        if ATTRIBUTES.contains(&attribute) {
            out.push(' ');
            out.push_str(attribute);
            out.push_str("=\"");
            // The crate escapes values; an `&` left in one is written as text.
            let _ = escape_html(&mut *out, &value.replace("&amp;", "&"));
            out.push('"');
        } else if !attribute
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '-')
        {
            return None;
        }
        rest = value_rest[close + 1..].trim_start();
    }
    if closed {
        out.push_str("></");
        out.push_str(name);
        out.push('>');
    } else {
        out.push('>');
        open.push(name);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_markup_passes() {
        assert_eq!(
            allowed(r#"<math display="block"><mi style="color: red" class="x">a</mi></math>"#),
            Some(r#"<math display="block"><mi class="x">a</mi></math>"#.to_string())
        );
        assert_eq!(
            allowed(r#"<math><mi href="javascript:x" onclick="y">a</mi></math>"#),
            Some("<math><mi>a</mi></math>".to_string())
        );
        assert_eq!(allowed("<math><script>x</script></math>"), None);
        assert_eq!(allowed("<math><mi>a</mo></math>"), None);
        assert_eq!(allowed("<math><mi>a</mi>"), None);
        assert_eq!(allowed("<math>a & b</math>"), None);
        assert_eq!(
            allowed(r#"<math><mspace width="1em"/>&lt;</math>"#),
            Some(r#"<math><mspace width="1em"></mspace>&lt;</math>"#.to_string())
        );
        assert_eq!(allowed(r#"<math><mi x="a>b">c</mi></math>"#), None);
    }

    #[test]
    fn errors_and_long_formulas_are_not_rendered() {
        assert!(mathml("x^2", false).is_some());
        assert_eq!(mathml(r"\frac{a", false), None);
        assert_eq!(mathml(r"\nosuchcommand", false), None);
        assert_eq!(mathml(&"x+".repeat(SOURCE_BYTES), false), None);
        assert_eq!(mathml(r"\href{javascript:alert(1)}{x}", false), None);
        assert_eq!(
            mathml(r"\text{<b>}", false).as_deref(),
            Some(r#"<math display="inline"><mtext>&lt;b&gt;</mtext></math>"#)
        );
        // Lines broken outside an environment.
        assert_eq!(
            mathml(r"a \\ b", true).as_deref(),
            Some(
                r#"<math display="block"><mtable><mtr><mtd><mi>a</mi></mtd></mtr><mtr><mtd><mi>b</mi></mtd></mtr></mtable></math>"#
            )
        );
    }
}
