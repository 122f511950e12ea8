//! Attachments in the web interface: the list of files a note references on its page
//! (each with its size and a link to `/file/PATH`, missing ones marked), and the editor's
//! upload bar, which only the script shows (without it the editor is a plain form).

use maud::{Markup, html};

use super::note_url;
use super::views::size;
use crate::ops::files::{Found, Referenced};

/// "Attachments": the files the note references, in the order it names them; nothing
/// for a note that references none.
pub(super) fn list(files: &[Referenced]) -> Markup {
    html! {
        @if !files.is_empty() {
            section.attachments aria-label="Attachments" {
                h2 { "Attachments" }
                ol {
                    @for file in files {
                        (entry(file))
                    }
                }
            }
        }
    }
}

fn entry(file: &Referenced) -> Markup {
    let shown = file
        .path
        .as_ref()
        .map_or(file.written.as_str(), |p| p.as_str());
    html! {
        @match &file.found {
            Found::File(info) => li.found {
                a.path href=(note_url("file", &info.path)) { (shown) }
                " "
                span.meta { (size(info.size)) " · " (info.content_type) }
            },
            Found::Missing => li.missing {
                span.path { (shown) }
                " "
                span.badge.missing title="The note links to a file that is not in the notes folder" { "Missing" }
            },
            Found::Unreadable(why) => li.missing {
                span.path { (shown) }
                " "
                span.badge.missing title=(why) { "Cannot be read" }
            },
        }
    }
}

/// The editor's upload bar: a button opening the file picker, and where each upload
/// says how it goes. Hidden until the script runs; `data-max-upload` is the server's
/// limit, so a file past it is refused before it is sent.
pub(super) fn uploader(max_upload: u64) -> Markup {
    html! {
        div.upload hidden data-max-upload=(max_upload) {
            button.button type="button" data-pick { "Attach files…" }
            input type="file" multiple hidden aria-label="Files to attach";
            span.meta { "or drop them on the text, or paste an image. They are saved beside the note." }
            ul.uploads aria-live="polite" aria-label="Uploads" {}
        }
    }
}
