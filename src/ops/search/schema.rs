//! The index layout: its fields, its analyzers (lowercase + accent folding, so `ete`
//! finds `Été`), and the document made from one note file.

use std::fs;
use std::time::UNIX_EPOCH;

use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RawTokenizer, RemoveLongFilter, SimpleTokenizer, TextAnalyzer,
};
use tantivy::{Index, TantivyDocument};

use crate::ops::NotePath;
use crate::ops::store;

/// Analyzer of the searchable text fields (title, tags, body).
pub(crate) const TEXT_ANALYZER: &str = "notes_text";
/// Analyzer of the `tag` filter field: one token per tag, folded.
pub(crate) const TAG_ANALYZER: &str = "notes_tag";

/// The fields of the index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    /// Note path, exact and stored: the key of a document.
    pub(crate) path: Field,
    pub(crate) title: Field,
    /// Tags as words, for ranking.
    pub(crate) tags: Field,
    /// Tags as whole values, for the `tag:NAME` filter.
    pub(crate) tag: Field,
    pub(crate) body: Field,
    pub(crate) date: Field,
    pub(crate) last_modified: Field,
    /// Modification time and size of the file indexed, to find stale documents.
    pub(crate) stamp: Field,
}

/// The schema and its fields.
pub(crate) fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = TextOptions::default().set_stored().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TEXT_ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let tag = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TAG_ANALYZER)
            .set_index_option(IndexRecordOption::Basic),
    );
    let fields = Fields {
        // Path and stamp are also columns (fast fields), so the writer learns what the
        // index holds from two small files instead of every stored document.
        path: builder.add_text_field("path", STRING | STORED | FAST),
        title: builder.add_text_field("title", text.clone()),
        tags: builder.add_text_field("tags", text.clone()),
        tag: builder.add_text_field("tag", tag),
        body: builder.add_text_field("body", text),
        date: builder.add_text_field("date", STRING | STORED),
        last_modified: builder.add_text_field("last_modified", STRING | STORED),
        stamp: builder.add_text_field("stamp", STRING | STORED | FAST),
    };
    (builder.build(), fields)
}

/// Words split on anything not alphanumeric, lowercased, accents folded.
pub(crate) fn text_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(64))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// A whole tag as one token, lowercased, accents folded.
pub(crate) fn tag_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

/// Registers the analyzers the schema names; needed after every open.
pub(crate) fn register_analyzers(index: &Index) {
    index.tokenizers().register(TEXT_ANALYZER, text_analyzer());
    index.tokenizers().register(TAG_ANALYZER, tag_analyzer());
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

/// What identifies the version of a file that was indexed: modification time and size.
pub(crate) fn stamp_of(meta: &fs::Metadata) -> String {
    let nanos = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{nanos}:{}", meta.len())
}

/// The document of a note: the same title, tags and body the API shows.
pub(crate) fn document(
    fields: &Fields,
    path: &NotePath,
    text: &str,
    stamp: &str,
) -> TantivyDocument {
    let note = store::note_of(path, text, text.len() as u64);
    let front = note.front_matter.unwrap_or_default();
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.path, path.as_str());
    doc.add_text(fields.title, &note.title);
    for tag in &front.tags {
        doc.add_text(fields.tags, tag);
        doc.add_text(fields.tag, tag);
    }
    doc.add_text(fields.body, &note.body);
    doc.add_text(fields.date, &front.date);
    doc.add_text(fields.last_modified, &front.last_modified);
    doc.add_text(fields.stamp, stamp);
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_lowercased_and_folded() {
        let mut analyzer = text_analyzer();
        assert_eq!(
            tokens(&mut analyzer, "Été à l'Île, ÇA VA"),
            ["ete", "a", "l", "ile", "ca", "va"]
        );
        let mut tags = tag_analyzer();
        assert_eq!(tokens(&mut tags, "Rust Lang Été"), ["rust lang ete"]);
    }
}
