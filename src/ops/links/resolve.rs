//! Which note a link points to. A Markdown link is a path relative to the linking note's
//! folder. A wikilink names a note by, in order: its path from the root (with or without
//! `.md`), its file name anywhere (`name` or `dir/name`; the shortest path wins, then
//! byte order), its title (case and accents folded).

use std::collections::HashMap;

use tantivy::tokenizer::{AsciiFoldingFilter, LowerCaser, RawTokenizer, TextAnalyzer};

use super::Link;
use crate::ops::NotePath;
use crate::ops::path;

/// What every note is called, indexed for the three wikilink rules. Built once per
/// version of the notes folder and shared.
#[derive(Debug, Default)]
pub(crate) struct Resolver {
    paths: Vec<NotePath>,
    /// Path → index in `paths`.
    by_path: HashMap<String, usize>,
    /// File name without `.md` → indexes, best first (shortest path, then byte order).
    by_stem: HashMap<String, Vec<usize>>,
    /// Folded title → the best note of that title.
    by_title: HashMap<String, usize>,
}

impl Resolver {
    /// From the path and title of every note.
    pub(crate) fn new<'a>(notes: impl IntoIterator<Item = (NotePath, &'a str)>) -> Self {
        let mut folder = Folder::default();
        Self::with_folded_titles(
            notes
                .into_iter()
                .map(|(path, title)| (path, folder.fold(title))),
        )
    }

    /// From the path and folded title (`fold`) of every note, for callers that keep
    /// titles folded already.
    pub(crate) fn with_folded_titles(notes: impl IntoIterator<Item = (NotePath, String)>) -> Self {
        let mut notes: Vec<(NotePath, String)> = notes.into_iter().collect();
        // Best first everywhere: the shortest path, then byte order.
        notes.sort_by(|(a, _), (b, _)| {
            (a.as_str().len(), a.as_str()).cmp(&(b.as_str().len(), b.as_str()))
        });
        notes.dedup_by(|(a, _), (b, _)| a == b);
        let mut resolver = Resolver::default();
        for (i, (path, title)) in notes.into_iter().enumerate() {
            resolver.by_path.insert(path.as_str().to_string(), i);
            resolver
                .by_stem
                .entry(path.stem().to_string())
                .or_default()
                .push(i);
            resolver.by_title.entry(title).or_insert(i);
            resolver.paths.push(path);
        }
        resolver
    }

    /// The note `link`, found in note `from`, points to; `None` when it points to no
    /// note (missing, or an attachment).
    pub(crate) fn resolve(&self, from: &NotePath, link: &Link) -> Option<NotePath> {
        if !link.is_note() {
            return None;
        }
        if link.is_wiki() {
            self.wiki(from, &link.note)
        } else {
            self.relative(from, &link.note)
        }
    }

    /// Whether `path` is a note of the folder.
    #[cfg(test)]
    pub(crate) fn contains(&self, path: &NotePath) -> bool {
        self.by_path.contains_key(path.as_str())
    }

    fn get(&self, path: &str) -> Option<NotePath> {
        self.by_path.get(path).map(|&i| self.paths[i].clone())
    }

    fn relative(&self, from: &NotePath, note: &str) -> Option<NotePath> {
        self.get(&relative_path(from, note)?)
    }

    fn wiki(&self, from: &NotePath, note: &str) -> Option<NotePath> {
        if note.is_empty() {
            return Some(from.clone());
        }
        let bare = bare_name(note);
        self.by_root_path(bare)
            .or_else(|| self.by_file_name(bare))
            .or_else(|| {
                let title = Folder::default().fold(note);
                self.by_title.get(&title).map(|&i| self.paths[i].clone())
            })
    }

    /// Rule 1: `dir/name` or `dir/name.md` from the root.
    fn by_root_path(&self, bare: &str) -> Option<NotePath> {
        self.get(root_path(bare)?.as_str())
    }

    /// Rule 2: `name` is a note's file name without `.md`, `dir/name` the end of its path.
    fn by_file_name(&self, bare: &str) -> Option<NotePath> {
        let (stem, suffix) = match bare.rsplit_once('/') {
            Some((_, stem)) => (stem, Some(format!("/{bare}.md"))),
            None => (bare, None),
        };
        let found = self.by_stem.get(stem)?.iter().find(|&&i| match &suffix {
            Some(suffix) => self.paths[i].as_str().ends_with(suffix.as_str()),
            None => true,
        })?;
        Some(self.paths[*found].clone())
    }
}

