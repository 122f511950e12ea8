//! `notes show`: a note's raw Markdown, or its NoteResponse JSON; of a past version
//! with `--version`.

use std::process::ExitCode;

use crate::cli::ShowArgs;
use crate::ops::Notebook;

pub(super) fn run(notebook: &Notebook, args: ShowArgs) -> anyhow::Result<ExitCode> {
    let at = |err| super::at_note(notebook, &args.note, err);
    let path = super::note_arg::parse(notebook, &args.note)?;
    if let Some(version) = &args.version {
        let note = notebook.version_note(&path, version).map_err(at)?;
        if args.json {
            return super::print_json(&note);
        }
        return super::print(&note.content);
    }
    if args.json {
        return super::print_json(&notebook.read(&path).map_err(at)?);
    }
    let raw = notebook.read_raw(&path).map_err(at)?;
    super::print(&String::from_utf8_lossy(raw.bytes()))
}
