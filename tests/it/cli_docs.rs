//! Completions, man pages and help: the committed files match what the binary
//! generates, completion offers the notes that exist, and the man page renders.

use std::path::Path;
use std::process::Command;

use clap::CommandFactory;

use crate::support::{Workspace, bin};

const SCRIPTS: [(&str, &str); 5] = [
    ("bash", "notes.bash"),
    ("zsh", "_notes"),
    ("fish", "notes.fish"),
    ("elvish", "notes.elv"),
    ("powershell", "_notes.ps1"),
];

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A tool the test needs: present, or a loud skip outside CI and a failure in CI.
pub(crate) fn require(tool: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "{tool} is required in CI but is not installed"
        );
        eprintln!("SKIPPED: {tool} is not installed on this machine");
    }
    found
}

#[test]
fn committed_completion_scripts_are_fresh() {
    for (shell, file) in SCRIPTS {
        let out = Command::new(bin())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success());
        let committed = std::fs::read(repo().join("completions").join(file))
            .unwrap_or_else(|e| panic!("completions/{file}: {e} (run `just completions`)"));
        assert!(
            out.stdout == committed,
            "completions/{file} is stale: run `just completions`"
        );
    }
}

#[test]
fn committed_man_pages_are_fresh() {
    let out_dir = tempfile::tempdir().unwrap();
    let status = Command::new(bin())
        .args(["man", "--out-dir"])
        .arg(out_dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let mut generated: Vec<_> = std::fs::read_dir(out_dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let mut committed: Vec<_> = std::fs::read_dir(repo().join("man"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    generated.sort();
    committed.sort();
    assert_eq!(generated, committed, "man/ is stale: run `just man`");
    assert!(generated.iter().any(|n| n == "notes.1"));
    for name in generated {
        let fresh = std::fs::read(out_dir.path().join(&name)).unwrap();
        let old = std::fs::read(repo().join("man").join(&name)).unwrap();
        assert!(
            fresh == old,
            "man/{} is stale: run `just man`",
            name.to_string_lossy()
        );
    }
}

#[test]
fn man_page_renders() {
    if !require("man") {
        return;
    }
    let out = Command::new("man")
        .args(["-l", "-P", "cat"])
        .arg(repo().join("man/notes.1"))
        .env("MANWIDTH", "80")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("NAME") && text.contains("SUBCOMMANDS"),
        "{text}"
    );
}

/// A committed man page as `man` renders it.
fn render_man(page: &str) -> String {
    let out = Command::new("man")
        .args(["-l", "-P", "cat"])
        .arg(repo().join("man").join(page))
        .env("MANWIDTH", "200")
        .output()
        .unwrap();
    assert!(out.status.success(), "{page}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn man_pages_have_the_sections_of_a_real_man_page() {
    if !require("man") {
        return;
    }
    let headings = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.is_empty() && !l.starts_with(' ') && !l.starts_with("NOTES"))
            .map(|l| l.trim().to_string())
            .collect()
    };
    let root = render_man("notes.1");
    assert!(
        root.contains("notes [--notes-dir] [--public-dir]"),
        "{root}"
    );
    let search = render_man("notes-search.1");
    assert!(
        search.contains("notes search [-n|--limit]") && search.contains("<QUERY>"),
        "{search}"
    );
    let expected = [
        "NAME",
        "SYNOPSIS",
        "DESCRIPTION",
        "OPTIONS",
        "ARGUMENTS",
        "GLOBAL OPTIONS",
        "QUERY SYNTAX",
        "EXAMPLES",
        "ENVIRONMENT",
        "EXIT STATUS",
        "FILES",
        "SEE ALSO",
    ];
    let found = headings(&search);
    assert_eq!(found[..found.len() - 1], expected, "{search}");
    // The footer names the program, not the subcommand.
    assert!(found.last().unwrap().starts_with("notes 0."), "{search}");
    assert!(search.contains("tag:work") && search.contains("NOTES_DIR"));
    for page in std::fs::read_dir(repo().join("man")).unwrap() {
        let name = page.unwrap().file_name().into_string().unwrap();
        let text = render_man(&name);
        let found = headings(&text);
        for section in ["EXAMPLES", "ENVIRONMENT", "EXIT STATUS", "FILES"] {
            assert!(found.iter().any(|h| h == section), "{name}: no {section}");
        }
        assert!(!found.iter().any(|h| h == "EXTRA"), "{name}");
        // DESCRIPTION says more than NAME.
        let lines: Vec<&str> = text.lines().collect();
        let after = |heading: &str| {
            let at = lines.iter().position(|l| *l == heading).unwrap();
            lines[at + 1].trim().to_string()
        };
        let summary = after("NAME");
        let summary = summary.split(" - ").nth(1).unwrap();
        assert!(!after("DESCRIPTION").starts_with(summary), "{name}");
    }
}

#[test]
fn man_install_writes_where_man_looks() {
    let ws = Workspace::new();
    let data = ws.root.path().join("data");
    let out = ws
        .cli()
        .args(["man", "--install"])
        .env("XDG_DATA_HOME", &data)
        .output()
        .unwrap();
    assert!(out.status.success());
    let dir = data.join("man/man1");
    assert!(dir.join("notes.1").is_file() && dir.join("notes-search.1").is_file());
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(&dir.display().to_string()), "{said}");
}

#[test]
fn every_subcommand_has_examples_in_long_help() {
    let cmd = notes::Cli::command();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let out = Command::new(bin())
            .args([sub.get_name(), "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(
            help.contains("EXAMPLES:"),
            "`notes {} --help` has no examples",
            sub.get_name()
        );
    }
}

fn write_tree(ws: &Workspace) {
    ws.write("ideas/one.md", "1");
    ws.write("ideas/two.md", "2");
    ws.write("ideas/notes.txt", "not a note");
    ws.write("top.md", "t");
    ws.write(".hidden/x.md", "h");
}

#[test]
fn note_paths_complete_from_the_folder() {
    let ws = Workspace::new();
    write_tree(&ws);
    let complete = |line: &[&str]| -> Vec<String> {
        let out = ws
            .cli()
            .env("COMPLETE", "fish")
            .arg("--")
            .args(line)
            .output()
            .unwrap();
        // Options are offered too; keep the values.
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_string())
            .filter(|v| !v.starts_with('-'))
            .collect()
    };
    assert_eq!(complete(&["notes", "show", ""]), ["ideas/", "top.md"]);
    assert_eq!(
        complete(&["notes", "rm", "ideas/"]),
        ["ideas/one.md", "ideas/two.md"]
    );
    assert_eq!(complete(&["notes", "put", "ideas/t"]), ["ideas/two.md"]);
    // --notes-dir on the line being completed wins over NOTES_DIR.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("elsewhere.md"), "e").unwrap();
    assert_eq!(
        complete(&[
            "notes",
            "--notes-dir",
            other.path().to_str().unwrap(),
            "show",
            ""
        ]),
        ["elsewhere.md"]
    );
    // unpublish offers only the public notes.
    assert_eq!(complete(&["notes", "unpublish", ""]), Vec::<String>::new());
    assert!(ws.run(&["publish", "ideas/two.md"]).status.success());
    assert_eq!(complete(&["notes", "unpublish", ""]), ["ideas/two.md"]);
    assert_eq!(
        complete(&["notes", "unpublish", "top"]),
        Vec::<String>::new()
    );
    assert_eq!(complete(&["notes", "publish", "i"]), ["ideas/"]);
    let subcommands = complete(&["notes", "s"]);
    assert!(
        subcommands.contains(&"serve".to_string()) && subcommands.contains(&"show".to_string())
    );
}

