//! Which note or file a link points to, by Obsidian's rules.
//!
//! - A target with a path (`[[sub/x]]`, `![[Attachments/x.jpg]]`, `[t](sub/x.md)`) is
//!   taken from the linking note's folder, then from the root; a wikilink then matches
//!   any path ending in `/sub/x` (the nearest, below).
//! - A bare name (`[[Bread]]`, `![[photo.jpg]]`, `[t](Bread.md)`) is the note or file
//!   of that file name anywhere in the folder. When several share it, the nearest wins:
//!   one in the linking note's own folder, then the one sharing the longest folder
//!   prefix with it, then the shortest path, then byte order.
//! - Names and paths compare case-insensitively; an exact-case match wins over a
//!   folded one.
//! - Then a wikilink's text may be one of a note's `aliases:` (case folded, nearest).
//!
//! Titles never resolve (Obsidian's rule). Notes and files are looked up apart: a link
//! whose name has a file extension (other than `.md`) names a file.

use std::collections::HashMap;

use super::Link;
use crate::ops::path;
use crate::ops::{FilePath, NotePath};

/// Every note and file of the folder, indexed for the rules above. Built once per
/// version of the notes folder and shared.
#[derive(Debug, Default)]
pub(crate) struct Resolver {
    notes: Table,
    files: Table,
    /// Folded alias → the notes that have it.
    aliases: HashMap<String, Vec<u32>>,
}

/// The paths of one kind (notes or files) and their lookups.
#[derive(Debug, Default)]
struct Table {
    paths: Vec<String>,
    /// Exact path → index.
    exact: HashMap<String, u32>,
    /// Lowercased path → indexes.
    folded: HashMap<String, Vec<u32>>,
    /// Lowercased name (a note's without `.md`, a file's whole) → indexes.
    names: HashMap<String, Vec<u32>>,
}

impl Table {
    fn add(&mut self, path: &str, name: &str) -> Option<u32> {
        if self.exact.contains_key(path) {
            return None;
        }
        let at = u32::try_from(self.paths.len()).ok()?;
        self.paths.push(path.to_string());
        self.exact.insert(path.to_string(), at);
        self.folded.entry(lower(path)).or_default().push(at);
        self.names.entry(lower(name)).or_default().push(at);
        Some(at)
    }

    /// The entry at `wanted` (a cleaned path from the root): exact, else folded.
    fn at(&self, from: &str, wanted: &str) -> Option<u32> {
        if let Some(&at) = self.exact.get(wanted) {
            return Some(at);
        }
        nearest(&self.paths, from, self.folded.get(&lower(wanted))?, None)
    }

    /// The nearest entry named `name` (a note's without `.md`) whose path, folded, ends
    /// with `/suffix` (or is `suffix`) when one is given.
    fn named(&self, from: &str, name: &str, suffix: Option<&str>) -> Option<u32> {
        let found = self.names.get(&lower(name))?;
        let suffix = suffix.map(lower);
        let fits: Vec<u32> = found
            .iter()
            .copied()
            .filter(|&i| {
                suffix.as_deref().is_none_or(|suffix| {
                    let path = lower(&self.paths[i as usize]);
                    path == suffix
                        || path
                            .strip_suffix(suffix)
                            .is_some_and(|head| head.ends_with('/'))
                })
            })
            .collect();
        let exact_name = |i: u32| file_name(&self.paths[i as usize]).starts_with(name);
        nearest(&self.paths, from, &fits, Some(&exact_name))
    }
}

