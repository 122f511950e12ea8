//! The editor of a new note or an existing one.

use maud::{Markup, html};

use super::layout;
use crate::http::web::viewer::Viewer;
use crate::http::web::{attachments, note_url};

/// Whether the editor creates a note or edits one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    New,
    Edit,
}

pub(crate) struct Editor {
    pub mode: Mode,
    pub path: String,
    pub title: String,
    pub tags: String,
    pub body: String,
    pub date: String,
    pub etag: String,
    pub error: Option<String>,
    /// The server's upload limit, in bytes, for the upload bar.
    pub max_upload: u64,
    /// A save refused because the note changed meanwhile: the editor holds the text
    /// that was not saved, and its version is the current one.
    pub conflict: Option<Conflict>,
}

/// What the conflict page adds to the editor.
pub(crate) struct Conflict {
    /// The id the refused text is kept under, dropped once it is saved.
    pub id: String,
    /// The diff from the current version's body to the refused text's.
    pub changes: Markup,
}

/// The editor: title, path (new notes only), tags, body, live preview.
pub(crate) fn editor(page: &Editor, viewer: &Viewer) -> Markup {
    let heading = match page.mode {
        Mode::New => "New note".to_string(),
        Mode::Edit => format!("Edit “{}”", page.title),
    };
    let cancel = match page.mode {
        Mode::Edit => note_url("note", &page.path),
        Mode::New => "/".to_string(),
    };
    let content = html! {
        nav.crumbs { a href=(cancel) { "← Back" } }
        header.page { h1 { (heading) } }
        @if let Some(error) = &page.error {
            p.error role="alert" { (error) }
        }
        @if let Some(conflict) = &page.conflict {
            section.conflict aria-label="Your text against the current version" {
                p.meta {
                    a href=(note_url("note", &page.path)) target="_blank" rel="noopener" { "Open the current version ↗" }
                    span.dot aria-hidden="true" { "·" }
                    a href=(note_url("history", &page.path)) target="_blank" rel="noopener" { "History ↗" }
                }
                h2 { "What saving your text changes in the current version" }
                (conflict.changes)
            }
        }
        // A form shown again after a refused save holds text that is not saved yet.
        form.editor method="post" action="/save" data-unsaved[page.error.is_some()] {
            input type="hidden" name="mode" value=(match page.mode { Mode::New => "new", Mode::Edit => "edit" });
            input type="hidden" name="etag" value=(page.etag);
            input type="hidden" name="date" value=(page.date);
            @if let Some(conflict) = &page.conflict {
                input type="hidden" name="conflict" value=(conflict.id);
            }
            div.fields {
                label.field {
                    span { "Title" }
                    input type="text" name="title" value=(page.title) autofocus[page.mode == Mode::New]
                        placeholder="What is this note about?";
                }
                label.field {
                    span { "Path" }
                    @match page.mode {
                        Mode::New => input type="text" name="path" value=(page.path)
                            placeholder="folder/name.md — empty: made from the title"
                            autocapitalize="off" spellcheck="false";,
                        Mode::Edit => input type="text" name="path" value=(page.path) readonly;,
                    }
                }
                label.field {
                    span { "Tags" }
                    input type="text" name="tags" value=(page.tags) placeholder="comma, separated"
                        autocapitalize="off";
                }
            }
            div.panes {
                label.field.body {
                    span { "Markdown" }
                    // HTML drops one newline right after `<textarea>`: this one, so a
                    // body that starts with a blank line comes back whole.
                    textarea name="body" rows="18" spellcheck="true" { "\n" (page.body) }
                }
                section.preview hidden aria-live="polite" aria-label="Preview" {
                    span.label { "Preview" }
                    div.content {}
                }
            }
            (attachments::uploader(page.max_upload))
            div.actions {
                button.button.primary type="submit" title="Save (Ctrl+S, ⌘S)"
                    aria-keyshortcuts="Control+S Meta+S" {
                    @if page.conflict.is_some() { "Save over the current version" } @else { "Save" }
                }
                a.button href=(cancel) { "Cancel" }
            }
        }
    };
    layout(&heading, Some(""), "edit", viewer, content)
}
