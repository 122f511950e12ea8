//! Attaching files to a note: each file is written beside the note under a name no
//! other file holds (an identical file already there is linked, not copied again), then
//! one link per file is appended to the note in one write.

use std::io::Read;

use serde::Serialize;

use super::{as_file_error, content_type};
use crate::error::{Error, Result};
use crate::ops::model::Precondition;
use crate::ops::{FilePath, NotePath, Notebook};

/// Names tried for one file before giving up (`name.png`, `name-2.png`, …).
const MAX_NAMES: usize = 1000;

/// A file to attach: its bytes and the name it gets beside the note.
#[derive(Debug, Clone)]
pub(crate) struct Source {
    /// Where it came from, as the user named it (reported back, never opened here).
    origin: String,
    name: String,
    bytes: Vec<u8>,
}

impl Source {
    /// A file to attach under `name` (its own file name). Refused when no attachment
    /// may have that name: a note (`.md`), a hidden file, a name with a `/`.
    pub(crate) fn new(origin: String, name: &str, bytes: Vec<u8>) -> Result<Source> {
        if name.contains('/') || name.contains('\\') {
            return Err(Error::InvalidPath);
        }
        let name = FilePath::parse(name)?.as_str().to_string();
        Ok(Source {
            origin,
            name,
            bytes,
        })
    }
}

/// What `attach` did, with the API's field names.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Attached {
    /// The note the links were appended to.
    pub(crate) note: String,
    pub(crate) attached: Vec<AttachedFile>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct AttachedFile {
    /// The attachment, from the notes folder.
    pub(crate) path: String,
    /// The file it was copied from, as named.
    pub(crate) source: String,
    /// True when a file with the same bytes was already there and is linked instead.
    pub(crate) reused: bool,
}

impl Notebook {
    /// Writes each source beside `note` (atomic, never over another file) and appends a
    /// link to each to the note: `![name](name)` for an image, `[name](name)` for any
    /// other file. A note that does not exist is refused before anything is written.
    pub(crate) fn attach(&self, note: &NotePath, sources: &[Source]) -> Result<Attached> {
        note.check_writable()?;
        self.root.open_note(note)?;
        let mut attached = Vec::with_capacity(sources.len());
        let mut links = Vec::with_capacity(sources.len());
        for source in sources {
            let (path, reused) = self.place(note.parent(), source)?;
            links.push(link_to(&path));
            attached.push(AttachedFile {
                path: path.to_string(),
                source: source.origin.clone(),
                reused,
            });
        }
        self.append_to_note(note, &links.join("\n"))?;
        Ok(Attached {
            note: note.to_string(),
            attached,
        })
    }

    /// Puts `source` in `folder` under its name, or the first numbered name free or
    /// holding the same bytes; says where, and whether the file was already there.
    fn place(&self, folder: &str, source: &Source) -> Result<(FilePath, bool)> {
        for n in 1..=MAX_NAMES {
            let path = FilePath::parse(&in_folder(folder, &numbered(&source.name, n)))?;
            match self.root.open_attachment(&path) {
                Ok((file, meta)) => {
                    if meta.len() == source.bytes.len() as u64 && same_bytes(file, &source.bytes)? {
                        return Ok((path, true));
                    }
                }
                Err(Error::NotFound) => {
                    match self.put_file(&path, &source.bytes, &Precondition::IfNoneMatchAny) {
                        Ok(_) => return Ok((path, false)),
                        // Taken meanwhile, or by a folder: the next name.
                        Err(Error::FileExists | Error::InvalidPath) => {}
                        Err(err) => return Err(err),
                    }
                }
                Err(err) => return Err(as_file_error(err)),
            }
        }
        Err(Error::FileExists)
    }
}

/// `name` with `-n` before its extension from the second on: `a.png`, `a-2.png`.
fn numbered(name: &str, n: usize) -> String {
    if n == 1 {
        return name.to_string();
    }
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{stem}-{n}.{ext}"),
        _ => format!("{name}-{n}"),
    }
}

fn in_folder(folder: &str, name: &str) -> String {
    match folder {
        "." => name.to_string(),
        folder => format!("{folder}/{name}"),
    }
}

