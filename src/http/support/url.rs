//! Note and attachment paths as they come in URLs: percent-decoded once, here, then
//! validated like any note or attachment path.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::ops::{FilePath, NotePath};

/// Validates the percent-encoded path of a URL (the text after `/api/v1/files/`), as
/// `note_path` does for notes.
pub fn file_path(encoded: &str) -> Result<FilePath> {
    FilePath::parse(&decoded(encoded)?)
}

/// The text of a percent-encoded URL path, decoded once.
fn decoded(encoded: &str) -> Result<Cow<'_, str>> {
    if !encoded.contains('%') {
        return Ok(Cow::Borrowed(encoded));
    }
    percent_encoding::percent_decode_str(encoded)
        .decode_utf8()
        .map_err(|_| Error::InvalidPath)
}

/// Validates the percent-encoded path of a URL (the text after `/api/v1/notes/`).
/// Decoding happens once, before cleaning, so `%2e%2e%2f` is traversal like `../`.
pub fn note_path(encoded: &str) -> Result<NotePath> {
    if !encoded.contains('%') {
        return NotePath::parse(encoded);
    }
    NotePath::parse(&decoded(encoded)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn encoded_traversal_is_refused() {
        for encoded in [
            "%2e%2e%2fx.md",
            "..%2fx.md",
            "%2E%2E/x.md",
            "%2fetc%2fx.md",
            "a%00.md",
            "%ff.md",
        ] {
            assert!(
                matches!(note_path(encoded), Err(Error::InvalidPath)),
                "{encoded}"
            );
        }
        // Double encoding decodes once: a literal `%2e%2e` file name, inside the dir.
        assert_eq!(
            note_path("%252e%252e%252fx.md").unwrap().as_str(),
            "%2e%2e%2fx.md"
        );
        assert_eq!(note_path("a%20b/c.md").unwrap().as_str(), "a b/c.md");
    }

    #[test]
    fn attachment_paths_decode_once() {
        assert_eq!(file_path("a%20b/c.png").unwrap().as_str(), "a b/c.png");
        for encoded in ["%2e%2e%2fx.png", "%2ehidden/x.png", "a%00.png", "%ff.png"] {
            assert!(
                matches!(file_path(encoded), Err(Error::InvalidPath)),
                "{encoded}"
            );
        }
        assert!(matches!(file_path("n%2emd"), Err(Error::FileIsNote)));
    }

    fn raw_path() -> impl Strategy<Value = String> {
        let segment = prop_oneof![
            Just("..".to_string()),
            Just(".".to_string()),
            Just(String::new()),
            Just("%2e%2e".to_string()),
            Just("%2f".to_string()),
            "[a-z.é]{1,6}",
        ];
        (
            any::<bool>(),
            prop::collection::vec(segment, 0..8),
            any::<bool>(),
        )
            .prop_map(|(rooted, segments, md)| {
                let mut p = segments.join("/");
                if rooted {
                    p.insert(0, '/');
                }
                if md {
                    p.push_str(".md");
                }
                p
            })
    }

    proptest! {
        #[test]
        fn accepted_paths_never_escape(raw in raw_path()) {
            if let Ok(p) = note_path(&raw) {
                let s = p.as_str();
                prop_assert!(!s.starts_with('/'));
                prop_assert!(s.ends_with(".md"));
                prop_assert!(s.split('/').all(|seg| !seg.is_empty() && seg != "." && seg != ".."));
                let root = std::path::Path::new("/srv/notes");
                prop_assert!(root.join(s).starts_with(root));
            }
        }
    }
}