/// The path a Markdown link's (decoded) `note` part names, relative to the folder of
/// `from`; `None` above the root.
pub(super) fn relative_path(from: &NotePath, note: &str) -> Option<String> {
    let joined = match from.parent() {
        "." => note.to_string(),
        folder => format!("{folder}/{note}"),
    };
    let cleaned = path::clean(&joined);
    if cleaned.starts_with("..") || cleaned.starts_with('/') {
        return None;
    }
    Some(cleaned)
}

/// A wikilink's note part without a leading `/` or a closing `.md`.
pub(super) fn bare_name(note: &str) -> &str {
    let note = note.trim_start_matches('/');
    note.strip_suffix(".md").unwrap_or(note)
}

/// The note path a bare wikilink name would have from the root.
pub(super) fn root_path(bare: &str) -> Option<NotePath> {
    NotePath::parse(&format!("{bare}.md")).ok()
}

/// One title folded as the title rule compares it; `Folder` keeps the analyzer for many.
pub(crate) fn fold(text: &str) -> String {
    Folder::default().fold(text)
}

/// Folds titles as the title rule compares them (`Été à Paris` → `ete a paris`),
/// keeping its analyzer for many in a row: the whole value as one token, lowercased and
/// accents folded, like the search index's tag analyzer.
pub(crate) struct Folder(TextAnalyzer);

impl Default for Folder {
    fn default() -> Self {
        Folder(
            TextAnalyzer::builder(RawTokenizer::default())
                .filter(LowerCaser)
                .filter(AsciiFoldingFilter)
                .build(),
        )
    }
}

