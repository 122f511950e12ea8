//! `notes man`: write the man pages, one per command, in the layout of git's and
//! ripgrep's pages: NAME, SYNOPSIS with value placeholders, DESCRIPTION, OPTIONS,
//! EXAMPLES, ENVIRONMENT, EXIT STATUS, FILES, SEE ALSO (and QUERY SYNTAX for search).
//! `--install` writes them where `man` looks for a user's own pages.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Arg, ArgAction, Command, CommandFactory};

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

/// Text for roff: backslashes and hyphens escaped, no line starting with a control
/// character.
fn esc(text: &str) -> String {
    let text = text.replace('\\', "\\e").replace('-', "\\-");
    text.lines()
        .map(|line| {
            if line.starts_with('.') || line.starts_with('\'') {
                format!("\\&{line}")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn bold(text: &str) -> String {
    format!("\\fB{}\\fR", esc(text))
}

fn italic(text: &str) -> String {
    format!("\\fI{}\\fR", esc(text))
}

fn is_builtin(arg: &Arg) -> bool {
    matches!(arg.get_id().as_str(), "help" | "version")
}

/// `<DIR>` for an option taking a value, nothing for a flag.
fn placeholder(arg: &Arg) -> Option<String> {
    if !arg.get_action().takes_values() {
        return None;
    }
    let name = arg
        .get_value_names()
        .and_then(|names| names.first())
        .map_or_else(|| arg.get_id().as_str().to_uppercase(), ToString::to_string);
    let many = matches!(arg.get_action(), ArgAction::Append)
        || arg.get_num_args().is_some_and(|n| n.max_values() > 1);
    Some(format!("<{name}>{}", if many { "..." } else { "" }))
}

/// An argument as the synopsis shows it: `[-n|--limit <LIMIT>]`, `<NOTE>`.
fn synopsis_item(arg: &Arg) -> String {
    let mut item = if arg.is_positional() {
        italic(&placeholder(arg).unwrap_or_default())
    } else {
        let mut names = Vec::new();
        if let Some(short) = arg.get_short() {
            names.push(bold(&format!("-{short}")));
        }
        if let Some(long) = arg.get_long() {
            names.push(bold(&format!("--{long}")));
        }
        let mut item = names.join("|");
        if let Some(value) = placeholder(arg) {
            item = format!("{item} {}", italic(&value));
        }
        item
    };
    if !arg.is_required_set() {
        item = format!("[{item}]");
    }
    item
}

/// One `.TP` entry of an options list.
fn option_entry(arg: &Arg) -> String {
    let mut head = Vec::new();
    if let Some(short) = arg.get_short() {
        head.push(bold(&format!("-{short}")));
    }
    if let Some(long) = arg.get_long() {
        head.push(bold(&format!("--{long}")));
    }
    let mut head = head.join(", ");
    if let Some(value) = placeholder(arg) {
        if arg.is_positional() {
            head = italic(&value);
        } else {
            head = format!("{head} {}", italic(&value));
        }
    }
    let help = arg
        .get_long_help()
        .or_else(|| arg.get_help())
        .map(ToString::to_string)
        .unwrap_or_default();
    let mut notes = Vec::new();
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect();
    if !values.is_empty() && !arg.is_hide_possible_values_set() {
        notes.push(format!("possible values: {}", values.join(", ")));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && !arg.is_hide_default_value_set() && arg.get_action().takes_values() {
        notes.push(format!("default: {}", defaults.join(",")));
    }
    if let Some(env) = arg.get_env().filter(|_| !arg.is_hide_env_set()) {
        notes.push(format!("env: {}", env.to_string_lossy()));
    }
    let mut body = help.trim_end().to_string();
    if !notes.is_empty() {
        let _ = write!(body, " [{}]", notes.join("] ["));
    }
    format!(".TP\n{head}\n{}\n", esc(&body))
}

fn section(out: &mut String, title: &str) {
    let _ = writeln!(out, ".SH {title}");
}

fn paragraphs(out: &mut String, text: &str) {
    for (i, para) in text.split("\n\n").enumerate() {
        if i > 0 {
            out.push_str(".PP\n");
        }
        out.push_str(&esc(para.trim()));
        out.push('\n');
    }
}

fn definitions(out: &mut String, items: &[(&str, &str)]) {
    for (term, text) in items {
        let _ = writeln!(out, ".TP\n{}\n{}", bold(term), esc(text));
    }
}

/// The first clause of the one-line help: the NAME line.
fn summary(cmd: &Command) -> String {
    let about = cmd.get_about().map(ToString::to_string).unwrap_or_default();
    let end = about.find([';', '(', ':']).unwrap_or(about.len());
    about[..end].trim().to_string()
}

fn page(cmd: &Command, parent: Option<&Command>) -> String {
    let name = cmd.get_name();
    let full = match parent {
        Some(_) => format!("notes-{name}"),
        None => "notes".to_string(),
    };
    let version = env!("CARGO_PKG_VERSION");
    let mut out = String::new();
    let _ = writeln!(
        out,
        ".TH {} 1 \"\" \"notes {version}\" \"notes manual\"",
        esc(&full.to_uppercase())
    );
    section(&mut out, "NAME");
    let _ = writeln!(out, "{} \\- {}", esc(&full), esc(&summary(cmd)));

    let own: Vec<&Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && (parent.is_none() || !a.is_global_set()))
        .collect();
    let globals: Vec<&Arg> = match parent {
        Some(_) => cmd
            .get_arguments()
            .filter(|a| !a.is_hide_set() && a.is_global_set())
            .collect(),
        None => Vec::new(),
    };

    section(&mut out, "SYNOPSIS");
    let mut synopsis = vec![bold("notes")];
    if parent.is_some() {
        synopsis.push(format!("[{}]", italic("GLOBAL OPTIONS")));
        synopsis.push(bold(name));
    }
    let (positionals, options): (Vec<&Arg>, Vec<&Arg>) =
        own.iter().partition(|a| a.is_positional());
    synopsis.extend(
        options
            .iter()
            .filter(|a| !is_builtin(a))
            .map(|a| synopsis_item(a)),
    );
    synopsis.extend(positionals.iter().map(|a| synopsis_item(a)));
    if parent.is_none() {
        synopsis.push(italic("COMMAND"));
    }
    let _ = writeln!(out, "{}", synopsis.join(" "));

    section(&mut out, "DESCRIPTION");
    paragraphs(
        &mut out,
        description(if parent.is_some() { name } else { "" }),
    );

    if !positionals.is_empty() {
        section(&mut out, "ARGUMENTS");
        for arg in &positionals {
            out.push_str(&option_entry(arg));
        }
    }
    section(&mut out, "OPTIONS");
    for arg in &options {
        out.push_str(&option_entry(arg));
    }
    if !globals.is_empty() {
        section(&mut out, "GLOBAL OPTIONS");
        out.push_str("These go before or after the command name.\n");
        for arg in &globals {
            out.push_str(&option_entry(arg));
        }
    }

    if parent.is_none() {
        section(&mut out, "SUBCOMMANDS");
        for sub in cmd.get_subcommands().filter(|s| shown(s)) {
            let _ = writeln!(
                out,
                ".TP\n{}\n{} See {}(1).",
                bold(sub.get_name()),
                esc(&sub.get_about().map(ToString::to_string).unwrap_or_default()),
                bold(&format!("notes-{}", sub.get_name()))
            );
        }
    }

    if name == "search" {
        section(&mut out, "QUERY SYNTAX");
        out.push_str("A query is a list of terms; a note matches when it matches every term.\n");
        definitions(&mut out, QUERY_SYNTAX);
        out.push_str(
            ".PP\nTitle, tags and body are searched; matches in the title rank highest, then \
             tags, then body. Case and accents are folded: \\fBete\\fR finds \\fBÉté\\fR.\n",
        );
    }

    if let Some(examples) = cmd.get_after_long_help() {
        let text = examples.to_string();
        let text = text.strip_prefix("EXAMPLES:\n").unwrap_or(&text);
        section(&mut out, "EXAMPLES");
        out.push_str(".RS 4\n.nf\n");
        for line in text.lines() {
            let _ = writeln!(out, "{}", esc(line.trim_start()));
        }
        out.push_str(".fi\n.RE\n");
    }

    section(&mut out, "ENVIRONMENT");
    let mut env: Vec<(String, String)> = own
        .iter()
        .chain(globals.iter())
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
    for (var, text) in &env {
        definitions(&mut out, &[(var, text)]);
    }
    out.push_str(".PP\nA command line option wins over its variable.\n");

    section(&mut out, "EXIT STATUS");
    definitions(&mut out, EXIT_STATUS);

    section(&mut out, "FILES");
    definitions(&mut out, FILES);

    section(&mut out, "SEE ALSO");
    let see: Vec<String> = match parent {
        Some(root) => std::iter::once("notes(1)".to_string())
            .chain(
                root.get_subcommands()
                    .filter(|s| shown(s) && s.get_name() != name)
                    .filter(|s| related(name, s.get_name()))
                    .map(|s| format!("notes-{}(1)", s.get_name())),
            )
            .collect(),
        None => cmd
            .get_subcommands()
            .filter(|s| shown(s))
            .map(|s| format!("notes-{}(1)", s.get_name()))
            .collect(),
    };
    let _ = writeln!(out, "{}", esc(&see.join(", ")));
    out
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
