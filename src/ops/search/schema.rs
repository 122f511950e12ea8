//! The index layout: its fields, its analyzers (lowercase + accent folding, so `ete`
//! finds `Été`), and the documents made from one note file and from one attachment
//! (its path only: an attachment's contents are never read).

use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, TantivyDocument};

use super::words::{tag_analyzer, text_analyzer};
use crate::ops::ids::FileId;
use crate::ops::store;
use crate::ops::{FilePath, NotePath, links};
use crate::render;

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
    /// The text a reader sees, indexed but not stored: a result's snippet is cut from
    /// the note file itself, which a search checks anyway (a stored copy was 350 of
    /// the index's 534 MB at 100k notes).
    pub(crate) body: Field,
    /// Modification time and size of the file indexed, to find stale documents; a
    /// column only (read whole by the writer, never per document).
    pub(crate) stamp: Field,
    /// What the note's links may point to, as lookup keys (`links::keys`): backlinks
    /// are a term query on a note's own keys.
    pub(crate) links: Field,
    /// Attachment path, exact and stored: the key of an attachment's document, which
    /// has no `path` (so every reader of notes leaves attachments out).
    pub(crate) file: Field,
    /// The words of an attachment's path, for the `file:` filter.
    pub(crate) file_words: Field,
}

/// The schema and its fields.
pub(crate) fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let searched = TextFieldIndexing::default()
        .set_tokenizer(TEXT_ANALYZER)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    // Title and tags are stored for results; the body is not (see `Fields::body`).
    let text = TextOptions::default()
        .set_stored()
        .set_indexing_options(searched.clone());
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
        body: builder.add_text_field(
            "body",
            TextOptions::default().set_indexing_options(searched),
        ),
        // The stamp is read as a column only: not indexed, so its unique values are
        // not words of the index to sort, store and merge.
        stamp: builder.add_text_field("stamp", FAST),
        links: builder.add_text_field("links", STRING),
        file: builder.add_text_field("file", STRING | STORED | FAST),
        file_words: builder.add_text_field(
            "file_words",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(TEXT_ANALYZER)
                    .set_index_option(IndexRecordOption::WithFreqsAndPositions),
            ),
        ),
    };
    (builder.build(), fields)
}

/// Registers the analyzers the schema names; needed after every open.
pub(crate) fn register_analyzers(index: &Index) {
    index.tokenizers().register(TEXT_ANALYZER, text_analyzer());
    index.tokenizers().register(TAG_ANALYZER, tag_analyzer());
}

/// The version of what a document holds, part of every stamp. Raise it whenever the
/// text indexed from a note changes (the schema staying the same): the stamps of an
/// older index then match no file, so the next catch-up indexes every note again.
/// 2: the body is indexed as the text a reader sees, not as Markdown.
/// 3: CJK runs are indexed as pairs of characters (`words`); tags as Obsidian reads
/// them (`tags`).
/// 4: `%%comments%%` left out of the text (`render::obsidian`).
/// 5: front matter `aliases` searched with the title.
/// 6: link keys by Obsidian's rules (names folded, aliases; no titles). The title
/// column is gone from the schema: an older index is replaced on open.
/// 7: Obsidian's marks left out of the text (callout markers, block ids, file embeds,
/// highlight marks); math kept as its source.
pub(crate) const CONTENT_VERSION: u32 = 7;

/// The body of a note as a reader sees it (no Markdown marks, no link targets, images
/// as their alt text): what is indexed, and what a snippet is cut from.
pub(crate) fn reader_body(path: &NotePath, text: &str) -> String {
    let (_, _, body) = store::index_fields_of(path, text);
    render::visible_text(&text[body..])
}

/// What identifies the version of a file that was indexed: the content version, the
/// modification time and the size.
pub(crate) fn stamp_of(id: &FileId) -> String {
    format!("v{CONTENT_VERSION}:{}:{}", id.modified_nanos(), id.size())
}

