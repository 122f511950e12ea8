//! Full-text search over the notes: a tantivy index in `<notes dir>/.notes/index`,
//! ranked queries with snippets, and the ways to keep the index equal to the files
//! (full rebuild, catch-up, per-note updates; see `updater` and `indexer`). The index
//! also holds the attachments' paths, which a `file:` query searches instead of notes.

pub(crate) mod backlinks;
mod columns;
mod directory;
mod gauge;
pub(crate) mod heal;
pub(crate) mod indexer;
pub(crate) mod query;
pub(crate) mod schema;
mod snippet;
pub mod updater;
pub(crate) mod words;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, FuzzyTermQuery, Occur, PhrasePrefixQuery,
    PhraseQuery, Query as IndexQuery, RangeQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument, Term};

pub use self::query::{Limit, Query};

use self::query::Part;
use self::schema::Fields;
use self::snippet::Snippets;
use super::Notebook;
use super::path::INTERNAL_DIR;
use super::root::RootDir;
use super::tokens::{Reader, Scope};
use super::{NotePath, store};
use crate::error::{Error, Result};

/// Results per query when the caller does not say.
pub(crate) const DEFAULT_LIMIT: usize = 20;
/// The most results one query returns.
pub(crate) const MAX_LIMIT: usize = 100;
/// Marks the start of a match in a snippet.
pub(crate) const MATCH_START: &str = "⟦";
/// Marks the end of a match in a snippet.
pub(crate) const MATCH_END: &str = "⟧";
/// Seconds a client is asked to wait (`Retry-After`) while the index is rebuilt.
pub(crate) const RETRY_AFTER_SECS: u64 = 5;
/// Ranking weight of a match, by field: title and tags above body.
const TITLE_BOOST: f32 = 3.0;
const TAGS_BOOST: f32 = 2.0;
const BODY_BOOST: f32 = 1.0;

/// The answer to a query, with the API's field names.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResults {
    pub(crate) query: String,
    pub(crate) results: Vec<SearchHit>,
    /// How many notes (or attachments, for a `file:` query) match: all of them, not
    /// only those returned.
    pub(crate) total: usize,
}

/// One matching note, or attachment (for a `file:` query).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SearchHit {
    pub(crate) path: String,
    pub(crate) title: String,
    pub(crate) tags: Vec<String>,
    pub(crate) score: f32,
    /// Plain text around the best match in the body (the text a reader sees, not the
    /// Markdown), each match between `⟦` and `⟧`.
    pub(crate) snippet: String,
    /// The title with its matches between `⟦` and `⟧` (`title` stays as it is).
    #[serde(rename = "highlightedTitle")]
    pub(crate) highlighted_title: String,
    /// `file` for an attachment (its name as the title, no tags, no snippet); absent
    /// for a note, whose result keeps the fields it always had.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) kind: Option<&'static str>,
}

/// The `kind` of an attachment's result.
pub(crate) const FILE_KIND: &str = "file";

/// The index folder of a notes folder.
pub(crate) fn index_dir(notes_dir: &Path) -> PathBuf {
    notes_dir.join(INTERNAL_DIR).join("index")
}

/// An open index and its reader. Cheap to clone; clones share the reader, so a reload
/// after a commit is seen by every clone.
#[derive(Clone)]
pub struct NotesIndex {
    pub(crate) index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: Fields,
    /// Which opening of the index this is: a failure seen through an index opened
    /// before a rebuild must not start another rebuild.
    pub(crate) id: u64,
    /// What every note is called, for resolving links, per version of the index.
    pub(crate) resolvers: std::sync::Arc<backlinks::ResolverCache>,
    /// The merges running in the background (`updater`), so that other work that
    /// needs much memory can wait for them (a merge maps every page it reads).
    pub(crate) merges: std::sync::Arc<gauge::Gauge>,
}

/// Most threads one search is shared among (its segments, then its results).
const SEARCH_THREADS: usize = 4;

