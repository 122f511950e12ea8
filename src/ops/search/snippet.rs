//! The snippet of a search result: plain text around the best match, on one line, each
//! matched word between `⟦` and `⟧`; and the title, its matched words marked the same.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use super::{MATCH_END, MATCH_START};

/// Longest snippet, in characters (before markers).
const SNIPPET_CHARS: usize = 160;

/// Builds the snippet of each result (of several at once: it is shared by the threads
/// that read them).
pub(super) struct Snippets {
    /// The words to mark (in the index's words), with their weights. Every word of
    /// every result is looked up: hashed with foldhash (seeded per process).
    terms: HashMap<String, f32, foldhash::fast::RandomState>,
    prefix: Option<String>,
    /// Whether each body is scanned for the words `prefix` starts: when the index
    /// could not name them (see `with_prefix_words`).
    scan: bool,
}

/// Weight of a word the typed prefix starts (the query's own words weigh more the
/// rarer they are, up to 1).
const PREFIX_WORD_WEIGHT: f32 = 0.5;

/// A stretch of a body whose words all end within `SNIPPET_CHARS` bytes of its start:
/// the sum of its matched words' weights, and where they are.
#[derive(Default)]
struct Fragment {
    score: f32,
    start: usize,
    stop: usize,
    marked: Vec<Range<usize>>,
}

impl Fragment {
    fn restart(&mut self, start: usize) {
        self.score = 0.0;
        self.start = start;
        self.stop = start;
        self.marked.clear();
    }
}

