//! `notes publish` / `notes unpublish`: the public toggle offline, one way each, with
//! exactly the files `POST /api/public/toggle` produces; and `notes publish --repair`,
//! the reconciliation `notes serve` also runs when it starts.

use std::process::ExitCode;

use super::escape;
use crate::cli::{NoteArgs, PublishArgs};
use crate::ops::publish::RepairReport;
use crate::ops::tokens::Scope;
use crate::ops::{Notebook, PageEffect, Publication};

pub(super) fn publish(notebook: &Notebook, args: PublishArgs) -> anyhow::Result<ExitCode> {
    if args.repair {
        return repair(notebook, &args);
    }
    let Some(note) = &args.note else {
        anyhow::bail!("a note path is required (or --repair)");
    };
    let at = |err| super::at_note(notebook, note, err);
    let path = super::note_arg::parse(notebook, note)?;
    let publication = notebook.publish(&path, &Scope::full()).map_err(at)?;
    report(&publication, args.json, args.quiet)
}

pub(super) fn unpublish(notebook: &Notebook, args: NoteArgs) -> anyhow::Result<ExitCode> {
    let at = |err| super::at_note(notebook, &args.note, err);
    let path = super::note_arg::parse(notebook, &args.note)?;
    let publication = notebook.unpublish(&path, &Scope::full()).map_err(at)?;
    report(&publication, args.json, args.quiet)
}

fn report(publication: &Publication, json: bool, quiet: bool) -> anyhow::Result<ExitCode> {
    if json {
        return super::print_json(&publication.result);
    }
    if quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let path = escape::text(&publication.result.path);
    let page = escape::text(&publication.page.display().to_string()).into_owned();
    super::print(&match &publication.effect {
        PageEffect::Written => format!("published {path} → {page}\n"),
        PageEffect::Removed => format!("unpublished {path}, removed {page}\n"),
        PageEffect::HandedTo(owner) => {
            let owner = escape::text(owner);
            format!("unpublished {path}, {page} now shows {owner}\n")
        }
    })
}

fn repair(notebook: &Notebook, args: &PublishArgs) -> anyhow::Result<ExitCode> {
    let report = notebook
        .repair_public()
        .map_err(|err| super::at_folder(notebook.public_dir(), err))?;
    if args.json {
        return super::print_json(&report);
    }
    if args.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let lines = repair_lines(&report);
    if lines.is_empty() {
        return super::print("the public folder agrees with the public notes: nothing to repair\n");
    }
    super::print(
        &lines
            .iter()
            .map(|line| format!("{line}\n"))
            .collect::<String>(),
    )
}

/// Reconciles the public folder as the server starts: one log line per kind of fix,
/// none when everything agreed. A failure is logged and the server starts anyway; the
/// publishing routes report it.
pub(super) fn repair_at_start(notebook: &Notebook) {
    match notebook.repair_public() {
        Ok(report) => {
            for line in repair_lines(&report) {
                crate::log::warn(&format!("public folder repaired: {line}"));
            }
        }
        Err(err) => crate::log::error(&format!(
            "cannot repair the public folder: {}",
            err.detailed()
        )),
    }
}

/// One sentence per kind of fix.
fn repair_lines(report: &RepairReport) -> Vec<String> {
    let mut lines = Vec::new();
    let list = |names: &[String]| escape::text(&names.join(", ")).into_owned();
    if !report.removed_pages.is_empty() {
        lines.push(format!(
            "removed {} generated page(s) no public note names: {}",
            report.removed_pages.len(),
            list(&report.removed_pages)
        ));
    }
    if !report.regenerated_pages.is_empty() {
        lines.push(format!(
            "regenerated {} page(s) of public notes: {}",
            report.regenerated_pages.len(),
            list(&report.regenerated_pages)
        ));
    }
    if !report.dropped_entries.is_empty() {
        lines.push(format!(
            "unpublished {} note(s) whose page and note were both gone: {}",
            report.dropped_entries.len(),
            list(&report.dropped_entries)
        ));
    }
    if report.index_rebuilt {
        lines.push("rebuilt index.html".to_string());
    }
    if report.feed_rebuilt {
        lines.push("rebuilt feed.xml".to_string());
    }
    if report.stylesheet_restored {
        lines.push("restored static/style.css".to_string());
    }
    lines
}
