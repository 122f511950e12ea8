//! `notes rm`: delete a note.

use std::process::ExitCode;

use crate::cli::NoteArgs;
use crate::ops::Notebook;
use crate::ops::model::Precondition;

pub(super) fn run(notebook: &Notebook, args: NoteArgs) -> anyhow::Result<ExitCode> {
    let at = |err| super::at_note(notebook, &args.note, err);
    let path = super::note_arg::parse(notebook, &args.note)?;
    let confirmation = notebook.delete(&path, &Precondition::None).map_err(at)?;
    if args.json {
        return super::print_json(&confirmation);
    }
    if args.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    super::print(&format!("deleted {}\n", super::escape::text(path.as_str())))
}
