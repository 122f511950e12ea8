//! Attachments on the command line: `notes attach` copies files beside a note
//! byte-exact and appends their links (numbering a name taken by another file, reusing
//! an identical one), `notes files` lists them, `notes check` reports the attachments
//! nothing references and the references to missing files; errors name the note or
//! file and write nothing.

use serde_json::{Value, json as j};

use crate::support::{Workspace, stderr, stdout};

/// `len` bytes that are not text.
fn binary(len: usize) -> Vec<u8> {
    (0..len).map(|i| ((i * 13 + i / 97) % 256) as u8).collect()
}

/// Writes a file outside the notes folder (where `attach` copies from).
fn outside(ws: &Workspace, name: &str, bytes: &[u8]) -> String {
    let dir = ws.root.path().join("incoming");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.display().to_string()
}

#[test]
fn attach_copies_byte_exact_and_appends_the_links() {
    let ws = Workspace::new();
    ws.write(
        "trips/rome.md",
        "---\ntitle: Rome\ntags: [travel]\nmood: sunny\n---\n# Rome\n\nDay one.\n",
    );
    let photo = binary(300_000);
    let photo_src = outside(&ws, "forum.jpg", &photo);
    let pdf_src = outside(&ws, "tickets (2).pdf", b"%PDF-1.7 tickets");
    let out = ws.run(&["attach", "trips/rome.md", &photo_src, &pdf_src]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "trips/forum.jpg  copied from {photo_src}\n\
             trips/tickets (2).pdf  copied from {pdf_src}\n\
             2 links appended to trips/rome.md\n"
        )
    );
    assert_eq!(
        std::fs::read(ws.notes().join("trips/forum.jpg")).unwrap(),
        photo
    );
    assert_eq!(
        std::fs::read(ws.notes().join("trips/tickets (2).pdf")).unwrap(),
        b"%PDF-1.7 tickets"
    );
    let text = ws.read("trips/rome.md");
    // The front matter keeps its text; the note had no last_modified, so none is added.
    assert!(
        text.starts_with("---\ntitle: Rome\ntags: [travel]\nmood: sunny\n---\n"),
        "front matter kept: {text}"
    );
    assert!(
        text.ends_with(
            "# Rome\n\nDay one.\n\n![forum.jpg](forum.jpg)\n\
             [tickets (2).pdf](tickets%20%282%29.pdf)\n"
        ),
        "{text}"
    );
    // The links are the note's: `check` finds both files.
    let body: Value = serde_json::from_slice(&ws.run(&["check", "--json"]).stdout).unwrap();
    assert_eq!(body["missingFiles"], j!([]), "{body}");
    assert_eq!(body["orphanFiles"], j!([]), "{body}");
}

#[test]
fn a_taken_name_is_numbered_and_an_identical_file_is_reused() {
    let ws = Workspace::new();
    ws.write("note.md", "# Note\n");
    std::fs::write(ws.notes().join("diagram.png"), b"someone else's diagram").unwrap();
    let ours = outside(&ws, "diagram.png", b"\x89PNG our diagram");
    let out = ws.run(&["attach", "note.md", &ours, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        body,
        j!({
            "note": "note.md",
            "attached": [{"path": "diagram-2.png", "source": ours, "reused": false}],
        })
    );
    assert_eq!(
        std::fs::read(ws.notes().join("diagram.png")).unwrap(),
        b"someone else's diagram",
        "never overwritten"
    );
    assert_eq!(
        std::fs::read(ws.notes().join("diagram-2.png")).unwrap(),
        b"\x89PNG our diagram"
    );
    // The same bytes again: linked, not copied a third time.
    let out = ws.run(&["attach", "note.md", &ours, "--json"]);
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["attached"][0]["path"], "diagram-2.png");
    assert_eq!(body["attached"][0]["reused"], true);
    assert!(!ws.notes().join("diagram-3.png").exists());
    // Different bytes under that name: the next number.
    let other = outside(&ws, "diagram.png", b"\x89PNG a third one");
    let body: Value =
        serde_json::from_slice(&ws.run(&["attach", "note.md", &other, "--json"]).stdout).unwrap();
    assert_eq!(body["attached"][0]["path"], "diagram-3.png");
    let text = ws.read("note.md");
    assert!(
        text.ends_with(
            "# Note\n\n![diagram-2.png](diagram-2.png)\n\n![diagram-2.png](diagram-2.png)\n\n\
             ![diagram-3.png](diagram-3.png)\n"
        ),
        "{text}"
    );
}

