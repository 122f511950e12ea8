//! One module per subcommand: convert the arguments, call `ops`, print the result.

mod completions;
mod list;
mod list_public;
mod man;
mod messages;
mod publish;
mod put;
mod reindex;
mod rm;
mod search;
mod serve;
mod show;

use std::io::{self, Write};
use std::process::ExitCode;

use serde::Serialize;

use crate::cli::{Cli, Command};
use crate::ops::{Config, Notebook};

pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let notebook = Notebook::new(Config {
        notes_dir: cli.notes_dir,
        public_dir: cli.public_dir,
        base_url: cli.base_url,
    });
    match cli.command {
        Command::Serve(args) => serve::run(notebook, args),
        Command::List(args) => list::run(&notebook, args),
        Command::Show(args) => show::run(&notebook, args),
        Command::Put(args) => put::run(&notebook, args),
        Command::Rm(args) => rm::run(&notebook, args),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
        Command::Reindex => reindex::run(&notebook),
        Command::Search(args) => search::run(&notebook, args),
        Command::ListPublic(args) => list_public::run(notebook, args),
        Command::Publish(args) => publish::publish(&notebook, args),
        Command::Unpublish(args) => publish::unpublish(&notebook, args),
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

/// A progress bar on standard error, only when it is a terminal.
/// Runs `work` with a progress callback drawn as a bar on a terminal (nothing when
/// stderr is not one, or when `show` is false).
fn with_progress<T>(
    show: bool,
    work: impl FnOnce(&mut dyn FnMut(usize, usize)) -> crate::error::Result<T>,
) -> crate::error::Result<T> {
    let bar = (show && console::Term::stderr().is_term()).then(|| {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{spinner} indexing {bar:40} {pos}/{len} notes ({eta} left)",
        ) {
            bar.set_style(style);
        }
        bar
    });
    let result = work(&mut |done, total| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}
