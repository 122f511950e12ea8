//! The words of a text as the index holds them: split on anything not alphanumeric,
//! words of 64 bytes or more dropped, lowercased, accents folded. This is exactly what
//! tantivy's `SimpleTokenizer`, `RemoveLongFilter::limit(64)`, `LowerCaser` and
//! `AsciiFoldingFilter` give in that order (a property test holds the two to the same
//! tokens, positions and offsets), in one pass: the chain looks at every word four
//! times and decodes every character, which was a tenth of the indexing thread's time.
//! A word with a non-ASCII character still goes through tantivy's own filters.
//!
//! Chinese, Japanese and Korean are written without spaces between words, so a run of
//! their characters is indexed as its overlapping pairs (`图谱学` gives `图谱`, `谱学`;
//! a character alone gives itself), as Lucene's CJK analyzer does: any word of two
//! characters or more is found, as a phrase of its pairs, with no dictionary to ship.

use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RawTokenizer, TextAnalyzer, Token, TokenStream, Tokenizer,
};

/// Words this long (in bytes) or longer are not indexed.
pub(crate) const LONGEST: usize = 64;

/// The tokenizer of the searchable text fields.
#[derive(Clone)]
pub(crate) struct Words {
    token: Token,
    /// Lowercases and folds one word with a non-ASCII character: the tag analyzer,
    /// which takes a whole text as one token.
    fold: TextAnalyzer,
}

impl Default for Words {
    fn default() -> Self {
        Words {
            token: Token::default(),
            fold: tag_analyzer(),
        }
    }
}

impl Tokenizer for Words {
    type TokenStream<'a> = WordStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        self.token.reset();
        WordStream {
            text,
            at: 0,
            token: &mut self.token,
            fold: &mut self.fold,
            split: None,
        }
    }
}

/// The class of a byte: an ASCII letter or digit, another ASCII byte, or a byte of a
/// character beyond ASCII (looked at as a whole character).
const OTHER: u8 = 0;
const WORD: u8 = 1;
const WIDE: u8 = 2;
const CLASS: [u8; 256] = {
    let mut class = [OTHER; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        class[byte] = if !b.is_ascii() {
            WIDE
        } else if b.is_ascii_alphanumeric() {
            WORD
        } else {
            OTHER
        };
        byte += 1;
    }
    class
};

pub(crate) struct WordStream<'a> {
    text: &'a str,
    /// Byte offset where the search for the next word starts.
    at: usize,
    token: &'a mut Token,
    fold: &'a mut TextAnalyzer,
    /// A word with CJK characters being given out in pieces.
    split: Option<Split>,
}

/// Where the pieces of a word with CJK characters stand: the rest of it is
/// `at..end`, and `paired` says the character before `at` was given in a pair.
#[derive(Clone, Copy)]
struct Split {
    at: usize,
    end: usize,
    paired: bool,
}

/// Whether `c` is written without spaces between words: Han, Hiragana, Katakana and
/// Hangul (the scripts Lucene's CJK bigrams cover).
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{11FF}'
        | '\u{3040}'..='\u{30FF}'
        | '\u{3130}'..='\u{318F}'
        | '\u{31F0}'..='\u{31FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{AC00}'..='\u{D7AF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{FF66}'..='\u{FF9F}'
        | '\u{20000}'..='\u{2FA1F}')
}

impl Split {
    /// The next piece of the word: a pair of CJK characters, a CJK character with no
    /// neighbour of its script, or a run of other letters and digits.
    fn next(&mut self, text: &str) -> Option<(usize, usize)> {
        loop {
            let rest = text.get(self.at..self.end)?;
            let mut chars = rest.chars();
            let first = chars.next()?;
            let start = self.at;
            let after_first = start + first.len_utf8();
            if !is_cjk(first) {
                let len = rest.find(is_cjk).unwrap_or(rest.len());
                self.at = start + len;
                self.paired = false;
                return Some((start, self.at));
            }
            self.at = after_first;
            match chars.next() {
                Some(second) if is_cjk(second) => {
                    self.paired = true;
                    return Some((start, after_first + second.len_utf8()));
                }
                // The second of a pair already given.
                _ if self.paired => self.paired = false,
                _ => return Some((start, after_first)),
            }
        }
    }
}

