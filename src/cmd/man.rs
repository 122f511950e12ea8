//! `notes man --out-dir DIR` (hidden): write the man pages, one per command.

use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};

pub(super) fn run(args: ManArgs) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(&args.out_dir)
        .with_context(|| format!("cannot create {}", args.out_dir.display()))?;
    clap_mangen::generate_to(Cli::command(), &args.out_dir)
        .with_context(|| format!("cannot write man pages to {}", args.out_dir.display()))?;
    Ok(ExitCode::SUCCESS)
}
