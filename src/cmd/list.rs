//! `notes list`: every note, one line each.

use std::fmt::Write;
use std::process::ExitCode;

use console::style;

use crate::cli::ListArgs;
use crate::ops::Notebook;

pub(super) fn run(notebook: &Notebook, args: ListArgs) -> anyhow::Result<ExitCode> {
    let list = notebook
        .list()
        .map_err(|err| super::at_folder(notebook.notes_dir(), err))?;
    if args.json {
        return super::print_json(&*list);
    }
    let width = list
        .notes
        .iter()
        .map(|n| n.path.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for note in &list.notes {
        let tags = if note.tags.is_empty() {
            String::new()
        } else {
            format!("  {}", style(format!("#{}", note.tags.join(" #"))).cyan())
        };
        let _ = writeln!(
            out,
            "{}  {}  {}{}",
            style(format!("{:<width$}", note.path)).bold(),
            style(format!("{:<16}", note.last_modified)).dim(),
            note.title,
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
