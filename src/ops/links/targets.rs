//! Where a link shown on a page leads. The renderer hands each link as written; this
//! says which note it names, which note is missing, or that it is a file or no link
//! between notes at all, against the notes of one list snapshot and the attachments
//! listed with it. The pages (the web interface, the public pages) only turn the answer
//! into their own URLs.

use std::sync::{Arc, OnceLock};

use super::resolve::joined_to_folder;
use super::{Link, LinkKind, Resolver, heading_anchor, parse};
use crate::ops::model::NoteList;
use crate::ops::{FilePath, NotePath, path};
use crate::render::{self, LinkForm};

/// What a link on a page points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Destination {
    /// A note of the folder, and the heading the link names.
    Note {
        path: NotePath,
        heading: Option<String>,
    },
    /// No note of that name: where it would be made, when the name makes a valid path.
    Missing { path: Option<NotePath> },
    /// A file that is not a note. `href` is a URL relative to the linking page for a
    /// wikilink (its target, each segment encoded); `None` for a Markdown link or image,
    /// whose URL is kept as written. `path` is the attachment it resolves to, from the
    /// root; or, when none is there, the one it names from the linking note's folder,
    /// when that is a valid attachment path.
    File {
        href: Option<String>,
        path: Option<FilePath>,
    },
    /// Not a link between notes: an external URL, a same-page anchor, an absolute path.
    Elsewhere,
}

/// What the links of one list of the notes make: their resolver, made once, when first
/// asked for; and the attachments of the folder, listed once and kept by the next list
/// while no attachment is added, removed or renamed (`LinkCache::next`).
#[derive(Debug, Default)]
pub(crate) struct LinkCache {
    resolver: OnceLock<Arc<Resolver>>,
    files: Arc<OnceLock<Arc<Vec<FilePath>>>>,
}

impl LinkCache {
    /// The cache of the next list when only notes changed: the same attachments.
    pub(crate) fn next(&self) -> LinkCache {
        LinkCache {
            resolver: OnceLock::new(),
            files: self.files.clone(),
        }
    }

    /// The attachments, listed by `list` the first time they are asked for.
    pub(crate) fn files(&self, list: impl FnOnce() -> Vec<FilePath>) -> &Arc<Vec<FilePath>> {
        self.files.get_or_init(|| Arc::new(list()))
    }
}

/// The notes links are resolved against: one list of the notes and its resolver.
#[derive(Debug, Clone)]
pub(crate) struct LinkTargets {
    notes: Arc<NoteList>,
    resolver: Arc<Resolver>,
}

/// The resolver of every note in `list` and every file of `files`.
fn resolver_of(list: &NoteList, files: &[FilePath]) -> Resolver {
    Resolver::new(
        list.notes.iter().filter_map(|note| {
            Some((
                NotePath::parse(&note.path).ok()?,
                note.aliases.iter().map(|a| a.as_str()),
            ))
        }),
        files.iter().cloned(),
    )
}

impl LinkTargets {
    pub(crate) fn with_cache(
        notes: Arc<NoteList>,
        cache: &LinkCache,
        list_files: impl FnOnce() -> Vec<FilePath>,
    ) -> Self {
        let resolver = cache
            .resolver
            .get_or_init(|| Arc::new(resolver_of(&notes, cache.files(list_files))))
            .clone();
        LinkTargets { notes, resolver }
    }

    #[cfg(test)]
    pub(crate) fn of(list: NoteList, files: &[&str]) -> Self {
        let files = files.iter().map(|f| FilePath::parse(f).unwrap()).collect();
        LinkTargets::with_cache(Arc::new(list), &LinkCache::default(), || files)
    }

    pub(crate) fn resolver(&self) -> &Resolver {
        &self.resolver
    }

    /// The title of note `path`, when it is one of these notes.
    pub(crate) fn title_of(&self, path: &NotePath) -> Option<&str> {
        let notes = &self.notes.notes;
        notes
            .binary_search_by(|note| note.path.as_str().cmp(path.as_str()))
            .ok()
            .map(|i| notes[i].title.as_str())
    }

