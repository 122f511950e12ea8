//! The edits themselves, pure: a note's text in, its new text out. The note keeps its
//! line endings (inserted text takes them), a last line without a newline stays so,
//! and the blank lines that separate a section from the next heading stay in place.

use std::ops::Range;

use serde_yaml::{Mapping, Value};

use super::parse::{self, Heading};
use super::{Edit, HeadingPath};
use crate::error::{Error, Result};
use crate::ops::front_matter::{self, Change, Document};

/// The note's text after `edit`; `now` is the `last_modified` stamp written when the
/// note's front matter has that key.
pub(crate) fn apply(text: &str, edit: &Edit, now: &str) -> Result<String> {
    let edited = match edit {
        Edit::SetFrontMatter { map } => return set_front_matter(text, map, now),
        Edit::Append { heading, text: add } => {
            let section = find(text, heading)?;
            let at = parse::last_content_end(text, section.line.end..section.section.end);
            splice(text, at..at, add)
        }
        Edit::Prepend { heading, text: add } => {
            let section = find(text, heading)?;
            let at = section.line.end;
            splice(text, at..at, add)
        }
        Edit::Replace { heading, text: add } => {
            let section = find(text, heading)?;
            let inner = section.line.end..section.section.end;
            let start = parse::first_content_start(text, inner.clone());
            let end = parse::last_content_end(text, inner).max(start);
            splice(text, start..end, add)
        }
    };
    refresh_last_modified(edited, now)
}

/// The one section `heading` names, or why there is none.
pub(super) fn find(text: &str, heading: &HeadingPath) -> Result<Heading> {
    if heading.is_empty() {
        return Err(Error::InvalidSectionEdit(
            "the heading path is empty: name the section's heading".into(),
        ));
    }
    let all = parse::headings(text, front_matter::body_offset(text));
    let mut matching = all.iter().filter(|h| h.path == *heading);
    match (matching.next(), matching.next()) {
        (Some(one), None) => Ok(one.clone()),
        (None, _) => Err(Error::HeadingNotFound {
            heading: heading.clone(),
            candidates: candidates(&all),
        }),
        (Some(_), Some(_)) => Err(Error::HeadingAmbiguous {
            heading: heading.clone(),
            candidates: candidates(&all),
        }),
    }
}

/// Every heading path of the note, in order, each once.
fn candidates(all: &[Heading]) -> Vec<HeadingPath> {
    let mut out: Vec<HeadingPath> = Vec::with_capacity(all.len());
    for h in all {
        if !out.contains(&h.path) {
            out.push(h.path.clone());
        }
    }
    out
}

/// The line ending the note uses: that of its first line (`\n` when it has one line).
fn newline_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// `text` with `\n`, `\r\n` (and lone `\r`) line endings turned into `nl`.
fn with_newlines(text: &str, nl: &str) -> String {
    let unified = text.replace("\r\n", "\n").replace('\r', "\n");
    if nl == "\n" {
        unified
    } else {
        unified.replace('\n', nl)
    }
}

/// `text` with the bytes of `range` (whole lines) replaced by the lines of `add`.
fn splice(text: &str, range: Range<usize>, add: &str) -> String {
    let nl = newline_of(text);
    let mut block = with_newlines(add, nl);
    if !block.is_empty() && !block.ends_with('\n') {
        block.push_str(nl);
    }
    let (before, after) = (&text[..range.start], &text[range.end..]);
    let mut out = String::with_capacity(text.len() + block.len() + 2);
    out.push_str(before);
    if after.is_empty() && !text.ends_with('\n') {
        // The edit is at the end of a note whose last line has no newline: it still
        // has none afterwards.
        if !block.is_empty() && !before.is_empty() && !before.ends_with('\n') {
            out.push_str(nl);
        }
        out.push_str(block.strip_suffix(nl).unwrap_or(&block));
    } else {
        out.push_str(&block);
    }
    out.push_str(after);
    out
}

/// The note's `last_modified` set to `now` when its front matter has one (a section
/// edit adds no key); the rest of the front matter keeps its text.
fn refresh_last_modified(text: String, now: &str) -> Result<String> {
    let text = front_matter::touch(text, now)?;
    front_matter::check(&text)?;
    Ok(text)
}