#[test]
fn a_missing_note_or_file_is_named_and_nothing_is_written() {
    let ws = Workspace::new();
    ws.write("note.md", "# Note\n");
    let good = outside(&ws, "good.png", b"png");
    let before = ws.snapshot();

    let out = ws.run(&["attach", "gone.md", &good]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: gone.md: note not found\n");
    assert_eq!(ws.snapshot(), before);

    let missing = ws
        .root
        .path()
        .join("incoming/nope.pdf")
        .display()
        .to_string();
    let out = ws.run(&["attach", "note.md", &good, &missing]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("error: {missing}: cannot read: ")),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(ws.snapshot(), before);

    let note_src = outside(&ws, "other.md", b"# not an attachment");
    let out = ws.run(&["attach", "note.md", &note_src]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(
        err,
        format!(
            "error: {note_src}: is a note (.md), not an attachment (`notes put` stores notes)\n"
        )
    );
    assert_eq!(
        ws.snapshot().len(),
        before.len() + 1,
        "only the source was added"
    );

    let out = ws.run(&["attach", "../x.md", &good]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: ../x.md: invalid path\n");
    // No file at all is a usage error.
    assert_eq!(ws.run(&["attach", "note.md"]).status.code(), Some(2));
}

#[test]
fn files_lists_attachments_sorted_with_size_time_and_type() {
    let ws = Workspace::new();
    ws.write("a.md", "# A\n");
    ws.write("z.md", "# Z\n");
    std::fs::create_dir_all(ws.notes().join("img/sub")).unwrap();
    std::fs::write(ws.notes().join("img/b.png"), binary(2048)).unwrap();
    std::fs::write(ws.notes().join("img/sub/a.svg"), b"<svg/>").unwrap();
    std::fs::write(ws.notes().join("report.pdf"), b"%PDF").unwrap();
    std::fs::write(ws.notes().join(".hidden.png"), b"x").unwrap();

    let out = ws.run(&["files", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = body["files"].as_array().unwrap();
    let rows: Vec<(&str, u64, &str)> = files
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap(),
                f["size"].as_u64().unwrap(),
                f["contentType"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("img/b.png", 2048, "image/png"),
            ("img/sub/a.svg", 6, "image/svg+xml"),
            ("report.pdf", 4, "application/pdf"),
        ]
    );
    for file in files {
        let keys: Vec<_> = file.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["path", "size", "lastModified", "contentType"]);
        assert!(file["lastModified"].as_str().unwrap().ends_with('Z'));
    }

    // Under a folder; not a terminal: one tab-separated line each.
    let out = ws.run(&["files", "img"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0][0], "img/b.png");
    assert_eq!(lines[0][1], "2048");
    assert_eq!(lines[0][3], "image/png");
    assert_eq!(lines[1][0], "img/sub/a.svg");

    // A folder that is not there holds none; one that leads out is refused, named.
    let body: Value =
        serde_json::from_slice(&ws.run(&["files", "nothing", "--json"]).stdout).unwrap();
    assert_eq!(body, j!({"files": []}));
    let out = ws.run(&["files", "../elsewhere"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: ../elsewhere: invalid path\n");
}

#[test]
fn check_reports_orphan_attachments_and_missing_images() {
    let ws = Workspace::new();
    ws.write(
        "trips/rome.md",
        "# Rome\n\n![forum](forum.jpg)\n![[gone.png]]\n[map](../maps/rome.pdf)\n",
    );
    ws.write("index.md", "[[trips/rome]]\n");
    std::fs::create_dir_all(ws.notes().join("maps")).unwrap();
    std::fs::write(ws.notes().join("trips/forum.jpg"), b"jpg").unwrap();
    std::fs::write(ws.notes().join("maps/rome.pdf"), b"%PDF").unwrap();
    std::fs::write(ws.notes().join("maps/unused.png"), b"12345").unwrap();

    let out = ws.run(&["check"]);
    assert_eq!(out.status.code(), Some(1), "a missing file is a problem");
    assert_eq!(
        stdout(&out),
        "No broken links.\nNotes nothing links to (1):\n  index.md  index\n\
         Missing files (1):\n  trips/rome.md:4  gone.png\n\
         Attachments nothing links to (1):\n  maps/unused.png  5 bytes\n"
    );
    let out = ws.run(&["check", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        body,
        j!({
            "broken": [],
            "orphans": [{"path": "index.md", "title": "index"}],
            "missingFiles": [
                {"path": "trips/rome.md", "line": 4, "target": "gone.png", "file": "trips/gone.png"},
            ],
            "orphanFiles": [{"path": "maps/unused.png", "size": 5}],
        })
    );

    // The image put back: no problem left (an orphan attachment alone is no failure).
    std::fs::write(ws.notes().join("trips/gone.png"), b"png").unwrap();
    let out = ws.run(&["check"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(
        stdout(&out).ends_with("Attachments nothing links to (1):\n  maps/unused.png  5 bytes\n"),
        "{}",
        stdout(&out)
    );
}