/// The threads searches run on: one per core up to `SEARCH_THREADS`, one pool for the
/// process (every opening of an index shares it). A query's segments are searched and
/// its results read in parallel: at 100k notes on two cores, search p50 3.60 → 2.80 ms
/// for ~10% more CPU per search (the hand-offs). Concurrent searches queue for the
/// pool's threads.
fn search_executor() -> tantivy::Executor {
    static EXECUTOR: std::sync::OnceLock<tantivy::Executor> = std::sync::OnceLock::new();
    EXECUTOR
        .get_or_init(|| {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            match cores.min(SEARCH_THREADS) {
                1 => tantivy::Executor::single_thread(),
                threads => tantivy::Executor::multi_thread(threads, "notes-search-")
                    .unwrap_or_else(|_| tantivy::Executor::single_thread()),
            }
        })
        .clone()
}

/// Numbers the openings of indexes.
static OPENINGS: AtomicU64 = AtomicU64::new(0);

impl NotesIndex {
    /// Opens the index of `notes_dir`, creating it (empty) when missing. An index with
    /// another schema (an older version of the program) is replaced by an empty one;
    /// the caller's catch-up fills it again.
    pub fn open_or_create(notes_dir: &Path) -> Result<Self> {
        let dir = index_dir(notes_dir);
        let (schema, fields) = schema::schema();
        let exists = dir.join("meta.json").is_file();
        let index = if exists {
            let index = Index::open(mmap_directory(&dir)?)
                .map_err(|e| heal::read_error("cannot open", &dir, &e))?;
            if index.schema() == schema {
                index
            } else {
                std::fs::remove_dir_all(&dir)
                    .map_err(|e| index_error("cannot replace", &dir, e))?;
                create(&dir, schema)?
            }
        } else {
            create(&dir, schema)?
        };
        schema::register_analyzers(&index);
        // The writer (and its merges) maps the files, which is fastest for reading a
        // segment through; searches go through another opening of the same folder that
        // reads the per-term files instead (see `directory`). A reload after a commit
        // reads the folder's meta file, whichever opening wrote it.
        let mut searched = Index::open(search_directory(&dir)?)
            .map_err(|e| heal::read_error("cannot open", &dir, &e))?;
        schema::register_analyzers(&searched);
        searched.set_executor(search_executor());
        let reader = searched
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e| heal::read_error("cannot read", &dir, &e))?;
        Ok(NotesIndex {
            index,
            reader,
            fields,
            id: OPENINGS.fetch_add(1, Ordering::Relaxed),
            resolvers: Default::default(),
            merges: Default::default(),
        })
    }

    /// Opens the index of `notes_dir`; one whose files are damaged is moved aside first
    /// and an empty one created (the caller fills it). Also says where the damaged one
    /// went.
    pub(crate) fn open_or_heal(notes_dir: &Path) -> Result<(Self, Option<PathBuf>)> {
        match Self::open_or_create(notes_dir) {
            Err(Error::IndexBroken(_)) => {
                let moved = heal::move_aside(notes_dir)?;
                Ok((Self::open_or_create(notes_dir)?, moved))
            }
            other => other.map(|index| (index, None)),
        }
    }

    /// Whether the index holds no note (nor attachment).
    pub(crate) fn is_empty(&self) -> bool {
        self.reader.searcher().num_docs() == 0
    }

    /// Runs a query on this index as it is (`Notebook::search` adds the recovery from
    /// damage). `notes_dir` is checked so that a note deleted a moment ago, and not yet
    /// removed from the index, is never returned.
    pub fn search(&self, notes_dir: &Path, query: &Query, limit: Limit) -> Result<SearchResults> {
        self.search_within(notes_dir, query, limit, &Reader::default())
    }

    /// `search`, among what `reader` sees only: the total counts those results too.
    pub(crate) fn search_within(
        &self,
        notes_dir: &Path,
        query: &Query,
        limit: Limit,
        reader: &Reader,
    ) -> Result<SearchResults> {
        let limit = limit.get();
        let mut plan = self.plan(query);
        plan.query = self.within(plan.query, query.is_for_files(), reader);
        let searcher = self.reader.searcher();
        // A few more than asked for, in case some were deleted since the last commit.
        let collector = (TopDocs::with_limit(limit + 8).order_by_score(), Count);
        let (top, count) = searcher
            .search(plan.query.as_ref(), &collector)
            .map_err(|e| heal::read_error("cannot query", &self.dir(notes_dir), &e))?;
        let snippets = self.snippet_terms(&searcher, &plan).map_err(|e| {
            heal::read_error("cannot read term statistics of", &self.dir(notes_dir), &e)
        })?;
        let shown = Shown {
            index: self,
            searcher: &searcher,
            snippets: &snippets,
            root: RootDir::new(notes_dir.to_path_buf()),
            notes_dir,
            files: query.is_for_files(),
        };
        let executor = searcher.index().search_executor();
        let mut results = Vec::with_capacity(limit.min(top.len()));
        let mut stale = 0;
        let mut top = top.into_iter();
        // The results shown are read in parallel, as many as are missing at a time (a
        // second round only when some were gone); the rest are only checked.
        while results.len() < limit {
            let round: Vec<_> = top.by_ref().take(limit - results.len()).collect();
            if round.is_empty() {
                break;
            }
            let hits = executor
                .map(
                    |(score, address)| Ok(shown.hit(score, address)),
                    round.into_iter(),
                )
                .map_err(|e| {
                    heal::read_error("cannot read a result of", &self.dir(notes_dir), &e)
                })?;
            for hit in hits {
                match hit? {
                    Some(hit) => results.push(hit),
                    None => stale += 1,
                }
            }
        }
        for (_, address) in top {
            if !shown.exists(address)? {
                stale += 1;
            }
        }
        Ok(SearchResults {
            query: query.as_str().to_string(),
            total: count.saturating_sub(stale),
            results,
        })
    }

    /// The tantivy query of a parsed query, and the words to highlight.
    fn plan(&self, query: &Query) -> Plan {
        let fields = self.searched(query);
        let fields = fields.as_slice();
        let mut must: Vec<Box<dyn IndexQuery>> = Vec::new();
        let mut must_not: Vec<Box<dyn IndexQuery>> = Vec::new();
        let mut filters: Vec<Box<dyn IndexQuery>> = Vec::new();
        let mut highlight = HashSet::new();
        let mut prefix = None;
        for part in query.parts() {
            match part {
                Part::Words(tokens) => {
                    must.extend(words_query(fields, tokens));
                    highlight.extend(tokens.iter().cloned());
                }
                Part::Prefix(tokens) => {
                    must.push(prefix_query(fields, tokens));
                    if let Some((last, before)) = tokens.split_last() {
                        prefix = Some(last.clone());
                        highlight.extend(before.iter().cloned());
                    }
                }
                Part::Without(tokens) => must_not.extend(words_query(fields, tokens)),
                Part::Tag(token) => {
                    let term = Term::from_field_text(self.fields.tag, token);
                    filters.push(Box::new(TermQuery::new(term, IndexRecordOption::Basic)));
                }
            }
        }
        // Tag filters select without ranking; alone, every selected note scores 1.
        let filter_score = if must.is_empty() { 1.0 } else { 0.0 };
        let mut parts: Vec<(Occur, Box<dyn IndexQuery>)> = Vec::new();
        parts.extend(must.into_iter().map(|q| (Occur::Must, q)));
        parts.extend(filters.into_iter().map(|q| {
            (
                Occur::Must,
                Box::new(ConstScoreQuery::new(q, filter_score)) as _,
            )
        }));
        parts.extend(must_not.into_iter().map(|q| (Occur::MustNot, q)));
        Plan {
            query: Box::new(BooleanQuery::new(parts)),
            highlight,
            prefix,
        }
    }

    /// `query` limited to what `reader` sees: the documents whose key (a note's path,
    /// or an attachment's for a `file:` query) is in its folder, less its hidden notes.
    /// Ranking is unchanged (the filter scores nothing).
    fn within(
        &self,
        query: Box<dyn IndexQuery>,
        files: bool,
        reader: &Reader,
    ) -> Box<dyn IndexQuery> {
        use std::ops::Bound;
        let Some(folder) = reader.folder() else {
            return query;
        };
        let key = if files {
            self.fields.file
        } else {
            self.fields.path
        };
        // Every path `folder/…`: from `folder/` up to `folder0` (`0` follows `/`).
        let inside = RangeQuery::new(
            Bound::Included(Term::from_field_text(key, &format!("{folder}/"))),
            Bound::Excluded(Term::from_field_text(key, &format!("{folder}0"))),
        );
        let mut parts: Vec<(Occur, Box<dyn IndexQuery>)> = vec![
            (Occur::Must, query),
            (
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(inside), 0.0)),
            ),
        ];
        if !files {
            parts.extend(reader.hidden().iter().map(|hidden| {
                let term = Term::from_field_text(key, hidden);
                (
                    Occur::MustNot,
                    Box::new(TermQuery::new(term, IndexRecordOption::Basic)) as _,
                )
            }));
        }
        Box::new(BooleanQuery::new(parts))
    }

    /// The fields a query's words are looked for in, with their weights: a note's
    /// title, tags and body; an attachment's path for a `file:` query.
    fn searched(&self, query: &Query) -> Vec<(Field, f32)> {
        if query.is_for_files() {
            vec![(self.fields.file_words, 1.0)]
        } else {
            vec![
                (self.fields.title, TITLE_BOOST),
                (self.fields.tags, TAGS_BOOST),
                (self.fields.body, BODY_BOOST),
            ]
        }
    }

    fn dir(&self, notes_dir: &Path) -> PathBuf {
        index_dir(notes_dir)
    }

    /// The weights of the words to highlight (rarer words weigh more).
    fn snippet_terms(
        &self,
        searcher: &tantivy::Searcher,
        plan: &Plan,
    ) -> tantivy::Result<Snippets> {
        let mut terms = BTreeMap::new();
        for word in &plan.highlight {
            let term = Term::from_field_text(self.fields.body, word);
            let freq = searcher.doc_freq(&term)?;
            terms.insert(word.clone(), 1.0 / (1.0 + freq as f32));
        }
        let snippets = Snippets::new(terms, plan.prefix.clone());
        let words = match &plan.prefix {
            Some(prefix) => prefix_words(searcher, self.fields.body, prefix)?,
            None => None,
        };
        Ok(match words {
            Some(words) => snippets.with_prefix_words(words),
            None => snippets,
        })
    }
}

