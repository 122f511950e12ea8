//! `notes`: a CLI and an HTTP service over a folder of Markdown notes. Every command and
//! every route calls the same domain module, `ops`.

mod cli;
mod cmd;
mod completion;
pub mod error;
mod http;
mod limits;
mod log;
mod mcp;
mod memory;
pub mod ops;
mod render;
mod test_hooks;

use std::process::ExitCode;

pub use cli::Cli;

/// The line `main` prints for a failed command: control characters escaped, so a
/// path in the message cannot act on the terminal or forge a second line.
pub fn error_line(err: &anyhow::Error) -> String {
    format!("error: {}", cmd::escape::text(&format!("{err:#}")))
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    memory::limit_git_mapping();
    limits::raise_open_files();
    cmd::run(cli)
}
