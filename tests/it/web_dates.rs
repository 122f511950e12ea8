//! Notes whose front matter has no time (or no front matter at all) take their file's
//! modification time on the web list, in its order, and on the note page; the API's
//! JSON keeps the spec's empty `lastModified`.

use std::time::{Duration, SystemTime};

use crate::support::{Workspace, json, local_now};

fn set_modified(ws: &Workspace, rel: &str, ago: Duration) {
    std::fs::File::options()
        .write(true)
        .open(ws.notes().join(rel))
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
}

#[test]
fn notes_without_a_time_are_dated_and_ordered_by_their_files() {
    let ws = Workspace::new();
    ws.write("old.md", "An old note with no front matter.\n");
    ws.write("new.md", "---\ntitle: New\n---\nA recent one.\n");
    ws.write("mid.md", "A middle one.\n");
    set_modified(&ws, "old.md", Duration::from_secs(400 * 86_400));
    set_modified(&ws, "mid.md", Duration::from_secs(30 * 86_400));
    set_modified(&ws, "new.md", Duration::from_secs(60));
    let server = ws.serve();

    let page = server.get("/").text().unwrap();
    let at = |path: &str| {
        page.find(&format!("href=\"/note/{path}\""))
            .unwrap_or_else(|| panic!("{path} not listed: {page}"))
    };
    assert!(
        at("new.md") < at("mid.md") && at("mid.md") < at("old.md"),
        "{page}"
    );
    assert_eq!(page.matches("title=\"Last modified\"").count(), 3, "{page}");

    // In the server's time zone (the tests fix it).
    let year_ago = local_now() - chrono::Duration::days(400);
    let shown = year_ago.format("%-d %b %Y").to_string();
    assert!(page.contains(&shown), "{shown} not in {page}");
    let note = server.get("/note/old.md").text().unwrap();
    assert!(note.contains("<dt>Modified</dt>"), "{note}");
    assert!(note.contains(&shown), "{note}");

    let (_, list) = json(server.get("/api/v1/notes"));
    for note in list["notes"].as_array().unwrap() {
        assert_eq!(note["lastModified"], "", "{note}");
    }
}
