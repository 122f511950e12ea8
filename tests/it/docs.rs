//! The user guide (README.md and docs/) stays true to the binary: every command, flag and
//! environment variable is named in the hand-written pages, every `notes …` line of their
//! examples parses, docs/configuration.md is what the clap tree generates
//! (`NOTES_UPDATE_DOCS=1 cargo test --test it docs`, or `just docs`, rewrites it), and
//! every relative link leads to a file and heading that exist.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::{ArgAction, CommandFactory};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// The generated page, left out of the "is it named" checks: it names everything.
const GENERATED: &str = "docs/configuration.md";

/// The Markdown the pages are written in (GitHub's, without wikilinks or smart quotes).
const MARKDOWN: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, CONTRIBUTING.md and every page under docs/, as (path from the repo, text).
fn pages() -> Vec<(String, String)> {
    let mut pages = Vec::new();
    for name in ["README.md", "CONTRIBUTING.md"] {
        let text = std::fs::read_to_string(repo().join(name)).expect(name);
        pages.push((name.to_string(), text));
    }
    for entry in walkdir::WalkDir::new(repo().join("docs")) {
        let entry = entry.expect("walk docs/");
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "md") {
            let rel = path.strip_prefix(repo()).expect("under the repo");
            let text = std::fs::read_to_string(path).expect("read a page of docs/");
            pages.push((rel.to_string_lossy().into_owned(), text));
        }
    }
    pages.sort();
    pages
}