/// What a search reads its results with.
struct Shown<'a> {
    index: &'a NotesIndex,
    searcher: &'a tantivy::Searcher,
    snippets: &'a Snippets,
    root: RootDir,
    notes_dir: &'a Path,
    files: bool,
}

impl Shown<'_> {
    /// The document at `address` and its key (a note's path, or an attachment's).
    fn document(&self, address: tantivy::DocAddress) -> Result<(TantivyDocument, String)> {
        let doc: TantivyDocument = self.searcher.doc(address).map_err(|e| {
            heal::read_error(
                "cannot read a result of",
                &self.index.dir(self.notes_dir),
                &e,
            )
        })?;
        let key = if self.files {
            self.index.fields.file
        } else {
            self.index.fields.path
        };
        let path = first_str(&doc, key);
        Ok((doc, path))
    }

    /// Whether the document at `address` is still a file of the folder (a result not
    /// shown, counted in the total).
    fn exists(&self, address: tantivy::DocAddress) -> Result<bool> {
        let (_, path) = self.document(address)?;
        Ok(!path.is_empty() && self.is_file(&path))
    }

    /// Whether `path` (not empty) is a file of the folder: the check of a result that is
    /// not read.
    fn is_file(&self, path: &str) -> bool {
        self.notes_dir.join(path).is_file()
    }

    /// The result at `address` as shown: None when its file is gone (stale). The
    /// snippet is cut from the note as it is on disk (the index keeps no copy of the
    /// text), read through the checked open, which is also the check that it is there.
    fn hit(&self, score: f32, address: tantivy::DocAddress) -> Result<Option<SearchHit>> {
        let (doc, path) = self.document(address)?;
        if path.is_empty() {
            return Ok(None);
        }
        if self.files {
            if !self.is_file(&path) {
                return Ok(None);
            }
            let name = path.rsplit('/').next().unwrap_or(&path).to_string();
            return Ok(Some(SearchHit {
                highlighted_title: self.snippets.mark(&name),
                title: name,
                tags: Vec::new(),
                score,
                snippet: String::new(),
                path,
                kind: Some(FILE_KIND),
            }));
        }
        let Some(body) = reader_body(&self.root, &path) else {
            return Ok(None);
        };
        let fields = &self.index.fields;
        let title = first_str(&doc, fields.title);
        Ok(Some(SearchHit {
            highlighted_title: self.snippets.mark(&title),
            title,
            tags: doc
                .get_all(fields.tags)
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            score,
            snippet: self.snippets.render(&body),
            path,
            kind: None,
        }))
    }
}

