//! The links of a note: which notes may link to it (from the index, a term query on its
//! lookup keys), resolved by the one resolver of the pages (`Notebook::link_targets`).
//! Candidates are re-read and their links resolved, so the answer is what the files
//! say, never a stale key. The API, the CLI and the web
//! note page's "Linked from" all ask here.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde::Serialize;
use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, Occur, Query as IndexQuery, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, Term};

use super::{NotesIndex, columns};
use crate::error::{Error, Result};
use crate::ops::links;
use crate::ops::tokens::Scope;
use crate::ops::{NotePath, Notebook};

/// The links of one note, with the API's field names.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct NoteLinks {
    pub(crate) path: String,
    /// Its links to notes, in the order of the text.
    pub(crate) outgoing: Vec<Outgoing>,
    /// The links of other notes to it, by path then line.
    pub(crate) incoming: Vec<Incoming>,
}

impl NoteLinks {
    /// Keeps only what a caller limited to some notes may see: a link of a note out of
    /// `reaches` to this one is dropped (its line is that note's text), and a target out
    /// of reach is shown as written, never where it leads.
    pub(crate) fn keep_within(&mut self, reaches: impl Fn(&str) -> bool) {
        for link in &mut self.outgoing {
            if link.path.as_deref().is_some_and(|p| !reaches(p)) {
                link.path = None;
            }
        }
        self.incoming.retain(|link| reaches(&link.path));
    }
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Outgoing {
    /// As written.
    pub(crate) target: String,
    /// The note it resolves to; `None` when it resolves to none (a broken link).
    pub(crate) path: Option<String>,
    pub(crate) line: u32,
}

/// A link to a note from another note.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Incoming {
    /// The linking note.
    pub(crate) path: String,
    pub(crate) title: String,
    /// 1-based line of the link in the linking note's file, front matter included.
    pub(crate) line: u32,
    /// That line as a reader sees it (Markdown marks left out), cut to `LINE_CHARS`:
    /// what the web page quotes. Not in the API's body, whose fields are documented.
    #[serde(skip)]
    pub(crate) text: String,
}

/// Characters of a linking line quoted with a backlink.
const LINE_CHARS: usize = 160;

impl Notebook {
    /// The links of note `path`: its own (resolved) and those of the notes linking to
    /// it, as the caller's `scope` may see them (`NoteLinks::keep_within`), once the index
    /// holds the writes made so far. `NotFound` when the note does not exist.
    pub(crate) fn links(&self, path: &NotePath, scope: &Scope) -> Result<NoteLinks> {
        self.links_with(path, scope, true)
    }

    /// The links of other notes to note `path` alone, as `scope` may see them (the web
    /// page's "Linked from"): its own, which may be many, are not even listed.
    pub(crate) fn backlinks(&self, path: &NotePath, scope: &Scope) -> Result<Vec<Incoming>> {
        Ok(self.links_with(path, scope, false)?.incoming)
    }

    /// `links`, with the note's own links only when `outgoing`.
    fn links_with(&self, path: &NotePath, scope: &Scope, outgoing: bool) -> Result<NoteLinks> {
        self.settle_index();
        let note = self.read(path)?;
        let aliases = note
            .front_matter
            .as_ref()
            .map(|f| f.aliases.clone())
            .unwrap_or_default();
        let index = self.current_index()?;
        let attempt = |index: &NotesIndex| {
            catch_unwind(AssertUnwindSafe(|| {
                index.linking_candidates(path, &aliases)
            }))
            .unwrap_or_else(|_| Err(Error::IndexBroken("reading links panicked".into())))
        };
        let targets = self.link_targets()?;
        let resolver = targets.resolver();
        let candidates = match attempt(&index) {
            Err(Error::IndexBroken(why)) => attempt(&self.damaged_index(&index, why)?)?,
            other => other?,
        };
        let mut own = Vec::new();
        if outgoing {
            links::for_each_link(&note.content, &mut |link| {
                if link.is_note() {
                    own.push(Outgoing {
                        path: resolver.resolve(path, &link).map(|p| p.to_string()),
                        target: link.target,
                        line: link.line,
                    });
                }
            });
        }
        let mut incoming = Vec::new();
        for from in candidates.iter().filter(|from| *from != path) {
            // Deleted or unreadable since it was indexed: it links to nothing now.
            let Ok(linking) = self.read(from) else {
                continue;
            };
            let mut lines = BTreeSet::new();
            links::for_each_link(&linking.content, &mut |link| {
                if resolver.resolve(from, &link).as_ref() == Some(path) {
                    lines.insert(link.line);
                }
            });
            let texts: Vec<&str> = linking.content.lines().collect();
            incoming.extend(lines.into_iter().map(|line| {
                Incoming {
                    path: from.to_string(),
                    title: linking.title.clone(),
                    line,
                    text: texts
                        .get(line.saturating_sub(1) as usize)
                        .map(|text| crate::render::line_text(text, LINE_CHARS))
                        .unwrap_or_default(),
                }
            }));
        }
        let mut links = NoteLinks {
            path: path.to_string(),
            outgoing: own,
            incoming,
        };
        if scope.prefix().is_some() {
            let reader = self.reader(scope)?;
            links.keep_within(|p| reader.holds(p));
        }
        Ok(links)
    }
}