/// The text the "is it named" checks search: README.md and docs/, the generated page left
/// out.
fn user_guide() -> String {
    pages()
        .into_iter()
        .filter(|(name, _)| name != GENERATED && name != "CONTRIBUTING.md")
        .map(|(_, text)| text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `needle` occurs in `text` as a whole word: no letter, digit, `-` or `_` on
/// either side.
fn names(text: &str, needle: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + needle.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// Whether an argument is clap's own `--help` or `--version`.
fn is_builtin(arg: &clap::Arg) -> bool {
    matches!(
        arg.get_action(),
        ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
    )
}

/// Every command under `cmd` (itself first), with its words after `notes`.
fn commands(cmd: &clap::Command) -> Vec<(Vec<String>, clap::Command)> {
    fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<(Vec<String>, clap::Command)>) {
        out.push((path.clone(), cmd.clone()));
        for sub in cmd.get_subcommands() {
            if sub.get_name() == "help" || sub.is_hide_set() {
                continue;
            }
            let mut path = path.clone();
            path.push(sub.get_name().to_string());
            walk(sub, path, out);
        }
    }
    let mut out = Vec::new();
    walk(cmd, Vec::new(), &mut out);
    out
}

/// The command tree as the binary parses it (global options propagated).
fn built_cli() -> clap::Command {
    let mut cmd = notes::Cli::command();
    cmd.build();
    cmd
}

#[test]
fn every_command_and_flag_is_named_in_the_guide() {
    let guide = user_guide();
    let mut missing = Vec::new();
    for (path, cmd) in commands(&built_cli()) {
        if !path.is_empty() {
            let line = format!("notes {}", path.join(" "));
            if !names(&guide, &line) {
                missing.push(format!("the command `{line}`"));
            }
        }
        for arg in cmd.get_arguments() {
            if is_builtin(arg) || arg.is_hide_set() {
                continue;
            }
            if let Some(long) = arg.get_long() {
                let flag = format!("--{long}");
                if !names(&guide, &flag) {
                    missing.push(format!("`{flag}` of `notes {}`", path.join(" ")));
                }
            }
        }
    }
    missing.dedup();
    assert!(
        missing.is_empty(),
        "not named in README.md or a hand-written page of docs/: {missing:#?}"
    );
}

/// Every environment variable the binary reads: the clap tree's, and every `"NOTES_…"`
/// string literal of src/ but the test hooks (`NOTES_TEST_*`).
fn environment_variables() -> BTreeSet<String> {
    let mut vars = BTreeSet::new();
    for (_, cmd) in commands(&built_cli()) {
        for arg in cmd.get_arguments() {
            if let Some(env) = arg.get_env() {
                vars.insert(env.to_string_lossy().into_owned());
            }
        }
    }
    for entry in walkdir::WalkDir::new(repo().join("src")) {
        let entry = entry.expect("walk src/");
        if entry.path().extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).expect("read a source file");
        for (at, _) in text.match_indices("\"NOTES_") {
            let name: String = text[at + 1..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !name.starts_with("NOTES_TEST_") {
                vars.insert(name);
            }
        }
    }
    vars
}

#[test]
fn every_environment_variable_is_named_in_the_guide() {
    let vars = environment_variables();
    // The scan found the ones we know of, so a broken scan cannot pass.
    for known in ["NOTES_DIR", "NOTES_HISTORY_KEEP", "NOTES_SERVER_RUNTIME"] {
        assert!(vars.contains(known), "{known} not found: {vars:?}");
    }
    let guide = user_guide();
    let missing: Vec<_> = vars.iter().filter(|v| !names(&guide, v)).collect();
    assert!(
        missing.is_empty(),
        "environment variables not named in README.md or a hand-written page of docs/: \
         {missing:?}"
    );
}

/// A shell word, or one of the operators that end a command or redirect it.
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    /// `|`, `||`, `&`, `&&`, `;`: the end of a simple command.
    Control,
    /// `<`, `>`, `>>` (a leading file descriptor dropped): the next word is a file.
    Redirect,
}

/// Splits one shell line as sh does for the parts examples use: quotes, backslashes,
/// comments, pipes, lists and redirections (no expansion).
fn shell_split(line: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unclosed '".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("unclosed \"".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("unclosed \"".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            '#' if !in_word => break,
            c if c.is_whitespace() => {
                if in_word {
                    tokens.push(Token::Word(std::mem::take(&mut word)));
                    in_word = false;
                }
            }
            '|' | '&' | ';' | '<' | '>' => {
                let redirect = matches!(c, '<' | '>');
                // `2>file`: the digits name a descriptor, not an argument.
                let descriptor = redirect && in_word && word.chars().all(|d| d.is_ascii_digit());
                if in_word && !descriptor {
                    tokens.push(Token::Word(std::mem::take(&mut word)));
                }
                word.clear();
                in_word = false;
                if chars.peek() == Some(&c) || (redirect && chars.peek() == Some(&'&')) {
                    chars.next();
                }
                tokens.push(if redirect {
                    Token::Redirect
                } else {
                    Token::Control
                });
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        tokens.push(Token::Word(word));
    }
    Ok(tokens)
}

/// The `notes …` commands of one shell line: each simple command whose first word (after
/// `NAME=value` assignments) is `notes`, its redirections left out.
fn notes_commands(line: &str) -> Result<Vec<Vec<String>>, String> {
    let tokens = shell_split(line)?;
    let mut found = Vec::new();
    for command in tokens.split(|t| *t == Token::Control) {
        let mut words = Vec::new();
        let mut redirected = false;
        for token in command {
            match token {
                Token::Redirect => redirected = true,
                Token::Word(_) if redirected => redirected = false,
                Token::Word(w) => words.push(w.clone()),
                Token::Control => {}
            }
        }
        let is_assignment = |w: &String| {
            w.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !name.starts_with(|c: char| c.is_ascii_digit())
            })
        };
        let start = words.iter().position(|w| !is_assignment(w));
        if let Some(start) = start.filter(|&s| words[s] == "notes") {
            found.push(words[start..].to_vec());
        }
    }
    Ok(found)
}

/// The shell lines of the ```sh and ```console blocks of a page, with the line each starts
/// on: comments and output left out, `$ ` prompts removed, `\` continuations joined.
fn shell_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let parser = Parser::new_ext(text, MARKDOWN).into_offset_iter();
    let mut block: Option<(String, usize)> = None;
    let mut code = String::new();
    for (event, range) in parser {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) => {
                let line = text[..range.start].matches('\n').count() + 2;
                block = Some((lang.to_string(), line));
                code.clear();
            }
            Event::Text(t) if block.is_some() => code.push_str(&t),
            Event::End(TagEnd::CodeBlock) => {
                let Some((lang, first)) = block.take() else {
                    continue;
                };
                let console = match lang.split_whitespace().next() {
                    Some("sh" | "bash" | "shell" | "zsh") => false,
                    Some("console") => true,
                    _ => continue,
                };
                let mut pending: Option<(usize, String)> = None;
                for (i, raw) in code.lines().enumerate() {
                    let number = first + i;
                    let line = match pending.take() {
                        Some((at, mut joined)) => {
                            joined.push(' ');
                            joined.push_str(raw.trim());
                            (at, joined)
                        }
                        None => {
                            let trimmed = raw.trim();
                            let command = if console {
                                trimmed.strip_prefix("$ ")
                            } else {
                                Some(trimmed).filter(|l| !l.starts_with('#'))
                            };
                            match command {
                                Some(c) if !c.is_empty() => (number, c.to_string()),
                                _ => continue,
                            }
                        }
                    };
                    match line.1.strip_suffix('\\') {
                        Some(head) => pending = Some((line.0, head.trim_end().to_string())),
                        None => lines.push(line),
                    }
                }
                if let Some(line) = pending {
                    lines.push(line);
                }
            }
            _ => {}
        }
    }
    lines
}

