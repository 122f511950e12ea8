//! One module per subcommand: convert the arguments, call `ops`, print the result.

mod attach;
mod check;
mod completions;
pub(crate) mod escape;
mod files;
mod history;
mod links;
mod list;
mod list_public;
mod man;
mod mcp;
mod messages;
mod mv;
mod note_arg;
mod publish;
mod put;
mod reindex;
mod rm;
mod search;
mod serve;
mod show;
mod sync;
mod token;

use std::io::{self, Write};
use std::path::{Component, Path};
use std::process::ExitCode;
use std::time::Duration;

use serde::Serialize;

use crate::cli::{Cli, Command};
use crate::error::Error;
use crate::ops::search::source::ProgressHook;
use crate::ops::{Config, Notebook};

pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // Only `serve` and writes create the notes folder: a command that reads it stops on
    // a missing one, so a typo in --notes-dir creates nothing.
    match &cli.command {
        Command::Serve(_) | Command::Put(_) | Command::Completions(_) | Command::Man(_) => {}
        Command::ListPublic(args) => {
            require_notes_dir(args.dir.as_ref().unwrap_or(&cli.notes_dir))?
        }
        _ => require_notes_dir(&cli.notes_dir)?,
    }
    let notebook = Notebook::new(Config {
        notes_dir: cli.notes_dir,
        public_dir: cli.public_dir,
        base_url: cli.base_url,
    });
    // A write starts from a notes folder no crash left a move half-done in (`serve`
    // finishes it at start-up, `mv` before moving).
    if matches!(
        cli.command,
        Command::Put(_)
            | Command::Rm(_)
            | Command::Publish(_)
            | Command::Unpublish(_)
            | Command::Attach(_)
            | Command::Restore(_)
    ) || matches!(&cli.command, Command::Mcp(args) if !args.read_only)
    {
        finish_interrupted_move(&notebook);
    }
    match cli.command {
        Command::Serve(args) => serve::run(notebook, args),
        Command::List(args) => list::run(&notebook, args),
        Command::Show(args) => show::run(&notebook, args),
        Command::Put(args) => put::run(&notebook, args),
        Command::Rm(args) => rm::run(&notebook, args),
        Command::Mv(args) => mv::run(&notebook, args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
        Command::Mcp(args) => mcp::run(notebook, args),
        Command::Reindex => reindex::run(&notebook),
        Command::Search(args) => search::run(&notebook, args),
        Command::Links(args) => links::run(&notebook, args),
        Command::Check(args) => check::run(&notebook, args),
        Command::Attach(args) => attach::run(&notebook, args),
        Command::Files(args) => files::run(&notebook, args),
        Command::History(args) => history::list(&notebook, args),
        Command::Diff(args) => history::diff(&notebook, args),
        Command::Restore(args) => history::restore(&notebook, args),
        Command::Trash(args) => history::trash(&notebook, args),
        Command::ListPublic(args) => list_public::run(notebook, args),
        Command::Publish(args) => publish::publish(&notebook, args),
        Command::Unpublish(args) => publish::unpublish(&notebook, args),
        Command::Token(command) => token::run(&notebook, command),
        Command::Sync(args) => sync::run(&notebook, args),
    }
}

/// Finishes a move a crash interrupted, saying so in the log; a failure is logged and
/// left for the next try.
pub(super) fn finish_interrupted_move(notebook: &Notebook) {
    match notebook.finish_interrupted_move() {
        Ok(Some(done)) => crate::log::warn(&done.to_string()),
        Ok(None) => {}
        Err(err) => crate::log::error(&format!(
            "cannot finish the interrupted move: {}",
            err.detailed()
        )),
    }
}

/// Fails with "no notes folder at DIR" when `dir` does not exist (or is not a folder).
fn require_notes_dir(dir: &Path) -> anyhow::Result<()> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => anyhow::bail!("{}: not a folder (--notes-dir names a file)", dir.display()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            anyhow::bail!("no notes folder at {}", dir.display())
        }
        Err(e) => anyhow::bail!("{}: cannot open the notes folder: {e}", dir.display()),
    }
}

