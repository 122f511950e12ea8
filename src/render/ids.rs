//! The ids a page gives: a heading's, made from its text (what a link to that heading
//! puts after `#`), and a footnote's, made from its label, numbered in the order the
//! page first names it; every id unique in the page.

use std::collections::{HashMap, HashSet};

/// Characters of a heading's text its id is made from: a longer heading's id is made
/// from its start, and so is the anchor of a link to it.
pub(super) const ID_TEXT_CHARS: usize = 200;

/// Ids one page gives at most (each remembered to keep the next ones unique): past
/// them a heading has no id and a new footnote label is shown as the text it is.
const MAX_IDS: usize = 1 << 16;

/// The ids given so far on one page.
#[derive(Default)]
pub(super) struct Ids {
    /// Every id given, with how often its base was asked for (see [`unique`]).
    used: HashMap<String, usize>,
    /// A footnote label's id (labels compared without case, as the parser matches them).
    by_label: HashMap<String, String>,
    /// Labels whose definition was written.
    defined: HashSet<String>,
    /// A footnote id's number, in the order the page first names it.
    numbers: HashMap<String, usize>,
}

impl Ids {
    fn full(&self) -> bool {
        self.used.len() >= MAX_IDS
    }

    /// The id of a heading whose text is `text`; `None` once the page has given all.
    pub(super) fn heading(&mut self, text: &str) -> Option<String> {
        (!self.full()).then(|| unique(&mut self.used, heading_id(text)))
    }

    /// The id of a block marked `^label` (see `blocks.rs`); `None` once the page has
    /// given all.
    pub(super) fn block(&mut self, label: &str) -> Option<String> {
        (!self.full()).then(|| unique(&mut self.used, format!("^{}", label.to_ascii_lowercase())))
    }

    /// The id and number a reference to footnote `label` links to.
    pub(super) fn footnote(&mut self, label: &str) -> Option<(String, usize)> {
        let key = label.to_lowercase();
        let id = match self.by_label.get(&key) {
            Some(id) => id.clone(),
            None if self.full() => return None,
            None => {
                let id = self.fresh(label);
                self.by_label.insert(key, id.clone());
                id
            }
        };
        let number = self.number(&id);
        Some((id, number))
    }

    /// The id and number of a definition of footnote `label`: a label defined twice
    /// gets a second id for its second definition, so no id appears twice in a page.
    pub(super) fn definition(&mut self, label: &str) -> Option<(String, usize)> {
        let key = label.to_lowercase();
        if !self.defined.contains(&key) {
            let found = self.footnote(label);
            if found.is_some() {
                self.defined.insert(key);
            }
            return found;
        }
        if self.full() {
            return None;
        }
        let id = self.fresh(label);
        let number = self.number(&id);
        Some((id, number))
    }

    fn fresh(&mut self, label: &str) -> String {
        unique(&mut self.used, format!("fn-{}", slug(label, "note")))
    }

    fn number(&mut self, id: &str) -> usize {
        let next = self.numbers.len() + 1;
        *self.numbers.entry(id.to_string()).or_insert(next)
    }
}

/// The id a heading of text `text` gets on a page (before `-1`, `-2`… make a repeated
/// one unique): what a link to that heading puts after `#`. Made from the first
/// `ID_TEXT_CHARS` characters.
pub(crate) fn heading_id(text: &str) -> String {
    let end = text
        .char_indices()
        .nth(ID_TEXT_CHARS)
        .map_or(text.len(), |(at, _)| at);
    slug(&text[..end], "section")
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

/// `base`, or `base-1`, `base-2`… the first not given yet.
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

    #[test]
    fn long_headings_are_named_by_their_start() {
        let long = "word ".repeat(100);
        let id = heading_id(&long);
        assert_eq!(id, heading_id(&"word ".repeat(40)));
        assert!(id.len() <= ID_TEXT_CHARS, "{}", id.len());
    }

    #[test]
    fn a_page_gives_a_bounded_number_of_ids() {
        let mut ids = Ids::default();
        for _ in 0..MAX_IDS {
            assert!(ids.heading("Same").is_some());
        }
        assert_eq!(ids.heading("Same"), None);
        assert_eq!(ids.footnote("new"), None);
        assert!(ids.used.len() <= MAX_IDS + 1);
    }

    #[test]
    fn footnotes_are_numbered_in_the_order_the_page_names_them() {
        let mut ids = Ids::default();
        assert_eq!(ids.footnote("B"), Some(("fn-b".into(), 1)));
        assert_eq!(ids.footnote("a"), Some(("fn-a".into(), 2)));
        assert_eq!(ids.definition("a"), Some(("fn-a".into(), 2)));
        assert_eq!(ids.definition("b"), Some(("fn-b".into(), 1)));
        assert_eq!(ids.definition("A"), Some(("fn-a-1".into(), 3)));
        assert_eq!(ids.definition("c"), Some(("fn-c".into(), 4)));
    }
}
