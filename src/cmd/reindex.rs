//! `notes reindex`: rebuild the search index, with a progress bar on a terminal.

use std::process::ExitCode;
use std::time::Instant;

use crate::ops::Notebook;
use crate::ops::search::updater::IndexUpdater;

pub fn run(notebook: &Notebook) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let mut updater = IndexUpdater::new(notebook.open_index()?, notebook.notes_dir())?;
    let count = super::with_progress(true, |progress| updater.rebuild(progress))?;
    super::print(&format!(
        "indexed {count} note{} in {:.2} s\n",
        if count == 1 { "" } else { "s" },
        started.elapsed().as_secs_f64()
    ))
}
