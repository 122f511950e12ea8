//! Obsidian-flavoured Markdown through the real binary: `==highlights==` are marks and
//! `%%comments%%` are hidden on the web note page, in the editor's preview and on the public page of a published
//! note, and the search index does not hold their words.

use std::time::Duration;

use crate::support::{Workspace, body_of_type, eventually, note, search_paths};

const BODY: &str = "Visible walrus here %%inline zebracomment%% and on.\n\n\
                    %%\nblock quokkasecret line\n\n## Hidden heading\n%%\n\nClosing ==shiny== line.\n";

#[test]
fn highlights_are_marks_and_comments_are_hidden_everywhere_and_not_searchable() {
    let ws = Workspace::new();
    ws.write("obs.md", &note("Obs", &[], BODY));
    let server = ws.serve();

    let (status, page) = body_of_type(server.get("/note/obs.md"), "text/html; charset=utf-8");
    assert_eq!(status, 200);
    assert!(page.contains("Visible walrus here"), "{page}");
    assert!(page.contains("Closing <mark>shiny</mark> line."), "{page}");
    for hidden in ["zebracomment", "quokkasecret", "Hidden heading", "%%"] {
        assert!(!page.contains(hidden), "{hidden} shown: {page}");
    }

    let form = serde_urlencoded::to_string([("title", "Obs"), ("body", BODY), ("path", "obs.md")])
        .unwrap();
    let preview = server.post_form("/preview", &form);
    assert_eq!(preview.status(), 200);
    let fragment = preview.text().unwrap();
    assert!(fragment.contains("Visible walrus here"), "{fragment}");
    for hidden in ["zebracomment", "quokkasecret", "Hidden heading", "%%"] {
        assert!(
            !fragment.contains(hidden),
            "{hidden} in preview: {fragment}"
        );
    }

    server.toggle("obs.md");
    let (status, public) = body_of_type(server.get("/public/obs.html"), "text/html; charset=utf-8");
    assert_eq!(status, 200);
    assert!(public.contains("Visible walrus here"), "{public}");
    assert!(public.contains("<mark>shiny</mark>"), "{public}");
    for hidden in ["zebracomment", "quokkasecret", "Hidden heading", "%%"] {
        assert!(
            !public.contains(hidden),
            "{hidden} on public page: {public}"
        );
    }

    // Once the note is indexed (its visible words found), the hidden ones are not.
    assert!(eventually(Duration::from_secs(20), || {
        search_paths(&server, "walrus") == ["obs.md"]
    }));
    assert!(search_paths(&server, "zebracomment").is_empty());
    assert!(search_paths(&server, "quokkasecret").is_empty());
}
