//! The tags in use: every tag of the notes (of one folder, or all), with how many notes
//! carry it, as the web list files them (`NoteMeta::filed_tags`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::Result;
use crate::ops::Notebook;
use crate::ops::tokens::Scope;

/// One tag and the number of notes carrying it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct TagCount {
    pub(crate) name: String,
    pub(crate) count: usize,
}

impl Notebook {
    /// The tags of the notes the caller's `scope` may read, sorted by name; a note
    /// naming a tag twice counts once.
    pub(crate) fn tags(&self, scope: &Scope) -> Result<Vec<TagCount>> {
        let reader = self.reader(scope)?;
        let list = self.list()?;
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        let mut filed: Vec<&str> = Vec::new();
        for note in &list.notes {
            if !reader.holds(&note.path) {
                continue;
            }
            note.filed_tags(&mut filed);
            for &tag in &filed {
                *counts.entry(tag).or_default() += 1;
            }
        }
        Ok(counts
            .into_iter()
            .map(|(name, count)| TagCount {
                name: name.to_string(),
                count,
            })
            .collect())
    }
}

/// Whether `path` lies under `folder` (`.` or empty: the notes folder itself).
pub(crate) fn is_under(path: &str, folder: &str) -> bool {
    let folder = folder.trim_end_matches('/');
    folder.is_empty()
        || folder == "."
        || path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::model::{NoteInput, Precondition};
    use crate::ops::tokens::Prefix;
    use crate::ops::{NotePath, temp_notebook};

    fn put(notebook: &Notebook, path: &str, tags: &str) {
        let text = format!("---\ntitle: T\ntags: {tags}\n---\nbody\n");
        notebook
            .put(
                &NotePath::parse(path).unwrap(),
                NoteInput::Markdown(text),
                Precondition::None,
            )
            .unwrap();
    }

    #[test]
    fn tags_are_counted_once_per_note_and_by_folder() {
        let (_dir, notebook) = temp_notebook();
        put(&notebook, "a.md", "[work, rust, work]");
        put(&notebook, "ideas/b.md", "[rust]");
        put(&notebook, "ideas/c.md", "[]");
        let count = |name: &str, count| TagCount {
            name: name.into(),
            count,
        };
        let folder = |name: &str| Scope::new(false, Some(Prefix::parse(name).unwrap()));
        assert_eq!(
            notebook.tags(&Scope::full()).unwrap(),
            vec![count("rust", 2), count("work", 1)]
        );
        assert_eq!(
            notebook.tags(&folder("ideas")).unwrap(),
            vec![count("rust", 1)]
        );
        assert!(notebook.tags(&folder("none")).unwrap().is_empty());
    }

    #[test]
    fn tags_are_read_as_obsidian_does() {
        let (_dir, notebook) = temp_notebook();
        put(&notebook, "a.md", "\"#work, project/alpha\"");
        let text = "---\ntitle: B\n---\nSee #project/beta and `#code`.\n";
        notebook
            .put(
                &NotePath::parse("b.md").unwrap(),
                NoteInput::Markdown(text.into()),
                Precondition::None,
            )
            .unwrap();
        let names: Vec<(String, usize)> = notebook
            .tags(&Scope::full())
            .unwrap()
            .into_iter()
            .map(|t| (t.name, t.count))
            .collect();
        assert_eq!(
            names,
            [
                ("project".to_string(), 2),
                ("project/alpha".to_string(), 1),
                ("project/beta".to_string(), 1),
                ("work".to_string(), 1)
            ]
        );
    }

    #[test]
    fn folders_hold_their_paths_only() {
        assert!(is_under("a/b.md", "a"));
        assert!(is_under("a/b.md", "a/"));
        assert!(is_under("a/b.md", "."));
        assert!(is_under("a.md", ""));
        assert!(!is_under("ab/c.md", "a"));
        assert!(!is_under("a.md", "a"));
    }
}
