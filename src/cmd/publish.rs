//! `notes publish` / `notes unpublish`: the public toggle offline, one way each, with
//! exactly the files `POST /api/public/toggle` produces.

use std::process::ExitCode;

use crate::cli::NoteArgs;
use crate::ops::{NotePath, Notebook, PageEffect, Publication};

pub fn publish(notebook: &Notebook, args: NoteArgs) -> anyhow::Result<ExitCode> {
    let path = NotePath::parse(&args.note)?;
    let publication = notebook.publish(&path)?;
    report(&publication, &args)
}

pub fn unpublish(notebook: &Notebook, args: NoteArgs) -> anyhow::Result<ExitCode> {
    let path = NotePath::parse(&args.note)?;
    let publication = notebook.unpublish(&path)?;
    report(&publication, &args)
}

fn report(publication: &Publication, args: &NoteArgs) -> anyhow::Result<ExitCode> {
    if args.json {
        return super::print_json(&publication.result);
    }
    if args.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let (path, page) = (&publication.result.path, publication.page.display());
    super::print(&match &publication.effect {
        PageEffect::Written => format!("published {path} → {page}\n"),
        PageEffect::Removed => format!("unpublished {path}, removed {page}\n"),
        PageEffect::HandedTo(owner) => {
            format!("unpublished {path}, {page} now shows {owner}\n")
        }
    })
}
