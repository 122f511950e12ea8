//! Links between notes in the web interface: a note link goes to `/note/PATH` (a
//! heading to its anchor), a missing note to `/new?path=…` (styled as missing), and a
//! note page lists the notes that link to it ("Linked from").

use maud::{Markup, html};

use super::{note_url, query_value};
use crate::ops::NotePath;
use crate::ops::links::{Destination, LinkTargets, fragment};
use crate::ops::search::backlinks::Incoming;
use crate::render::{LinkForm, LinkPlaces, Place, card_title};

/// Where the links of a note shown in the interface go.
pub(super) struct WebPlaces<'a> {
    targets: &'a LinkTargets,
    from: &'a NotePath,
}

impl<'a> WebPlaces<'a> {
    pub(super) fn new(targets: &'a LinkTargets, from: &'a NotePath) -> Self {
        WebPlaces { targets, from }
    }
}

impl LinkPlaces for WebPlaces<'_> {
    fn place(&self, form: LinkForm, dest: &str) -> Place {
        match self.targets.destination(self.from, form, dest) {
            // A heading of the note itself is on the page already (the editor's preview
            // included, whatever the note's path will be).
            Destination::Note {
                path,
                heading: Some(heading),
            } if path == *self.from => Place::Note {
                href: fragment(Some(&heading)),
                title: self.title_of(form, &path),
            },
            Destination::Note { path, heading } => Place::Note {
                href: format!(
                    "{}{}",
                    note_url("note", path.as_str()),
                    fragment(heading.as_deref())
                ),
                title: self.title_of(form, &path),
            },
            Destination::Missing { path } => Place::Missing {
                href: Some(new_note_url(path.as_ref())),
            },
            // An attachment of the notes folder is served to the browser at `/file/…`.
            Destination::File {
                path: Some(path), ..
            } => Place::File {
                href: note_url("file", path.as_str()),
            },
            Destination::File {
                href: Some(href), ..
            } => Place::File { href },
            Destination::File { href: None, .. } | Destination::Elsewhere => Place::AsWritten,
        }
    }
}

impl WebPlaces<'_> {
    /// The title an embed's card shows (cut as cards cut it); nothing for a link,
    /// which shows its own text.
    fn title_of(&self, form: LinkForm, path: &NotePath) -> String {
        if !matches!(form, LinkForm::Embed | LinkForm::Image) {
            return String::new();
        }
        let title = self.targets.title_of(path).unwrap_or(path.stem());
        card_title(title).into_owned()
    }
}

/// The editor of a new note, its path filled in when the link makes one.
fn new_note_url(path: Option<&NotePath>) -> String {
    match path {
        Some(path) => format!("/new?path={}", query_value(path.as_str())),
        None => "/new".to_string(),
    }
}

/// The notes linking to a note, as the search index answers them.
pub(super) enum Backlinks {
    /// Each link, by linking note then line.
    Found(Vec<Incoming>),
    /// The index is being rebuilt (the API answers 503): they show again shortly.
    Indexing,
    /// The index cannot be opened or read.
    Unavailable,
}

/// "Linked from": each note linking here, with the line of its link.
pub(super) fn backlinks(backlinks: &Backlinks) -> Markup {
    html! {
        section.backlinks aria-label="Linked from" {
            h2 { "Linked from" }
            @match backlinks {
                Backlinks::Indexing => {
                    p.meta { "Backlinks are being indexed; reload in a moment to see them." }
                }
                Backlinks::Unavailable => {
                    p.meta { "Backlinks cannot be shown: the search index cannot be read." }
                }
                Backlinks::Found(incoming) if incoming.is_empty() => {
                    p.meta { "No other note links here." }
                }
                Backlinks::Found(incoming) => {
                    ol {
                        @for link in incoming {
                            li {
                                a.title href=(note_url("note", &link.path)) { (link.title) }
                                " "
                                span.meta { span.path { (link.path) } " · line " (link.line) }
                                @if !link.text.is_empty() {
                                    p.line { (link.text) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_notes_lead_to_the_editor_with_their_path() {
        let path = NotePath::parse("ideas/Rust async & co.md").unwrap();
        assert_eq!(
            new_note_url(Some(&path)),
            "/new?path=ideas%2FRust%20async%20%26%20co.md"
        );
        assert_eq!(new_note_url(None), "/new");
    }
}