/// Most words a typed prefix is highlighted as, read from the index; past this (a
/// prefix of two or three letters), each result's body is scanned for its words.
const PREFIX_WORDS: usize = 256;

/// The words of `field` that `prefix` starts, in every segment; None past
/// `PREFIX_WORDS` of them.
fn prefix_words(
    searcher: &tantivy::Searcher,
    field: Field,
    prefix: &str,
) -> tantivy::Result<Option<Vec<String>>> {
    let mut words = BTreeSet::new();
    for segment in searcher.segment_readers() {
        let index = segment.inverted_index(field)?;
        let mut stream = index.terms().range().ge(prefix.as_bytes()).into_stream()?;
        while stream.advance() {
            let Some(word) = std::str::from_utf8(stream.key())
                .ok()
                .filter(|word| word.starts_with(prefix))
            else {
                break;
            };
            if words.len() == PREFIX_WORDS && !words.contains(word) {
                return Ok(None);
            }
            words.insert(word.to_string());
        }
    }
    Ok(Some(words.into_iter().collect()))
}

struct Plan {
    query: Box<dyn IndexQuery>,
    highlight: HashSet<String>,
    prefix: Option<String>,
}

/// Documents where the words appear (one word, or several in a row) in one of `fields`.
fn words_query(fields: &[(Field, f32)], tokens: &[String]) -> Option<Box<dyn IndexQuery>> {
    if tokens.is_empty() {
        return None;
    }
    let per_field = fields.iter().map(|&(field, boost)| {
        let q: Box<dyn IndexQuery> = if tokens.len() == 1 {
            Box::new(TermQuery::new(
                Term::from_field_text(field, &tokens[0]),
                IndexRecordOption::WithFreqs,
            ))
        } else {
            let terms = tokens
                .iter()
                .map(|t| Term::from_field_text(field, t))
                .collect();
            Box::new(PhraseQuery::new(terms))
        };
        (
            Occur::Should,
            Box::new(BoostQuery::new(q, boost)) as Box<dyn IndexQuery>,
        )
    });
    Some(Box::new(BooleanQuery::new(per_field.collect())))
}

