//! The files under a folder with their bytes, for "nothing changed" checks.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

/// Every file under `dir` with its bytes, sorted; but the server log, the search index
/// and the history store, which the server writes in the background on its own
/// schedule (its start-up catch-up, merges, the notes found changed at start-up),
/// whatever requests it gets.
pub fn snapshot_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = files_under(dir)
        .into_iter()
        .filter(|p| {
            !(p.file_name().is_some_and(|n| n == "server.log")
                || p.ancestors().any(|a| a.ends_with(".notes/index"))
                || p.ancestors().any(|a| a.ends_with(".notes/history.git")))
        })
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_default();
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

/// Every file under `dir`, symlinked folders followed and a link that leads nowhere
/// counted as a file; none when `dir` is absent.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_map(|entry| match entry {
            Ok(entry) if entry.file_type().is_dir() => None,
            Ok(entry) => Some(entry.into_path()),
            Err(error) if error.depth() > 0 => error.path().map(Path::to_path_buf),
            Err(_) => None,
        })
        .collect()
}
