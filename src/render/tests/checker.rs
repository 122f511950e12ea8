//! The checker of the renderer's promise: a rendered fragment parsed as a browser
//! would, and every tag, attribute, URL or id in it that breaks the allow-list.

use std::collections::HashSet;

// MathML: the renderer's own allow-list; the checker asks that nothing outside it
// reaches a page.
use crate::render::math::{ATTRIBUTES as MATHML_ATTRIBUTES, ELEMENTS as MATHML};

/// Parses a rendered fragment as a browser would and lists every way it breaks the
/// renderer's promise: a tag or attribute not on the allow-list, a URL that is not
/// relative or navigating, an id not of our shape or not unique.
pub(super) fn violations(fragment: &str) -> Vec<String> {
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
            "em" | "strong" | "del" | "mark" | "blockquote" | "ul" | "pre" | "hr" | "br"
            | "table" | "thead" | "tbody" | "tr" => &[],
            "p" | "li" => &["id"],
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => &["id"],
            "code" => &["class"],
            "ol" => &["start"],
            "a" => &["href", "title", "class"],
            "span" => &["class"],
            "img" => &["src", "alt", "title", "width", "height"],
            "input" => &["disabled", "type", "checked"],
            "th" | "td" => &["class"],
            "div" => &["class", "id"],
            "details" => &["class", "open"],
            "summary" => &["class"],
            tag if MATHML.contains(&tag) => MATHML_ATTRIBUTES,
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
                    // A block's id is `^` and its label.
                    let block = matches!(tag, "p" | "li");
                    let bare = if block {
                        value.strip_prefix('^').unwrap_or("")
                    } else {
                        value
                    };
                    let shaped = !bare.is_empty()
                        && bare
                            .chars()
                            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
                        && (tag != "div" || value.starts_with("fn-"));
                    shaped && ids.insert(value.to_string())
                }
                ("code", "class") if value == "math-source" => true,
                ("code", "class") => value.strip_prefix("language-").is_some_and(|l| {
                    !l.is_empty()
                        && l.chars().all(|c| {
                            c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '#' | '.' | '-')
                        })
                }),
                ("th" | "td", "class") => {
                    ["align-left", "align-center", "align-right"].contains(&value)
                }
                ("div", "class") => {
                    ["footnote-definition", "callout-title", "callout-content"].contains(&value)
                        || callout_class(value)
                }
                ("details", "class") => callout_class(value),
                ("details", "open") => value.is_empty(),
                ("summary", "class") => value == "callout-title",
                (_, "class") if MATHML.contains(&tag) => value.split(' ').all(|c| {
                    !c.is_empty() && c.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                }),
                (_, _) if MATHML.contains(&tag) => !value.contains(':'),
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
                ("img", "width" | "height") => {
                    !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit())
                }
                _ => true,
            };
            if !ok {
                found.push(format!("value {name}={value:?} on <{tag}>"));
            }
        }
    }
    found
}

/// `callout callout-<type>` with a known type.
fn callout_class(value: &str) -> bool {
    value.strip_prefix("callout callout-").is_some_and(|kind| {
        [
            "note", "abstract", "info", "todo", "tip", "success", "question", "warning", "failure",
            "danger", "bug", "example", "quote",
        ]
        .contains(&kind)
    })
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
