//! The snippet of a search result: plain text around the best match, on one line, each
//! matched word between `⟦` and `⟧`; and the title, its matched words marked the same.

use std::collections::BTreeMap;

use tantivy::schema::Field;
use tantivy::snippet::SnippetGenerator;

use super::{MATCH_END, MATCH_START, schema};

/// Longest snippet, in characters (before markers).
const SNIPPET_CHARS: usize = 160;

/// Builds the snippet of each result.
pub(super) struct Snippets {
    terms: BTreeMap<String, f32>,
    prefix: Option<String>,
    /// Whether each body is scanned for the words `prefix` starts: when the index
    /// could not name them (see `with_prefix_words`).
    scan: bool,
    field: Field,
}

/// Weight of a word the typed prefix starts (the query's own words weigh more the
/// rarer they are, up to 1).
const PREFIX_WORD_WEIGHT: f32 = 0.5;

impl Snippets {
    /// Snippets highlighting `terms` (word → weight) and, when the last word of the
    /// query is being typed, the words `prefix` starts.
    pub(super) fn new(terms: BTreeMap<String, f32>, prefix: Option<String>, field: Field) -> Self {
        Snippets {
            terms,
            scan: prefix.is_some(),
            prefix,
            field,
        }
    }

    /// The words the typed prefix starts, as the index names them: highlighted without
    /// a scan of each body for them (which was a third of a search's CPU at 100k
    /// notes). A word of a note written since it was indexed is not among them.
    pub(super) fn with_prefix_words(mut self, words: Vec<String>) -> Self {
        for word in words {
            self.terms.entry(word).or_insert(PREFIX_WORD_WEIGHT);
        }
        self.scan = false;
        self
    }

    /// Plain text around the best match of `body`, each match between the markers.
    pub(super) fn render(&mut self, body: &str) -> String {
        let mut terms = self.terms.clone();
        if let Some(prefix) = self.prefix.as_ref().filter(|_| self.scan) {
            // Only the words the prefix starts are copied out of the token stream.
            let mut analyzer = schema::text_analyzer();
            let mut stream = analyzer.token_stream(body);
            while let Some(token) = stream.next() {
                if token.text.starts_with(prefix.as_str()) && !terms.contains_key(&token.text) {
                    terms.insert(token.text.clone(), PREFIX_WORD_WEIGHT);
                }
            }
        }
        let generator =
            SnippetGenerator::new(terms, schema::text_analyzer(), self.field, SNIPPET_CHARS);
        let snippet = generator.snippet(body);
        if snippet.highlighted().is_empty() {
            return collapse(&body.chars().take(SNIPPET_CHARS).collect::<String>())
                .trim()
                .to_string();
        }
        let fragment = snippet.fragment();
        let mut out = String::with_capacity(fragment.len() + 16);
        let mut from = 0;
        for range in tantivy::snippet::collapse_overlapped_ranges(snippet.highlighted()) {
            out.push_str(&collapse(&fragment[from..range.start]));
            out.push_str(MATCH_START);
            out.push_str(&collapse(&fragment[range.clone()]));
            out.push_str(MATCH_END);
            from = range.end;
        }
        out.push_str(&collapse(&fragment[from..]));
        // The fragment stops at its last word: keep the punctuation that ends it.
        let after = body.get(snippet.fragment_range().end..).unwrap_or("");
        out.extend(
            after
                .chars()
                .take_while(|c| !c.is_whitespace() && !c.is_alphanumeric()),
        );
        out.trim().to_string()
    }
}

impl Snippets {
    /// `text` whole (a title), each word of the query (or the typed prefix) it holds
    /// between the markers.
    pub(super) fn mark(&self, text: &str) -> String {
        let mut analyzer = schema::text_analyzer();
        let mut stream = analyzer.token_stream(text);
        let mut out = String::with_capacity(text.len() + 8);
        let mut from = 0;
        while let Some(token) = stream.next() {
            let hit = self.terms.contains_key(&token.text)
                || self
                    .prefix
                    .as_deref()
                    .is_some_and(|prefix| token.text.starts_with(prefix));
            let Some(word) = text.get(token.offset_from..token.offset_to) else {
                continue;
            };
            if hit && token.offset_from >= from {
                out.push_str(&text[from..token.offset_from]);
                out.push_str(MATCH_START);
                out.push_str(word);
                out.push_str(MATCH_END);
                from = token.offset_to;
            }
        }
        out.push_str(&text[from..]);
        out
    }
}

/// Runs of whitespace (line breaks included) become one space.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_collapses_to_one_space() {
        assert_eq!(collapse("a \n\n  b\tc"), "a b c");
    }

    #[test]
    fn matches_and_typed_prefixes_are_marked() {
        let body = schema::schema().1.body;
        let words = BTreeMap::from([("echidna".to_string(), 1.0)]);
        let mut snippets = Snippets::new(words, None, body);
        assert_eq!(
            snippets.render("An echidna\nlays eggs."),
            "An ⟦echidna⟧ lays eggs."
        );
        let mut snippets = Snippets::new(BTreeMap::new(), Some("ech".into()), body);
        assert_eq!(
            snippets.render("Two Echidnas, at least."),
            "Two ⟦Echidnas⟧, at least."
        );
        // No match: the start of the text.
        assert_eq!(snippets.render("  Nothing\n here "), "Nothing here");
        // The words the index names for the prefix: the same marks, and only those.
        let mut named = Snippets::new(BTreeMap::new(), Some("ech".into()), body)
            .with_prefix_words(vec!["echidnas".into()]);
        assert_eq!(
            named.render("Two Echidnas, at least."),
            "Two ⟦Echidnas⟧, at least."
        );
        assert_eq!(named.render("One echidna."), "One echidna.");
    }

    #[test]
    fn titles_mark_query_words_and_typed_prefixes() {
        let body = schema::schema().1.body;
        let words = BTreeMap::from([("ete".to_string(), 1.0), ("paris".to_string(), 1.0)]);
        let snippets = Snippets::new(words, Some("musé".into()), body);
        assert_eq!(snippets.mark("Été à Paris"), "⟦Été⟧ à ⟦Paris⟧");
        let snippets = Snippets::new(BTreeMap::new(), Some("mus".into()), body);
        assert_eq!(snippets.mark("Le Musée, la muse"), "Le ⟦Musée⟧, la ⟦muse⟧");
        assert_eq!(snippets.mark("Nothing here"), "Nothing here");
        assert_eq!(snippets.mark(""), "");
    }
}