impl WordStream<'_> {
    /// The next word, as byte offsets.
    fn next_word(&mut self) -> Option<(usize, usize)> {
        let start = self.scan(self.at, true)?;
        let end = self.scan(start, false).unwrap_or(self.text.len());
        self.at = end;
        Some((start, end))
    }

    /// The offset of the first character from `from` that is alphanumeric (`word`) or
    /// is not (`!word`).
    fn scan(&self, from: usize, word: bool) -> Option<usize> {
        let bytes = self.text.as_bytes();
        // The class of the ASCII bytes passed over: the other one.
        let passed = if word { OTHER } else { WORD };
        let mut at = from;
        loop {
            // ASCII in a tight loop (one table lookup a byte), up to the first byte
            // that answers or is not ASCII.
            at += bytes[at..]
                .iter()
                .position(|&b| CLASS[usize::from(b)] != passed)?;
            if CLASS[usize::from(bytes[at])] != WIDE {
                return Some(at);
            }
            // `at` is on a character boundary: every step is a whole character.
            let c = self.text[at..].chars().next()?;
            if c.is_alphanumeric() == word {
                return Some(at);
            }
            at += c.len_utf8();
        }
    }
}

/// What the next word is, looked for on ASCII alone.
enum Ascii {
    /// An ASCII word, as byte offsets, with ASCII (or the end of the text) after it.
    Word(usize, usize),
    /// No word before the end of the text.
    End,
    /// A character beyond ASCII before the end of the next word: the general path reads
    /// on from `at`, which is where it would have started.
    Wide,
}

impl WordStream<'_> {
    /// The next word when it and what comes before it are ASCII (nearly every word of
    /// most notes): one table lookup a byte, and no character decoded.
    fn next_ascii_word(&mut self) -> Ascii {
        let bytes = self.text.as_bytes();
        let mut at = self.at;
        let start = loop {
            match bytes.get(at).map(|&b| CLASS[usize::from(b)]) {
                None => {
                    self.at = at;
                    return Ascii::End;
                }
                Some(OTHER) => at += 1,
                Some(WORD) => break at,
                Some(_) => {
                    self.at = at;
                    return Ascii::Wide;
                }
            }
        };
        // The bytes passed over are not part of any word: the general path may start
        // at the word.
        self.at = start;
        at += 1;
        loop {
            match bytes.get(at).map(|&b| CLASS[usize::from(b)]) {
                Some(WORD) => at += 1,
                Some(WIDE) => return Ascii::Wide,
                _ => break,
            }
        }
        self.at = at;
        Ascii::Word(start, at)
    }

    /// Makes the token the word `start..end`, lowercased and accents folded.
    fn set_wide(&mut self, start: usize, end: usize) {
        self.token.offset_from = start;
        self.token.offset_to = end;
        self.token.text.clear();
        let mut folded = self.fold.token_stream(&self.text[start..end]);
        if folded.advance() {
            self.token.text.push_str(&folded.token().text);
        }
    }

    /// Sets the token's text to the word `start..end`, which is ASCII, lowercased.
    fn set_ascii(&mut self, start: usize, end: usize) {
        let from = self.token.text.len();
        self.token.text.push_str(&self.text[start..end]);
        self.token.text[from..].make_ascii_lowercase();
    }
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            if let Some(split) = &mut self.split {
                match split.next(self.text) {
                    Some((start, end)) => {
                        self.token.position = self.token.position.wrapping_add(1);
                        self.set_wide(start, end);
                        return true;
                    }
                    None => self.split = None,
                }
            }
            // The word, and whether it is ASCII (then only letters and digits).
            let (start, end, ascii) = match self.next_ascii_word() {
                Ascii::Word(start, end) => (start, end, true),
                Ascii::End => return false,
                // A character at a time, up to the end of the next word.
                Ascii::Wide => match self.next_word() {
                    Some((start, end)) => (start, end, self.text[start..end].is_ascii()),
                    None => return false,
                },
            };
            if !ascii && self.text[start..end].contains(is_cjk) {
                self.split = Some(Split {
                    at: start,
                    end,
                    paired: false,
                });
                continue;
            }
            // A dropped word still takes its position, as with the filter.
            self.token.position = self.token.position.wrapping_add(1);
            if end - start >= LONGEST {
                continue;
            }
            if ascii {
                self.token.offset_from = start;
                self.token.offset_to = end;
                self.token.text.clear();
                self.set_ascii(start, end);
            } else {
                self.set_wide(start, end);
            }
            return true;
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

/// Words split on anything not alphanumeric, lowercased, accents folded (`Words`).
pub(crate) fn text_analyzer() -> TextAnalyzer {
    TextAnalyzer::from(Words::default())
}