    /// Where a link written as `form` with destination `dest`, on the page of note
    /// `from`, leads.
    pub(crate) fn destination(&self, from: &NotePath, form: LinkForm, dest: &str) -> Destination {
        let kind = match form {
            LinkForm::Wiki => LinkKind::Wiki,
            LinkForm::Embed => LinkKind::WikiEmbed,
            LinkForm::Link => LinkKind::Markdown,
            LinkForm::Image => LinkKind::MarkdownImage,
        };
        let Some(link) = parse::link_of(kind, dest) else {
            return Destination::Elsewhere;
        };
        if !link.is_note() {
            let href = link.is_wiki().then(|| relative_href(&link.note));
            let path = self.file_of(from, &link);
            return Destination::File { href, path };
        }
        match self.resolver.resolve(from, &link) {
            Some(path) => Destination::Note {
                path,
                heading: link.heading,
            },
            None => Destination::Missing {
                path: would_be(from, &link),
            },
        }
    }
}

impl LinkTargets {
    /// The attachment a link to a file in note `from` names: the one it resolves to,
    /// else its name read from the note's folder (where it is missing).
    pub(crate) fn file_of(&self, from: &NotePath, link: &Link) -> Option<FilePath> {
        self.resolver
            .resolve_file(from, link)
            .or_else(|| attachment_path(from, link))
    }
}

/// The attachment a link to a file in note `from` names when none resolves: its name
/// read from the note's folder, wikilink or Markdown link alike; `None` when that leads
/// above the notes folder or is no attachment path.
pub(crate) fn attachment_path(from: &NotePath, link: &Link) -> Option<FilePath> {
    FilePath::parse(&path::clean(&joined_to_folder(from, &link.note))).ok()
}

/// `#anchor` of a link to `heading` (the id the renderer gives that heading), or
/// nothing.
pub(crate) fn fragment(heading: Option<&str>) -> String {
    heading.map_or_else(String::new, |h| format!("#{}", heading_anchor(h)))
}

/// The path a missing note would have: a wikilink's name from the root (`.md` added),
/// a Markdown link's path from the linking note's folder.
fn would_be(from: &NotePath, link: &Link) -> Option<NotePath> {
    if link.is_wiki() {
        let name = link.note.trim_start_matches('/');
        if name.ends_with(".md") {
            NotePath::parse(name).ok()
        } else {
            NotePath::parse(&format!("{name}.md")).ok()
        }
    } else {
        NotePath::parse(&path::clean(&joined_to_folder(from, &link.note))).ok()
    }
}

