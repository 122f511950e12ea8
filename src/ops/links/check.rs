//! `check`: every link of every note resolved, the broken ones reported, and the notes
//! no other note links to. A whole-folder pass over the files, so it needs no index and
//! is right even when no server keeps one current.

use std::collections::HashSet;

use serde::Serialize;

use super::{Resolver, links_of};
use crate::error::{Error, Result};
use crate::ops::{NotePath, Notebook};

/// What `check` found, with the API's field names.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct CheckReport {
    /// Links to no note, by note then line.
    pub(crate) broken: Vec<BrokenLink>,
    /// Notes that no other note links to, by path.
    pub(crate) orphans: Vec<Orphan>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct BrokenLink {
    /// The note holding the link.
    pub(crate) path: String,
    pub(crate) line: u32,
    /// As written.
    pub(crate) target: String,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Orphan {
    pub(crate) path: String,
    pub(crate) title: String,
}

impl Notebook {
    /// Resolves the links of every note: broken links, and notes nothing links to.
    pub(crate) fn check(&self) -> Result<CheckReport> {
        let list = self.list()?;
        let mut notes = Vec::with_capacity(list.notes.len());
        for meta in &list.notes {
            let Ok(path) = NotePath::parse(&meta.path) else {
                continue;
            };
            match self.read(&path) {
                Ok(note) => notes.push((path, note)),
                // Deleted since the list was made.
                Err(Error::NotFound) => {}
                Err(e) => return Err(e),
            }
        }
        let resolver = Resolver::new(
            notes
                .iter()
                .map(|(path, note)| (path.clone(), note.title.as_str())),
        );
        let mut broken = Vec::new();
        let mut linked = HashSet::new();
        for (from, note) in &notes {
            for link in links_of(&note.content).iter().filter(|l| l.is_note()) {
                match resolver.resolve(from, link) {
                    Some(to) if to != *from => {
                        linked.insert(to);
                    }
                    Some(_) => {}
                    None => broken.push(BrokenLink {
                        path: from.to_string(),
                        line: link.line,
                        target: link.target.clone(),
                    }),
                }
            }
        }
        let orphans = notes
            .iter()
            .filter(|(path, _)| !linked.contains(path))
            .map(|(path, note)| Orphan {
                path: path.to_string(),
                title: note.title.clone(),
            })
            .collect();
        Ok(CheckReport { broken, orphans })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Config;

    #[test]
    fn broken_links_and_orphans() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        };
        write("a.md", "[[b]] [[#Self]]\n\n[[Missing note]]\n");
        write(
            "sub/b.md",
            "---\ntitle: Bee\n---\n[up](../c.md) [gone](../gone.md)\n",
        );
        write("c.md", "![[pic.png]] [[a]]\n");
        write("lonely.md", "[[lonely]]\n");
        let book = Notebook::new(Config {
            notes_dir: dir.path().to_path_buf(),
            public_dir: dir.path().join("public"),
            base_url: None,
        });
        let report = book.check().unwrap();
        let broken: Vec<(&str, u32, &str)> = report
            .broken
            .iter()
            .map(|b| (b.path.as_str(), b.line, b.target.as_str()))
            .collect();
        assert_eq!(
            broken,
            [("a.md", 3, "Missing note"), ("sub/b.md", 4, "../gone.md")]
        );
        let orphans: Vec<&str> = report.orphans.iter().map(|o| o.path.as_str()).collect();
        assert_eq!(orphans, ["lonely.md"], "a link to itself does not count");
    }
}