impl NotesIndex {
    /// The notes whose links carry one of the keys of note `path` (with aliases
    /// `aliases`): the only ones that may link to it. Sorted by path.
    pub(crate) fn linking_candidates(
        &self,
        path: &NotePath,
        aliases: &[String],
    ) -> Result<Vec<NotePath>> {
        let keys = links::keys_of_note(path, aliases);
        let query = BooleanQuery::new(
            keys.iter()
                .map(|key| {
                    let term = Term::from_field_text(self.fields.links, key);
                    let query: Box<dyn IndexQuery> =
                        Box::new(TermQuery::new(term, IndexRecordOption::Basic));
                    (Occur::Should, query)
                })
                .collect(),
        );
        let searcher = self.reader.searcher();
        let found = searcher
            .search(&query, &DocSetCollector)
            .map_err(read_error)?;
        let mut by_segment: Vec<DocAddress> = found.into_iter().collect();
        by_segment.sort();
        let mut paths = BTreeSet::new();
        let mut column = None;
        for address in by_segment {
            if column
                .as_ref()
                .is_none_or(|(ord, _)| *ord != address.segment_ord)
            {
                let segment = searcher.segment_reader(address.segment_ord);
                let paths = segment.fast_fields().str("path").map_err(read_error)?;
                column = Some((address.segment_ord, paths));
            }
            if let Some((_, Some(paths_column))) = &column
                && let Ok(path) =
                    NotePath::parse(&columns::column_text(paths_column, address.doc_id)?)
            {
                paths.insert(path);
            }
        }
        Ok(paths.into_iter().collect())
    }
}

