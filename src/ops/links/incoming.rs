//! The notes that link to a note (backlinks), each link with its line. Found by reading
//! every note and resolving its links, the one way `links` resolves them, once per list
//! of the notes (a change to any note makes a new list); an index of links answers the
//! same question from a lookup, behind this same signature.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::{LinkTargets, links_of};
use crate::error::Result;
use crate::ops::store::text_of;
use crate::ops::{NotePath, Notebook};

/// Characters of a linking line quoted with a backlink.
const LINE_CHARS: usize = 160;

/// Note path → the links to it.
pub(crate) type IncomingMap = HashMap<String, Vec<Incoming>>;

/// A link to a note, from another note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Incoming {
    /// The linking note.
    pub(crate) path: String,
    pub(crate) title: String,
    /// 1-based line of the link in the linking note's file, front matter included.
    pub(crate) line: u32,
    /// That line as a reader sees it (Markdown marks left out), cut to a length.
    pub(crate) text: String,
}

impl Notebook {
    /// Every link to `path` from another note, by linking note (path order) then line;
    /// a line with several links to it counts once. A note that cannot be read (gone
    /// since the list, unreadable) links to nothing.
    pub(crate) fn incoming_links(&self, path: &NotePath) -> Result<Vec<Incoming>> {
        let targets = self.link_targets()?;
        let all = targets.incoming(|| {
            incoming(&targets, |from| {
                self.read_raw(from)
                    .ok()
                    .map(|raw| text_of(raw.bytes()).into_owned())
            })
        });
        Ok(all.get(path.as_str()).cloned().unwrap_or_default())
    }
}

/// The links between `targets`' notes, whose texts `read` gives, by target.
fn incoming(targets: &LinkTargets, read: impl Fn(&NotePath) -> Option<String>) -> IncomingMap {
    let mut found = IncomingMap::new();
    for note in &targets.notes().notes {
        let Ok(from) = NotePath::parse(&note.path) else {
            continue;
        };
        let Some(text) = read(&from) else { continue };
        let lines: Vec<&str> = text.lines().collect();
        let mut seen: HashSet<(NotePath, u32)> = HashSet::new();
        for link in links_of(&text) {
            let Some(to) = targets.resolver().resolve(&from, &link) else {
                continue;
            };
            if to == from || !seen.insert((to.clone(), link.line)) {
                continue;
            }
            let line = lines
                .get(link.line.saturating_sub(1) as usize)
                .copied()
                .unwrap_or_default();
            found.entry(to.to_string()).or_default().push(Incoming {
                path: note.path.clone(),
                title: note.title.clone(),
                line: link.line,
                text: crate::render::line_text(line, LINE_CHARS),
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::ops::model::{NoteList, NoteMeta};

    #[test]
    fn every_linking_line_once_with_its_text() {
        let texts: HashMap<&str, &str> = [
            (
                "a.md",
                "---\ntitle: Alpha\n---\nSee [[bread]] and [[Bread|again]].\n\nNothing here.\n- Also [the loaf](recipes/bread.md#crumb)\n",
            ),
            ("recipes/bread.md", "# Bread\n\n[[#Dough]] [[bread]]\n"),
            ("recipes/other.md", "[[soup]] `[[bread]]`\n"),
            ("z.md", "## Link in a **heading** [[recipes/bread|b]]\n"),
        ]
        .into_iter()
        .collect();
        let mut notes: Vec<NoteMeta> = texts
            .keys()
            .map(|path| NoteMeta {
                path: path.to_string(),
                title: path.trim_end_matches(".md").to_string(),
                tags: Vec::new(),
                last_modified: String::new(),
                date: String::new(),
                size: 0,
            })
            .collect();
        notes.sort_by(|a, b| a.path.cmp(&b.path));
        let targets = LinkTargets::of(NoteList {
            total: notes.len(),
            notes,
        });
        let all = incoming(&targets, |p| texts.get(p.as_str()).map(|t| t.to_string()));
        let found = &all["recipes/bread.md"];
        let seen: Vec<(&str, u32, &str)> = found
            .iter()
            .map(|i| (i.path.as_str(), i.line, i.text.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                ("a.md", 4, "See bread and again."),
                ("a.md", 7, "Also the loaf"),
                ("z.md", 1, "Link in a heading b"),
            ]
        );
        assert_eq!(found[0].title, "a");
        // Links of a note to itself are no backlinks; `soup` is missing.
        assert_eq!(all.len(), 1, "{all:?}");
    }
}