/// The document of a note: the title and tags the API shows, and the body as the text a
/// reader sees (no Markdown marks, no link targets, images as their alt text), so that
/// link targets are not words of the note and snippets read as text.
pub(crate) fn document(
    fields: &Fields,
    path: &NotePath,
    text: &str,
    stamp: &str,
) -> TantivyDocument {
    // The body is the text after the front matter, or the whole text. One parse of it
    // gives the links and the text a reader sees.
    let (title, front, body) = store::index_fields_of(path, text);
    let mut visible = render::VisibleText::new();
    let mut tags = crate::ops::front_matter::tags::NoteTags::new(&front.tags);
    let links = links::links_in(text, body, &mut |event| {
        visible.push(event);
        tags.push(event);
    });
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.path, path.as_str());
    doc.add_text(fields.title, &title);
    // Aliases are searched as titles are; results show the first value, the title.
    for alias in &front.aliases {
        doc.add_text(fields.title, alias);
    }
    for tag in tags.finish() {
        doc.add_text(fields.tags, &tag);
        for filed in crate::ops::front_matter::tags::with_parents(&tag) {
            doc.add_text(fields.tag, filed);
        }
    }
    doc.add_text(fields.body, visible.finish());
    doc.add_text(fields.stamp, stamp);
    for key in links::keys_of_links(path, &links) {
        doc.add_text(fields.links, &key);
    }
    doc
}

/// The document of an attachment: its path, as the key and as words, and the stamp of
/// the version seen. Only the name is indexed, never the bytes.
pub(crate) fn file_document(fields: &Fields, path: &FilePath, stamp: &str) -> TantivyDocument {
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.file, path.as_str());
    doc.add_text(fields.file_words, path.as_str());
    doc.add_text(fields.stamp, stamp);
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::search::words::tokens;

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

    #[test]
    fn one_parse_gives_the_text_and_the_link_keys_two_parses_give() {
        use std::collections::BTreeSet;
        use tantivy::schema::Value;
        let (_, fields) = schema();
        let path = NotePath::parse("dir/a.md").unwrap();
        for text in [
            "---\ntitle: T\ntags: [x]\n---\n# H\n\n[[b]] and [c](c.md) `code` <b>html</b>\n\n```\nblock\n```\n",
            "no front matter, [[Other Note|label]] ![[img.png]] [ref][r]\n\n[r]: ../x.md\n",
            "---\nnot: [valid\n---\nbody [[z]] [[#Heading]]\n",
            "",
        ] {
            let doc = document(&fields, &path, text, "v2:1:1");
            let body = doc.get_first(fields.body).and_then(|v| v.as_str()).unwrap();
            let note = store::note_of(&path, text, text.len() as u64);
            assert_eq!(body, render::visible_text(&note.body), "{text:?}");
            let indexed: BTreeSet<&str> = doc
                .get_all(fields.links)
                .filter_map(|v| v.as_str())
                .collect();
            let keys = links::keys_of_links(&path, &links::links_of(text));
            assert_eq!(
                indexed,
                keys.iter().map(String::as_str).collect(),
                "{text:?}"
            );
            assert_eq!(indexed.is_empty(), text.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn the_body_is_indexed_as_the_text_a_reader_sees() {
        use tantivy::schema::Value;
        let (_, fields) = schema();
        let path = NotePath::parse("a.md").unwrap();
        let text = "---\ntitle: Tokio\n---\n# Tokio\n\nSee [the guide](https://tokio.rs/guide) \
                    and ![diagram](img.png).\n";
        let doc = document(&fields, &path, text, "v2:1:1");
        let body = doc.get_first(fields.body).and_then(|v| v.as_str()).unwrap();
        assert_eq!(body, "Tokio\nSee the guide and diagram.");
        let mut analyzer = text_analyzer();
        let words = tokens(&mut analyzer, body);
        assert!(
            !words
                .iter()
                .any(|w| ["https", "tokio.rs", "rs", "img", "png"].contains(&w.as_str())),
            "{words:?}"
        );
    }

    #[test]
    fn stamps_carry_the_content_version() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let stamp = stamp_of(&FileId::of(&file.as_file().metadata().unwrap()));
        assert!(
            stamp.starts_with(&format!("v{CONTENT_VERSION}:")),
            "{stamp}"
        );
        assert!(stamp.ends_with(":0"), "{stamp}");
    }
}
