//! `notes mv`: move or rename a note, rewriting the links to it.

use std::process::ExitCode;

use super::escape;
use crate::cli::MvArgs;
use crate::error::Error;
use crate::ops::Notebook;
use crate::ops::model::Precondition;
use crate::ops::tokens::Scope;

pub(super) fn run(notebook: &Notebook, args: MvArgs) -> anyhow::Result<ExitCode> {
    let at_from = |err| super::at_note(notebook, &args.from, err);
    let from = super::note_arg::parse(notebook, &args.from)?;
    let to = super::note_arg::destination(notebook, &from, &args.to)?;
    let moved = notebook
        .move_note(&from, &to, &Precondition::None, &Scope::full())
        .map_err(|err| match err {
            Error::MoveDestinationExists(_) => {
                anyhow::anyhow!("{}: {}", args.to, super::messages::MOVE_DESTINATION_TAKEN)
            }
            Error::InvalidPath | Error::NotMarkdown if to.check_writable().is_err() => {
                super::at_note(notebook, &args.to, err)
            }
            err => at_from(err),
        })?;
    if args.json {
        return super::print_json(&moved);
    }
    if args.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let rewritten: Vec<String> = moved
        .rewritten
        .iter()
        .map(|p| escape::text(p).into_owned())
        .collect();
    super::print(&super::messages::moved(
        &escape::text(&moved.from),
        &escape::text(&moved.to),
        &rewritten,
    ))
}
