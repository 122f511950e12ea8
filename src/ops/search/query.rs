//! The query language typed by users, parsed into clauses before it becomes a tantivy
//! query: words (all required), `"exact phrases"`, `tag:NAME` filters, `-excluded`
//! words or phrases, and prefix matching of the last word while it is being typed. A
//! `file:WORDS` clause turns the query to attachments: all its words are then looked
//! for in the attachments' paths.
//!
//! A query is parsed once, where it enters (the CLI's arguments, the API's `q`, the
//! web interface's search box), into a [`Query`]: its clauses in the index's own words
//! (lowercased, accents folded). A query that asks for nothing is refused here, before
//! any index is read.

use std::str::FromStr;

use super::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::error::{Error, Result};

/// A last word shorter than this is matched whole, not as a prefix.
const MIN_PREFIX_CHARS: usize = 2;

/// A query, parsed and analyzed: what every search is asked with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    text: String,
    parts: Vec<Part>,
    /// Whether the query looks for attachments (it has a `file:` clause) or notes.
    files: bool,
}

/// One requirement of a query, in the index's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    /// These words in a row (one word, or a phrase), in any field.
    Words(Vec<String>),
    /// These words in a row, the last one still being typed: it also matches the longer
    /// words it starts.
    Prefix(Vec<String>),
    /// Notes with these words in a row are left out.
    Without(Vec<String>),
    /// Only notes with this tag (the whole tag, folded).
    Tag(String),
}

impl Query {
    /// Parses and analyzes the query typed by a user; `InvalidQuery` says why it is
    /// malformed or asks for nothing.
    pub fn parse(text: &str) -> Result<Query> {
        let clauses = parse(text).map_err(Error::InvalidQuery)?;
        let mut words = super::words::text_analyzer();
        let mut tags = super::words::tag_analyzer();
        let mut parts = Vec::with_capacity(clauses.len());
        let files = clauses.iter().any(|c| matches!(c, Clause::File { .. }));
        for clause in clauses {
            let part = match clause {
                Clause::File { text, prefix } => {
                    let tokens = super::words::tokens(&mut words, &text);
                    if tokens.is_empty() {
                        return Err(Error::InvalidQuery(
                            "file: needs a word of a file name".into(),
                        ));
                    }
                    let last = tokens.last().map_or(0, |t| t.chars().count());
                    if prefix && last >= MIN_PREFIX_CHARS {
                        Part::Prefix(tokens)
                    } else {
                        Part::Words(tokens)
                    }
                }
                Clause::Word { text, prefix } => {
                    let tokens = super::words::tokens(&mut words, &text);
                    let last = tokens.last().map_or(0, |t| t.chars().count());
                    if prefix && last >= MIN_PREFIX_CHARS {
                        Part::Prefix(tokens)
                    } else {
                        Part::Words(tokens)
                    }
                }
                Clause::Phrase(text) => Part::Words(super::words::tokens(&mut words, &text)),
                Clause::Not(text) => Part::Without(super::words::tokens(&mut words, &text)),
                Clause::Tag(name) => {
                    let name = name.trim().trim_start_matches('#');
                    Part::Tag(super::words::tokens(&mut tags, name).join(" "))
                }
            };
            // Punctuation alone has no words: it asks for nothing and excludes nothing.
            match &part {
                Part::Words(w) | Part::Without(w) if w.is_empty() => {}
                _ => parts.push(part),
            }
        }
        if parts.iter().all(|p| matches!(p, Part::Without(_))) {
            return Err(Error::InvalidQuery(
                "nothing to search for (only punctuation or excluded words)".into(),
            ));
        }
        Ok(Query {
            text: text.to_string(),
            parts,
            files,
        })
    }

    /// The query as it was typed.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// What the query asks for, in order.
    pub(crate) fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// Whether the query looks for attachments (by path) rather than notes.
    pub(crate) fn is_for_files(&self) -> bool {
        self.files
    }
}

impl FromStr for Query {
    type Err = Error;

    fn from_str(text: &str) -> Result<Query> {
        Query::parse(text)
    }
}

/// How many results a query returns: 1 to `MAX_LIMIT`, `DEFAULT_LIMIT` unless said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Limit(usize);

impl Limit {
    pub const DEFAULT: Limit = Limit(DEFAULT_LIMIT);