/// Whether the open file holds exactly `bytes` (its length already compared).
fn same_bytes(mut file: std::fs::File, bytes: &[u8]) -> Result<bool> {
    let mut held = Vec::with_capacity(bytes.len());
    file.read_to_end(&mut held).map_err(Error::FileReadFailed)?;
    Ok(held == bytes)
}

/// The Markdown link to an attachment beside the note: its name as the text (brackets
/// escaped), the name URL-encoded as the target (spaces and parentheses stay links).
fn link_to(path: &FilePath) -> String {
    let name = path.file_name();
    let label: String = name
        .chars()
        .flat_map(|c| match c {
            '[' | ']' | '\\' | '*' | '_' | '`' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    let target = crate::render::url_segment(name);
    if content_type(name).starts_with("image/") {
        format!("![{label}]({target})")
    } else {
        format!("[{label}]({target})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_names_keep_the_extension() {
        assert_eq!(numbered("a.png", 1), "a.png");
        assert_eq!(numbered("a.png", 2), "a-2.png");
        assert_eq!(numbered("archive.tar.gz", 3), "archive.tar-3.gz");
        assert_eq!(numbered("README", 2), "README-2");
    }

    #[test]
    fn links_are_images_for_images_and_encode_the_name() {
        let link = |p: &str| link_to(&FilePath::parse(p).unwrap());
        assert_eq!(link("a/diagram.png"), "![diagram.png](diagram.png)");
        assert_eq!(
            link("my report (v2).pdf"),
            "[my report (v2).pdf](my%20report%20%28v2%29.pdf)"
        );
        assert_eq!(link("x_[1].txt"), "[x\\_\\[1\\].txt](x_%5B1%5D.txt)");
    }

    #[test]
    fn attach_copies_reuses_and_numbers() {
        let (_dir, book) = crate::ops::temp_notebook();
        let notes = book.notes_dir().to_path_buf();
        std::fs::create_dir(notes.join("trips")).unwrap();
        std::fs::write(notes.join("trips/rome.md"), "# Rome\n").unwrap();
        std::fs::write(notes.join("trips/map.png"), b"other bytes").unwrap();
        let note = NotePath::parse("trips/rome.md").unwrap();
        let source = |name: &str, bytes: &[u8]| {
            Source::new(format!("/src/{name}"), name, bytes.to_vec()).unwrap()
        };
        let done = book
            .attach(
                &note,
                &[
                    source("map.png", b"\x89PNG map"),
                    source("map.png", b"\x89PNG map"),
                ],
            )
            .unwrap();
        let paths: Vec<(&str, bool)> = done
            .attached
            .iter()
            .map(|a| (a.path.as_str(), a.reused))
            .collect();
        assert_eq!(
            paths,
            [("trips/map-2.png", false), ("trips/map-2.png", true)]
        );
        assert_eq!(
            std::fs::read(notes.join("trips/map-2.png")).unwrap(),
            b"\x89PNG map"
        );
        assert_eq!(
            std::fs::read(notes.join("trips/map.png")).unwrap(),
            b"other bytes"
        );
        let text = std::fs::read_to_string(notes.join("trips/rome.md")).unwrap();
        // A note without front matter gets none: only the links are added.
        assert_eq!(
            text,
            "# Rome\n\n![map-2.png](map-2.png)\n![map-2.png](map-2.png)\n"
        );
    }

    #[test]
    fn a_missing_note_or_a_bad_name_writes_nothing() {
        let (_dir, book) = crate::ops::temp_notebook();
        let note = NotePath::parse("gone.md").unwrap();
        let source = Source::new("x".into(), "x.png", b"x".to_vec()).unwrap();
        assert!(matches!(
            book.attach(&note, &[source]),
            Err(Error::NotFound)
        ));
        assert!(!book.notes_dir().join("x.png").exists());
        assert!(matches!(
            Source::new("a".into(), "a.md", Vec::new()),
            Err(Error::FileIsNote)
        ));
        assert!(matches!(
            Source::new("a".into(), ".hidden", Vec::new()),
            Err(Error::InvalidPath)
        ));
    }
}