#[test]
fn every_notes_command_line_in_the_guide_parses() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (page, text) in pages() {
        for (number, line) in shell_lines(&text) {
            let commands = match notes_commands(&line) {
                Ok(commands) => commands,
                Err(e) => {
                    failures.push(format!("{page}:{number}: {e}: {line}"));
                    continue;
                }
            };
            for words in commands {
                checked += 1;
                if let Err(e) = notes::Cli::command().try_get_matches_from(&words) {
                    use clap::error::ErrorKind::{DisplayHelp, DisplayVersion};
                    if !matches!(e.kind(), DisplayHelp | DisplayVersion) {
                        let first = e.to_string();
                        let first = first.lines().next().unwrap_or_default().to_string();
                        failures.push(format!("{page}:{number}: {line}\n    {first}"));
                    }
                }
            }
        }
    }
    // The examples were found: a broken extraction checks nothing and must not pass.
    assert!(checked >= 40, "only {checked} `notes` command lines found");
    assert!(
        failures.is_empty(),
        "command lines in the guide that `notes` does not accept:\n{}",
        failures.join("\n")
    );
}

#[test]
fn shell_lines_are_split_as_sh_splits_them() {
    let split = |line: &str| notes_commands(line).unwrap();
    assert_eq!(
        split("echo '# Hi' | notes put ideas/hi.md  # make it"),
        [["notes", "put", "ideas/hi.md"]]
    );
    assert_eq!(
        split("NOTES_DIR=~/notes notes serve --max-body 1048576 2>log"),
        [["notes", "serve", "--max-body", "1048576"]]
    );
    assert_eq!(
        split(r#"notes search '"release notes" tag:work' > out && notes list"#),
        [
            vec!["notes", "search", "\"release notes\" tag:work"],
            vec!["notes", "list"]
        ]
    );
    assert_eq!(
        split("cargo run --release -- serve"),
        Vec::<Vec<String>>::new()
    );
    assert!(notes_commands("notes search 'open").is_err());
    let page = "```console\n$ notes list \\\n  --json\nfoo.md\n```\n\
                ```sh\n# a comment\nnotes show a.md\n```\n```text\nnotes bogus\n```\n";
    assert_eq!(
        shell_lines(page),
        [
            (2, "notes list --json".to_string()),
            (8, "notes show a.md".to_string())
        ]
    );
}

/// The reference page of every command and flag, made from the clap tree.
fn configuration_reference() -> String {
    let cli = built_cli();
    let mut page = String::new();
    page.push_str(
        "# Configuration reference\n\n\
         <!-- Generated from the command tree by `just docs` (tests/it/docs.rs): edit the\n\
         \x20    doc comments in src/cli.rs and src/cli/args.rs, not this page. -->\n\n\
         Every command of `notes`, every flag with its help text, its default and its\n\
         environment variable. A flag on the command line wins over its environment\n\
         variable, which wins over the default. `--help` (`-h`) and `--version` (`-V`) work\n\
         everywhere. How the commands fit together: [the command line](command-line.md).\n\n",
    );
    page.push_str("## Global options\n\nTaken by every command, before or after its name.\n\n");
    for arg in cli
        .get_arguments()
        .filter(|a| a.is_global_set() && !is_builtin(a))
    {
        option_line(&mut page, arg);
    }
    for (path, cmd) in commands(&cli).into_iter().skip(1) {
        // The paragraphs of one command's section, joined by blank lines.
        let mut parts = vec![format!("## `notes {}`", path.join(" "))];
        if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
            parts.push(sentence(&about.to_string()));
        }
        let usage = cmd.clone().render_usage().to_string();
        parts.push(format!(
            "Usage: `{}`",
            usage.trim_start_matches("Usage: ").trim()
        ));
        if cmd.has_subcommands() {
            let subs: Vec<String> = cmd
                .get_subcommands()
                .filter(|s| s.get_name() != "help")
                .map(|s| format!("`{}`", s.get_name()))
                .collect();
            parts.push(format!("Commands: {}.", subs.join(", ")));
        }
        let positionals: Vec<_> = cmd.get_positionals().filter(|a| !a.is_hide_set()).collect();
        if !positionals.is_empty() {
            let mut list = String::from("Arguments:\n\n");
            for arg in positionals {
                option_line(&mut list, arg);
            }
            parts.push(list.trim_end().to_string());
        }
        let options: Vec<_> = cmd
            .get_arguments()
            .filter(|a| {
                !a.is_positional() && !a.is_global_set() && !is_builtin(a) && !a.is_hide_set()
            })
            .collect();
        if !options.is_empty() {
            let mut list = String::from("Options:\n\n");
            for arg in options {
                option_line(&mut list, arg);
            }
            parts.push(list.trim_end().to_string());
        }
        let _ = write!(page, "\n{}\n", parts.join("\n\n"));
    }
    while page.ends_with("\n\n") {
        page.pop();
    }
    page.push_str("\n## Environment variables\n\n| variable | what it sets |\n|---|---|\n");
    let mut rows: Vec<(String, String)> = Vec::new();
    for (path, cmd) in commands(&cli) {
        for arg in cmd.get_arguments() {
            let (Some(env), Some(long)) = (arg.get_env(), arg.get_long()) else {
                continue;
            };
            let scope = if arg.is_global_set() {
                "every command".to_string()
            } else {
                format!("`notes {}`", path.join(" "))
            };
            let what = format!("`--{long}` of {scope}");
            let env = env.to_string_lossy().into_owned();
            if !rows.iter().any(|(e, w)| *e == env && *w == what) {
                rows.push((env, what));
            }
        }
    }
    rows.extend(
        [
            (
                "NOTES_SERVER_RUNTIME",
                "`library` makes `serve` send kept attachments with hyper's own writes instead \
                 of `sendfile`, for `just bench-server` only",
            ),
            ("NO_COLOR", "set: no colour in any output"),
            (
                "XDG_DATA_HOME",
                "where `notes man --install` writes (`$XDG_DATA_HOME/man/man1`)",
            ),
        ]
        .map(|(e, w)| (e.to_string(), w.to_string())),
    );
    rows.sort();
    for (env, what) in rows {
        let _ = writeln!(page, "| `{env}` | {what} |");
    }
    page
}

