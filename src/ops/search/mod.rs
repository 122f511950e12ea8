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
mod run;
pub(crate) mod schema;
mod snippet;
pub(crate) mod source;
pub mod updater;
pub(crate) mod words;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, EmptyQuery, FuzzyTermQuery, Occur,
    PhrasePrefixQuery, PhraseQuery, Query as IndexQuery, RangeQuery, TermQuery,
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
use crate::error::{Cause, Error, Result};

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
    /// True when no note has every word and the results are the notes with some of
    /// them (`run`); absent otherwise, so an answer with every word keeps its shape.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) partial: bool,
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

    fn dir(&self, notes_dir: &Path) -> PathBuf {
        index_dir(notes_dir)
    }
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
    opened.map_err(|e| {
        Error::Index(Cause::new(
            format!("cannot open the index in {}", dir.display()),
            e,
        ))
    })
}

pub(crate) fn index_error(what: &str, dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Index(format!("{what} the index {}: {e}", dir.display()).into())
}

impl Notebook {
    /// Runs a query: the one search of the CLI, the API, the web interface and MCP,
    /// among the notes the caller's `scope` may read (results and total alike). A
    /// damaged index (an error saying so, or a panic while reading it) is reported
    /// (`damaged_index`), and the index that answers is asked once more.
    pub(crate) fn search(
        &self,
        query: &Query,
        limit: Limit,
        scope: &Scope,
    ) -> Result<SearchResults> {
        let reader = self.reader(scope)?;
        let index = self.current_index()?;
        let dir = self.notes_dir();
        match read_guarded(&index, dir, query, limit, &reader) {
            Err(Error::IndexBroken(why)) => read_guarded(
                &self.damaged_index(&index, why)?,
                dir,
                query,
                limit,
                &reader,
            ),
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
mod tests;
