//! `notes list`: every note, one line each.

use std::fmt::Write;
use std::process::ExitCode;

use console::style;

use super::escape;
use crate::cli::ListArgs;
use crate::ops::Notebook;

pub(super) fn run(notebook: &Notebook, args: ListArgs) -> anyhow::Result<ExitCode> {
    let list = notebook
        .list()
        .map_err(|err| super::at_folder(notebook.notes_dir(), err))?;
    if args.json {
        return super::print_json(&*list);
    }
    // Paths, titles and tags as they print: one row per note, whatever they hold.
    let paths: Vec<_> = list.notes.iter().map(|n| escape::text(&n.path)).collect();
    let width = paths.iter().map(|p| p.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (note, path) in list.notes.iter().zip(&paths) {
        let tags = if note.tags.is_empty() {
            String::new()
        } else {
            let tags = escape::text(&note.tags.join(" #")).into_owned();
            format!("  {}", style(format!("#{tags}")).cyan())
        };
        let _ = writeln!(
            out,
            "{}  {}  {}{}",
            style(format!("{path:<width$}")).bold(),
            style(format!("{:<16}", note.last_modified)).dim(),
            escape::text(&note.title),
            tags
        );
    }
    let _ = writeln!(
        out,
        "{} note{}",
        list.total,
        if list.total == 1 { "" } else { "s" }
    );
    super::print(&out)
}
