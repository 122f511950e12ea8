//! Running a query on the index: the plan (fields, weights, prefix), the results
//! among what the reader sees, their snippets.

use super::*;

impl NotesIndex {
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
        let searcher = self.reader.searcher();
        // A few more than asked for, in case some were deleted since the last commit.
        let collector = (TopDocs::with_limit(limit + 8).order_by_score(), Count);
        let run = |plan: &mut Plan| {
            let scoped = std::mem::replace(&mut plan.query, Box::new(EmptyQuery));
            plan.query = self.within(scoped, query.is_for_files(), reader);
            searcher
                .search(plan.query.as_ref(), &collector)
                .map_err(|e| heal::read_error("cannot query", &self.dir(notes_dir), &e))
        };
        let mut plan = self.plan(query, false);
        let (mut top, mut count) = run(&mut plan)?;
        // No note has every word: the notes with some of them, marked as partial. Only
        // then, so a query that finds something costs one search, whatever the size.
        let partial = count == 0 && plan.words > 1;
        if partial {
            plan = self.plan(query, true);
            (top, count) = run(&mut plan)?;
        }
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
            partial: partial && !results.is_empty(),
            results,
        })
    }

    /// The tantivy query of a parsed query, and the words to highlight. Every word (or
    /// phrase) is required; with `partial`, at least one of them is (ranked by how
    /// many and how rare), while exclusions and tag filters stay hard filters.
    fn plan(&self, query: &Query, partial: bool) -> Plan {
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
        let words = must.len();
        // Tag filters select without ranking; alone, every selected note scores 1.
        let filter_score = if must.is_empty() { 1.0 } else { 0.0 };
        let mut parts: Vec<(Occur, Box<dyn IndexQuery>)> = Vec::new();
        if partial && words > 1 {
            // Each word found adds a fixed amount above its own score: a note with
            // more of the words ranks above one that repeats a single word often.
            let some = must
                .into_iter()
                .flat_map(|q| {
                    let found = ConstScoreQuery::new(q.box_clone(), PARTIAL_WORD_SCORE);
                    [(Occur::Should, q), (Occur::Should, Box::new(found) as _)]
                })
                .collect();
            parts.push((Occur::Must, Box::new(BooleanQuery::new(some))));
        } else {
            parts.extend(must.into_iter().map(|q| (Occur::Must, q)));
        }
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
            words,
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
pub(super) const PREFIX_WORDS: usize = 256;

/// The words of `field` that `prefix` starts, in every segment; None past
/// `PREFIX_WORDS` of them.
pub(super) fn prefix_words(
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

/// What each word found adds to a note's score in a partial answer: more than one
/// word's usual score, so notes with more of the words come first.
const PARTIAL_WORD_SCORE: f32 = 8.0;

struct Plan {
    query: Box<dyn IndexQuery>,
    highlight: HashSet<String>,
    prefix: Option<String>,
    /// How many words (or phrases) the query asks for: a partial match needs two.
    words: usize,
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
