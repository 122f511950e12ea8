//! `notes man`: write the man pages, one per command: clap_mangen's NAME, SYNOPSIS,
//! DESCRIPTION and OPTIONS, then EXAMPLES, ENVIRONMENT, EXIT STATUS, FILES, SEE ALSO
//! (and QUERY SYNTAX for search) through the `roff` builder.
//! `--install` writes them where `man` looks for a user's own pages.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Command, CommandFactory};
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use crate::cli::{Cli, ManArgs};

pub(super) fn run(args: ManArgs) -> anyhow::Result<ExitCode> {
    let dir = match args.out_dir {
        Some(dir) => dir,
        None => install_dir()
            .context("cannot tell where to install the man pages: set HOME or use --out-dir")?,
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let pages = pages();
    for (name, text) in &pages {
        let path = dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.install {
        println!("wrote {} man pages to {}", pages.len(), dir.display());
        println!(
            "try `man notes`; if it is not found, add `export MANPATH=\"{}:\"` to your shell's startup file",
            dir.parent().unwrap_or(&dir).display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `$XDG_DATA_HOME/man/man1`, else `~/.local/share/man/man1`: man-db searches it for
/// users whose `PATH` holds `~/.local/bin`, or when `MANPATH` names it.
fn install_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("man").join("man1"))
}

/// Every page: file name and roff text, `notes.1` first.
pub(crate) fn pages() -> Vec<(String, String)> {
    let mut root = Cli::command();
    root.build();
    let mut out = vec![("notes.1".to_string(), page(&root, None))];
    for sub in root.get_subcommands().filter(|s| shown(s)) {
        out.push((
            format!("notes-{}.1", sub.get_name()),
            page(sub, Some(&root)),
        ));
    }
    out
}

/// A command with its own page: not hidden, not clap's `help`.
fn shown(cmd: &Command) -> bool {
    !cmd.is_hide_set() && cmd.get_name() != "help"
}

/// The first clause of the one-line help: the NAME line.
fn summary(cmd: &Command) -> String {
    let about = cmd.get_about().map(ToString::to_string).unwrap_or_default();
    let end = about.find([';', '(', ':']).unwrap_or(about.len());
    about[..end].trim().to_string()
}

/// One page: clap_mangen's NAME, SYNOPSIS, DESCRIPTION, OPTIONS (arguments and global
/// options under their own headings) and SUBCOMMANDS, then the sections clap does not
/// know, built with `roff`.
fn page(cmd: &Command, parent: Option<&Command>) -> String {
    let name = cmd.get_name().to_string();
    let full = match parent {
        Some(_) => format!("notes-{name}"),
        None => "notes".to_string(),
    };
    let examples = cmd.get_after_long_help().map(ToString::to_string);
    let env = environment(cmd);
    let shown_cmd = cmd
        .clone()
        .display_name(full.clone())
        .bin_name(match parent {
            Some(_) => format!("notes {name}"),
            None => "notes".to_string(),
        })
        .about(summary(cmd))
        .long_about(description(if parent.is_some() { &name } else { "" }))
        .after_help(None::<&str>)
        .after_long_help(None::<&str>)
        .mut_args(|arg| {
            if matches!(arg.get_id().as_str(), "help" | "version") {
                arg.hide(true)
            } else if arg.is_positional() {
                arg.help_heading("Arguments")
            } else if arg.is_global_set() && parent.is_some() {
                arg.help_heading("Global options")
            } else {
                arg
            }
        });
    let man = Man::new(shown_cmd)
        .title(full.to_uppercase())
        .section("1")
        // No date (the pages are generated, and compared with the committed ones); a
        // quoted blank, because an empty field would shift the source into its place.
        .date(" ")
        .source(format!("notes {}", env!("CARGO_PKG_VERSION")))
        .manual("notes manual");
    let mut out = Vec::new();
    let rendered = (|| -> std::io::Result<()> {
        man.render_title(&mut out)?;
        man.render_name_section(&mut out)?;
        man.render_synopsis_section(&mut out)?;
        man.render_description_section(&mut out)?;
        man.render_options_section(&mut out)?;
        if parent.is_none() {
            man.render_subcommands_section(&mut out)?;
        }
        Ok(())
    })();
    let mut text = match rendered {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(e) => format!(".\\\" {e}\n"),
    };
    let mut roff = Roff::new();
    if name == "search" {
        roff.control("SH", ["QUERY SYNTAX"]);
        roff.text([roman(
            "A query is a list of terms; a note matches when it matches every term.",
        )]);
        definitions(&mut roff, QUERY_SYNTAX);
        roff.control("PP", []);
        roff.text([
            roman(
                "Title, tags and body are searched; matches in the title rank highest, then \
                 tags, then body. Case and accents are folded: ",
            ),
            bold("ete"),
            roman(" finds "),
            bold("Été"),
            roman("."),
        ]);
    }
    if let Some(examples) = examples {
        let examples = examples.strip_prefix("EXAMPLES:\n").unwrap_or(&examples);
        roff.control("SH", ["EXAMPLES"]);
        roff.control("RS", ["4"]).control("nf", []);
        for line in examples.lines() {
            roff.text([roman(line.trim_start())]);
        }
        roff.control("fi", []).control("RE", []);
    }
    roff.control("SH", ["ENVIRONMENT"]);
    for (var, what) in &env {
        roff.control("TP", [])
            .text([bold(var.as_str())])
            .text([roman(what.as_str())]);
    }
    roff.control("PP", [])
        .text([roman("A command line option wins over its variable.")]);
    roff.control("SH", ["EXIT STATUS"]);
    definitions(&mut roff, EXIT_STATUS);
    roff.control("SH", ["FILES"]);
    definitions(&mut roff, FILES);
    roff.control("SH", ["SEE ALSO"]);
    let see: Vec<String> = match parent {
        Some(root) => std::iter::once("notes(1)".to_string())
            .chain(
                root.get_subcommands()
                    .filter(|s| shown(s) && s.get_name() != name)
                    .filter(|s| related(&name, s.get_name()))
                    .map(|s| format!("notes-{}(1)", s.get_name())),
            )
            .collect(),
        None => cmd
            .get_subcommands()
            .filter(|s| shown(s))
            .map(|s| format!("notes-{}(1)", s.get_name()))
            .collect(),
    };
    roff.text([roman(see.join(", "))]);
    text.push_str(&roff.to_roff());
    text
}

/// The variables a command reads: each option's own, then `NO_COLOR`.
fn environment(cmd: &Command) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = cmd
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .filter_map(|arg| {
            let var = arg.get_env()?.to_string_lossy().into_owned();
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            let flag = arg
                .get_long()
                .map(|l| format!(" (as --{l})"))
                .unwrap_or_default();
            Some((
                var,
                format!("{}{flag}", help.lines().next().unwrap_or_default()),
            ))
        })
        .collect();
    env.push((
        "NO_COLOR".to_string(),
        "When set and not empty, no colour; without it, colour only on a terminal.".to_string(),
    ));
    env
}

/// Terms and their definitions, one `.TP` each.
fn definitions(roff: &mut Roff, items: &[(&str, &str)]) {
    for (term, text) in items {
        roff.control("TP", [])
            .text([bold(*term)])
            .text([roman(*text)]);
    }
}

/// Pages that refer to each other in SEE ALSO.
fn related(a: &str, b: &str) -> bool {
    const GROUPS: [&[&str]; 4] = [
        &["list", "show", "put", "rm", "search"],
        &["publish", "unpublish", "list-public"],
        &["search", "reindex"],
        &["completions", "man"],
    ];
    GROUPS.iter().any(|g| g.contains(&a) && g.contains(&b))
}

const QUERY_SYNTAX: &[(&str, &str)] = &[
    ("rust async", "Notes containing every word, in any field."),
    (
        "\"exact words\"",
        "The words next to each other, in this order.",
    ),
    (
        "tag:work, tag:\"two words\"",
        "Only notes with that tag (case and accents folded).",
    ),
    (
        "-draft, -\"old stuff\"",
        "Leaves out notes with that word or phrase.",
    ),
    (
        "tok",
        "The last word, with no space after it, also matches the words starting with it \
         (tokio, token), for search-as-you-type; at least 2 letters.",
    ),
];

const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    (
        "1",
        "The operation failed; one line starting with \"error:\" on standard error says why.",
    ),
    (
        "2",
        "Usage error: an unknown option, a missing or malformed argument.",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "./notes/",
        "The notes folder (--notes-dir, NOTES_DIR): one Markdown file per note, with \
         optional YAML front matter; folders group notes.",
    ),
    (
        "NOTES_DIR/.public.json",
        "Which notes are public: title, publication time and page file of each.",
    ),
    (
        "NOTES_DIR/.notes/index/",
        "The search index, rebuilt from the notes by notes reindex or by the server when \
         missing or broken.",
    ),
    (
        "./public/",
        "The public folder (--public-dir, NOTES_PUBLIC_DIR): one HTML page per published \
         note, index.html, feed.xml and static/ (the stylesheet).",
    ),
];

/// DESCRIPTION of each page, by command name ("" for notes(1)).
fn description(name: &str) -> &'static str {
    match name {
        "" => {
            "notes keeps Markdown notes as plain .md files in a folder you own, and works on \
             them from the command line or through an HTTP server: a JSON API, a web \
             interface to read, edit and search them, and static HTML pages for the notes \
             you publish.\n\n\
             Every command works on the notes folder (--notes-dir); publishing writes to the \
             public folder (--public-dir). Run notes serve for the server, or one of the \
             commands below for a single operation; each has its own page."
        }
        "serve" => {
            "Starts the HTTP server on the notes folder: the JSON API under /api/v1, the web \
             interface at /, and the published pages under /public/. It keeps the search \
             index up to date as notes change, on disk or through the API.\n\n\
             Until a token exists (notes token create), the API has no authentication: keep \
             it on loopback (the default) or behind a proxy that authenticates. Once one \
             exists, every API, MCP and web request needs one; on an address other machines \
             reach, a token must be in force at every moment (or --no-auth). SIGTERM or \
             Ctrl-C stops it after the open requests finish (--shutdown-timeout)."
        }
        "list" => {
            "Prints the path of every note in the notes folder, sorted by path, with its \
             title. Hidden files and folders are left out. With --json, prints the API's \
             list response instead."
        }
        "show" => {
            "Prints a note as it is stored: its Markdown, front matter included. With --json, \
             prints the API's note object (path, title, tags, body, times)."
        }
        "put" => {
            "Stores a note, creating it or replacing it whole, from a Markdown file or from \
             standard input. Folders in the path are created as needed. Front matter (a YAML \
             block between --- lines at the top) sets the title and tags."
        }
        "rm" => {
            "Deletes a note. A published note is unpublished too: its page is removed and the \
             public index rebuilt."
        }
        "list-public" => {
            "Prints the notes that are published: title, source note, page file and \
             publication time, newest first."
        }
        "publish" => {
            "Writes the static HTML page of a note into the public folder and adds it to the \
             public index and feed. Publishing a note that is already public regenerates its \
             page.\n\n\
             With --repair, brings the public folder back in line with the record of public \
             notes after a crash or a hand edit, and prints what it fixed."
        }
        "unpublish" => {
            "Removes the page of a public note from the public folder and rebuilds the public \
             index and feed. The note itself is kept."
        }
        "reindex" => {
            "Rebuilds the search index from the notes on disk, showing progress on a \
             terminal. The server keeps the index current by itself; this is for a folder \
             changed while no server ran, or a damaged index."
        }
        "search" => {
            "Prints the notes matching a query, best match first, with the title and a \
             snippet of each. The query language is below under QUERY SYNTAX; quote the \
             query in the shell when it has several words or quotes."
        }
        "token" => {
            "Manages the tokens notes serve asks for, kept as hashes in \
             NOTES_DIR/.notes/tokens.json: create (the secret is printed once), list, \
             revoke NAME, and off.\n\n\
             The first token closes the folder: every API, MCP and web request then needs \
             one (published pages stay open). Revoking the last token leaves it closed, and \
             a running server refuses every such request (401) until a token is created. \
             notes token off revokes every token left and opens the folder on purpose; on \
             an address other machines reach, serve still refuses requests without a \
             token unless started with --no-auth. Web sessions end after 12 hours idle or \
             7 days."
        }
        "completions" => {
            "Prints the completion script of a shell. The script calls notes back on each \
             TAB, so commands, options and note paths complete from the notes folder as it \
             is then (--notes-dir on the line, else NOTES_DIR, else ./notes)."
        }
        "man" => {
            "Writes these man pages, notes.1 and one page per command, into a folder \
             (--out-dir), or with --install into the folder man searches for a user's own \
             pages ($XDG_DATA_HOME/man/man1, else ~/.local/share/man/man1)."
        }
        _ => "",
    }
}
