//! Notes named on the command line as people type them: without `.md`, a move into a
//! folder, and a hint when a name is not found (the notes folder's own name in front,
//! or a near miss).

use crate::support::{Workspace, stderr, stdout};

#[test]
fn names_without_md_folders_as_destinations_and_hints() {
    let ws = Workspace::new();
    ws.write("courses.md", "# Courses\n");
    ws.write("school/physics.md", "# Physics\n");

    let out = ws.run(&["show", "courses"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "# Courses\n");

    // The notes folder's name in front of a path.
    let out = ws.run(&["show", "notes/courses.md"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("note not found") && err.contains("`courses.md`"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");

    // A near miss, and nothing close.
    let err = stderr(&ws.run(&["show", "school/phyiscs.md"]));
    assert!(err.contains("did you mean `school/physics.md`?"), "{err}");
    let err = stderr(&ws.run(&["rm", "physics"]));
    assert!(err.contains("did you mean `school/physics.md`?"), "{err}");
    let err = stderr(&ws.run(&["show", "zzzzzzzz"]));
    assert_eq!(err.trim_end(), "error: zzzzzzzz: note not found");

    // A move into a folder keeps the name, with or without the closing `/`.
    let out = ws.run(&["mv", "courses", "archive/"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(ws.notes().join("archive/courses.md").is_file());
    let out = ws.run(&["mv", "archive/courses.md", "school"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(ws.notes().join("school/courses.md").is_file());
    assert!(!ws.notes().join("archive").exists());
}
