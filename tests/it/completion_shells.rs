//! Completion in real shells, each with the committed script: bash (the completion
//! function driven the way readline drives it, the words split as bash splits them),
//! zsh (an interactive shell on a pseudo-terminal, TAB pressed) and fish (`complete -C`).
//! Folder names with spaces come back escaped, and `--notes-dir DIR`, `--notes-dir=DIR`
//! and `--notes-dir ~/DIR` choose the folder completed from.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::cli_docs::require;
use crate::support::{Workspace, bin};

/// Notes with a folder holding a space, and a second notes folder under a fake home.
struct Setup {
    ws: Workspace,
    home: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let ws = Workspace::new();
        ws.write("with space/a.md", "a");
        ws.write("ideas/one.md", "1");
        ws.write("top.md", "t");
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(home.path().join("other")).unwrap();
        std::fs::write(home.path().join("other/elsewhere.md"), "e").unwrap();
        Setup { ws, home }
    }

    /// `program` in the workspace, with the binary on PATH and the fake home.
    fn shell(&self, program: &str) -> Command {
        let bin_dir = Path::new(bin()).parent().unwrap();
        let mut cmd = self.ws.command(program);
        cmd.env(
            "PATH",
            format!(
                "{}:{}",
                bin_dir.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("HOME", self.home.path())
        .env_remove("COMPLETE")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME");
        cmd
    }

    fn other(&self) -> PathBuf {
        self.home.path().join("other")
    }
}

fn script(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("completions")
        .join(file)
}

fn run(mut cmd: Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What bash puts in COMPREPLY for `line` (the cursor at its end), `words` being
/// COMP_WORDS as bash splits the line (at blanks, and around `=` and `:`). The script is
/// sourced into a shell with no startup files, so no bash-completion package.
fn bash(setup: &Setup, line: &str, words: &[&str]) -> Vec<String> {
    let mut cmd = setup.shell("bash");
    cmd.args(["--norc", "--noprofile", "-c"])
        .arg(
            "source \"$1\" && complete -p notes >/dev/null || exit 3\n\
             COMP_LINE=$2 COMP_POINT=${#2} COMP_TYPE=9\n\
             COMP_WORDS=(\"${@:3}\") COMP_CWORD=$(($# - 3))\n\
             _notes notes \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n\
             printf '%s\\n' \"${COMPREPLY[@]}\"",
        )
        .arg("bash")
        .arg(script("notes.bash"))
        .arg(line)
        .args(words);
    run(cmd)
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn bash_escapes_spaces_and_honours_every_notes_dir_form() {
    if !require("bash") {
        return;
    }
    let s = Setup::new();
    assert_eq!(
        bash(&s, "notes show w", &["notes", "show", "w"]),
        [r"with\ space/"]
    );
    // The escaped folder, as bash has put it on the line, completes further.
    assert_eq!(
        bash(
            &s,
            r"notes show with\ space/",
            &["notes", "show", r"with\ space/"]
        ),
        [r"with\ space/a.md"]
    );
    assert_eq!(
        bash(&s, "notes rm 'with sp", &["notes", "rm", "'with sp"]),
        [r"with\ space/"]
    );
    let other = s.other();
    let other = other.to_str().unwrap();
    assert_eq!(
        bash(
            &s,
            &format!("notes --notes-dir {other} show e"),
            &["notes", "--notes-dir", other, "show", "e"]
        ),
        ["elsewhere.md"]
    );
    // bash splits `--notes-dir=DIR` into three words.
    assert_eq!(
        bash(
            &s,
            &format!("notes --notes-dir={other} show e"),
            &["notes", "--notes-dir", "=", other, "show", "e"]
        ),
        ["elsewhere.md"]
    );
    assert_eq!(
        bash(
            &s,
            "notes --notes-dir ~/other show e",
            &["notes", "--notes-dir", "~/other", "show", "e"]
        ),
        ["elsewhere.md"]
    );
    // Completing the value after `=`: bash replaces only what follows the `=`.
    let home = s.home.path().to_str().unwrap();
    assert_eq!(
        bash(
            &s,
            &format!("notes --notes-dir={home}/oth"),
            &["notes", "--notes-dir", "=", &format!("{home}/oth")]
        ),
        [format!("{home}/other/")]
    );
}

/// The line zsh shows after typing `line` and TAB in an interactive shell that loaded
/// the committed `_notes` through compinit.
fn zsh(setup: &Setup, line: &str) -> String {
    let fpath = tempfile::tempdir().unwrap();
    std::fs::copy(script("_notes"), fpath.path().join("_notes")).unwrap();
    let out_file = fpath.path().join("buffer");
    let mut cmd = setup.shell("zsh");
    cmd.args(["-f", "-c"])
        .arg(
            "zmodload zsh/zpty || exit 3\n\
             zpty z zsh -f -i\n\
             zpty -w z \"PS1='> '; fpath=($2 \\$fpath); autoload -U compinit; compinit -u -D; \
             dump() { print -r -- \\$BUFFER > $1 }; zle -N dump; bindkey '^X' dump\"\n\
             zpty -w -n z \"$3\"$'\\t'\n\
             sleep 1\n\
             zpty -w -n z $'\\x18'\n\
             for i in {1..100}; do [[ -s $1 ]] && break; sleep 0.1; done\n\
             zpty -d z",
        )
        .arg("zsh")
        .arg(&out_file)
        .arg(fpath.path())
        .arg(line);
    run(cmd);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !out_file.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::read_to_string(&out_file)
        .unwrap_or_else(|e| panic!("zsh did not complete `{line}`: {e}"))
        .trim_end()
        .to_string()
}

#[test]
fn zsh_escapes_spaces_and_honours_every_notes_dir_form() {
    if !require("zsh") {
        return;
    }
    let s = Setup::new();
    assert_eq!(zsh(&s, "notes show w"), r"notes show with\ space/");
    assert_eq!(
        zsh(&s, r"notes show with\ space/"),
        r"notes show with\ space/a.md"
    );
    assert_eq!(
        zsh(&s, "notes --notes-dir ~/other show e"),
        "notes --notes-dir ~/other show elsewhere.md"
    );
    let other = s.other();
    let other = other.to_str().unwrap();
    assert_eq!(
        zsh(&s, &format!("notes --notes-dir={other} show e")),
        format!("notes --notes-dir={other} show elsewhere.md")
    );
}

/// The candidates fish offers for `line`, the committed script sourced.
fn fish(setup: &Setup, line: &str) -> Vec<String> {
    let mut cmd = setup.shell("fish");
    cmd.args(["--no-config", "-c", "source $argv[1]; complete -C $argv[2]"])
        .arg(script("notes.fish"))
        .arg(line);
    run(cmd)
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .filter(|v| !v.starts_with('-'))
        .collect()
}

#[test]
fn fish_completes_spaces_and_every_notes_dir_form() {
    if !require("fish") {
        return;
    }
    let s = Setup::new();
    // fish escapes a candidate when it inserts it; `complete -C` shows it plain.
    assert_eq!(fish(&s, "notes show "), ["ideas/", "top.md", "with space/"]);
    assert_eq!(fish(&s, "notes show w"), ["with space/"]);
    assert_eq!(fish(&s, r"notes show with\ space/"), ["with space/a.md"]);
    assert_eq!(fish(&s, "notes show 'with sp"), ["with space/"]);
    assert_eq!(
        fish(&s, "notes --notes-dir ~/other show e"),
        ["elsewhere.md"]
    );
    let other = s.other();
    let other = other.to_str().unwrap();
    assert_eq!(
        fish(&s, &format!("notes --notes-dir={other} show e")),
        ["elsewhere.md"]
    );
}
