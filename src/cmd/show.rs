//! `notes show`: a note's raw Markdown, or its NoteResponse JSON.

use std::process::ExitCode;

use crate::cli::ShowArgs;
use crate::ops::{NotePath, Notebook};

pub(super) fn run(notebook: &Notebook, args: ShowArgs) -> anyhow::Result<ExitCode> {
    let path = NotePath::parse(&args.note)?;
    if args.json {
        return super::print_json(&notebook.read(&path)?);
    }
    let raw = notebook.read_raw(&path)?;
    super::print(&String::from_utf8_lossy(raw.bytes()))
}
