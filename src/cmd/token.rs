//! `notes token create / list / revoke`: the access tokens of `serve`.

use std::process::ExitCode;

use serde::Serialize;

use super::escape;
use crate::cli::TokenCommand;
use crate::ops::Notebook;
use crate::ops::tokens::{Prefix, Scope, TokenInfo};

pub(super) fn run(notebook: &Notebook, command: TokenCommand) -> anyhow::Result<ExitCode> {
    let at = |err| super::at_folder(notebook.notes_dir(), err);
    match command {
        TokenCommand::Create(args) => {
            let prefix = match args.prefix.as_deref() {
                Some(raw) => Some(Prefix::parse(raw).map_err(|e| {
                    anyhow::anyhow!("{raw}: {e}: --prefix takes a folder inside the notes folder")
                })?),
                None => None,
            };
            let scope = Scope::new(args.read_only, prefix);
            let made = notebook
                .create_token(args.name.as_deref(), scope)
                .map_err(at)?;
            if args.json {
                return super::print_json(&Created {
                    info: Shown::from(&made.info),
                    token: &made.secret,
                });
            }
            // The secret alone on standard output, so `TOKEN=$(notes token create)` works.
            eprintln!(
                "{}",
                super::messages::token_created(
                    &escape::text(&made.info.name),
                    &describe(&made.info.scope)
                )
            );
            super::print(&format!("{}\n", made.secret))
        }
        TokenCommand::List(args) => {
            let tokens = notebook.tokens().map_err(at)?;
            if args.json {
                let tokens: Vec<Shown> = tokens.iter().map(Shown::from).collect();
                return super::print_json(&Listed { tokens });
            }
            if tokens.is_empty() {
                return super::print(&format!("{}\n", super::messages::NO_TOKENS));
            }
            let names: Vec<_> = tokens.iter().map(|t| escape::text(&t.name)).collect();
            let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
            let mut out = String::new();
            for (t, name) in tokens.iter().zip(&names) {
                out.push_str(&format!(
                    "{name:width$}  {}  {}\n",
                    t.created,
                    describe(&t.scope)
                ));
            }
            super::print(&out)
        }
        TokenCommand::Revoke(args) => {
            let revoked = notebook.revoke_token(&args.name).map_err(at)?;
            if args.json {
                return super::print_json(&Shown::from(&revoked));
            }
            super::print(&format!("revoked {}\n", escape::text(&revoked.name)))
        }
    }
}

/// `read and write, everywhere`, `read only, inside work/`.
fn describe(scope: &Scope) -> String {
    let what = if scope.is_read_only() {
        "read only"
    } else {
        "read and write"
    };
    match scope.prefix() {
        Some(prefix) => format!("{what}, inside {}/", escape::text(prefix.as_str())),
        None => format!("{what}, everywhere"),
    }
}

/// A token as `--json` shows it: the names of the HTTP API's style.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Shown<'a> {
    name: &'a str,
    read_only: bool,
    prefix: Option<&'a str>,
    created: &'a str,
}

impl<'a> From<&'a TokenInfo> for Shown<'a> {
    fn from(t: &'a TokenInfo) -> Self {
        Shown {
            name: &t.name,
            read_only: t.scope.is_read_only(),
            prefix: t.scope.prefix().map(Prefix::as_str),
            created: &t.created,
        }
    }
}

#[derive(Serialize)]
struct Created<'a> {
    #[serde(flatten)]
    info: Shown<'a>,
    token: &'a str,
}

#[derive(Serialize)]
struct Listed<'a> {
    tokens: Vec<Shown<'a>>,
}
