//! The attachments a note references: each link to a file and each image of its text,
//! resolved as the note's page resolves it (`ops::links`), with the file found there.

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::ops::links::for_each_link;
use crate::ops::store::text_of;
use crate::ops::{FilePath, NotePath, Notebook};

use super::FileInfo;

/// One file a note references.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Referenced {
    /// The target as the note writes it (`img/ridge.png`, `../doc%20a.pdf`).
    pub(crate) written: String,
    /// The attachment it names, from the root; `None` when it leads above the notes
    /// folder or names no attachment (a hidden file).
    pub(crate) path: Option<FilePath>,
    /// What is there.
    pub(crate) found: Found,
}

/// Whether the referenced file is there.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Found {
    /// A regular file beneath the notes folder.
    File(FileInfo),
    /// Nothing at that path (or nothing that may be served: a folder, a symlink out).
    Missing,
    /// Something is there but could not be opened; the reason, for the page.
    Unreadable(String),
}

impl Notebook {
    /// The files note `path` references, each once, in the order the text first names
    /// them; notes it links to are not among them.
    pub(crate) fn referenced_files(&self, path: &NotePath) -> Result<Vec<Referenced>> {
        let raw = self.read_raw(path)?;
        let text = text_of(raw.bytes());
        let targets = self.link_targets()?;
        let mut seen: Vec<Referenced> = Vec::new();
        // What `seen` holds, to find a file again without a scan of the list: a note
        // naming many files would otherwise cost the square of their number.
        let mut named: HashSet<Result<FilePath, String>> = HashSet::new();
        for_each_link(&text, &mut |link| {
            if link.is_note() {
                return;
            }
            let file = targets.file_of(path, &link);
            let key = file.clone().ok_or_else(|| link.target.clone());
            if !named.insert(key) {
                return;
            }
            let found = match &file {
                Some(file) => self.found(file),
                None => Found::Missing,
            };
            seen.push(Referenced {
                written: link.target,
                path: file,
                found,
            });
        });
        Ok(seen)
    }

    fn found(&self, path: &FilePath) -> Found {
        match self.open_file(path) {
            Ok(open) => Found::File(open.info),
            Err(Error::FileNotFound | Error::InvalidPath | Error::FileIsNote) => Found::Missing,
            Err(err) => Found::Unreadable(err.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notebook() -> (tempfile::TempDir, Notebook) {
        let dir = tempfile::tempdir().unwrap();
        let nb = Notebook::new(crate::ops::Config {
            notes_dir: dir.path().join("notes"),
            public_dir: dir.path().join("public"),
            base_url: None,
        });
        std::fs::create_dir_all(dir.path().join("notes/trips/img")).unwrap();
        (dir, nb)
    }

    #[test]
    fn files_are_read_from_the_notes_folder_once_each_with_missing_ones_marked() {
        let (dir, nb) = notebook();
        let notes = dir.path().join("notes");
        std::fs::write(notes.join("trips/img/ridge.png"), b"png!").unwrap();
        std::fs::write(notes.join("trips/plan a.pdf"), b"%PDF-1.7").unwrap();
        std::fs::write(
            notes.join("trips/alps.md"),
            "---\ntitle: Alps\n---\n![ridge](img/ridge.png) ![[img/ridge.png]]\n\
             [plan](plan%20a.pdf) [[Other note]] [b](b.md) ![gone](gone.png)\n\
             ![up](../../x.png) ![web](https://example.org/a.png) `![code](c.png)`\n",
        )
        .unwrap();
        let from = NotePath::parse("trips/alps.md").unwrap();
        let found = nb.referenced_files(&from).unwrap();
        let summary: Vec<(&str, Option<&str>, Option<u64>)> = found
            .iter()
            .map(|r| {
                (
                    r.written.as_str(),
                    r.path.as_ref().map(FilePath::as_str),
                    match &r.found {
                        Found::File(info) => Some(info.size),
                        _ => None,
                    },
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("img/ridge.png", Some("trips/img/ridge.png"), Some(4)),
                ("plan%20a.pdf", Some("trips/plan a.pdf"), Some(8)),
                ("gone.png", Some("trips/gone.png"), None),
                ("../../x.png", None, None),
            ]
        );
        assert_eq!(found[2].found, Found::Missing);
        assert_eq!(found[3].found, Found::Missing);
        match &found[0].found {
            Found::File(info) => assert_eq!(info.content_type, "image/png"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_missing_note_is_an_error_and_a_note_without_files_lists_none() {
        let (dir, nb) = notebook();
        std::fs::write(dir.path().join("notes/plain.md"), "[[Other]] text\n").unwrap();
        let plain = NotePath::parse("plain.md").unwrap();
        assert!(nb.referenced_files(&plain).unwrap().is_empty());
        let missing = NotePath::parse("nope.md").unwrap();
        assert!(matches!(
            nb.referenced_files(&missing),
            Err(Error::NotFound)
        ));
    }
}
