//! `notes files`: the attachments under a folder, sorted by path; a table on a
//! terminal, one tab-separated line per file otherwise (for `cut` and `awk`).

use std::fmt::Write;
use std::process::ExitCode;

use console::style;

use super::escape;
use crate::cli::FilesArgs;
use crate::ops::files::FileInfo;
use crate::ops::{FilePath, Notebook};

pub(super) fn run(notebook: &Notebook, args: FilesArgs) -> anyhow::Result<ExitCode> {
    let dir = args.dir.as_deref().unwrap_or("");
    let at = |err| {
        anyhow::anyhow!(
            "{}: {}",
            if dir.is_empty() { "." } else { dir },
            super::cause(&err)
        )
    };
    let folder = FilePath::parse_folder(dir).map_err(at)?;
    let list = notebook.list_files(&folder).map_err(at)?;
    if args.json {
        return super::print_json(&list);
    }
    if !console::Term::stdout().is_term() {
        let mut out = String::new();
        for file in &list.files {
            let _ = writeln!(
                out,
                "{}\t{}\t{}\t{}",
                escape::text(&file.path),
                file.size,
                file.last_modified,
                file.content_type
            );
        }
        return super::print(&out);
    }
    super::print(&table(&list.files))
}

/// The files as aligned columns under a header, and their count.
fn table(files: &[FileInfo]) -> String {
    let sizes: Vec<String> = files.iter().map(|f| human_size(f.size)).collect();
    let paths: Vec<_> = files.iter().map(|f| escape::text(&f.path)).collect();
    let path_width = paths
        .iter()
        .map(|p| p.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let size_width = sizes.iter().map(String::len).max().unwrap_or(0).max(4);
    let mut out = String::new();
    if !files.is_empty() {
        let header = format!(
            "{:<path_width$}  {:>size_width$}  {:<20}  TYPE",
            "PATH", "SIZE", "MODIFIED"
        );
        let _ = writeln!(out, "{}", style(header).dim());
    }
    for ((file, size), path) in files.iter().zip(&sizes).zip(&paths) {
        let _ = writeln!(
            out,
            "{}  {size:>size_width$}  {:<20}  {}",
            style(format!("{path:<path_width$}")).bold(),
            file.last_modified,
            style(&file.content_type).dim()
        );
    }
    let _ = writeln!(
        out,
        "{} file{}",
        files.len(),
        if files.len() == 1 { "" } else { "s" }
    );
    out
}

/// Bytes as a person reads them: `812 B`, `4.2 KiB`, `12.0 MiB`.
fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(human_size(812), "812 B");
        assert_eq!(human_size(4300), "4.2 KiB");
        assert_eq!(human_size(12 * 1024 * 1024), "12.0 MiB");
    }
}