impl Resolver {
    /// From every note (with its aliases) and every attachment of the folder.
    pub(crate) fn new<N, A, S>(notes: N, files: impl IntoIterator<Item = FilePath>) -> Self
    where
        N: IntoIterator<Item = (NotePath, A)>,
        A: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut resolver = Resolver::default();
        for (path, aliases) in notes {
            let Some(at) = resolver.notes.add(path.as_str(), path.stem()) else {
                continue;
            };
            for alias in aliases {
                let alias = lower(alias.as_ref().trim());
                if !alias.is_empty() {
                    resolver.aliases.entry(alias).or_default().push(at);
                }
            }
        }
        for file in files {
            resolver.files.add(file.as_str(), file.file_name());
        }
        resolver
    }

    /// The note `link`, found in note `from`, points to; `None` when it points to no
    /// note (missing, or an attachment).
    pub(crate) fn resolve(&self, from: &NotePath, link: &Link) -> Option<NotePath> {
        if !link.is_note() {
            return None;
        }
        if link.is_wiki() && link.note.is_empty() {
            return Some(from.clone());
        }
        let written = link.note.trim_start_matches('/');
        let wanted = if written.ends_with(".md") {
            written.to_string()
        } else {
            format!("{written}.md")
        };
        let found = self
            .find(&self.notes, from, link, &wanted, wanted.strip_suffix(".md"))
            .or_else(|| {
                if !link.is_wiki() {
                    return None;
                }
                let with = self.aliases.get(&lower(written.trim()))?;
                nearest(&self.notes.paths, from.as_str(), with, None)
            })?;
        NotePath::parse(&self.notes.paths[found as usize]).ok()
    }

    /// The attachment `link`, found in note `from`, points to; `None` when it names no
    /// file of the folder (missing, or a note).
    pub(crate) fn resolve_file(&self, from: &NotePath, link: &Link) -> Option<FilePath> {
        if link.is_note() {
            return None;
        }
        let wanted = link.note.trim_start_matches('/');
        let found = self.find(&self.files, from, link, wanted, Some(wanted))?;
        FilePath::parse(&self.files.paths[found as usize]).ok()
    }

    /// Whether `path` is a note of the folder.
    #[cfg(test)]
    pub(crate) fn contains(&self, path: &NotePath) -> bool {
        self.notes.exact.contains_key(path.as_str())
    }

    /// The path and name rules, over `table`: `wanted` is the target with its
    /// extension, `named` the same without `.md` for a note.
    fn find(
        &self,
        table: &Table,
        from: &NotePath,
        link: &Link,
        wanted: &str,
        named: Option<&str>,
    ) -> Option<u32> {
        let named = named?;
        let here = from.as_str();
        let has_path = wanted.contains('/');
        if has_path || !link.is_wiki() {
            let relative = relative_path(from, wanted)
                .and_then(|p| table.at(here, &p))
                .or_else(|| table.at(here, &beneath_root(wanted)?));
            if relative.is_some() {
                return relative;
            }
            if has_path && !link.is_wiki() {
                return None;
            }
        }
        let name = file_name(named);
        if has_path {
            let suffix = path::clean(wanted);
            if suffix.starts_with("..") {
                return None;
            }
            return table.named(here, name, Some(&suffix));
        }
        table.named(here, name, None)
    }
}

/// `wanted` from the root, when it stays beneath it.
fn beneath_root(wanted: &str) -> Option<String> {
    let cleaned = path::clean(wanted);
    (!cleaned.starts_with("..") && !cleaned.starts_with('/') && !cleaned.is_empty())
        .then_some(cleaned)
}

/// The nearest of `candidates` to the note at `from`: an exact-case name first (when
/// `exact` tells), then one in the same folder, then the longest shared folder prefix,
/// then the shortest path, then byte order.
fn nearest(
    paths: &[String],
    from: &str,
    candidates: &[u32],
    exact: Option<&dyn Fn(u32) -> bool>,
) -> Option<u32> {
    let here = folders(from);
    candidates.iter().copied().min_by_key(|&i| {
        let path = paths[i as usize].as_str();
        let there = folders(path);
        let shared = here.iter().zip(&there).take_while(|(a, b)| a == b).count();
        let same = here == there;
        (
            !exact.is_none_or(|exact| exact(i)),
            !same,
            std::cmp::Reverse(shared),
            path.len(),
            path,
        )
    })
}