    /// `None` outside 1 to `MAX_LIMIT`.
    pub(crate) fn new(n: usize) -> Option<Limit> {
        (1..=MAX_LIMIT).contains(&n).then_some(Limit(n))
    }

    pub(crate) fn get(self) -> usize {
        self.0
    }
}

impl Default for Limit {
    fn default() -> Limit {
        Limit::DEFAULT
    }
}

/// One element of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Clause {
    /// A word; `prefix` when it is the last one and no space follows it.
    Word { text: String, prefix: bool },
    /// Words that must follow each other.
    Phrase(String),
    /// Only notes with this tag.
    Tag(String),
    /// Attachments whose path has these words; `prefix` as for a word.
    File { text: String, prefix: bool },
    /// Notes with this word or phrase are left out.
    Not(String),
}

/// Splits a query into clauses, or says why it is malformed.
pub(crate) fn parse(input: &str) -> Result<Vec<Clause>, String> {
    if input.trim().is_empty() {
        return Err("the query is empty".into());
    }
    let chars: Vec<char> = input.chars().collect();
    let mut clauses = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        let negated = chars[i] == '-' && chars.get(i + 1).is_some_and(|c| !c.is_whitespace());
        if negated {
            i += 1;
        }
        let (text, quoted, next) = if chars[i] == '"' {
            let (text, next) = quoted_text(&chars, i)?;
            (text, true, next)
        } else {
            let start = i;
            while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '"' {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if let Some((filter, name)) = strip_filter(&word) {
                if negated {
                    return Err(format!("a {filter} filter cannot be excluded"));
                }
                let quoted = name.is_empty() && chars.get(i) == Some(&'"');
                let (name, next) = if quoted {
                    quoted_text(&chars, i)?
                } else {
                    (name.to_string(), i)
                };
                if name.trim().is_empty() {
                    return Err(match filter {
                        "tag" => "tag: needs a tag name".into(),
                        _ => "file: needs a word of a file name".into(),
                    });
                }
                clauses.push(match filter {
                    "tag" => Clause::Tag(name),
                    _ => Clause::File {
                        text: name,
                        prefix: !quoted,
                    },
                });
                i = next;
                continue;
            }
            (word, false, i)
        };
        i = next;
        if text.trim().is_empty() {
            if quoted {
                continue;
            }
            return Err("a lone '-' excludes nothing".into());
        }
        clauses.push(match (negated, quoted) {
            (true, _) => Clause::Not(text),
            (false, true) => Clause::Phrase(text),
            (false, false) => Clause::Word {
                text,
                prefix: false,
            },
        });
    }
    // Only the last word, while it is being typed, is a prefix.
    let typing = !input.ends_with(char::is_whitespace);
    let count = clauses.len();
    for (n, clause) in clauses.iter_mut().enumerate() {
        match clause {
            Clause::Word { prefix, .. } => *prefix = typing && n + 1 == count,
            Clause::File { prefix, .. } if !(typing && n + 1 == count) => *prefix = false,
            _ => {}
        }
    }
    Ok(clauses)
}

/// The text between the quote at `start` and the next quote, and the index after it.
fn quoted_text(chars: &[char], start: usize) -> Result<(String, usize), String> {
    let close = chars[start + 1..]
        .iter()
        .position(|&c| c == '"')
        .ok_or("a quote is not closed")?;
    let end = start + 1 + close;
    Ok((chars[start + 1..end].iter().collect(), end + 1))
}