/// A domain error as the command line says it: the note it concerns, then the cause
/// (`a.md: note not found`). A note path naming a folder says so. The HTTP API keeps
/// the spec's bare messages; only this edge adds the path.
fn at_note(notebook: &Notebook, note: &str, err: Error) -> anyhow::Error {
    let names_folder = matches!(
        err,
        Error::NotMarkdown | Error::NotFound | Error::AccessFailed(_) | Error::ReadFailed(_)
    ) && is_inside(note)
        && notebook.notes_dir().join(note).is_dir();
    if names_folder {
        return anyhow::anyhow!("{note}: is a folder, not a note (`notes list` shows the notes)");
    }
    if note_arg::wants_hint(&err)
        && let Some(hint) = note_arg::hint(notebook, note)
    {
        return anyhow::anyhow!("{note}: {}; {hint}", cause(&err));
    }
    anyhow::anyhow!("{note}: {}", cause(&err))
}

/// A domain error about the notes folder as a whole (`DIR: failed to list notes: …`).
fn at_folder(dir: &Path, err: Error) -> anyhow::Error {
    anyhow::anyhow!("{}: {}", dir.display(), cause(&err))
}

/// A relative path without `..`: one that can only name something in the notes folder.
fn is_inside(note: &str) -> bool {
    let path = Path::new(note);
    path.is_relative()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// The cause in a CLI sentence: the spec's message with its underlying cause, starting
/// lowercase after the path (`note not found`, `failed to generate HTML: …`).
fn cause(err: &Error) -> String {
    let text = match err {
        Error::NotPublic(_) => "note is not public".to_string(),
        Error::NotesDirMissing(dir) => format!("no notes folder at {}", dir.display()),
        _ => err.detailed(),
    };
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => first
            .to_lowercase()
            .chain(text[first.len_utf8()..].chars())
            .collect(),
        _ => text,
    }
}

/// Writes `text` to standard output. A closed pipe (`notes list | head`) is not an error.
fn print(text: &str) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e.into()),
    }
}

/// Prints `value` as indented JSON, the same shape the HTTP API returns.
fn print_json<T: Serialize>(value: &T) -> anyhow::Result<ExitCode> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    print(&text)
}

/// Runs `work` with a progress callback drawn as a bar on a terminal (nothing when
/// stderr is not one, or when `show` is false: `--json` output is read by scripts).
fn with_progress<T>(show: bool, work: impl FnOnce(ProgressHook) -> T) -> T {
    let bar = (show && console::Term::stderr().is_term()).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        set_template(&bar, BAR_WITHOUT_ETA);
        bar
    });
    let drawn = bar.clone();
    let mut eta_shown = false;
    let result = work(Box::new(move |done, total| {
        if let Some(bar) = &drawn {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            if !eta_shown && eta_is_meaningful(bar.elapsed(), done, total) {
                set_template(bar, BAR_WITH_ETA);
                eta_shown = true;
            }
        }
    }));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}

const BAR_WITHOUT_ETA: &str = "{spinner} indexing {bar:40} {pos}/{len} notes";
const BAR_WITH_ETA: &str = "{spinner} indexing {bar:40} {pos}/{len} notes ({eta} left)";

fn set_template(bar: &indicatif::ProgressBar, template: &str) {
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
}

/// Whether an estimate of the time left means something yet: only after two seconds
/// and a tenth of the work, when the rate has settled (the first ticks of a job that
/// ends in under a second otherwise promise a minute or more).
fn eta_is_meaningful(elapsed: Duration, done: usize, total: usize) -> bool {
    elapsed >= Duration::from_secs(2) && total > 0 && done.saturating_mul(10) >= total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eta_waits_for_time_and_progress() {
        let secs = Duration::from_secs;
        assert!(!eta_is_meaningful(Duration::from_millis(300), 900, 1000));
        assert!(!eta_is_meaningful(secs(5), 50, 1000));
        assert!(!eta_is_meaningful(secs(5), 0, 0));
        assert!(eta_is_meaningful(secs(2), 100, 1000));
        assert!(eta_is_meaningful(secs(30), 999, 1000));
    }

    #[test]
    fn causes_read_as_sentences_after_the_path() {
        assert_eq!(cause(&Error::NotFound), "note not found");
        assert_eq!(cause(&Error::InvalidPath), "invalid path");
        assert_eq!(
            cause(&Error::PublishFailed("disk full".into())),
            "failed to generate HTML: disk full"
        );
        assert_eq!(
            cause(&Error::NotPublic("a.md".into())),
            "note is not public"
        );
    }

    #[test]
    fn only_relative_paths_without_parents_are_inside() {
        assert!(is_inside("a/b"));
        assert!(is_inside("home"));
        assert!(!is_inside("../x"));
        assert!(!is_inside("/etc"));
    }
}
