//! `notes search`: ranked results from the index, brought up to date first when no
//! running server owns it (built on first use, rebuilt when found damaged).

use std::fmt::Write;
use std::process::ExitCode;

use console::style;

use super::{escape, messages};
use crate::cli::SearchArgs;
use crate::error::{Error, Result};
use crate::ops::Notebook;
use crate::ops::search::updater::IndexUpdater;
use crate::ops::search::{IndexSource, Limit, MATCH_END, MATCH_START, NotesIndex, Query, heal};
use crate::ops::tokens::Scope;

pub(super) fn run(notebook: &Notebook, args: SearchArgs) -> anyhow::Result<ExitCode> {
    let query = Query::parse(&args.query.join(" "))?;
    let limit =
        Limit::new(args.limit.into()).ok_or_else(|| Error::InvalidLimit(args.limit.to_string()))?;
    let local = Local::new(notebook)?;
    let results = notebook.search(&local, &query, limit, &Scope::full())?;
    if args.json {
        return super::print_json(&results);
    }
    let colours = console::colors_enabled();
    let mut out = String::new();
    for (rank, hit) in results.results.iter().enumerate() {
        let tags = if hit.tags.is_empty() {
            String::new()
        } else {
            let tags = escape::text(&hit.tags.join(" #")).into_owned();
            format!("  {}", style(format!("#{tags}")).cyan())
        };
        // The title's matches are shown in colour only: markers would clutter it.
        let title = if colours {
            highlight(&escape::text(&hit.highlighted_title), true)
        } else {
            escape::text(&hit.title).into_owned()
        };
        let _ = writeln!(
            out,
            "{:>2}. {}  {}{}",
            rank + 1,
            style(escape::text(&hit.path)).bold(),
            title,
            tags
        );
        if !hit.snippet.is_empty() {
            let snippet = escape::text(&hit.snippet);
            let _ = writeln!(out, "    {}", highlight(&snippet, colours));
        }
    }
    let shown = results.results.len();
    // A `file:` query finds attachments, any other notes.
    let what = if query.is_for_files() { "file" } else { "note" };
    let _ = writeln!(
        out,
        "{}",
        style(match (shown, results.total) {
            (0, _) => format!("no {what} matches {:?}", query.as_str()),
            (n, total) if n == total => format!("{total} {what}{} found", plural(total)),
            (n, total) => format!("{n} of {total} matching {what}s shown (--limit)"),
        })
        .dim()
    );
    super::print(&out)
}

/// The index as this process reads it. Damage seen only by a query is repaired here:
/// the index is moved aside and rebuilt, then asked once more.
pub(super) struct Local<'a> {
    notebook: &'a Notebook,
    index: NotesIndex,
}

impl<'a> Local<'a> {
    /// The index of `notebook`, brought up to date first (see `fresh_index`).
    pub(super) fn new(notebook: &'a Notebook) -> Result<Self> {
        Ok(Local {
            notebook,
            index: fresh_index(notebook)?,
        })
    }
}

impl IndexSource for Local<'_> {
    fn current(&self) -> Result<NotesIndex> {
        Ok(self.index.clone())
    }

    fn damaged(&self, _: &NotesIndex, why: String) -> Result<NotesIndex> {
        let moved = heal::move_aside(self.notebook.notes_dir())?;
        report_rebuild(&why, moved.as_deref());
        fresh_index(self.notebook)
    }
}

/// The index, updated with the files on disk when this process can take the writer;
/// when a running server owns it, the server keeps it current and it is read as is.
///
/// A damaged index is moved aside and rebuilt here, in this process; when a running
/// server holds it, the server rebuilds it and this says so in one line (exit 1).
fn fresh_index(notebook: &Notebook) -> Result<NotesIndex> {
    let (index, moved) = NotesIndex::open_or_heal(notebook.notes_dir())?;
    if let Some(moved) = &moved {
        report_rebuild("it could not be opened", Some(moved));
    }
    let first_use = index.is_empty();
    match IndexUpdater::new(index.clone(), notebook.notes_dir()) {
        Ok(mut updater) => {
            super::with_progress(first_use, |progress| updater.catch_up(progress))?;
            Ok(updater.index().clone())
        }
        Err(Error::IndexOwned) => Ok(index),
        Err(err) => Err(err),
    }
}

/// One line on standard error: the index was damaged and is rebuilt.
fn report_rebuild(why: &str, moved: Option<&std::path::Path>) {
    eprintln!(
        "{}",
        messages::index_rebuilt(
            why,
            &moved.map(|p| p.display().to_string()).unwrap_or_default()
        )
    );
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