impl Folder {
    /// Blanks are folded too: runs of them become one space, none at the ends.
    pub(crate) fn fold(&mut self, text: &str) -> String {
        let words: Vec<&str> = text.split_whitespace().collect();
        let joined = words.join(" ");
        let mut stream = self.0.token_stream(&joined);
        let mut out = String::new();
        while let Some(token) = stream.next() {
            out.push_str(&token.text);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::links::links_of;

    fn resolver(notes: &[(&str, &str)]) -> Resolver {
        Resolver::new(
            notes
                .iter()
                .map(|(path, title)| (NotePath::parse(path).unwrap(), *title)),
        )
    }

    fn resolve(resolver: &Resolver, from: &str, text: &str) -> Option<String> {
        let links = links_of(text);
        assert_eq!(links.len(), 1, "{text}: {links:?}");
        resolver
            .resolve(&NotePath::parse(from).unwrap(), &links[0])
            .map(|p| p.to_string())
    }

    #[test]
    fn markdown_links_are_relative_to_the_linking_note() {
        let r = resolver(&[
            ("a/b c.md", ""),
            ("a/x/y.md", ""),
            ("top.md", ""),
            ("b c.md", ""),
        ]);
        assert_eq!(
            resolve(&r, "a/x/y.md", "[t](../b%20c.md)").as_deref(),
            Some("a/b c.md")
        );
        assert_eq!(
            resolve(&r, "a/note.md", "[t](x/y.md#h)").as_deref(),
            Some("a/x/y.md")
        );
        assert_eq!(
            resolve(&r, "a/note.md", "[t](./../top.md)").as_deref(),
            Some("top.md")
        );
        assert_eq!(
            resolve(&r, "top.md", "[t](b%20c.md)").as_deref(),
            Some("b c.md")
        );
        // Never above the root, and only exact paths.
        assert_eq!(resolve(&r, "a/note.md", "[t](../../top.md)"), None);
        assert_eq!(resolve(&r, "a/note.md", "[t](y.md)"), None);
        assert_eq!(resolve(&r, "top.md", "[t](missing.md)"), None);
    }

    #[test]
    fn wikilinks_try_the_root_path_first() {
        let r = resolver(&[("bread.md", "Bread"), ("recipes/bread.md", "Bread too")]);
        assert_eq!(
            resolve(&r, "x.md", "[[recipes/bread]]").as_deref(),
            Some("recipes/bread.md")
        );
        assert_eq!(
            resolve(&r, "x.md", "[[recipes/bread.md]]").as_deref(),
            Some("recipes/bread.md")
        );
        assert_eq!(
            resolve(&r, "recipes/x.md", "[[bread]]").as_deref(),
            Some("bread.md")
        );
        assert_eq!(
            resolve(&r, "x.md", "[[/recipes/bread|b]]").as_deref(),
            Some("recipes/bread.md")
        );
    }

    #[test]
    fn then_a_file_name_anywhere_shortest_path_then_byte_order() {
        let r = resolver(&[
            ("zz/deep/bread.md", ""),
            ("b/bread.md", ""),
            ("a/bread.md", ""),
            ("kitchen/recipes/soup.md", ""),
            ("old/recipes/soup.md", ""),
        ]);
        assert_eq!(
            resolve(&r, "x.md", "[[bread]]").as_deref(),
            Some("a/bread.md")
        );
        assert_eq!(
            resolve(&r, "x.md", "[[bread.md#Dough]]").as_deref(),
            Some("a/bread.md")
        );
        assert_eq!(
            resolve(&r, "x.md", "[[deep/bread]]").as_deref(),
            Some("zz/deep/bread.md")
        );
        assert_eq!(
            resolve(&r, "x.md", "[[recipes/soup]]").as_deref(),
            Some("old/recipes/soup.md")
        );
        assert_eq!(
            resolve(&r, "x.md", "[[cipes/soup]]"),
            None,
            "whole names only"
        );
        assert_eq!(
            resolve(&r, "x.md", "[[Bread]]"),
            None,
            "file names match exactly"
        );
    }

    #[test]
    fn then_a_title_with_case_and_accents_folded() {
        let r = resolver(&[
            ("n1.md", "Été à Paris"),
            ("longer/n2.md", "ete a paris"),
            ("rust.md", "Rust async notes"),
            ("dir/Café.md", "Something else"),
        ]);
        assert_eq!(
            resolve(&r, "x.md", "[[ETE A  PARIS]]").as_deref(),
            Some("n1.md")
        );
        assert_eq!(
            resolve(&r, "x.md", "[[rust ASYNC notes#Setup]]").as_deref(),
            Some("rust.md")
        );
        assert_eq!(
            resolve(&r, "x.md", "[[Café]]").as_deref(),
            Some("dir/Café.md"),
            "file name before title"
        );
        assert_eq!(resolve(&r, "x.md", "[[No such note]]"), None);
    }

    #[test]
    fn the_file_name_rule_beats_the_title_rule() {
        let r = resolver(&[("a/Bread.md", "Soup"), ("soup.md", "Bread")]);
        assert_eq!(
            resolve(&r, "x.md", "[[Bread]]").as_deref(),
            Some("a/Bread.md")
        );
        assert_eq!(resolve(&r, "x.md", "[[soup]]").as_deref(), Some("soup.md"));
        assert_eq!(
            resolve(&r, "x.md", "[[SOUP]]").as_deref(),
            Some("a/Bread.md")
        );
    }

    #[test]
    fn a_heading_alone_is_this_note_and_attachments_are_no_notes() {
        let r = resolver(&[("a/self.md", "Self"), ("photo.md", "photo")]);
        assert_eq!(
            resolve(&r, "a/self.md", "[[#Part two]]").as_deref(),
            Some("a/self.md")
        );
        assert_eq!(resolve(&r, "x.md", "![[photo.jpg]]"), None);
        assert_eq!(
            resolve(&r, "x.md", "![[photo]]").as_deref(),
            Some("photo.md")
        );
        assert_eq!(resolve(&r, "x.md", "![p](photo.png)"), None);
    }

    fn fold(text: &str) -> String {
        Folder::default().fold(text)
    }

    #[test]
    fn folding_is_the_search_tag_analyzers() {
        let mut tags = crate::ops::search::words::tag_analyzer();
        let title = "Rust  Été À l'ÎLE";
        assert_eq!(
            fold(title),
            crate::ops::search::words::tokens(&mut tags, "Rust Été À l'ÎLE").concat()
        );
        assert_eq!(fold("  Été   à l'Île "), "ete a l'ile");
        assert_eq!(fold("ÇA VA"), "ca va");
    }
}
