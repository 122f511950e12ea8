//! A save refused because the note changed after the editor opened it: the text is
//! kept and the save answers 303 to `/edit/<path>?conflict=<id>`, a GET page (reloading
//! it changes nothing) with the text in the editor, a diff from the current version to
//! it, a link to the current version, and the current version's entity tag, so saving
//! from there writes the text over the current version on purpose. A conflict id that
//! is not kept shows the current version and says so.

use crate::support::{Workspace, json};
use crate::web_pages::{location, page, same_site_post};

fn etag(server: &crate::support::Server, path: &str) -> String {
    let response = server.get(&format!("/api/v1/notes/{path}"));
    let etag = response.headers()["etag"].to_str().unwrap().to_string();
    let _ = json(response);
    etag
}

/// The `value` of the hidden input `name` of a page.
fn hidden(html: &str, name: &str) -> String {
    let mark = format!("name=\"{name}\" value=\"");
    let start = html
        .find(&mark)
        .unwrap_or_else(|| panic!("no {name}: {html}"))
        + mark.len();
    html[start..]
        .split('"')
        .next()
        .unwrap()
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

#[test]
fn a_conflicting_save_keeps_the_text_shows_the_diff_and_saves_over_on_purpose() {
    let ws = Workspace::new();
    ws.write(
        "plans/trip.md",
        "---\ntitle: Trip\n---\nDay one: Lyon.\nDay two: Annecy.\n",
    );
    let server = ws.serve();
    let opened = etag(&server, "plans/trip.md");
    // Meanwhile, elsewhere: day two changes.
    ws.write(
        "plans/trip.md",
        "---\ntitle: Trip\n---\nDay one: Lyon.\nDay two: Geneva.\n",
    );
    let before = ws.snapshot();
    let mine = "Day one: Lyon.\nDay two: Annecy.\nDay three: <b>Chamonix</b>.\n";
    let refused = same_site_post(
        &server,
        "/save",
        &[
            ("mode", "edit"),
            ("path", "plans/trip.md"),
            ("title", "Trip"),
            ("tags", "travel"),
            ("body", mine),
            ("etag", &opened),
        ],
    );
    assert_eq!(refused.status(), 303);
    let url = location(&refused);
    assert!(url.starts_with("/edit/plans/trip.md?conflict="), "{url}");
    assert_eq!(ws.snapshot(), before, "a refused save writes nothing");

    // The page, twice: reloading it is harmless.
    let (status, shown) = page(server.get(&url));
    assert_eq!(status, 200, "{shown}");
    let (again_status, again) = page(server.get(&url));
    assert_eq!((again_status, &again), (200, &shown));
    assert_eq!(ws.snapshot(), before);
    assert!(shown.contains("changed elsewhere"), "{shown}");
    // The text, escaped, in the editor; the tags as typed.
    assert!(
        shown.contains("Day three: &lt;b&gt;Chamonix&lt;/b&gt;."),
        "{shown}"
    );
    assert!(shown.contains("name=\"tags\" value=\"travel\""), "{shown}");
    // The diff from the current version to the text.
    assert!(shown.contains("<table class=\"diff\">"), "{shown}");
    assert!(
        shown.contains("<del>Day two: Geneva.</del>")
            && shown.contains("<ins>Day two: Annecy.</ins>"),
        "{shown}"
    );
    assert!(shown.contains("<ins>Day three: &lt;b&gt;Chamonix&lt;/b&gt;.</ins>"));
    // The current version, a click away; the editor saves over it.
    assert!(shown.contains("href=\"/note/plans/trip.md\""), "{shown}");
    assert!(shown.contains("Save over the current version"), "{shown}");
    let current = etag(&server, "plans/trip.md");
    assert_ne!(current, opened);
    assert_eq!(hidden(&shown, "etag"), current);
    assert!(shown.contains("data-unsaved"), "the text is not saved yet");

    let saved = same_site_post(
        &server,
        "/save",
        &[
            ("mode", "edit"),
            ("path", "plans/trip.md"),
            ("title", "Trip"),
            ("tags", "travel"),
            ("body", mine),
            ("etag", &hidden(&shown, "etag")),
            ("conflict", &hidden(&shown, "conflict")),
        ],
    );
    assert_eq!(saved.status(), 303);
    assert_eq!(location(&saved), "/note/plans/trip.md?done=saved");
    let text = ws.read("plans/trip.md");
    assert!(text.ends_with(mine), "{text}");
    assert!(
        text.contains("tags:\n- travel") || text.contains("tags: [travel]"),
        "{text}"
    );

    // Once saved, the kept text is gone: the id shows the current version, and says so.
    let (status, later) = page(server.get(&url));
    assert_eq!(status, 200);
    assert!(later.contains("no longer kept"), "{later}");
    assert!(!later.contains("<table class=\"diff\">"), "{later}");
    assert_eq!(hidden(&later, "etag"), etag(&server, "plans/trip.md"));
}

#[test]
fn a_conflict_id_is_only_for_its_own_note() {
    let ws = Workspace::new();
    ws.write("a.md", "---\ntitle: A\n---\nfirst\n");
    ws.write("b.md", "---\ntitle: B\n---\nbee\n");
    let server = ws.serve();
    let opened = etag(&server, "a.md");
    ws.write("a.md", "---\ntitle: A\n---\nsecond\n");
    let refused = same_site_post(
        &server,
        "/save",
        &[
            ("mode", "edit"),
            ("path", "a.md"),
            ("title", "A"),
            ("body", "my secret words"),
            ("etag", &opened),
        ],
    );
    let url = location(&refused);
    let id = url.split("conflict=").nth(1).unwrap();
    let (status, other) = page(server.get(&format!("/edit/b.md?conflict={id}")));
    assert_eq!(status, 200);
    assert!(!other.contains("my secret words"), "{other}");
    assert!(other.contains("no longer kept"), "{other}");
    let (_, guessed) = page(server.get("/edit/a.md?conflict=0123456789abcdef"));
    assert!(!guessed.contains("my secret words"), "{guessed}");
}