/// The filter a word starts with (`tag:` or `file:`, any case) and what follows it.
fn strip_filter(word: &str) -> Option<(&'static str, &str)> {
    ["tag", "file"].into_iter().find_map(|filter| {
        let name = word.get(..filter.len())?;
        let rest = word[filter.len()..].strip_prefix(':')?;
        name.eq_ignore_ascii_case(filter).then_some((filter, rest))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, prefix: bool) -> Clause {
        Clause::Word {
            text: text.into(),
            prefix,
        }
    }

    #[test]
    fn words_phrases_tags_and_exclusions() {
        assert_eq!(
            parse(r#"rust "exact words" tag:dev -draft -"old stuff" async"#).unwrap(),
            vec![
                word("rust", false),
                Clause::Phrase("exact words".into()),
                Clause::Tag("dev".into()),
                Clause::Not("draft".into()),
                Clause::Not("old stuff".into()),
                word("async", true),
            ]
        );
        assert_eq!(parse("été ").unwrap(), vec![word("été", false)]);
        assert_eq!(
            parse(r#"TAG:"two words""#).unwrap(),
            vec![Clause::Tag("two words".into())]
        );
    }

    #[test]
    fn malformed_queries_are_refused() {
        assert!(parse("").is_err());
        assert!(parse("   ").is_err());
        assert!(parse(r#"open "quote"#).is_err());
        assert!(parse("tag:").is_err());
        assert!(parse("-tag:x").is_err());
    }

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_query_is_analyzed_into_the_index_words() {
        let query = Query::parse(r#"Été "Two Words" tag:Rust-Lang -Draft caf"#).unwrap();
        assert_eq!(
            query.as_str(),
            r#"Été "Two Words" tag:Rust-Lang -Draft caf"#
        );
        assert_eq!(
            query.parts(),
            [
                Part::Words(words(&["ete"])),
                Part::Words(words(&["two", "words"])),
                Part::Tag("rust-lang".into()),
                Part::Without(words(&["draft"])),
                Part::Prefix(words(&["caf"])),
            ]
        );
        // The last word is a prefix only while typed and long enough.
        assert_eq!(
            Query::parse("rust a").unwrap().parts(),
            [Part::Words(words(&["rust"])), Part::Words(words(&["a"]))]
        );
        assert_eq!(
            Query::parse("rust ").unwrap().parts(),
            [Part::Words(words(&["rust"]))]
        );
        assert_eq!(
            Query::parse("l'île").unwrap().parts(),
            [Part::Prefix(words(&["l", "ile"]))]
        );
        // Punctuation is dropped, not searched for.
        assert_eq!(
            Query::parse("... rust").unwrap().parts(),
            [Part::Prefix(words(&["rust"]))]
        );
        assert_eq!(
            "tag:x".parse::<Query>().unwrap().parts(),
            [Part::Tag("x".into())]
        );
    }

    #[test]
    fn a_query_asking_for_nothing_is_refused_before_any_index_is_read() {
        for bad in ["", "  ", "-draft", "... -x", "!!", "\"\"", "\"open", "tag:"] {
            let err = Query::parse(bad).unwrap_err();
            assert!(matches!(err, Error::InvalidQuery(_)), "{bad}: {err:?}");
        }
        assert_eq!(
            Query::parse("-x ...").unwrap_err().to_string(),
            "Invalid search query: nothing to search for (only punctuation or excluded words)"
        );
    }

    #[test]
    fn file_clauses_turn_the_query_to_attachments() {
        assert_eq!(
            parse(r#"file:diag FILE:"floor plan" png"#).unwrap(),
            vec![
                Clause::File {
                    text: "diag".into(),
                    prefix: false
                },
                Clause::File {
                    text: "floor plan".into(),
                    prefix: false
                },
                word("png", true),
            ]
        );
        let query = Query::parse("file:Network-Diag").unwrap();
        assert!(query.is_for_files());
        assert_eq!(query.parts(), [Part::Prefix(words(&["network", "diag"]))]);
        let query = Query::parse("file:diagram ").unwrap();
        assert_eq!(query.parts(), [Part::Words(words(&["diagram"]))]);
        assert!(!Query::parse("diagram").unwrap().is_for_files());
        assert!(!Query::parse("tag:x").unwrap().is_for_files());
        // Words that only look like a filter, accents across its end included.
        for plain in ["Été", "fileé:x", "filé:x", "fi", "tagé"] {
            assert!(!Query::parse(plain).unwrap().is_for_files(), "{plain}");
        }
        for bad in ["file:", "file:...", "-file:x", "file:\"\""] {
            let err = Query::parse(bad).unwrap_err();
            assert!(matches!(err, Error::InvalidQuery(_)), "{bad}: {err:?}");
        }
    }

    #[test]
    fn limits() {
        assert_eq!(Limit::default().get(), DEFAULT_LIMIT);
        assert_eq!(Limit::new(1).map(Limit::get), Some(1));
        assert_eq!(Limit::new(MAX_LIMIT).map(Limit::get), Some(MAX_LIMIT));
        assert_eq!(Limit::new(0), None);
        assert_eq!(Limit::new(MAX_LIMIT + 1), None);
    }
}
