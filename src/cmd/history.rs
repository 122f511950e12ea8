//! `notes history`, `notes diff`, `notes restore` and `notes trash`: a note's (or an
//! attachment's) versions, the changes between two of them, bringing one back, and the
//! deleted notes and files.

use std::fmt::Write;
use std::process::ExitCode;

use console::style;
use serde::Serialize;

use super::escape;
use crate::cli::{DiffArgs, HistoryArgs, RestoreArgs, TrashArgs};
use crate::ops::history::{Compared, History, Trash};
use crate::ops::{FilePath, NotePath, Notebook};

/// How many hex digits of a version id the plain output shows.
const SHORT_ID: usize = 12;

fn short(id: &str) -> &str {
    id.get(..SHORT_ID).unwrap_or(id)
}

pub(super) fn list(notebook: &Notebook, args: HistoryArgs) -> anyhow::Result<ExitCode> {
    let Some(note) = args.note.as_deref() else {
        return prune(notebook, args.keep, args.json);
    };
    let at = |err| super::at_note(notebook, note, err);
    let (path, versions) = match attachment(note) {
        Some(file) => {
            let versions = notebook.file_history(&file).map_err(at)?;
            (file.to_string(), versions)
        }
        None => {
            let path = NotePath::parse(note).map_err(at)?;
            let versions = notebook.history(&path).map_err(at)?;
            (path.to_string(), versions)
        }
    };
    if args.json {
        return super::print_json(&History { path, versions });
    }
    let mut out = String::new();
    for version in &versions {
        let _ = writeln!(
            out,
            "{}  {}  {:<12}  {} bytes{}",
            style(short(&version.id)).yellow(),
            style(&version.at).dim(),
            version.operation,
            version.size,
            // A version made under a former path (before a move) names it.
            version
                .path
                .as_deref()
                .map_or_else(String::new, |p| format!("  (as {p})"))
        );
    }
    super::print(&out)
}

/// `notes history --prune [--keep DAYS]`.
fn prune(notebook: &Notebook, keep: Option<u32>, json: bool) -> anyhow::Result<ExitCode> {
    let pruned = notebook
        .prune_history(keep)
        .map_err(|err| super::at_folder(notebook.notes_dir(), err))?;
    if json {
        return super::print_json(&pruned);
    }
    let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    let dropped = match &pruned.cutoff {
        Some(cutoff) => format!(
            "dropped {} version(s) replaced before {cutoff}, {} deleted note(s) with them",
            pruned.versions_dropped, pruned.notes_forgotten
        ),
        None => "kept every version (no --keep)".to_string(),
    };
    super::print(&format!(
        "{dropped}; packed the store: {:.1} MiB -> {:.1} MiB\n",
        mib(pruned.store_bytes_before),
        mib(pruned.store_bytes_after)
    ))
}

/// The JSON form of a diff.
#[derive(Serialize)]
struct DiffJson<'a> {
    path: &'a str,
    from: &'a str,
    to: &'a str,
    diff: &'a str,
}

pub(super) fn diff(notebook: &Notebook, args: DiffArgs) -> anyhow::Result<ExitCode> {
    let at = |err| super::at_note(notebook, &args.note, err);
    let path = NotePath::parse(&args.note).map_err(at)?;
    let Compared { from, to } = notebook
        .compare(&path, args.from.as_deref(), args.to.as_deref())
        .map_err(at)?;
    let (old, new) = (
        String::from_utf8_lossy(&from.text),
        String::from_utf8_lossy(&to.text),
    );
    // The lines of the versions stay as written; the path in the header is escaped
    // for a reader (JSON keeps it exact).
    let shown = if args.json {
        path.as_str().into()
    } else {
        escape::text(path.as_str())
    };
    let text = similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{shown} {}", from.label),
            &format!("{shown} {}", to.label),
        )
        .to_string();
    if args.json {
        return super::print_json(&DiffJson {
            path: path.as_str(),
            from: &from.label,
            to: &to.label,
            diff: &text,
        });
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let styled = if line.starts_with("+++") || line.starts_with("---") {
            style(line).bold()
        } else if line.starts_with('+') {
            style(line).green()
        } else if line.starts_with('-') {
            style(line).red()
        } else if line.starts_with("@@") {
            style(line).cyan()
        } else {
            style(line)
        };
        let _ = write!(out, "{styled}");
    }
    super::print(&out)
}

/// The attachment `raw` names, when it is not a note's path (`.md`) but a valid
/// attachment path.
fn attachment(raw: &str) -> Option<FilePath> {
    match NotePath::parse(raw) {
        Err(crate::error::Error::NotMarkdown) => FilePath::parse(raw).ok(),
        _ => None,
    }
}

/// `notes restore FILE`: an attachment's version written back.
fn restore_file(
    notebook: &Notebook,
    file: FilePath,
    args: RestoreArgs,
) -> anyhow::Result<ExitCode> {
    let at = |err| super::at_note(notebook, &args.note, err);
    let version = match args.version {
        Some(version) => version,
        None => notebook.previous_file_version(&file).map_err(at)?,
    };
    let put = notebook.restore_file(&file, &version).map_err(at)?;
    if args.json {
        return super::print_json(&put.info);
    }
    let verb = if put.created {
        "restored deleted file"
    } else {
        "restored"
    };
    super::print(&format!(
        "{verb} {} from version {}\n",
        escape::text(file.as_str()),
        short(&version)
    ))
}

pub(super) fn restore(notebook: &Notebook, args: RestoreArgs) -> anyhow::Result<ExitCode> {
    if let Some(file) = attachment(&args.note) {
        return restore_file(notebook, file, args);
    }
    let at = |err| super::at_note(notebook, &args.note, err);
    let path = NotePath::parse(&args.note).map_err(at)?;
    let version = match args.version {
        Some(version) => version,
        None => notebook.previous_version(&path).map_err(at)?,
    };
    let outcome = notebook.restore(&path, &version).map_err(at)?;
    if args.json {
        return super::print_json(&outcome.note);
    }
    let verb = if outcome.created {
        "restored deleted note"
    } else {
        "restored"
    };
    super::print(&format!(
        "{verb} {} from version {}\n",
        escape::text(path.as_str()),
        short(&version)
    ))
}

pub(super) fn trash(notebook: &Notebook, args: TrashArgs) -> anyhow::Result<ExitCode> {
    let notes = notebook
        .trash()
        .map_err(|err| super::at_folder(notebook.notes_dir(), err))?;
    if args.json {
        return super::print_json(&Trash { notes });
    }
    let paths: Vec<_> = notes.iter().map(|n| escape::text(&n.path)).collect();
    let width = paths.iter().map(|p| p.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (note, path) in notes.iter().zip(&paths) {
        let _ = writeln!(
            out,
            "{}  deleted {}  version {}{}",
            style(format!("{path:<width$}")).bold(),
            style(&note.deleted_at).dim(),
            style(short(&note.version)).yellow(),
            // Notes' lines stay as they were; an attachment says so.
            if note.kind == "file" { "  (file)" } else { "" }
        );
    }
    super::print(&out)
}
