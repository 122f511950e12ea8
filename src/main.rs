use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = notes::Cli::parse();
    match notes::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