/// A relative URL of a file named as `name` (`/`-separated), each segment encoded.
fn relative_href(name: &str) -> String {
    name.trim_start_matches('/')
        .split('/')
        .map(render::url_segment)
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::model::NoteMeta;

    fn targets(notes: &[(&str, &str)]) -> LinkTargets {
        targets_with(notes, &[])
    }

    fn targets_with(notes: &[(&str, &str)], files: &[&str]) -> LinkTargets {
        let mut notes: Vec<NoteMeta> = notes
            .iter()
            .map(|(path, title)| NoteMeta {
                path: (*path).into(),
                title: (*title).into(),
                tags: Vec::new(),
                last_modified: Default::default(),
                date: Default::default(),
                size: 0,
                modified: 0,
                body_tags: Box::default(),
                aliases: Vec::new(),
            })
            .collect();
        notes.sort_by(|a, b| a.path.cmp(&b.path));
        LinkTargets::of(
            NoteList {
                total: notes.len(),
                notes,
            },
            files,
        )
    }

    fn note(path: &str, heading: Option<&str>) -> Destination {
        Destination::Note {
            path: NotePath::parse(path).unwrap(),
            heading: heading.map(str::to_string),
        }
    }

    fn missing(path: Option<&str>) -> Destination {
        Destination::Missing {
            path: path.map(|p| NotePath::parse(p).unwrap()),
        }
    }

    #[test]
    fn each_form_finds_its_note_or_says_what_is_missing() {
        let t = targets(&[("recipes/bread.md", "Sourdough bread"), ("a/b.md", "B")]);
        let from = NotePath::parse("a/x.md").unwrap();
        let at = |form, dest| t.destination(&from, form, dest);
        assert_eq!(at(LinkForm::Wiki, "bread"), note("recipes/bread.md", None));
        assert_eq!(
            at(LinkForm::Wiki, "BREAD#The dough"),
            note("recipes/bread.md", Some("The dough"))
        );
        // A title is no name a link resolves by.
        assert_eq!(
            at(LinkForm::Wiki, "Sourdough bread"),
            missing(Some("Sourdough bread.md"))
        );
        assert_eq!(at(LinkForm::Embed, "b"), note("a/b.md", None));
        assert_eq!(
            at(LinkForm::Link, "../recipes/bread.md#crumb"),
            note("recipes/bread.md", Some("crumb"))
        );
        assert_eq!(at(LinkForm::Link, "b.md"), note("a/b.md", None));
        assert_eq!(at(LinkForm::Wiki, "#Part"), note("a/x.md", Some("Part")));
        assert_eq!(
            at(LinkForm::Wiki, "Rust async"),
            missing(Some("Rust async.md"))
        );
        assert_eq!(
            at(LinkForm::Wiki, "dir/new.md"),
            missing(Some("dir/new.md"))
        );
        assert_eq!(
            at(LinkForm::Link, "sub/new%20one.md"),
            missing(Some("a/sub/new one.md"))
        );
        assert_eq!(at(LinkForm::Link, "../../up.md"), missing(None));
        assert_eq!(at(LinkForm::Wiki, "../up"), missing(None));
    }

    #[test]
    fn files_and_other_links() {
        let t = targets(&[("a.md", "A")]);
        let from = NotePath::parse("a.md").unwrap();
        let at = |form, dest| t.destination(&from, form, dest);
        assert_eq!(
            at(LinkForm::Embed, "img/a b.png"),
            Destination::File {
                href: Some("img/a%20b.png".into()),
                path: FilePath::parse("img/a b.png").ok(),
            }
        );
        assert_eq!(
            at(LinkForm::Image, "img/a.png"),
            Destination::File {
                href: None,
                path: FilePath::parse("img/a.png").ok(),
            }
        );
        // From a note in a folder, relative to that folder; never above the root.
        let deep = NotePath::parse("trips/x.md").unwrap();
        assert_eq!(
            t.destination(&deep, LinkForm::Image, "../img/a.png"),
            Destination::File {
                href: None,
                path: FilePath::parse("img/a.png").ok(),
            }
        );
        assert_eq!(
            t.destination(&deep, LinkForm::Image, "../../a.png"),
            Destination::File {
                href: None,
                path: None,
            }
        );
        for (form, dest) in [
            (LinkForm::Wiki, "javascript:alert(1)"),
            (LinkForm::Link, "https://example.org/a.md"),
            (LinkForm::Link, "#top"),
            (LinkForm::Link, "/abs.md"),
        ] {
            assert_eq!(at(form, dest), Destination::Elsewhere, "{dest}");
        }
    }

    #[test]
    fn files_resolve_by_name_anywhere_or_stay_where_written() {
        let t = targets_with(&[("notes/a.md", "A")], &["Attachments/Engelbart.jpg"]);
        let from = NotePath::parse("notes/a.md").unwrap();
        assert_eq!(
            t.destination(&from, LinkForm::Embed, "Engelbart.jpg"),
            Destination::File {
                href: Some("Engelbart.jpg".into()),
                path: FilePath::parse("Attachments/Engelbart.jpg").ok(),
            }
        );
        assert_eq!(
            t.destination(&from, LinkForm::Image, "../Attachments/Engelbart.jpg"),
            Destination::File {
                href: None,
                path: FilePath::parse("Attachments/Engelbart.jpg").ok(),
            }
        );
        // Missing: where the note's folder would have it.
        assert_eq!(
            t.destination(&from, LinkForm::Embed, "gone.png"),
            Destination::File {
                href: Some("gone.png".into()),
                path: FilePath::parse("notes/gone.png").ok(),
            }
        );
    }

    #[test]
    fn titles_by_path() {
        let t = targets(&[("b.md", "Bee"), ("a.md", "Ay")]);
        assert_eq!(t.title_of(&NotePath::parse("b.md").unwrap()), Some("Bee"));
        assert_eq!(t.title_of(&NotePath::parse("c.md").unwrap()), None);
        assert_eq!(fragment(Some("Été à Paris")), "#été-à-paris");
        assert_eq!(fragment(None), "");
    }
}
