//! The lists of the web interface read at a glance: each note of the list shows its
//! title, one line with its date, path and tags, and the opening words of its body
//! (none for a note too large to read for a list); the trash shows each deleted note
//! under the title of its last text, with its path beside it.

use crate::support::{Workspace, note};
use crate::web_pages::page;

/// The `<li>` of the list that links to `path`.
fn item<'a>(html: &'a str, path: &str) -> &'a str {
    let link = format!("href=\"/note/{path}\"");
    let at = html
        .find(&link)
        .unwrap_or_else(|| panic!("{path} not listed: {html}"));
    let start = html[..at].rfind("<li>").unwrap();
    let end = at + html[at..].find("</li>").unwrap();
    &html[start..end]
}

#[test]
fn the_list_shows_one_line_of_facts_and_the_opening_words() {
    let ws = Workspace::new();
    ws.write(
        "garden/tulips.md",
        &note(
            "Tulips",
            &["garden", "spring"],
            "# Tulips\n\nPlant the **bulbs** in October, <b>pointy</b> end up.\n\n- water once\n",
        ),
    );
    // No front matter time: the file's time is shown.
    ws.write("plain.md", "Just words, no front matter.\n");
    let mut big = note("Big", &[], "Huge words. ");
    big.push_str(&"x ".repeat(40_000));
    ws.write("big.md", &big);
    let server = ws.serve();
    let (status, html) = page(server.get("/"));
    assert_eq!(status, 200);
    assert!(html.contains("<ol class=\"notes listing\">"), "{html}");

    let tulips = item(&html, "garden/tulips.md");
    let meta = tulips
        .split("<div class=\"meta\">")
        .nth(1)
        .and_then(|m| m.split("</div>").next())
        .expect("a line of facts");
    assert!(meta.contains("class=\"when\""), "{meta}");
    assert!(
        meta.contains("<span class=\"path\">garden/tulips.md</span>"),
        "{meta}"
    );
    for tag in ["garden", "spring"] {
        assert!(
            meta.contains(&format!("<a class=\"tag\" href=\"/?tag={tag}\">{tag}</a>")),
            "{meta}"
        );
    }
    // The opening words, as a reader sees them: no heading, no marks, HTML as text.
    assert!(
        tulips.contains(
            "<p class=\"excerpt\">Plant the bulbs in October, pointy end up. water once</p>"
        ),
        "{tulips}"
    );
    let plain = item(&html, "plain.md");
    assert!(plain.contains("class=\"when\""), "{plain}");
    assert!(plain.contains("Just words, no front matter."), "{plain}");
    // A note too large for the list shows no excerpt, but is listed.
    assert!(!item(&html, "big.md").contains("excerpt"));
}

#[test]
fn the_trash_shows_titles_with_their_paths() {
    let ws = Workspace::new();
    let server = ws.serve();
    // Written through the service, so the history holds their text.
    let packing = note("Packing list", &[], "- passport\n");
    for (path, text) in [
        ("trips/packing.md", packing.as_str()),
        ("untitled.md", "No front matter here.\n"),
    ] {
        assert!(
            server
                .put_markdown(&format!("/api/v1/notes/{path}"), text)
                .status()
                .is_success()
        );
    }
    for path in ["trips/packing.md", "untitled.md"] {
        let deleted = server
            .request("DELETE", &format!("/api/v1/notes/{path}"))
            .send()
            .unwrap();
        assert_eq!(deleted.status(), 200);
    }
    let (status, html) = page(server.get("/trash"));
    assert_eq!(status, 200);
    assert!(
        html.contains(
            "<div class=\"what\"><span class=\"title\">Packing list</span>\
             <span class=\"path\">trips/packing.md</span></div>"
        ),
        "{html}"
    );
    // No title in its text: the file name.
    assert!(
        html.contains(
            "<span class=\"title\">untitled</span><span class=\"path\">untitled.md</span>"
        ),
        "{html}"
    );
}
