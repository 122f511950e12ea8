//! Reading the index's string columns (fast fields) document by document: what the
//! writer's catch-up (path → stamp) needs of every note, without loading a stored
//! document.

use tantivy::columnar::StrColumn;
use tantivy::{Searcher, TantivyError};

use super::heal;
use crate::error::{Cause, Error, Result};

/// `what: e`, as damage (the index is rebuilt) or as another failure of the index.
pub(crate) fn classified(what: &str, e: &TantivyError) -> Error {
    if heal::is_damage(e) {
        Error::IndexBroken(format!("{what}: {e}"))
    } else {
        Error::Index(Cause::new(what, e.clone()))
    }
}

/// The words of columns `first` and `second` of every live document, in one pass over
/// each column's dictionary per segment: a lookup per document would search the
/// dictionary once for each (~0.3 s at 10k notes). A segment without both columns
/// holds none of these documents, and a document without a `first` word is left out.
/// `what` names the reading in an error. Each pair goes to `each` as it is read (a
/// vector of them, as owned strings, was 11 MB at 100k notes, at every start).
pub(crate) fn string_pairs(
    searcher: &Searcher,
    first: &str,
    second: &str,
    what: &str,
    mut each: impl FnMut(&str, &str),
) -> Result<()> {
    let read_error = |e: TantivyError| classified(what, &e);
    for segment in searcher.segment_readers() {
        let fast = segment.fast_fields();
        let (Some(a), Some(b)) = (
            fast.str(first).map_err(read_error)?,
            fast.str(second).map_err(read_error)?,
        ) else {
            continue;
        };
        let (a_words, b_words) = (words_of(&a)?, words_of(&b)?);
        for doc in segment.doc_ids_alive() {
            // A document without the first column is of another kind (an attachment has
            // a `file`, no `path`).
            if a.ords().first(doc).is_none() {
                continue;
            }
            each(word_at(&a, &a_words, doc)?, word_at(&b, &b_words, doc)?);
        }
    }
    Ok(())
}

/// The word of document `doc` in `column`; empty when it has none.
pub(crate) fn column_text(column: &StrColumn, doc: u32) -> Result<String> {
    let mut out = String::new();
    if let Some(ord) = column.ords().first(doc) {
        column
            .ord_to_str(ord, &mut out)
            .map_err(|e| Error::IndexBroken(format!("cannot read the index: {e}")))?;
    }
    Ok(out)
}

/// Every word of a column's dictionary, by ordinal.
fn words_of(column: &StrColumn) -> Result<Vec<String>> {
    let mut stream = column
        .dictionary()
        .stream()
        .map_err(|e| Error::IndexBroken(format!("cannot read the index: {e}")))?;
    let mut words = Vec::with_capacity(column.num_terms());
    while stream.advance() {
        words.push(String::from_utf8_lossy(stream.key()).into_owned());
    }
    Ok(words)
}

/// The word of document `doc` in a column whose `words_of` are `words`; empty when it
/// has none.
fn word_at<'w>(column: &StrColumn, words: &'w [String], doc: u32) -> Result<&'w str> {
    match column.ords().first(doc) {
        None => Ok(""),
        Some(ord) => usize::try_from(ord)
            .ok()
            .and_then(|ord| words.get(ord))
            .map(String::as_str)
            .ok_or_else(|| Error::IndexBroken("cannot read the index: no such word".into())),
    }
}