/// One argument as a list item: its flag or name, help, values, default and variable.
fn option_line(page: &mut String, arg: &clap::Arg) {
    let value = arg
        .get_value_names()
        .map(|names| {
            names
                .iter()
                .map(|n| format!("<{n}>"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| format!("<{}>", arg.get_id().as_str().to_uppercase()));
    let multiple = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
    let value = if multiple {
        format!("{value}…")
    } else {
        value
    };
    let name = if arg.is_positional() {
        value
    } else {
        let mut name = String::new();
        if let Some(short) = arg.get_short() {
            let _ = write!(name, "-{short}, ");
        }
        let _ = write!(name, "--{}", arg.get_long().unwrap_or_default());
        if arg.get_action().takes_values() {
            let _ = write!(name, " {value}");
        }
        name
    };
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| sentence(&h.to_string()))
        .unwrap_or_default();
    let mut facts = Vec::new();
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| format!("`{}`", v.get_name()))
        .collect();
    if !values.is_empty() && arg.get_action().takes_values() {
        facts.push(format!("Values: {}.", values.join(", ")));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| format!("`{}`", v.to_string_lossy()))
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        facts.push(format!("Default: {}.", defaults.join(", ")));
    }
    if let Some(env) = arg.get_env() {
        facts.push(format!("Environment: `{}`.", env.to_string_lossy()));
    }
    if arg.is_required_set() {
        facts.push("Required.".to_string());
    }
    let mut line = format!("- `{name}`: {help}");
    for fact in facts {
        line.push(' ');
        line.push_str(&fact);
    }
    let _ = writeln!(page, "{}", line.trim_end());
}

