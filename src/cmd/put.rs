//! `notes put`: create or replace a note from Markdown, with the rules of the HTTP PUT.

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::PutArgs;
use crate::ops::model::{NoteInput, Precondition};
use crate::ops::{NotePath, Notebook};

pub(super) fn run(notebook: &Notebook, args: PutArgs) -> anyhow::Result<ExitCode> {
    let path = NotePath::parse(&args.note)?;
    let (bytes, source) = match args.file.as_deref() {
        None => (read_stdin()?, "standard input".to_string()),
        Some(file) if file.as_os_str() == "-" => (read_stdin()?, "standard input".to_string()),
        Some(file) => (
            std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?,
            file.display().to_string(),
        ),
    };
    let text = String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("{source} is not UTF-8 text: {}", e.utf8_error()))?;
    let outcome = notebook.put(&path, NoteInput::Markdown(text), Precondition::None)?;
    if args.json {
        return super::print_json(&outcome.note);
    }
    if args.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let verb = if outcome.created {
        "created"
    } else {
        "updated"
    };
    super::print(&format!("{verb} {path} ({} bytes)\n", outcome.note.size))
}

fn read_stdin() -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("cannot read standard input")?;
    Ok(bytes)
}
