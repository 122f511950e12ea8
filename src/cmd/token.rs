//! `notes token create / list / revoke / off`: the access tokens of `serve`.

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
            let listed = notebook.tokens().map_err(at)?;
            let tokens = &listed.tokens;
            if args.json {
                let tokens: Vec<Shown> = tokens.iter().map(Shown::from).collect();
                return super::print_json(&Listed {
                    tokens,
                    closed: listed.closed,
                });
            }
            if tokens.is_empty() {
                let message = if listed.closed {
                    super::messages::NO_TOKEN_LEFT
                } else {
                    super::messages::NO_TOKENS
                };
                return super::print(&format!("{message}\n"));
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
                return super::print_json(&RevokedJson {
                    info: Shown::from(&revoked.info),
                    left: revoked.left,
                    // Revoking never opens the folder: it had a token.
                    closed: true,
                });
            }
            let mut out = format!("revoked {}\n", escape::text(&revoked.info.name));
            if revoked.left == 0 {
                out.push_str(super::messages::NO_TOKEN_LEFT);
                out.push('\n');
            }
            super::print(&out)
        }
        TokenCommand::Off(args) => {
            let revoked = notebook.tokens_off().map_err(at)?;
            if args.json {
                return super::print_json(&Off {
                    closed: false,
                    revoked: revoked.iter().map(Shown::from).collect(),
                });
            }
            let names: Vec<String> = revoked
                .iter()
                .map(|t| escape::text(&t.name).into_owned())
                .collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            super::print(&format!("{}\n", super::messages::tokens_off(&names)))
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
    /// A server asks for a token (and refuses every request while none exists).
    closed: bool,
}

#[derive(Serialize)]
struct RevokedJson<'a> {
    #[serde(flatten)]
    info: Shown<'a>,
    /// How many tokens remain.
    left: usize,
    closed: bool,
}

#[derive(Serialize)]
struct Off<'a> {
    closed: bool,
    revoked: Vec<Shown<'a>>,
}
