//! `notes search`: ranked results from the index, brought up to date first (built on
//! first use, rebuilt when found damaged; see `ops::search::source`).

use std::fmt::Write;
use std::process::ExitCode;

use console::style;

use super::escape;
use crate::cli::SearchArgs;
use crate::error::Error;
use crate::ops::Notebook;
use crate::ops::search::{Limit, MATCH_END, MATCH_START, Query};
use crate::ops::tokens::Scope;

pub(super) fn run(notebook: &Notebook, args: SearchArgs) -> anyhow::Result<ExitCode> {
    let query = Query::parse(&args.query.join(" "))?;
    let limit =
        Limit::new(args.limit.into()).ok_or_else(|| Error::InvalidLimit(args.limit.to_string()))?;
    let results = super::with_progress(!args.json, |tick| {
        notebook.on_index_progress(tick);
        notebook.search(&query, limit, &Scope::full())
    })?;
    if args.json {
        return super::print_json(&results);
    }
    // Said apart from the results, so a script reading stdout sees them unchanged.
    if results.partial {
        eprintln!("No note has every word; closest matches:");
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
