//! The query language typed by users, parsed into clauses before it becomes a tantivy
//! query: words (all required), `"exact phrases"`, `tag:NAME` filters, `-excluded`
//! words or phrases, and prefix matching of the last word while it is being typed.

/// One element of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Clause {
    /// A word; `prefix` when it is the last one and no space follows it.
    Word { text: String, prefix: bool },
    /// Words that must follow each other.
    Phrase(String),
    /// Only notes with this tag.
    Tag(String),
    /// Notes with this word or phrase are left out.
    Not(String),
}

/// Splits a query into clauses, or says why it is malformed.
pub fn parse(input: &str) -> Result<Vec<Clause>, String> {
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
            if let Some(name) = strip_tag(&word) {
                if negated {
                    return Err("a tag filter cannot be excluded".into());
                }
                let (name, next) = if name.is_empty() && chars.get(i) == Some(&'"') {
                    quoted_text(&chars, i)?
                } else {
                    (name.to_string(), i)
                };
                if name.trim().is_empty() {
                    return Err("tag: needs a tag name".into());
                }
                clauses.push(Clause::Tag(name));
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
    let typing = !input.ends_with(char::is_whitespace);
    if typing && let Some(Clause::Word { prefix, .. }) = clauses.last_mut() {
        *prefix = true;
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

fn strip_tag(word: &str) -> Option<&str> {
    let head = word.get(..4)?;
    head.eq_ignore_ascii_case("tag:").then(|| &word[4..])
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
}
