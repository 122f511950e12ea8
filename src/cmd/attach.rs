//! `notes attach`: copy files beside a note and append their links to it. Every file is
//! read (and its name checked) before anything is written, so a missing file changes
//! nothing.

use std::fmt::Write;
use std::process::ExitCode;

use console::style;

use super::escape;
use crate::cli::AttachArgs;
use crate::error::Error;
use crate::ops::Notebook;
use crate::ops::files::Source;

pub(super) fn run(notebook: &Notebook, args: AttachArgs) -> anyhow::Result<ExitCode> {
    let at = |err| super::at_note(notebook, &args.note, err);
    let note = super::note_arg::parse(notebook, &args.note)?;
    let mut sources = Vec::with_capacity(args.files.len());
    for file in &args.files {
        let shown = file.display().to_string();
        let bytes =
            std::fs::read(file).map_err(|e| anyhow::anyhow!("{shown}: cannot read: {e}"))?;
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| anyhow::anyhow!("{shown}: the file name is not UTF-8 text"))?;
        let source = Source::new(shown.clone(), name, bytes).map_err(|e| match e {
            Error::FileIsNote => anyhow::anyhow!(
                "{shown}: is a note (.md), not an attachment (`notes put` stores notes)"
            ),
            e => anyhow::anyhow!("{shown}: cannot attach as {name:?}: {}", super::cause(&e)),
        })?;
        sources.push(source);
    }
    let done = notebook.attach(&note, &sources).map_err(at)?;
    if args.json {
        return super::print_json(&done);
    }
    if args.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    for file in &done.attached {
        let how = if file.reused {
            "linked (already there)"
        } else {
            "copied"
        };
        let _ = writeln!(
            out,
            "{}  {how} from {}",
            style(escape::text(&file.path)).bold(),
            escape::text(&file.source)
        );
    }
    let _ = writeln!(
        out,
        "{} link{} appended to {}",
        done.attached.len(),
        if done.attached.len() == 1 { "" } else { "s" },
        escape::text(&done.note)
    );
    super::print(&out)
}
