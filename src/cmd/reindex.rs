//! `notes reindex`: rebuild the search index, with a progress bar on a terminal.

use std::process::ExitCode;
use std::time::Instant;

use crate::ops::Notebook;
use crate::ops::search::NotesIndex;
use crate::ops::search::updater::IndexUpdater;

pub(super) fn run(notebook: &Notebook) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    // A damaged index is moved aside first: it is rebuilt whole anyway.
    let (index, moved) = NotesIndex::open_or_heal(notebook.notes_dir())?;
    if let Some(moved) = moved {
        eprintln!(
            "{}",
            super::messages::index_rebuilt("it could not be opened", &moved.display().to_string())
        );
    }
    let mut updater = IndexUpdater::for_rebuild(index, notebook.notes_dir())?;
    let count = super::with_progress(true, |mut tick| updater.rebuild(&mut tick))?;
    updater.finish()?;
    super::print(&format!(
        "indexed {count} note{} in {:.2} s\n",
        if count == 1 { "" } else { "s" },
        started.elapsed().as_secs_f64()
    ))
}
