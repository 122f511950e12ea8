//! `notes rm`: delete a note.

use std::process::ExitCode;

use crate::cli::NoteArgs;
use crate::ops::model::Precondition;
use crate::ops::{NotePath, Notebook};

pub(super) fn run(notebook: &Notebook, args: NoteArgs) -> anyhow::Result<ExitCode> {
    let path = NotePath::parse(&args.note)?;
    let confirmation = notebook.delete(&path, &Precondition::None)?;
    if args.json {
        return super::print_json(&confirmation);
    }
    if args.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    super::print(&format!("deleted {path}\n"))
}
