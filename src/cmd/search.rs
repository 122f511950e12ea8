//! `notes search`: ranked results from the index, brought up to date first when no
//! running server owns it (built on first use).

use std::fmt::Write;
use std::process::ExitCode;

use console::style;

use crate::cli::SearchArgs;
use crate::error::Error;
use crate::ops::Notebook;
use crate::ops::search::updater::IndexUpdater;
use crate::ops::search::{MATCH_END, MATCH_START, NotesIndex, query};

pub fn run(notebook: &Notebook, args: SearchArgs) -> anyhow::Result<ExitCode> {
    let query = args.query.join(" ");
    query::parse(&query).map_err(Error::InvalidQuery)?;
    let index = fresh_index(notebook)?;
    let results = index.search(notebook.notes_dir(), &query, usize::from(args.limit))?;
    if args.json {
        return super::print_json(&results);
    }
    let colours = console::colors_enabled();
    let mut out = String::new();
    for (rank, hit) in results.results.iter().enumerate() {
        let tags = if hit.tags.is_empty() {
            String::new()
        } else {
            format!("  {}", style(format!("#{}", hit.tags.join(" #"))).cyan())
        };
        let _ = writeln!(
            out,
            "{:>2}. {}  {}{}",
            rank + 1,
            style(&hit.path).bold(),
            hit.title,
            tags
        );
        if !hit.snippet.is_empty() {
            let _ = writeln!(out, "    {}", highlight(&hit.snippet, colours));
        }
    }
    let shown = results.results.len();
    let _ = writeln!(
        out,
        "{}",
        style(match (shown, results.total) {
            (0, _) => format!("no note matches {query:?}"),
            (n, total) if n == total => format!("{total} note{} found", plural(total)),
            (n, total) => format!("{n} of {total} matching notes shown (--limit)"),
        })
        .dim()
    );
    super::print(&out)
}

/// The index, updated with the files on disk when this process can take the writer;
/// when a running server holds it, the server keeps it current and it is read as is.
fn fresh_index(notebook: &Notebook) -> anyhow::Result<NotesIndex> {
    let index = notebook.open_index()?;
    let first_use = index.is_empty();
    match IndexUpdater::new(index.clone(), notebook.notes_dir()) {
        Ok(mut updater) => {
            super::with_progress(first_use, |progress| updater.catch_up(progress))?;
            Ok(updater.index().clone())
        }
        Err(Error::Index(why)) if why.contains("another process") => Ok(index),
        Err(err) => Err(err.into()),
    }
}

/// Matches in bold yellow on a colour terminal; the plain markers otherwise.
fn highlight(snippet: &str, colours: bool) -> String {
    if !colours {
        return snippet.to_string();
    }
    let mut out = String::new();
    let mut rest = snippet;
    while let Some(start) = rest.find(MATCH_START) {
        out.push_str(&rest[..start]);
        let after = &rest[start + MATCH_START.len()..];
        let end = after.find(MATCH_END).unwrap_or(after.len());
        out.push_str(&style(&after[..end]).yellow().bold().to_string());
        rest = after.get(end + MATCH_END.len()..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
