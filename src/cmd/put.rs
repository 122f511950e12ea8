//! `notes put`: create or replace a note from Markdown, with the rules of the HTTP PUT.
//! Unlike the API, the command line refuses empty input (a failed pipe upstream would
//! otherwise wipe the note) and warns when the front matter cannot be read.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::PutArgs;
use crate::ops::model::{NoteInput, Precondition};
use crate::ops::{Notebook, front_matter};

pub(super) fn run(notebook: &Notebook, args: PutArgs) -> anyhow::Result<ExitCode> {
    let at = |err| super::at_note(notebook, &args.note, err);
    let path = super::note_arg::parse(notebook, &args.note)?;
    let (bytes, source) = match args.file.as_deref() {
        Some(file) if file.as_os_str() != "-" => (
            std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?,
            file.display().to_string(),
        ),
        _ => (read_stdin()?, "standard input".to_string()),
    };
    let text = String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("{source} is not UTF-8 text: {}", e.utf8_error()))?;
    if text.trim().is_empty() && !args.allow_empty {
        anyhow::bail!(
            "{path}: {source} is empty, nothing stored (--allow-empty stores an empty note)"
        );
    }
    let shown = super::escape::text(path.as_str()).into_owned();
    if let Some(problem) = front_matter_problem(&text) {
        eprintln!("warning: {shown}: {problem}; stored as written, the block reads as body text");
    }
    let outcome = notebook
        .put(&path, NoteInput::Markdown(text), Precondition::None)
        .map_err(at)?;
    if args.json {
        return super::print_json(&outcome.note);
    }
    if args.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let verb = if outcome.created {
        "created"
    } else {
        "updated"
    };
    super::print(&format!("{verb} {shown} ({} bytes)\n", outcome.note.size))
}

fn read_stdin() -> anyhow::Result<Vec<u8>> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!("reading Markdown from stdin, Ctrl-D to end");
    }
    let mut bytes = Vec::new();
    stdin
        .read_to_end(&mut bytes)
        .context("cannot read standard input")?;
    Ok(bytes)
}

/// Why a text that opens a front matter block (a first `---` line) has none that can be
/// read; `None` when it has a readable one or does not open one.
fn front_matter_problem(text: &str) -> Option<&'static str> {
    let first = text.lines().next()?;
    // Beyond the bounds, the write is refused with its own error.
    if first.trim_end() != "---"
        || front_matter::check(text).is_err()
        || front_matter::parse(text).is_some()
    {
        return None;
    }
    let closed = text.lines().skip(1).any(|line| line.trim_end() == "---");
    Some(if closed {
        "the front matter is not a valid YAML mapping"
    } else {
        "the front matter has no closing `---` line"
    })
}

#[cfg(test)]
mod tests {
    use super::front_matter_problem;

    #[test]
    fn broken_front_matter_is_named() {
        assert_eq!(front_matter_problem("# Title\n"), None);
        assert_eq!(front_matter_problem("---\ntitle: A\n---\nbody\n"), None);
        assert_eq!(
            front_matter_problem("---\ntitle: [unclosed\n---\nbody\n"),
            Some("the front matter is not a valid YAML mapping")
        );
        assert_eq!(
            front_matter_problem("---\ntitle: A\nbody\n"),
            Some("the front matter has no closing `---` line")
        );
    }
}
