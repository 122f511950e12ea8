//! `notes check`: broken links, the notes nothing links to, links to missing files and
//! the attachments nothing links to; exit 1 when a link is broken or a file is missing,
//! so a script or a CI job can stop on it.

use std::fmt::Write;
use std::process::ExitCode;

use console::style;

use super::{escape, messages};
use crate::cli::CheckArgs;
use crate::ops::Notebook;

pub(super) fn run(notebook: &Notebook, args: CheckArgs) -> anyhow::Result<ExitCode> {
    let report = notebook
        .check()
        .map_err(|e| super::at_folder(notebook.notes_dir(), e))?;
    let printed = if args.json {
        super::print_json(&report)?
    } else {
        let mut out = String::new();
        if report.broken.is_empty() {
            let _ = writeln!(out, "{}", messages::NO_BROKEN_LINKS);
        } else {
            let heading = messages::broken_heading(report.broken.len());
            let _ = writeln!(out, "{}", style(heading).bold());
            for link in &report.broken {
                let at = format!("{}:{}", escape::text(&link.path), link.line);
                let target = escape::text(&link.target);
                let _ = writeln!(out, "  {}  {}", style(at).bold(), style(target).red());
            }
        }
        let heading = messages::orphans_heading(report.orphans.len());
        let _ = writeln!(out, "{}", style(heading).bold());
        for note in &report.orphans {
            let path = escape::text(&note.path);
            let _ = writeln!(
                out,
                "  {}  {}",
                style(path).bold(),
                escape::text(&note.title)
            );
        }
        // The attachments' sections only when they have something to say: a folder
        // without attachments reads as before.
        if !report.missing_files.is_empty() {
            let heading = messages::missing_files_heading(report.missing_files.len());
            let _ = writeln!(out, "{}", style(heading).bold());
            for link in &report.missing_files {
                let at = format!("{}:{}", escape::text(&link.path), link.line);
                let target = escape::text(&link.target);
                let _ = writeln!(out, "  {}  {}", style(at).bold(), style(target).red());
            }
        }
        if !report.orphan_files.is_empty() {
            let heading = messages::orphan_files_heading(report.orphan_files.len());
            let _ = writeln!(out, "{}", style(heading).bold());
            for file in &report.orphan_files {
                let path = escape::text(&file.path);
                let _ = writeln!(out, "  {}  {} bytes", style(path).bold(), file.size);
            }
        }
        super::print(&out)?
    };
    if !report.broken.is_empty() || !report.missing_files.is_empty() {
        return Ok(ExitCode::FAILURE);
    }
    Ok(printed)
}
