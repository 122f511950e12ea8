//! `notes list-public [NOTES_DIR]`: the published notes, read from the record without
//! starting the server.

use std::fmt::Write;
use std::process::ExitCode;

use console::style;

use super::{escape, messages};
use crate::cli::ListPublicArgs;
use crate::ops::{Config, Notebook, PublicList};

pub(super) fn run(notebook: Notebook, args: ListPublicArgs) -> anyhow::Result<ExitCode> {
    let notebook = match args.dir {
        Some(dir) => Notebook::new(Config {
            notes_dir: dir,
            ..notebook.config().clone()
        }),
        None => notebook,
    };
    let pages = notebook.public_pages()?;
    if args.json {
        let notes = pages
            .unwrap_or_default()
            .into_iter()
            .map(|p| p.note)
            .collect();
        return super::print_json(&PublicList { notes });
    }
    let pages = match pages {
        None => return super::print(&format!("{}\n", messages::NO_PUBLIC_RECORD)),
        Some(pages) if pages.is_empty() => {
            return super::print(&format!("{}\n", messages::NO_PUBLIC_NOTES));
        }
        Some(pages) => pages,
    };
    let mut out = format!("{}\n", style(messages::public_heading(pages.len())).bold());
    for page in &pages {
        let _ = write!(
            out,
            "\n  {}\n    source  {}\n    page    {}\n    publiée {}\n",
            style(escape::text(&page.note.title)).bold().cyan(),
            escape::text(&page.note.path),
            escape::text(&page.page.display().to_string()),
            style(&page.note.published_at).dim(),
        );
    }
    super::print(&out)
}