/// Documents where the last word is a prefix of a word (after the others, in a row) in
/// one of `fields`; an exact match of a single word ranks above a longer word it starts.
fn prefix_query(fields: &[(Field, f32)], tokens: &[String]) -> Box<dyn IndexQuery> {
    let mut parts: Vec<(Occur, Box<dyn IndexQuery>)> = Vec::new();
    for &(field, boost) in fields {
        let terms: Vec<Term> = tokens
            .iter()
            .map(|t| Term::from_field_text(field, t))
            .collect();
        if terms.len() == 1 {
            let exact = TermQuery::new(terms[0].clone(), IndexRecordOption::WithFreqs);
            parts.push((
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(exact), boost)),
            ));
            let starts = FuzzyTermQuery::new_prefix(terms[0].clone(), 0, true);
            parts.push((
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(starts), boost)),
            ));
        } else {
            let phrase = PhrasePrefixQuery::new(terms);
            parts.push((
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(phrase), boost)),
            ));
        }
    }
    Box::new(BooleanQuery::new(parts))
}

/// The body of the note `path` as a reader sees it, read through the checked open;
/// None when it cannot be read (gone, or no longer a note).
fn reader_body(root: &RootDir, path: &str) -> Option<String> {
    let note = NotePath::parse(path).ok()?;
    let (mut file, meta) = root.open_note(&note).ok()?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    std::io::Read::read_to_end(&mut file, &mut bytes).ok()?;
    Some(schema::reader_body(&note, &store::text_of(&bytes)))
}

