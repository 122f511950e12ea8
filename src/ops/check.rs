//! `check`: every link of every note resolved, the broken ones reported, and the notes
//! no other note links to; links and images to files that are not there, and the
//! attachments no note references. A whole-folder pass over the files, so it needs no
//! index and is right even when no server keeps one current.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::ops::links::{Resolver, attachment_path, links_of};
use crate::ops::{FilePath, NotePath, Notebook};

/// What `check` found, with the API's field names.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct CheckReport {
    /// Links to no note, by note then line.
    pub(crate) broken: Vec<BrokenLink>,
    /// Notes that no other note links to, by path.
    pub(crate) orphans: Vec<Orphan>,
    /// Links, images and embeds of files that are not there, by note then line.
    #[serde(rename = "missingFiles")]
    pub(crate) missing_files: Vec<MissingFile>,
    /// Attachments that no note links to, embeds or shows, by path.
    #[serde(rename = "orphanFiles")]
    pub(crate) orphan_files: Vec<OrphanFile>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct MissingFile {
    /// The note holding the link.
    pub(crate) path: String,
    pub(crate) line: u32,
    /// As written.
    pub(crate) target: String,
    /// The attachment path it names, from the notes folder; absent when it leads
    /// outside the folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) file: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct OrphanFile {
    pub(crate) path: String,
    pub(crate) size: u64,
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
    /// Resolves the links of every note: broken links, notes nothing links to, links
    /// to missing files and attachments nothing links to.
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
        let mut attachments: HashMap<String, u64> =
            crate::ops::files::attachment_files(self.notes_dir(), self.notes_dir())
                .into_iter()
                .map(|f| (f.path.to_string(), f.meta.len()))
                .collect();
        let resolver = Resolver::new(
            notes.iter().map(|(path, note)| {
                let aliases = note.front_matter.as_ref().map(|f| f.aliases.as_slice());
                (path.clone(), aliases.unwrap_or_default())
            }),
            attachments
                .keys()
                .filter_map(|path| FilePath::parse(path).ok()),
        );
        let mut broken = Vec::new();
        let mut missing_files = Vec::new();
        let mut linked = HashSet::new();
        let mut used = HashSet::new();
        for (from, note) in &notes {
            for link in links_of(&note.content) {
                if !link.is_note() {
                    // A file is found where a note's page finds it.
                    if let Some(file) = resolver.resolve_file(from, &link) {
                        used.insert(file.to_string());
                        continue;
                    }
                    missing_files.push(MissingFile {
                        path: from.to_string(),
                        line: link.line,
                        target: link.target.clone(),
                        file: attachment_path(from, &link).map(|f| f.to_string()),
                    });
                    continue;
                }
                match resolver.resolve(from, &link) {
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
        attachments.retain(|path, _| !used.contains(path));
        let mut orphan_files: Vec<OrphanFile> = attachments
            .into_iter()
            .map(|(path, size)| OrphanFile { path, size })
            .collect();
        orphan_files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(CheckReport {
            broken,
            orphans,
            missing_files,
            orphan_files,
        })
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
        write("c.md", "![[pic.png]] [[a]]\n\n![shown](img/shown.png)\n");
        write(
            "lonely.md",
            "[[lonely]]\n[doc](sub/doc.pdf) [up](../../x.pdf)\n",
        );
        write("img/shown.png", "png");
        write("sub/doc.pdf", "pdf");
        write("img/unused.jpg", "jpg");
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
        let missing: Vec<(&str, u32, &str, Option<&str>)> = report
            .missing_files
            .iter()
            .map(|m| {
                (
                    m.path.as_str(),
                    m.line,
                    m.target.as_str(),
                    m.file.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            missing,
            [
                ("c.md", 1, "pic.png", Some("pic.png")),
                ("lonely.md", 2, "../../x.pdf", None)
            ]
        );
        let orphan_files: Vec<(&str, u64)> = report
            .orphan_files
            .iter()
            .map(|f| (f.path.as_str(), f.size))
            .collect();
        assert_eq!(orphan_files, [("img/unused.jpg", 3)]);
    }
}
