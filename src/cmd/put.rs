//! `notes put`: create or replace a note from Markdown, with the rules of the HTTP PUT.

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::PutArgs;
use crate::ops::{NotePath, Notebook};

pub fn run(notebook: &Notebook, args: PutArgs) -> anyhow::Result<ExitCode> {
    let path = NotePath::parse(&args.note)?;
    let bytes = match args.file.as_deref() {
        None => read_stdin()?,
        Some(file) if file.as_os_str() == "-" => read_stdin()?,
        Some(file) => {
            std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?
        }
    };
    let outcome = notebook.put_markdown(&path, &bytes)?;
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