/// A help text as one sentence of the page: paragraphs joined, Markdown's marks outside
/// `code` escaped (help says `![name](path)` and `<NOTE>` as text), a full stop at the end.
fn sentence(help: &str) -> String {
    let text = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut text: String = text
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                return part.to_string();
            }
            part.chars().fold(String::new(), |mut out, c| {
                if matches!(c, '\\' | '[' | ']' | '<' | '>' | '*' | '_') {
                    out.push('\\');
                }
                out.push(c);
                out
            })
        })
        .collect::<Vec<_>>()
        .join("`");
    if !text.is_empty() && !text.ends_with(['.', '…']) {
        text.push('.');
    }
    text
}

#[test]
fn the_configuration_reference_is_generated_from_the_command_tree() {
    let fresh = configuration_reference();
    let path = repo().join(GENERATED);
    if std::env::var_os("NOTES_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &fresh).expect("write docs/configuration.md");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{GENERATED} is not what the command tree makes: run `just docs` \
         (NOTES_UPDATE_DOCS=1 cargo test --test it docs)"
    );
    // What the page must hold, so that a generator that drops a part fails here.
    for needle in [
        "## `notes serve`",
        "## `notes token create`",
        "`--listen <ADDR>`",
        "Default: `127.0.0.1:8080`.",
        "Environment: `NOTES_LISTEN`.",
        "| `NOTES_HISTORY_KEEP` |",
    ] {
        assert!(fresh.contains(needle), "the reference lacks {needle}");
    }
}

/// GitHub's id of a heading: lowercased, punctuation dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (a repeated one gets `-1`, `-2`… as on GitHub) and
/// the targets of its links and images.
fn anchors_and_links(text: &str) -> (BTreeSet<String>, Vec<(usize, String)>) {
    let mut anchors = BTreeSet::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    for (event, range) in Parser::new_ext(text, MARKDOWN).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) if heading.is_some() => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let n = seen.entry(base.clone()).or_insert(0);
                anchors.insert(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                let line = text[..range.start].matches('\n').count() + 1;
                links.push((line, dest_url.to_string()));
            }
            _ => {}
        }
    }
    (anchors, links)
}

#[test]
fn every_relative_link_of_the_guide_leads_somewhere() {
    let pages = pages();
    let anchors: HashMap<PathBuf, BTreeSet<String>> = pages
        .iter()
        .map(|(name, text)| (repo().join(name), anchors_and_links(text).0))
        .collect();
    let mut checked = 0;
    let mut broken = Vec::new();
    for (name, text) in &pages {
        let here = repo().join(name);
        for (line, url) in anchors_and_links(text).1 {
            if url.contains("://") || url.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, fragment) = url.split_once('#').unwrap_or((&url, ""));
            let target = if file.is_empty() {
                here.clone()
            } else {
                here.parent().expect("a folder").join(file)
            };
            if !target.exists() {
                broken.push(format!("{name}:{line}: {url}: no such file"));
                continue;
            }
            if fragment.is_empty() {
                continue;
            }
            let target = target.canonicalize().expect("an existing file");
            let known = anchors
                .iter()
                .find(|(page, _)| page.canonicalize().is_ok_and(|p| p == target))
                .map(|(_, a)| a);
            match known {
                Some(a) if a.contains(fragment) => {}
                Some(_) => broken.push(format!("{name}:{line}: {url}: no such heading")),
                None => broken.push(format!(
                    "{name}:{line}: {url}: an anchor in a page not checked"
                )),
            }
        }
    }
    assert!(checked >= 50, "only {checked} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn headings_become_the_anchors_github_makes() {
    let (anchors, links) = anchors_and_links(
        "# The `serve` command\n\n## Q&A: tokens!\n\n## Q&A: tokens!\n\n[x](a.md#b)\n",
    );
    assert_eq!(
        anchors,
        BTreeSet::from([
            "the-serve-command".to_string(),
            "qa-tokens".to_string(),
            "qa-tokens-1".to_string()
        ])
    );
    assert_eq!(links, [(7, "a.md#b".to_string())]);
}