fn first_str(doc: &TantivyDocument, field: tantivy::schema::Field) -> String {
    doc.get_first(field)
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn create(dir: &Path, schema: tantivy::schema::Schema) -> Result<Index> {
    std::fs::create_dir_all(dir).map_err(|e| index_error("cannot create", dir, e))?;
    Index::create(
        mmap_directory(dir)?,
        schema,
        tantivy::IndexSettings::default(),
    )
    .map_err(|e| index_error("cannot create", dir, e))
}

/// The directory searches read an index from: on unix, postings, positions and stored
/// texts read with `pread`, the rest mapped (see `directory`).
fn search_directory(dir: &Path) -> Result<Box<dyn tantivy::Directory>> {
    let mapped = mmap_directory(dir)?;
    #[cfg(unix)]
    return Ok(Box::new(directory::IndexDirectory::new(mapped, dir)));
    #[cfg(not(unix))]
    Ok(Box::new(mapped))
}

/// The index files, mapped for random access: only the pages a search or merge
/// touches become resident, without the kernel's read-ahead and fault-around, which
/// otherwise map whole stretches of the stored texts into the server's memory.
pub(crate) fn mmap_directory(dir: &Path) -> Result<tantivy::directory::MmapDirectory> {
    use tantivy::directory::MmapDirectory;
    #[cfg(unix)]
    let opened = MmapDirectory::open_with_madvice(dir, tantivy::directory::Advice::Random);
    #[cfg(not(unix))]
    let opened = MmapDirectory::open(dir);
    opened.map_err(|e| Error::Index(format!("cannot open the index in {}: {e}", dir.display())))
}

pub(crate) fn index_error(what: &str, dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Index(format!("{what} the index {}: {e}", dir.display()))
}

/// Where a search finds its index, and what becomes of an index found damaged: the
/// server's indexer rebuilds it in the background, a command rebuilds it on the spot.
pub(crate) trait IndexSource {
    /// The index to read now, or why there is none (being rebuilt, cannot be opened).
    fn current(&self) -> Result<NotesIndex>;

    /// `index` turned out damaged (`why`): the index to ask once more, or the error
    /// the search answers.
    fn damaged(&self, index: &NotesIndex, why: String) -> Result<NotesIndex>;

    /// Waits (briefly) until the index holds the writes made so far, for a reader that
    /// must see its own writes. An index caught up by its reader has nothing to wait for.
    fn settle(&self) {}
}

impl Notebook {
    /// Runs a query: the one search of the CLI, the API, the web interface and MCP,
    /// among the notes the caller's `scope` may read (results and total alike). A
    /// damaged index (an error saying so, or a panic while reading it) goes back to
    /// `source`, and the index it answers with is asked once more.
    pub(crate) fn search(
        &self,
        source: &impl IndexSource,
        query: &Query,
        limit: Limit,
        scope: &Scope,
    ) -> Result<SearchResults> {
        let reader = self.reader(scope)?;
        let index = source.current()?;
        let dir = self.notes_dir();
        match read_guarded(&index, dir, query, limit, &reader) {
            Err(Error::IndexBroken(why)) => {
                read_guarded(&source.damaged(&index, why)?, dir, query, limit, &reader)
            }
            other => other,
        }
    }
}

/// A query on `index`; a panic while reading it means the index is damaged.
fn read_guarded(
    index: &NotesIndex,
    notes_dir: &Path,
    query: &Query,
    limit: Limit,
    reader: &Reader,
) -> Result<SearchResults> {
    catch_unwind(AssertUnwindSafe(|| {
        index.search_within(notes_dir, query, limit, reader)
    }))
    .unwrap_or_else(|_| Err(Error::IndexBroken("a search panicked reading it".into())))
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::updater::IndexUpdater;
    use super::*;

    use crate::ops::Config;

    /// A source that hands out one index, or one error, and counts the damage reported.
    struct Fixed {
        index: Option<NotesIndex>,
        damaged: Cell<usize>,
    }

    impl IndexSource for Fixed {
        fn current(&self) -> Result<NotesIndex> {
            self.index.clone().ok_or(Error::IndexRebuilding)
        }

        fn damaged(&self, _: &NotesIndex, _: String) -> Result<NotesIndex> {
            self.damaged.set(self.damaged.get() + 1);
            Err(Error::IndexRebuilding)
        }
    }

    fn notebook(dir: &Path) -> Notebook {
        Notebook::new(Config {
            notes_dir: dir.to_path_buf(),
            public_dir: dir.join("public"),
            base_url: None,
        })
    }

    fn indexed(dir: &Path) -> NotesIndex {
        let index = NotesIndex::open_or_create(dir).unwrap();
        let mut updater = IndexUpdater::new(index.clone(), dir).unwrap();
        updater.catch_up(&mut |_, _| {}).unwrap();
        index
    }

    #[test]
    fn a_search_reads_the_index_its_source_gives() {
        let notes = tempfile::tempdir().unwrap();
        std::fs::write(
            notes.path().join("a.md"),
            "# Echidna\n\nAn echidna lays eggs.",
        )
        .unwrap();
        std::fs::write(notes.path().join("b.md"), "# Other\n\nEchidnas, again.").unwrap();
        std::fs::write(notes.path().join("c.md"), "# Nothing\n\nHere.").unwrap();
        let source = Fixed {
            index: Some(indexed(notes.path())),
            damaged: Cell::new(0),
        };
        let book = notebook(notes.path());
        let query = Query::parse("echidna").unwrap();
        let found = book
            .search(&source, &query, Limit::new(1).unwrap(), &Scope::full())
            .unwrap();
        assert_eq!(found.query, "echidna");
        assert_eq!(found.total, 2);
        assert_eq!(found.results.len(), 1);
        assert_eq!(found.results[0].path, "a.md");
        assert_eq!(found.results[0].title, "a");
        assert_eq!(
            found.results[0].snippet,
            "⟦Echidna⟧ An ⟦echidna⟧ lays eggs."
        );
        assert_eq!(found.results[0].highlighted_title, "a");
        // A note deleted since it was indexed is never returned.
        std::fs::remove_file(notes.path().join("a.md")).unwrap();
        let found = book
            .search(&source, &query, Limit::DEFAULT, &Scope::full())
            .unwrap();
        assert_eq!(found.total, 1);
        assert_eq!(found.results[0].path, "b.md");
        assert_eq!(source.damaged.get(), 0);
    }

    #[test]
    fn a_typed_prefix_is_highlighted_as_the_words_the_index_holds() {
        let notes = tempfile::tempdir().unwrap();
        std::fs::write(notes.path().join("a.md"), "Echidna, echo, Échidnas.").unwrap();
        let many: Vec<String> = (0..=PREFIX_WORDS).map(|i| format!("zz{i}")).collect();
        std::fs::write(notes.path().join("b.md"), many.join(" ")).unwrap();
        let index = indexed(notes.path());
        let searcher = index.reader.searcher();
        let body = index.fields.body;
        assert_eq!(
            prefix_words(&searcher, body, "ech").unwrap(),
            Some(vec!["echidna".into(), "echidnas".into(), "echo".into()])
        );
        assert_eq!(prefix_words(&searcher, body, "qq").unwrap(), Some(vec![]));
        // Too many: each body is scanned instead.
        assert_eq!(prefix_words(&searcher, body, "zz").unwrap(), None);
    }

    #[test]
    fn notes_indexed_by_an_older_version_are_indexed_again() {
        let notes = tempfile::tempdir().unwrap();
        let file = notes.path().join("a.md");
        let markdown = "# Guide\n\nRead [the guide](https://example.org/manual).";
        std::fs::write(&file, markdown).unwrap();
        let index = indexed(notes.path());
        let book = notebook(notes.path());
        let source = Fixed {
            index: Some(index.clone()),
            damaged: Cell::new(0),
        };
        let total = |words: &str| {
            let query = Query::parse(words).unwrap();
            book.search(&source, &query, Limit::DEFAULT, &Scope::full())
                .unwrap()
                .total
        };
        assert_eq!((total("manual"), total("guide")), (0, 1));
        // The document an older version wrote: the Markdown as body, a stamp without
        // the content version.
        {
            let mut writer = index
                .index
                .writer_with_num_threads::<TantivyDocument>(1, 15_000_000)
                .unwrap();
            let meta = std::fs::metadata(&file).unwrap();
            let nanos = meta
                .modified()
                .unwrap()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos();
            let old_stamp = format!("{nanos}:{}", meta.len());
            let fields = index.fields;
            writer.delete_term(Term::from_field_text(fields.path, "a.md"));
            let mut doc = TantivyDocument::default();
            doc.add_text(fields.path, "a.md");
            doc.add_text(fields.title, "a");
            doc.add_text(fields.body, markdown);
            doc.add_text(fields.stamp, &old_stamp);
            writer.add_document(doc).unwrap();
            writer.commit().unwrap();
        }
        index.reader.reload().unwrap();
        assert_eq!(total("manual"), 1);
        let mut updater = IndexUpdater::new(index.clone(), notes.path()).unwrap();
        let changes = updater.catch_up(&mut |_, _| {}).unwrap();
        assert_eq!(changes.indexed, 1);
        assert_eq!((total("manual"), total("guide")), (0, 1));
        // Up to date now: nothing more to do.
        assert_eq!(updater.catch_up(&mut |_, _| {}).unwrap().indexed, 0);
    }

    #[test]
    fn an_index_without_the_attachment_fields_is_replaced_and_filled_again() {
        let notes = tempfile::tempdir().unwrap();
        std::fs::write(notes.path().join("a.md"), "# A\n\nalpha").unwrap();
        std::fs::write(notes.path().join("diagram.png"), b"\x89PNG alpha").unwrap();
        // An index as a version without attachments made it: another schema.
        {
            let mut builder = tantivy::schema::Schema::builder();
            builder.add_text_field("path", tantivy::schema::STRING);
            create(&index_dir(notes.path()), builder.build()).unwrap();
        }
        let index = indexed(notes.path());
        let book = notebook(notes.path());
        let source = Fixed {
            index: Some(index),
            damaged: Cell::new(0),
        };
        let found = |words: &str| {
            let query = Query::parse(words).unwrap();
            let results = book
                .search(&source, &query, Limit::DEFAULT, &Scope::full())
                .unwrap();
            results
                .results
                .iter()
                .map(|hit| (hit.path.clone(), hit.kind))
                .collect::<Vec<_>>()
        };
        assert_eq!(found("alpha"), [("a.md".to_string(), None)]);
        assert_eq!(
            found("file:diagram"),
            [("diagram.png".to_string(), Some(FILE_KIND))]
        );
        // The bytes of an attachment are not indexed, its name is not a note's word.
        assert_eq!(found("file:alpha"), []);
        assert_eq!(found("diagram"), []);
    }

    #[test]
    fn without_an_index_the_source_answers() {
        let notes = tempfile::tempdir().unwrap();
        let source = Fixed {
            index: None,
            damaged: Cell::new(0),
        };
        let query = Query::parse("x").unwrap();
        let err = notebook(notes.path())
            .search(&source, &query, Limit::DEFAULT, &Scope::full())
            .unwrap_err();
        assert!(matches!(err, Error::IndexRebuilding), "{err:?}");
        assert_eq!(source.damaged.get(), 0);
    }

    #[test]
    fn a_second_writer_is_told_a_running_server_owns_the_index() {
        let notes = tempfile::tempdir().unwrap();
        let index = NotesIndex::open_or_create(notes.path()).unwrap();
        let _owner = IndexUpdater::new(index.clone(), notes.path()).unwrap();
        let Err(err) = IndexUpdater::new(index, notes.path()) else {
            panic!("a second writer was let in");
        };
        assert!(matches!(err, Error::IndexOwned), "{err:?}");
        assert!(err.to_string().contains("running `notes serve`"), "{err}");
    }
}
