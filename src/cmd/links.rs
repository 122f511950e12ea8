//! `notes links`: a note's links (resolved) and its backlinks, from the search index,
//! brought up to date first like `notes search` does: the server's answer.

use std::fmt::Write;
use std::process::ExitCode;

use console::style;

use super::{escape, messages};
use crate::cli::LinksArgs;
use crate::error::Error;
use crate::ops::Notebook;
use crate::ops::tokens::Scope;

pub(super) fn run(notebook: &Notebook, args: LinksArgs) -> anyhow::Result<ExitCode> {
    let at = |err| super::at_note(notebook, &args.note, err);
    let path = super::note_arg::parse(notebook, &args.note)?;
    let links = super::with_progress(!args.json, |tick| {
        notebook.on_index_progress(tick);
        notebook.links(&path, &Scope::full())
    })
    .map_err(|e| match e {
        Error::NotFound | Error::NotMarkdown | Error::InvalidPath => at(e),
        e => super::at_folder(notebook.notes_dir(), e),
    })?;
    if args.json {
        return super::print_json(&links);
    }
    let mut out = String::new();
    let _ = writeln!(out, "{}", style(messages::LINKS_OUT).bold());
    for link in &links.outgoing {
        let to = match &link.path {
            Some(path) => escape::text(path).into_owned(),
            None => style(messages::NO_SUCH_NOTE).red().to_string(),
        };
        let target = escape::text(&link.target);
        let _ = writeln!(out, "  {:>4}  {target} → {to}", link.line);
    }
    if links.outgoing.is_empty() {
        let _ = writeln!(out, "{}", messages::NONE);
    }
    let _ = writeln!(out, "{}", style(messages::LINKS_IN).bold());
    for link in &links.incoming {
        let at = format!("{}:{}", escape::text(&link.path), link.line);
        let _ = writeln!(out, "  {}  {}", style(at).bold(), escape::text(&link.title));
    }
    if links.incoming.is_empty() {
        let _ = writeln!(out, "{}", messages::NONE);
    }
    super::print(&out)
}