/// A whole tag as one token, lowercased, accents folded.
pub(crate) fn tag_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// The tokens `text` gives with `analyzer`.
pub(crate) fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while let Some(token) = stream.next() {
        out.push(token.text.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use tantivy::tokenizer::{AsciiFoldingFilter, LowerCaser, RemoveLongFilter, SimpleTokenizer};

    fn chain() -> TextAnalyzer {
        TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(LONGEST))
            .filter(LowerCaser)
            .filter(AsciiFoldingFilter)
            .build()
    }

    fn all(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = stream.next() {
            out.push((t.text.clone(), t.position, t.offset_from, t.offset_to));
        }
        out
    }

    /// Outside CJK text the words are the chain's.
    fn same_as_the_chain(text: &str) {
        if text.contains(is_cjk) {
            return;
        }
        let mut words = TextAnalyzer::from(Words::default());
        assert_eq!(all(&mut words, text), all(&mut chain(), text), "{text:?}");
    }

    fn texts(text: &str) -> Vec<String> {
        tokens(&mut text_analyzer(), text)
    }

    #[test]
    fn cjk_runs_are_indexed_as_overlapping_pairs() {
        assert_eq!(texts("关系图谱"), ["关系", "系图", "图谱"]);
        assert_eq!(texts("图 x"), ["图", "x"]);
        // Scripts mixed inside one word: the pairs, then the rest as a word.
        assert_eq!(
            texts("日本語のテキストABC"),
            [
                "日本", "本語", "語の", "のテ", "テキ", "キス", "スト", "abc"
            ]
        );
        assert_eq!(texts("한국어 Été中文"), ["한국", "국어", "ete", "中文"]);
        let mut words = text_analyzer();
        let tokens = all(&mut words, "a 图谱学 b");
        assert_eq!(
            tokens,
            [
                ("a".into(), 0, 0, 1),
                ("图谱".into(), 1, 2, 8),
                ("谱学".into(), 2, 5, 11),
                ("b".into(), 3, 12, 13)
            ]
        );
    }

    #[test]
    fn words_are_split_lowercased_and_folded() {
        let mut words = TextAnalyzer::from(Words::default());
        let tokens = all(&mut words, "Été à Paris, l'œuvre NO.42 ﬁn");
        let texts: Vec<&str> = tokens.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(
            texts,
            ["ete", "a", "paris", "l", "oeuvre", "no", "42", "fin"]
        );
        assert_eq!(tokens[2], ("paris".into(), 2, 9, 14));
    }

    #[test]
    fn bit_5_lowercases_every_ascii_letter_and_digit() {
        for b in (0..=u8::MAX).filter(|&b| CLASS[usize::from(b)] == WORD) {
            assert!(b.is_ascii_alphanumeric(), "{b}");
            assert_eq!(b | 0x20, b.to_ascii_lowercase(), "{b}");
        }
    }

    #[test]
    fn a_long_word_is_dropped_and_keeps_its_position() {
        let long = "x".repeat(LONGEST);
        let mut words = TextAnalyzer::from(Words::default());
        let tokens = all(&mut words, &format!("one {long} two"));
        assert_eq!(tokens, [("one".into(), 0, 0, 3), ("two".into(), 2, 69, 72)]);
        same_as_the_chain(&format!("a {} b", "é".repeat(32)));
        same_as_the_chain(&format!("a {} b", "é".repeat(31)));
    }

    #[test]
    fn texts_of_every_kind_give_the_chains_tokens() {
        for text in [
            "",
            "   ",
            "word",
            "Ünïcödé façade naïve Straße İstanbul ΣΊΣΥΦΟΣ",
            "emoji 🎉 mid🎉word x²+y³ ½ Ⅻ ٣",
            "[[wiki link]] `code` **bold** #tag_1 snake_case kebab-case",
            "tab\tnew\nline\r\nend",
            "combining e\u{301} and ǅ titlecase",
        ] {
            same_as_the_chain(text);
        }
    }

    proptest! {
        #[test]
        fn any_text_gives_the_chains_tokens(text in "(\\PC|[ a-zA-Z0-9_.,'-]){0,200}") {
            same_as_the_chain(&text);
        }

        /// Every two neighbours of a CJK run are found as a phrase of its pairs.
        #[test]
        fn every_pair_of_a_cjk_run_is_a_token(run in "[图谱关系日本語の한국]{1,12}") {
            let pieces = texts(&run);
            let chars: Vec<char> = run.chars().collect();
            if chars.len() == 1 {
                prop_assert_eq!(pieces, vec![run.clone()]);
            } else {
                let pairs: Vec<String> = chars.windows(2).map(|w| w.iter().collect()).collect();
                prop_assert_eq!(pieces, pairs);
            }
        }

        /// Mostly ASCII, as most notes are: ASCII words of every length up to past
        /// `LONGEST`, with wider characters inside, before and after them.
        #[test]
        fn ascii_words_beside_wider_characters_give_the_chains_tokens(
            text in "([a-zA-Z0-9]{0,70}|[ .,'_-]{1,3}|é|ß|—|日|İ|½|\\u{301}){0,40}"
        ) {
            same_as_the_chain(&text);
        }
    }
}
