//! Names and titles holding control characters, as the command line prints them: a
//! title that retitles the terminal (`ESC ] 0 ; … BEL`), a path whose newline would
//! forge a row, a file name with a colour sequence, a bidi override. Human output shows
//! them as visible escapes, one line per entry; `--json` keeps them exact.

use std::process::Output;

use crate::support::Workspace;

/// A title that sets the terminal's title, then forges a row of `notes list`.
const TITLE: &str = "Plan \u{1b}]0;pwned\u{7} then\n0-fake.md  01-01-2026:00:00  Forged";
/// The same title as YAML writes it (double-quoted, with YAML's escapes).
const TITLE_YAML: &str = "\"Plan \\e]0;pwned\\a then\\n0-fake.md  01-01-2026:00:00  Forged\"";
/// A note path whose newline would start a row of its own.
const FORGED_PATH: &str = "b\n3 notes\u{1b}[2J.md";
/// Attachment names with a colour sequence, a tab and a bidi override.
const FILES: [&str; 3] = ["pic\u{1b}[31mred.png", "tab\there.png", "x\u{202e}gnp.exe"];

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write(
        "a.md",
        &format!("---\ntitle: {TITLE_YAML}\ntags: [\"t\\e[1m\"]\n---\nzebracorn \u{1b}[2J body\n"),
    );
    ws.write(FORGED_PATH, "---\ntitle: Second\n---\nzebracorn again\n");
    ws.write(
        "c.md",
        "---\ntitle: \"Right\u{202e}txt.exe\"\n---\nzebracorn three\n",
    );
    for name in FILES {
        ws.write(name, "bytes");
    }
    ws
}

fn stdout_of(out: &Output) -> String {
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// `text` holds no character a terminal acts on, besides the line ends (and the tab
/// separators when `tabs`).
fn assert_inert(text: &str, tabs: bool) {
    for c in text.chars() {
        let allowed = c == '\n' || (tabs && c == '\t');
        let acts = c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        assert!(allowed || !acts, "{c:?} in {text:?}");
    }
}

#[test]
fn list_shows_escapes_one_line_per_note_and_json_stays_exact() {
    let ws = workspace();
    let out = stdout_of(&ws.run(&["list"]));
    assert_inert(&out, false);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].starts_with("a.md "), "{out}");
    assert!(
        lines[0].contains("Plan \\u{1b}]0;pwned\\u{7} then\\n0-fake.md"),
        "{out}"
    );
    assert!(lines[0].contains("#t\\u{1b}[1m"), "{out}");
    assert!(lines[1].starts_with("b\\n3 notes\\u{1b}[2J.md "), "{out}");
    assert!(lines[2].contains("Right\\u{202e}txt.exe"), "{out}");
    assert_eq!(lines[3], "3 notes");

    let out = stdout_of(&ws.run(&["list", "--json"]));
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list["notes"][0]["title"], TITLE);
    assert_eq!(list["notes"][1]["path"], FORGED_PATH);
}

#[test]
fn files_show_escapes_one_line_per_file() {
    let ws = workspace();
    let out = stdout_of(&ws.run(&["files"]));
    // Not a terminal here: one tab-separated line per file, the path's tab escaped.
    assert_inert(&out, true);
    let paths: Vec<&str> = out
        .lines()
        .map(|line| line.split('\t').next().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "pic\\u{1b}[31mred.png",
            "tab\\there.png",
            "x\\u{202e}gnp.exe"
        ],
        "{out}"
    );
    assert!(
        out.lines().all(|line| line.split('\t').count() == 4),
        "{out}"
    );

    let out = stdout_of(&ws.run(&["files", "--json"]));
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list["files"][0]["path"], FILES[0]);
}

#[test]
fn search_shows_escapes_one_line_per_hit() {
    let ws = workspace();
    let out = stdout_of(&ws.run(&["search", "zebracorn"]));
    assert_inert(&out, false);
    // Per hit, its line and its snippet's; then the count.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");
    assert_eq!(lines[6], "3 notes found");
    let heads: Vec<&str> = lines.iter().step_by(2).take(3).copied().collect();
    assert!(
        heads
            .iter()
            .any(|l| l.contains("a.md  Plan \\u{1b}]0;pwned\\u{7} then\\n0-fake.md")),
        "{out}"
    );
    assert!(
        heads
            .iter()
            .any(|l| l.contains("b\\n3 notes\\u{1b}[2J.md  Second")),
        "{out}"
    );
    assert!(out.contains("\\u{1b}[2J body"), "{out}");

    let out = ws.run(&["search", "file:pic"]);
    let out = stdout_of(&out);
    assert_inert(&out, false);
    assert!(out.contains("pic\\u{1b}[31mred.png"), "{out}");
}

#[test]
fn check_and_errors_show_escapes_too() {
    let ws = workspace();
    let out = ws.run(&["check"]);
    let text = stdout_of(&out);
    assert_inert(&text, false);
    assert!(text.contains("Plan \\u{1b}]0;pwned\\u{7}"), "{text}");
    assert!(text.contains("pic\\u{1b}[31mred.png"), "{text}");

    // A path typed (or pasted) with a sequence in it, in the one line of the error.
    let out = ws.run(&["show", "gone\u{1b}]0;x\u{7}\n.md"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_inert(&err, false);
    assert_eq!(
        err, "error: gone\\u{1b}]0;x\\u{7}\\n.md: note not found\n",
        "{err}"
    );

    // The note's own text is what `show` prints: raw, as stored.
    let out = ws.run(&["show", "a.md"]);
    assert!(stdout_of(&out).contains("zebracorn \u{1b}[2J body"));
}