/// Merges `map` into the front matter: a key it has is replaced in place, a new key
/// goes after the others (a spec'd one after its spec'd neighbour), a `null` removes the key (as in a JSON merge patch); every
/// other key keeps its text. `last_modified` is refreshed when the note has one. A note
/// without front matter gets one holding the keys set.
fn set_front_matter(text: &str, map: &Mapping, now: &str) -> Result<String> {
    let mut changes: Vec<Change> = map
        .iter()
        .filter_map(|(key, value)| {
            let key = key.as_str()?.to_string();
            Some(match value {
                Value::Null => Change::Remove(key),
                value => Change::Set(key, value.clone()),
            })
        })
        .collect();
    let text = match front_matter::parse(text) {
        Some(doc) => {
            if doc.yaml.contains_key("last_modified") && !map.contains_key("last_modified") {
                changes.push(Change::text("last_modified", now));
            }
            front_matter::edit(text, &changes)?
        }
        None if front_matter::body_offset(text) > 0 => {
            return Err(Error::FrontMatterUnreadable);
        }
        None => {
            let mut yaml = Mapping::new();
            for change in changes {
                if let Change::Set(key, value) = change {
                    yaml.insert(key.into(), value);
                }
            }
            if yaml.is_empty() {
                text.to_string()
            } else {
                Document {
                    yaml,
                    body: text.to_string(),
                    blank_line: true,
                    newline: newline_of(text),
                }
                .emit()
                .map_err(|e| Error::FrontMatterFailed(e.to_string()))?
            }
        }
    };
    front_matter::check(&text)?;
    Ok(text)
}

