//! Shell completion: the registration scripts (`notes completions SHELL`) and the
//! dynamic completers that offer the note paths existing when TAB is pressed.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::PathBuf;

use clap_complete::aot::Shell;
use clap_complete::engine::CompletionCandidate;
use clap_complete::env::Shells;

/// The environment variable that switches the binary into completion mode.
pub(crate) const COMPLETE_VAR: &str = "COMPLETE";

/// The bash registration script. clap's own hands bash's `COMP_WORDS` to the binary,
/// which are split at `=` and `:` and keep quotes and backslashes, and returns the
/// candidates unescaped; this one splits the line as bash will run it and escapes what it
/// offers (`with\ space/`). It needs no bash-completion package.
const BASH_SCRIPT: &str = include_str!("completion.bash");

/// Writes the registration script of `shell`: it calls `notes` back on each TAB, so
/// subcommands, options and note paths are always current.
pub(crate) fn write_script(shell: Shell, out: &mut dyn Write) -> std::io::Result<()> {
    if shell == Shell::Bash {
        return out.write_all(BASH_SCRIPT.as_bytes());
    }
    // The dynamic completers go by the same names as the shells.
    let name = shell.to_string();
    let shells = Shells::builtins();
    let completer = shells
        .completer(&name)
        .ok_or_else(|| std::io::Error::other(format!("unsupported shell {name}")))?;
    let mut script = Vec::new();
    completer.write_registration(COMPLETE_VAR, "notes", "notes", "notes", &mut script)?;
    if shell == Shell::Fish {
        // fish hands the word under the cursor over as typed (`with\ s`, `'with s`):
        // unescape it like the words before it.
        let text = String::from_utf8_lossy(&script);
        let fixed = text.replace(
            "(commandline --current-token)",
            "(commandline --current-token | string unescape; or commandline --current-token)",
        );
        if fixed == text {
            return Err(std::io::Error::other("unexpected fish registration script"));
        }
        script = fixed.into_bytes();
    }
    if shell == Shell::Zsh {
        // zsh's `words` keep the quoting as typed (`with\ s`): hand the binary the
        // words as the command will see them.
        // Installed as `_notes` in `fpath`, the file is the body of an autoloaded
        // function: the first TAB must complete too, not only register the completer.
        let text = String::from_utf8_lossy(&script);
        let fixed = text
            .replace(r#""${words[@]}""#, r#""${(Q)words[@]}""#)
            .replace(
                "\ncompdef _clap_dynamic_completer_notes notes\n",
                "\nif [ \"$funcstack[1]\" = \"_notes\" ]; then\n    \
                 _clap_dynamic_completer_notes \"$@\"\nelse\n    \
                 compdef _clap_dynamic_completer_notes notes\nfi\n",
            );
        if !fixed.contains("(Q)words") || !fixed.contains("funcstack") {
            return Err(std::io::Error::other("unexpected zsh registration script"));
        }
        script = fixed.into_bytes();
    }
    out.write_all(&script)
}

/// The notes folder of the command line being completed: `--notes-dir` as typed so far
/// (`--notes-dir DIR` or `--notes-dir=DIR`, a leading `~/` meaning the home folder, since
/// shells hand it over unexpanded), else `NOTES_DIR`, else `./notes`.
pub(crate) fn notes_dir_of(args: impl IntoIterator<Item = OsString>) -> PathBuf {
    let mut args = args.into_iter();
    let mut found = None;
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if text == "--notes-dir" {
            found = args
                .next()
                .map(|value| expand_home(&value.to_string_lossy()));
        } else if let Some(value) = text.strip_prefix("--notes-dir=") {
            found = Some(expand_home(value));
        }
    }
    found
        .or_else(|| std::env::var_os("NOTES_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("./notes"))
}

/// `~` and `~/rest` as the shell would expand them (`HOME`); anything else as it is.
fn expand_home(path: &str) -> PathBuf {
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    match path.strip_prefix('~') {
        Some("") => home().unwrap_or_else(|| PathBuf::from(path)),
        Some(rest) if rest.starts_with('/') => match home() {
            Some(home) => home.join(rest.trim_start_matches('/')),
            None => PathBuf::from(path),
        },
        _ => PathBuf::from(path),
    }
}

/// Candidates for a partly typed note path: the `.md` files and the folders of the one
/// folder it points into (one directory read per TAB, whatever the size of the tree).
pub(crate) fn note_candidates(current: &OsStr) -> Vec<CompletionCandidate> {
    let root = notes_dir_of(std::env::args_os());
    let current = current.to_string_lossy();
    let (folder, prefix) = match current.rfind('/') {
        Some(i) => (&current[..=i], &current[i + 1..]),
        None => ("", &current[..]),
    };
    let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
        return Vec::new();
    };
    let mut out: Vec<CompletionCandidate> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            if name.starts_with('.') || !name.starts_with(prefix) {
                return None;
            }
            let is_dir = entry.path().is_dir();
            if is_dir {
                Some(CompletionCandidate::new(format!("{folder}{name}/")))
            } else if name.ends_with(".md") {
                Some(CompletionCandidate::new(format!("{folder}{name}")))
            } else {
                None
            }
        })
        .collect();
    out.sort_by(|a, b| a.get_value().cmp(b.get_value()));
    out
}

/// Candidates for `unpublish`: only the notes that are public now.
pub(crate) fn public_note_candidates(current: &OsStr) -> Vec<CompletionCandidate> {
    let notebook = crate::ops::Notebook::new(crate::ops::Config {
        notes_dir: notes_dir_of(std::env::args_os()),
        public_dir: PathBuf::new(),
        base_url: None,
    });
    let current = current.to_string_lossy();
    let Ok(list) = notebook.public_list() else {
        return Vec::new();
    };
    let mut out: Vec<CompletionCandidate> = list
        .notes
        .into_iter()
        .filter(|note| note.path.starts_with(current.as_ref()))
        .map(|note| CompletionCandidate::new(note.path).help(Some(note.title.into())))
        .collect();
    out.sort_by(|a, b| a.get_value().cmp(b.get_value()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn notes_dir_from_the_typed_line() {
        let args = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            notes_dir_of(args(&["notes", "--notes-dir", "/x", "show"])),
            PathBuf::from("/x")
        );
        assert_eq!(
            notes_dir_of(args(&["notes", "--notes-dir=/y", "show"])),
            PathBuf::from("/y")
        );
        let home = PathBuf::from(std::env::var_os("HOME").unwrap());
        assert_eq!(
            notes_dir_of(args(&["notes", "--notes-dir", "~/n", "show"])),
            home.join("n")
        );
        assert_eq!(
            notes_dir_of(args(&["notes", "--notes-dir=~/m/", "show"])),
            home.join("m/")
        );
        assert_eq!(
            notes_dir_of(args(&["notes", "--notes-dir=~other/n"])),
            PathBuf::from("~other/n")
        );
    }

    #[test]
    fn every_shell_has_a_script() {
        let names: Vec<String> = Shell::value_variants()
            .iter()
            .map(Shell::to_string)
            .collect();
        assert_eq!(names, ["bash", "elvish", "fish", "powershell", "zsh"]);
        for &shell in Shell::value_variants() {
            let mut out = Vec::new();
            write_script(shell, &mut out).unwrap();
            assert!(
                String::from_utf8(out).unwrap().contains("COMPLETE"),
                "{shell}"
            );
        }
    }
}