impl Snippets {
    /// Snippets highlighting `terms` (word → weight) and, when the last word of the
    /// query is being typed, the words `prefix` starts.
    pub(super) fn new(terms: BTreeMap<String, f32>, prefix: Option<String>) -> Self {
        Snippets {
            terms: terms.into_iter().collect(),
            scan: prefix.is_some(),
            prefix,
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

    /// The weight of a word of a body: a word of the query, or (while the bodies are
    /// scanned for them) a word the typed prefix starts.
    fn weight(&self, word: &str) -> Option<f32> {
        self.terms.get(word).copied().or_else(|| {
            self.prefix
                .as_deref()
                .filter(|prefix| self.scan && word.starts_with(prefix))
                .map(|_| PREFIX_WORD_WEIGHT)
        })
    }

    /// Whether a word of a title is marked: a word of the query, or any word the typed
    /// prefix starts.
    fn marks(&self, word: &str) -> bool {
        self.terms.contains_key(word)
            || self
                .prefix
                .as_deref()
                .is_some_and(|prefix| word.starts_with(prefix))
    }

    /// The best fragment of `body`: the stretches of at most `SNIPPET_CHARS` bytes
    /// that its words fall into, one after the other, scored by the weights of the
    /// words they hold; the first of the highest. None when no word of it is marked.
    /// (The fragments of tantivy's `SnippetGenerator`, in one pass over the words with
    /// no copy of each.)
    fn best_fragment(&self, body: &str) -> Option<Fragment> {
        let mut best = Fragment::default();
        let mut current = Fragment::default();
        let mut analyzer = super::words::text_analyzer();
        let mut stream = analyzer.token_stream(body);
        while let Some(token) = stream.next() {
            if token.offset_to - current.start > SNIPPET_CHARS {
                if current.score > best.score {
                    std::mem::swap(&mut best, &mut current);
                }
                current.restart(token.offset_from);
            }
            current.stop = token.offset_to;
            if let Some(weight) = self.weight(&token.text) {
                current.score += weight;
                current.marked.push(token.offset_from..token.offset_to);
            }
        }
        if current.score > best.score {
            best = current;
        }
        (best.score > 0.0).then_some(best)
    }

    /// Plain text around the best match of `body`, each match between the markers.
    pub(super) fn render(&self, body: &str) -> String {
        let Some(fragment) = self.best_fragment(body) else {
            return collapse(opening(body)).trim().to_string();
        };
        let mut out = String::with_capacity(fragment.stop - fragment.start + 16);
        let mut from = fragment.start;
        for range in merged(fragment.marked) {
            out.push_str(&collapse(&body[from..range.start]));
            out.push_str(MATCH_START);
            out.push_str(&collapse(&body[range.clone()]));
            out.push_str(MATCH_END);
            from = range.end;
        }
        out.push_str(&collapse(&body[from..fragment.stop]));
        // The fragment stops at its last word: keep the punctuation that ends it.
        let after = body.get(fragment.stop..).unwrap_or("");
        out.extend(
            after
                .chars()
                .take_while(|c| !c.is_whitespace() && !c.is_alphanumeric()),
        );
        out.trim().to_string()
    }

    /// `text` whole (a title), each word of the query (or the typed prefix) it holds
    /// between the markers.
    pub(super) fn mark(&self, text: &str) -> String {
        let mut analyzer = super::words::text_analyzer();
        let mut stream = analyzer.token_stream(text);
        let mut out = String::with_capacity(text.len() + 8);
        let mut from = 0;
        while let Some(token) = stream.next() {
            let hit = self.marks(&token.text);
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

/// The first `SNIPPET_CHARS` characters of `body`, never ending inside a word: a cut
/// inside one goes back to the last blank before it.
fn opening(body: &str) -> &str {
    let Some((cut, _)) = body.char_indices().nth(SNIPPET_CHARS) else {
        return body;
    };
    let head = &body[..cut];
    let mid_word = !body[cut..].starts_with(char::is_whitespace)
        && head.ends_with(|c: char| !c.is_whitespace());
    match head.rfind(char::is_whitespace) {
        Some(blank) if mid_word => &head[..blank],
        _ => head,
    }
}

/// Ranges in order, overlapping ones joined.
fn merged(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|range| (range.start, range.end));
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match out.last_mut() {
            Some(last) if last.end > range.start => last.end = last.end.max(range.end),
            _ => out.push(range),
        }
    }
    out
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
    fn a_snippet_without_a_match_ends_between_words() {
        let long = "word ".repeat(31) + "selection and more";
        let snippet = Snippets::new(BTreeMap::new(), None).render(&long);
        assert!(snippet.ends_with("word"), "{snippet}");
        assert!(snippet.chars().count() <= SNIPPET_CHARS);
        let one_word = "a".repeat(SNIPPET_CHARS + 40);
        assert_eq!(
            opening(&one_word),
            &one_word[..SNIPPET_CHARS],
            "one long word is cut, not dropped"
        );
        assert_eq!(opening("short text"), "short text");
    }

    #[test]
    fn whitespace_collapses_to_one_space() {
        assert_eq!(collapse("a \n\n  b\tc"), "a b c");
    }

    #[test]
    fn matches_and_typed_prefixes_are_marked() {
        let words = BTreeMap::from([("echidna".to_string(), 1.0)]);
        let snippets = Snippets::new(words, None);
        assert_eq!(
            snippets.render("An echidna\nlays eggs."),
            "An ⟦echidna⟧ lays eggs."
        );
        let snippets = Snippets::new(BTreeMap::new(), Some("ech".into()));
        assert_eq!(
            snippets.render("Two Echidnas, at least."),
            "Two ⟦Echidnas⟧, at least."
        );
        // No match: the start of the text.
        assert_eq!(snippets.render("  Nothing\n here "), "Nothing here");
        // The words the index names for the prefix: the same marks, and only those.
        let named = Snippets::new(BTreeMap::new(), Some("ech".into()))
            .with_prefix_words(vec!["echidnas".into()]);
        assert_eq!(
            named.render("Two Echidnas, at least."),
            "Two ⟦Echidnas⟧, at least."
        );
        assert_eq!(named.render("One echidna."), "One echidna.");
    }

    #[test]
    fn titles_mark_query_words_and_typed_prefixes() {
        let words = BTreeMap::from([("ete".to_string(), 1.0), ("paris".to_string(), 1.0)]);
        let snippets = Snippets::new(words, Some("musé".into()));
        assert_eq!(snippets.mark("Été à Paris"), "⟦Été⟧ à ⟦Paris⟧");
        let snippets = Snippets::new(BTreeMap::new(), Some("mus".into()));
        assert_eq!(snippets.mark("Le Musée, la muse"), "Le ⟦Musée⟧, la ⟦muse⟧");
        assert_eq!(snippets.mark("Nothing here"), "Nothing here");
        assert_eq!(snippets.mark(""), "");
    }

    /// The fragment tantivy's `SnippetGenerator` picks for these weights, as
    /// (start, stop, marked ranges), or None.
    fn tantivys(
        body: &str,
        terms: &BTreeMap<String, f32>,
    ) -> Option<(usize, usize, Vec<Range<usize>>)> {
        let field = crate::ops::search::schema::schema().1.body;
        let generator = tantivy::snippet::SnippetGenerator::new(
            terms.clone(),
            crate::ops::search::words::text_analyzer(),
            field,
            SNIPPET_CHARS,
        );
        let snippet = generator.snippet(body);
        let range = snippet.fragment_range();
        (!snippet.highlighted().is_empty()).then(|| {
            let marked = snippet
                .highlighted()
                .iter()
                .map(|r| r.start + range.start..r.end + range.start)
                .collect();
            (range.start, range.end, marked)
        })
    }

    proptest::proptest! {
        /// The best fragment is the one tantivy's generator picks from the same words:
        /// the same bounds and the same marked words, ties to the first.
        #[test]
        fn the_best_fragment_is_tantivys(
            words in proptest::collection::vec("(ab|cd|ef|gh|Éf|x{1,9}|[a-h]{1,12})", 0..160),
            gaps in proptest::collection::vec("( |, |\\n\\n| — |\\. )", 160),
            weights in proptest::collection::vec(1u8..4, 4),
        ) {
            let body: String = words
                .iter()
                .zip(&gaps)
                .flat_map(|(w, g)| [w.as_str(), g.as_str()])
                .collect();
            let terms: BTreeMap<String, f32> = ["ab", "cd", "ef", "xxx"]
                .iter()
                .zip(&weights)
                .map(|(w, &n)| (w.to_string(), f32::from(n) / 4.0))
                .collect();
            let snippets = Snippets::new(terms.clone(), None);
            let ours = snippets
                .best_fragment(&body)
                .map(|f| (f.start, f.stop, f.marked));
            proptest::prop_assert_eq!(ours, tantivys(&body, &terms));
        }
    }
}
