//! `notes`: a CLI and an HTTP service over a folder of Markdown notes. Every command and
//! every route calls the same domain module, `ops`.

// The API's chain of warp filters nests one type per route; proving its futures `Unpin`
// goes deeper than the default limit of 128.
#![recursion_limit = "256"]

mod cli;
mod cmd;
mod completion;
pub mod error;
mod http;
mod log;
mod memory;
pub mod ops;
mod render;

use std::process::ExitCode;

pub use cli::Cli;

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    cmd::run(cli)
}