/// The folder names of a path, the file name left out.
fn folders(path: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop();
    parts
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// How names compare: lowercased, as Obsidian compares them.
pub(super) fn lower(text: &str) -> String {
    text.to_lowercase()
}

/// `name` written in note `from`, joined to its folder (not cleaned).
pub(super) fn joined_to_folder(from: &NotePath, name: &str) -> String {
    match from.parent() {
        "." => name.to_string(),
        folder => format!("{folder}/{name}"),
    }
}

/// The path a (decoded) target names, relative to the folder of `from`; `None` above
/// the root.
pub(super) fn relative_path(from: &NotePath, note: &str) -> Option<String> {
    let cleaned = path::clean(&joined_to_folder(from, note));
    if cleaned.starts_with("..") || cleaned.starts_with('/') {
        return None;
    }
    Some(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::links::links_of;

    /// Notes (`path` or `path=Alias`) and files.
    fn resolver_with(notes: &[&str], files: &[&str]) -> Resolver {
        Resolver::new(
            notes.iter().map(|n| match n.split_once('=') {
                Some((path, alias)) => (NotePath::parse(path).unwrap(), vec![alias]),
                None => (NotePath::parse(n).unwrap(), vec![]),
            }),
            files.iter().map(|f| FilePath::parse(f).unwrap()),
        )
    }

    fn resolver(notes: &[&str]) -> Resolver {
        resolver_with(notes, &[])
    }

    fn one(text: &str) -> Link {
        let links = links_of(text);
        assert_eq!(links.len(), 1, "{text}: {links:?}");
        links.into_iter().next().unwrap()
    }

    fn resolve(resolver: &Resolver, from: &str, text: &str) -> Option<String> {
        resolver
            .resolve(&NotePath::parse(from).unwrap(), &one(text))
            .map(|p| p.to_string())
    }

    fn file(resolver: &Resolver, from: &str, text: &str) -> Option<String> {
        resolver
            .resolve_file(&NotePath::parse(from).unwrap(), &one(text))
            .map(|p| p.to_string())
    }

    #[test]
    fn markdown_links_are_taken_from_the_folder_then_the_root() {
        let r = resolver(&["a/b c.md", "a/x/y.md", "top.md", "b c.md", "sub/z.md"]);
        let at = |from, text| resolve(&r, from, text);
        assert_eq!(
            at("a/x/y.md", "[t](../b%20c.md)").as_deref(),
            Some("a/b c.md")
        );
        assert_eq!(
            at("a/note.md", "[t](x/y.md#h)").as_deref(),
            Some("a/x/y.md")
        );
        assert_eq!(
            at("a/note.md", "[t](./../top.md)").as_deref(),
            Some("top.md")
        );
        assert_eq!(at("top.md", "[t](b%20c.md)").as_deref(), Some("b c.md"));
        // Not in the folder: from the root.
        assert_eq!(
            at("a/note.md", "[t](sub/z.md)").as_deref(),
            Some("sub/z.md")
        );
        // A bare name: the nearest note of that name.
        assert_eq!(at("a/x/y.md", "[t](z.md)").as_deref(), Some("sub/z.md"));
        // Never above the root; a path that is nowhere is missing.
        assert_eq!(at("a/note.md", "[t](../../top.md)"), None);
        assert_eq!(at("a/note.md", "[t](q/y.md)"), None);
        assert_eq!(at("top.md", "[t](missing.md)"), None);
    }

    #[test]
    fn wikilink_paths_from_the_folder_then_the_root_then_any_path_ending_so() {
        let r = resolver(&[
            "sub/x.md",
            "a/sub/x.md",
            "old/stuff/recipes/soup.md",
            "kitchen/recipes/soup.md",
        ]);
        let at = |from, text| resolve(&r, from, text);
        assert_eq!(at("a/n.md", "[[sub/x]]").as_deref(), Some("a/sub/x.md"));
        assert_eq!(at("n.md", "[[sub/x]]").as_deref(), Some("sub/x.md"));
        assert_eq!(at("b/n.md", "[[sub/x.md|l]]").as_deref(), Some("sub/x.md"));
        assert_eq!(at("b/n.md", "[[/sub/x]]").as_deref(), Some("sub/x.md"));
        // Any path ending in `/recipes/soup`: the nearest, then the shortest.
        assert_eq!(
            at("n.md", "[[recipes/soup]]").as_deref(),
            Some("kitchen/recipes/soup.md")
        );
        assert_eq!(
            at("old/n.md", "[[recipes/soup]]").as_deref(),
            Some("old/stuff/recipes/soup.md")
        );
        assert_eq!(at("n.md", "[[cipes/soup]]"), None, "whole names only");
        assert_eq!(at("n.md", "[[../sub/x]]"), None);
    }

    #[test]
    fn a_bare_name_is_the_nearest_note_of_that_name() {
        let r = resolver(&[
            "bread.md",
            "zz/deep/bread.md",
            "b/bread.md",
            "a/bread.md",
            "a/x/y/bread.md",
            "q/r/s/only.md",
        ]);
        let at = |from, text| resolve(&r, from, text);
        // Unique: anywhere.
        assert_eq!(at("x.md", "[[only]]").as_deref(), Some("q/r/s/only.md"));
        // The same folder first.
        assert_eq!(at("b/n.md", "[[bread]]").as_deref(), Some("b/bread.md"));
        assert_eq!(
            at("x.md", "[[bread.md#Dough]]").as_deref(),
            Some("bread.md")
        );
        // Then the longest shared folder prefix.
        assert_eq!(
            at("zz/deep/more/n.md", "[[bread]]").as_deref(),
            Some("zz/deep/bread.md")
        );
        assert_eq!(
            at("a/x/n.md", "[[bread]]").as_deref(),
            Some("a/x/y/bread.md")
        );
        assert_eq!(at("a/q/n.md", "[[bread]]").as_deref(), Some("a/bread.md"));
        assert_eq!(
            at("a/x/y/z/n.md", "[[bread]]").as_deref(),
            Some("a/x/y/bread.md")
        );
        // Then the shortest path, then byte order.
        let r = resolver(&["c/long/bread.md", "b/bread.md", "a/bread.md"]);
        assert_eq!(
            resolve(&r, "x/n.md", "[[bread]]").as_deref(),
            Some("a/bread.md")
        );
    }

    #[test]
    fn names_compare_case_folded_an_exact_case_winning() {
        let r = resolver(&["a/Bread.md", "b/bread.md", "Été.md"]);
        let at = |from, text| resolve(&r, from, text);
        assert_eq!(at("b/n.md", "[[Bread]]").as_deref(), Some("a/Bread.md"));
        assert_eq!(at("a/n.md", "[[bread]]").as_deref(), Some("b/bread.md"));
        assert_eq!(
            at("x.md", "[[BREAD]]").as_deref(),
            Some("a/Bread.md"),
            "nearest of the folded"
        );
        assert_eq!(at("x.md", "[[été]]").as_deref(), Some("Été.md"));
        assert_eq!(at("x.md", "[[A/BREAD]]").as_deref(), Some("a/Bread.md"));
        assert_eq!(at("x.md", "[t](B/BREAD.md)").as_deref(), Some("b/bread.md"));
    }

    #[test]
    fn aliases_after_paths_and_names_and_titles_never() {
        let r = resolver(&[
            "kitchen/loaf.md=Bread",
            "bread.md",
            "z/soup.md=Potage",
            "y/x.md=potage",
        ]);
        let at = |from, text| resolve(&r, from, text);
        assert_eq!(
            at("n.md", "[[Bread]]").as_deref(),
            Some("bread.md"),
            "the name first"
        );
        assert_eq!(at("n.md", "[[loaf]]").as_deref(), Some("kitchen/loaf.md"));
        assert_eq!(at("n.md", "[[POTAGE#Herbs|s]]").as_deref(), Some("y/x.md"));
        assert_eq!(at("z/n.md", "[[potage]]").as_deref(), Some("z/soup.md"));
        // Markdown links never name an alias; nothing resolves a title.
        assert_eq!(at("n.md", "[t](Potage.md)"), None);
        assert_eq!(at("n.md", "[[Loaf of bread]]"), None);
    }

    #[test]
    fn files_by_path_or_by_name_anywhere() {
        let r = resolver_with(
            &["notes/n.md", "photo.md"],
            &[
                "Attachments/Engelbart.jpg",
                "notes/img/a.png",
                "img/a.png",
                "x/dup.png",
                "notes/dup.png",
            ],
        );
        let at = |from, text| file(&r, from, text);
        assert_eq!(
            at("notes/n.md", "![[Engelbart.jpg]]").as_deref(),
            Some("Attachments/Engelbart.jpg")
        );
        assert_eq!(
            at("notes/n.md", "![[engelbart.JPG|100]]").as_deref(),
            Some("Attachments/Engelbart.jpg")
        );
        assert_eq!(
            at("notes/n.md", "![[Attachments/Engelbart.jpg]]").as_deref(),
            Some("Attachments/Engelbart.jpg")
        );
        assert_eq!(
            at("notes/n.md", "![](img/a.png)").as_deref(),
            Some("notes/img/a.png")
        );
        assert_eq!(at("n.md", "![](img/a.png)").as_deref(), Some("img/a.png"));
        assert_eq!(
            at("elsewhere/n.md", "![](img/a.png)").as_deref(),
            Some("img/a.png"),
            "from the root"
        );
        assert_eq!(
            at("notes/n.md", "![[dup.png]]").as_deref(),
            Some("notes/dup.png")
        );
        assert_eq!(at("x/n.md", "[d](dup.png)").as_deref(), Some("x/dup.png"));
        assert_eq!(at("n.md", "![[missing.png]]"), None);
        // Notes and files apart.
        assert_eq!(at("n.md", "![[photo]]"), None);
        assert_eq!(
            resolve(&r, "n.md", "![[photo]]").as_deref(),
            Some("photo.md")
        );
        assert_eq!(resolve(&r, "n.md", "![[a.png]]"), None);
    }

    #[test]
    fn a_heading_alone_is_this_note() {
        let r = resolver(&["a/self.md"]);
        assert_eq!(
            resolve(&r, "a/self.md", "[[#Part two]]").as_deref(),
            Some("a/self.md")
        );
        assert!(r.contains(&NotePath::parse("a/self.md").unwrap()));
    }
}
