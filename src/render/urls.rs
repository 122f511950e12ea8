//! Text written into URLs the pages make: a path segment or query value, and the
//! opaque form of the feed's entry ids.

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