/// A key of a YAML mapping, for the tests.
#[cfg(test)]
fn keys(text: &str) -> Vec<String> {
    front_matter::parse(text)
        .map(|d| {
            d.yaml
                .keys()
                .filter_map(serde_yaml::Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_yaml::Value;

    fn path(p: &[&str]) -> HeadingPath {
        p.iter().map(|s| s.to_string()).collect()
    }

    fn append(h: &[&str], t: &str) -> Edit {
        Edit::Append {
            heading: path(h),
            text: t.into(),
        }
    }

    fn prepend(h: &[&str], t: &str) -> Edit {
        Edit::Prepend {
            heading: path(h),
            text: t.into(),
        }
    }

    fn replace(h: &[&str], t: &str) -> Edit {
        Edit::Replace {
            heading: path(h),
            text: t.into(),
        }
    }

    const NOTE: &str = "# Top\nintro\n\n## Sub\nold\n\n## Other\nz\n";

    #[test]
    fn append_goes_after_the_subsections_before_the_blank_lines() {
        let out = apply(NOTE, &append(&["Top"], "end"), "now").unwrap();
        assert_eq!(out, "# Top\nintro\n\n## Sub\nold\n\n## Other\nz\nend\n");
        let out = apply(NOTE, &append(&["Top", "Sub"], "more\n"), "now").unwrap();
        assert_eq!(out, "# Top\nintro\n\n## Sub\nold\nmore\n\n## Other\nz\n");
    }

    #[test]
    fn prepend_goes_right_after_the_heading_line() {
        let out = apply(NOTE, &prepend(&["Top", "Sub"], "first"), "now").unwrap();
        assert_eq!(out, "# Top\nintro\n\n## Sub\nfirst\nold\n\n## Other\nz\n");
    }

    #[test]
    fn replace_keeps_the_heading_and_the_separating_blank_lines() {
        let text = "# A\n\nold\n### deep\nx\n\n# B\n";
        let out = apply(text, &replace(&["A"], "new"), "now").unwrap();
        assert_eq!(out, "# A\n\nnew\n\n# B\n");
        let out = apply("# A\n# B\n", &replace(&["A"], "x"), "now").unwrap();
        assert_eq!(out, "# A\nx\n# B\n");
        let out = apply(text, &replace(&["A", "deep"], ""), "now").unwrap();
        assert_eq!(out, "# A\n\nold\n### deep\n\n# B\n");
    }

    #[test]
    fn line_endings_and_a_missing_last_newline_are_kept() {
        let crlf = "# A\r\nx\r\n## B\r\ny";
        let out = apply(crlf, &append(&["A", "B"], "one\ntwo"), "now").unwrap();
        assert_eq!(out, "# A\r\nx\r\n## B\r\ny\r\none\r\ntwo");
        let out = apply(crlf, &prepend(&["A"], "p\n"), "now").unwrap();
        assert_eq!(out, "# A\r\np\r\nx\r\n## B\r\ny");
        let out = apply("# A", &append(&["A"], "x"), "now").unwrap();
        assert_eq!(out, "# A\nx");
        let out = apply("# A\nold", &replace(&["A"], "new\n"), "now").unwrap();
        assert_eq!(out, "# A\nnew");
    }

    #[test]
    fn missing_and_ambiguous_headings_name_the_candidates() {
        let text = "# A\n## B\n# A\n## C\n";
        match apply(text, &append(&["A"], "x"), "now") {
            Err(Error::HeadingAmbiguous {
                heading,
                candidates,
            }) => {
                assert_eq!(heading, path(&["A"]));
                assert_eq!(
                    candidates,
                    [path(&["A"]), path(&["A", "B"]), path(&["A", "C"])]
                );
            }
            other => panic!("{other:?}"),
        }
        match apply(text, &append(&["B"], "x"), "now") {
            Err(Error::HeadingNotFound { candidates, .. }) => assert_eq!(candidates.len(), 3),
            other => panic!("{other:?}"),
        }
        // Case matters; the path is whole.
        assert!(apply(text, &append(&["a", "B"], "x"), "now").is_err());
        assert!(apply(text, &append(&["A", "B"], "x"), "now").is_ok());
        assert!(matches!(
            apply(text, &append(&[], "x"), "now"),
            Err(Error::InvalidSectionEdit(_))
        ));
    }

    #[test]
    fn front_matter_is_not_searched_and_last_modified_is_refreshed() {
        let text = "---\ntitle: T\nlast_modified: old\nzeta: 1\n---\n# A\nx\n";
        let out = apply(text, &append(&["A"], "y"), "now").unwrap();
        assert_eq!(
            out,
            "---\ntitle: T\nlast_modified: now\nzeta: 1\n---\n# A\nx\ny\n"
        );
        // A heading-like line in the YAML is not a section.
        let text = "---\ntitle: T\n# A\n---\nbody\n";
        assert!(matches!(
            apply(text, &append(&["A"], "y"), "now"),
            Err(Error::HeadingNotFound { .. })
        ));
    }

    #[test]
    fn set_merges_keeps_order_and_creates() {
        let text = "---\nzeta: 1\ntitle: T\nauthor: Ann\n---\n\nbody\n";
        let mut map = Mapping::new();
        map.insert("title".into(), "New".into());
        map.insert("mood".into(), "ok".into());
        map.insert("author".into(), Value::Null);
        let out = apply(text, &Edit::SetFrontMatter { map: map.clone() }, "now").unwrap();
        // Only the keys set change: no last_modified is added, the rest keeps its text.
        assert_eq!(out, "---\nzeta: 1\ntitle: New\nmood: ok\n---\n\nbody\n");
        let stamped = "---\nlast_modified: old\n# hand-written\ntitle:  T\n---\nbody\n";
        let out = apply(stamped, &Edit::SetFrontMatter { map: map.clone() }, "now").unwrap();
        assert_eq!(
            out,
            "---\nlast_modified: now\n# hand-written\ntitle: New\nmood: ok\n---\nbody\n"
        );

        let out = apply("body\r\n", &Edit::SetFrontMatter { map }, "now").unwrap();
        assert_eq!(keys(&out), ["title", "mood"]);
        assert!(out.starts_with("---\r\ntitle: New\r\n"));
        assert!(out.ends_with("---\r\n\r\nbody\r\n"));

        let broken = "---\ntitle: [x\n---\nbody\n";
        assert!(matches!(
            apply(
                broken,
                &Edit::SetFrontMatter {
                    map: Mapping::new()
                },
                "now"
            ),
            Err(Error::FrontMatterUnreadable)
        ));
    }
}