#[test]
fn bash_completion_works_in_a_real_shell() {
    if !require("bash") {
        return;
    }
    let ws = Workspace::new();
    write_tree(&ws);
    let bin_dir = Path::new(bin()).parent().unwrap();
    let script = repo().join("completions/notes.bash");
    let out = ws
        .cli()
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin_dir.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env_remove("COMPLETE")
        .output_with_bash(&format!(
            "source '{}'\nCOMP_WORDS=(notes show ideas/o)\nCOMP_CWORD=2\nCOMP_TYPE=9\n\
             COMP_LINE='notes show ideas/o'\nCOMP_POINT=${{#COMP_LINE}}\n\
             _notes notes ideas/o show\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
            script.display()
        ));
    assert_eq!(out.trim(), "ideas/one.md");
}

trait BashRun {
    fn output_with_bash(&mut self, script: &str) -> String;
}

impl BashRun for Command {
    fn output_with_bash(&mut self, script: &str) -> String {
        let bash = Command::new("bash")
            .args(["--norc", "--noprofile", "-c", script])
            .envs(
                self.get_envs()
                    .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
            )
            .current_dir(self.get_current_dir().unwrap())
            .output()
            .unwrap();
        assert!(
            bash.status.success(),
            "{}",
            String::from_utf8_lossy(&bash.stderr)
        );
        String::from_utf8_lossy(&bash.stdout).into_owned()
    }
}
