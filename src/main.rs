use std::process::ExitCode;

use clap::{CommandFactory, Parser};

fn main() -> ExitCode {
    // In completion mode (COMPLETE=<shell>) this answers the shell and exits.
    clap_complete::CompleteEnv::with_factory(notes::Cli::command).complete();
    let cli = notes::Cli::parse();
    match notes::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("{}", notes::error_line(&err));
            let code = err
                .downcast_ref::<notes::error::Error>()
                .map_or(1, notes::error::Error::exit_code);
            ExitCode::from(code)
        }
    }
}