fn read_error(e: tantivy::TantivyError) -> Error {
    columns::classified("cannot read links", &e)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::ops::Config;
    use crate::ops::search::indexer::SharedIndex;
    use crate::ops::search::updater::IndexUpdater;

    fn write(dir: &Path, path: &str, text: &str) {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    fn setup() -> (tempfile::TempDir, Notebook, IndexUpdater) {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "kitchen/bread.md",
            "---\naliases: [Pain de mie]\n---\nSee [[soup]].\n[[nowhere]]\n",
        );
        write(dir.path(), "soup.md", "# Soup\n\n[[bread]] and [[Bread]]\n");
        write(
            dir.path(),
            "z/menu.md",
            "[b](../kitchen/bread.md#crust)\n\n[[PAIN DE MIE]] [[PAIN DE MIE|x]]\n",
        );
        write(
            dir.path(),
            "elsewhere/bread.md",
            "Not the one: a longer path.\n",
        );
        write(dir.path(), "unrelated.md", "[[soup]] `[[bread]]`\n");
        let index = NotesIndex::open_or_create(dir.path()).unwrap();
        let mut updater = IndexUpdater::new(index, dir.path()).unwrap();
        updater.catch_up(&mut |_, _| {}).unwrap();
        let book = Notebook::new(Config {
            notes_dir: dir.path().to_path_buf(),
            public_dir: dir.path().join("public"),
            base_url: None,
        });
        // As the server reads it: the index this updater keeps.
        let shared = SharedIndex::default();
        shared.set(updater.index().clone());
        book.serve_index(shared);
        (dir, book, updater)
    }

    #[test]
    fn outgoing_and_incoming_links_of_a_note() {
        let (_dir, book, _updater) = setup();
        let bread = NotePath::parse("kitchen/bread.md").unwrap();
        let links = book.links(&bread, &Scope::full()).unwrap();
        assert_eq!(links.path, "kitchen/bread.md");
        assert_eq!(
            links.outgoing,
            [
                Outgoing {
                    target: "soup".into(),
                    path: Some("soup.md".into()),
                    line: 4
                },
                Outgoing {
                    target: "nowhere".into(),
                    path: None,
                    line: 5
                },
            ]
        );
        let incoming: Vec<(&str, &str, u32, &str)> = links
            .incoming
            .iter()
            .map(|i| (i.path.as_str(), i.title.as_str(), i.line, i.text.as_str()))
            .collect();
        // `[[bread]]` and `[[Bread]]` (case folded) are the nearest note of that name
        // (the shorter path): line 3 once. Two lines from the menu (a path, an alias),
        // each quoted as a reader sees it.
        assert_eq!(
            incoming,
            [
                ("soup.md", "soup", 3, "bread and Bread"),
                ("z/menu.md", "menu", 1, "b"),
                ("z/menu.md", "menu", 3, "PAIN DE MIE x")
            ]
        );
    }

    #[test]
    fn linking_lines_are_quoted_as_read_and_cut_but_not_serialized() {
        let (dir, book, mut updater) = setup();
        let long = "word ".repeat(60);
        write(
            dir.path(),
            "quotes.md",
            &format!(
                "---\ntitle: Quotes\n---\n## In a **heading** [[soup|the soup]]\n\n\
                 - a list item with `code` and [[Soup]]\n{long}[[soup]]\n"
            ),
        );
        updater.catch_up(&mut |_, _| {}).unwrap();
        let links = book
            .links(&NotePath::parse("soup.md").unwrap(), &Scope::full())
            .unwrap();
        let quoted: Vec<(u32, &str)> = links
            .incoming
            .iter()
            .filter(|i| i.path == "quotes.md")
            .map(|i| (i.line, i.text.as_str()))
            .collect();
        assert_eq!(
            quoted[..2],
            [
                (4, "In a heading the soup"),
                (6, "a list item with code and Soup")
            ]
        );
        let (line, cut) = quoted[2];
        assert_eq!(line, 7);
        assert!(
            cut.ends_with('…') && cut.chars().count() <= LINE_CHARS + 1,
            "{cut}"
        );
        // The API's body keeps the documented fields only.
        let body = serde_json::to_value(&links.incoming[0]).unwrap();
        let keys: Vec<&String> = body.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["path", "title", "line"]);
    }

    #[test]
    fn an_edit_changes_backlinks_once_indexed() {
        let (dir, book, mut updater) = setup();
        let soup = NotePath::parse("soup.md").unwrap();
        let before = book.links(&soup, &Scope::full()).unwrap();
        assert_eq!(before.incoming.len(), 2, "{before:?}");
        write(dir.path(), "unrelated.md", "nothing now\n");
        write(dir.path(), "new.md", "\n\n[[Soup]]\n");
        updater.catch_up(&mut |_, _| {}).unwrap();
        let after = book.links(&soup, &Scope::full()).unwrap();
        let from: Vec<(&str, u32)> = after
            .incoming
            .iter()
            .map(|i| (i.path.as_str(), i.line))
            .collect();
        assert_eq!(from, [("kitchen/bread.md", 4), ("new.md", 3)]);
    }

    #[test]
    fn a_missing_note_is_not_found() {
        let (_dir, book, _updater) = setup();
        let err = book
            .links(&NotePath::parse("nope.md").unwrap(), &Scope::full())
            .unwrap_err();
        assert!(matches!(err, Error::NotFound), "{err:?}");
    }
}
