//! `notes completions SHELL`: print a completion script.

use std::process::ExitCode;

use crate::cli::CompletionsArgs;

pub(super) fn run(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut out = Vec::new();
    crate::completion::write_script(args.shell, &mut out)?;
    super::print(&String::from_utf8_lossy(&out))
}
