//! Search over HTTP: the background index follows PUT, DELETE, bursts and files
//! edited on disk; ranking, accents, query syntax, errors; a broken index is logged
//! and the service keeps answering.

use std::time::Duration;

use crate::support::{Workspace, assert_error, eventually, json, note, search_paths};

const WAIT: Duration = Duration::from_secs(10);

#[test]
fn put_becomes_searchable_and_delete_disappears() {
    let ws = Workspace::new();
    let server = ws.serve();
    let resp = server.put_markdown(
        "/api/v1/notes/ideas/zebra.md",
        &note("Zebra crossing", &[], "Stripes everywhere."),
    );
    assert_eq!(resp.status(), 201);
    assert!(eventually(WAIT, || search_paths(&server, "stripes")
        == ["ideas/zebra.md"]));

    let (status, body) = json(server.get("/api/v1/search?q=stripes"));
    assert_eq!(status, 200);
    assert_eq!(body["query"], "stripes");
    assert_eq!(body["total"], 1);
    let hit = &body["results"][0];
    assert_eq!(hit["title"], "Zebra crossing");
    assert_eq!(hit["tags"], serde_json::json!([]));
    assert!(hit["score"].as_f64().unwrap() > 0.0);
    assert_eq!(hit["snippet"], "⟦Stripes⟧ everywhere.");
    let keys: Vec<_> = body.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["query", "results", "total"]);

    let resp = server
        .request("DELETE", "/api/v1/notes/ideas/zebra.md")
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
    // Never returned once deleted, even before the index commits.
    assert!(search_paths(&server, "stripes").is_empty());
    assert!(eventually(WAIT, || {
        let (_, body) = json(server.get("/api/v1/search?q=stripes"));
        body["total"] == 0
    }));
}

#[test]
fn a_burst_of_puts_ends_with_every_note_searchable() {
    let ws = Workspace::new();
    let server = ws.serve();
    for i in 0..200 {
        let resp = server.put_markdown(
            &format!("/api/v1/notes/burst/n{i:03}.md"),
            &note(
                &format!("Burst {i}"),
                &["burst"],
                &format!("marker{i:03} common"),
            ),
        );
        assert!(resp.status().is_success());
    }
    assert!(eventually(WAIT, || {
        let (_, body) = json(server.get("/api/v1/search?q=tag:burst&limit=1"));
        body["total"] == 200
    }));
    for i in [0, 57, 123, 199] {
        assert_eq!(
            search_paths(&server, &format!("marker{i:03} ")),
            [format!("burst/n{i:03}.md")]
        );
    }
}

#[test]
fn ranking_accents_and_query_syntax() {
    let ws = Workspace::new();
    ws.write(
        "body.md",
        &note(
            "Something else",
            &[],
            "A long text that mentions the harbour once, among many other words.",
        ),
    );
    ws.write("title.md", &note("Harbour", &[], "Boats."));
    ws.write(
        "tagged.md",
        &note(
            "Boats again",
            &["harbour"],
            "Nothing relevant in this body at all.",
        ),
    );
    ws.write(
        "fr/ete.md",
        &note(
            "Été à Paris",
            &["Voyage"],
            "Il faisait très chaud au musée d'Orsay.",
        ),
    );
    ws.write(
        "phrase.md",
        &note(
            "Phrases",
            &["draft"],
            "the quick brown fox; brown quick order",
        ),
    );
    let server = ws.serve();
    // Catch-up at start indexes what is already on disk.
    assert!(eventually(WAIT, || search_paths(&server, "harbour ").len() == 3));

    let ranked = search_paths(&server, "harbour ");
    assert_eq!(ranked.last().unwrap(), "body.md", "{ranked:?}");
    assert!(ranked[..2].contains(&"title.md".to_string()), "{ranked:?}");

    assert_eq!(search_paths(&server, "ete "), ["fr/ete.md"]);
    assert_eq!(search_paths(&server, "MUSEE"), ["fr/ete.md"]);
    assert_eq!(search_paths(&server, "tag:voyage"), ["fr/ete.md"]);
    assert_eq!(search_paths(&server, "tag:VOYAGE chaud"), ["fr/ete.md"]);
    assert!(search_paths(&server, "tag:voyage harbour").is_empty());

    assert_eq!(search_paths(&server, "\"quick brown\""), ["phrase.md"]);
    assert!(search_paths(&server, "\"brown fox quick\"").is_empty());
    // The last word is a prefix while typing; not once followed by a space.
    assert_eq!(search_paths(&server, "Orsa"), ["fr/ete.md"]);
    assert!(search_paths(&server, "orsa ").is_empty());
    let boats = search_paths(&server, "boats -again");
    assert_eq!(boats, ["title.md"]);

    let (_, body) = json(server.get("/api/v1/search?q=chaud"));
    assert_eq!(
        body["results"][0]["snippet"],
        "Il faisait très ⟦chaud⟧ au musée d'Orsay."
    );
    let (_, body) = json(server.get("/api/v1/search?q=harbour&limit=1"));
    assert_eq!(body["results"].as_array().unwrap().len(), 1);
    assert_eq!(body["total"], 3);
}

#[test]
fn bad_queries_get_400_and_other_methods_405() {
    let ws = Workspace::new();
    let server = ws.serve();
    assert_error(
        server.get("/api/v1/search"),
        400,
        "Invalid search query: the query is empty (use ?q=words)",
    );
    assert_error(
        server.get("/api/v1/search?q=%20"),
        400,
        "Invalid search query: the query is empty (use ?q=words)",
    );
    assert_error(
        server.get("/api/v1/search?q=%22open"),
        400,
        "Invalid search query: a quote is not closed",
    );
    assert_error(
        server.get("/api/v1/search?q=tag:"),
        400,
        "Invalid search query: tag: needs a tag name",
    );
    assert_error(
        server.get("/api/v1/search?q=x&limit=0"),
        400,
        "Invalid limit: \"0\" (use a whole number from 1 to 100)",
    );
    assert_error(
        server.get("/api/v1/search?q=x&limit=lots"),
        400,
        "Invalid limit: \"lots\" (use a whole number from 1 to 100)",
    );
    assert_error(
        server.request("POST", "/api/v1/search?q=x").send().unwrap(),
        405,
        "Method not allowed",
    );
    assert_error(server.get("/api/v1/search/more"), 404, "Not found");
}

#[test]
fn files_written_on_disk_while_serving_become_searchable() {
    let ws = Workspace::new();
    let server = ws.serve();
    // Let the watcher start before writing.
    assert!(eventually(WAIT, || search_paths(&server, "nothing").is_empty()));
    ws.write(
        "outside/editor.md",
        &note("Edited elsewhere", &[], "Saved by a text editor: quokka."),
    );
    assert!(eventually(WAIT, || search_paths(&server, "quokka")
        == ["outside/editor.md"]));
    std::fs::remove_file(ws.notes().join("outside/editor.md")).unwrap();
    assert!(eventually(WAIT, || {
        let (_, body) = json(server.get("/api/v1/search?q=quokka"));
        body["total"] == 0
    }));
    // A whole folder moved in (as a `git pull` or `mv` does).
    let staging = ws.root.path().join("staging");
    std::fs::create_dir_all(&staging).unwrap();
    std::fs::write(staging.join("moved.md"), note("Moved in", &[], "wombat")).unwrap();
    std::fs::rename(&staging, ws.notes().join("moved")).unwrap();
    assert!(eventually(WAIT, || search_paths(&server, "wombat")
        == ["moved/moved.md"]));
}

#[test]
fn a_failing_index_is_logged_and_the_service_keeps_answering() {
    let ws = Workspace::new();
    let server = ws.serve();
    server.put_markdown("/api/v1/notes/first.md", "alpha");
    assert!(eventually(WAIT, || search_paths(&server, "alpha") == ["first.md"]));
    // Replace the index folder by a file: every write to it now fails.
    let index = ws.notes().join(".notes/index");
    std::fs::remove_dir_all(&index).unwrap();
    std::fs::write(&index, "not an index").unwrap();

    let resp = server.put_markdown("/api/v1/notes/second.md", "beta");
    assert_eq!(resp.status(), 201);
    assert!(
        eventually(WAIT, || server
            .log()
            .contains("search: index update failed")),
        "{}",
        server.log()
    );
    let log = server.log();
    let line = log
        .lines()
        .find(|l| l.contains("index update failed"))
        .unwrap();
    assert!(line.contains("ERROR"), "{line}");
    assert!(line.contains(".notes/index"), "the cause is logged: {line}");

    // The API keeps answering: notes, and search with what the index held.
    let (status, list) = json(server.get("/api/v1/notes"));
    assert_eq!(status, 200);
    assert_eq!(list["total"], 2);
    let resp = server.put_markdown("/api/v1/notes/third.md", "gamma");
    assert_eq!(resp.status(), 201);
    let (status, _) = json(server.get("/api/v1/search?q=alpha"));
    assert!(status == 200 || status == 500, "{status}");

    // Once the folder can be written again, the indexer recovers by itself.
    std::fs::remove_file(&index).unwrap();
    assert!(
        eventually(Duration::from_secs(20), || {
            let (status, _) = json(server.get("/api/v1/search?q=gamma"));
            status == 200 && search_paths(&server, "gamma") == ["third.md"]
        }),
        "{}",
        server.log()
    );
    assert_eq!(search_paths(&server, "beta"), ["second.md"]);
}

/// The damaged indexes the server moved aside.
fn moved_aside(ws: &Workspace) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(ws.notes().join(".notes"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("index.broken-"))
        .map(|e| e.path())
        .collect()
}

/// Overwrites `meta.json` and every segment file of the index with garbage of the same
/// length (a shorter file would fault the server's mappings, which no check can catch).
pub(crate) fn damage_index(ws: &Workspace) {
    let index = ws.notes().join(".notes/index");
    for entry in std::fs::read_dir(&index).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".tantivy") {
            continue;
        }
        let len = entry.metadata().unwrap().len() as usize;
        let garbage: Vec<u8> = (0..len).map(|i| (i * 7 + 13) as u8).collect();
        std::fs::write(entry.path(), garbage).unwrap();
    }
}

/// A 503 ErrorResponse saying the index is being rebuilt, with `Retry-After`.
fn assert_rebuilding(response: reqwest::blocking::Response) {
    let retry = response
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    assert_eq!(retry.as_deref(), Some("5"));
    assert_error(
        response,
        503,
        "Search is unavailable for a moment: the index is being rebuilt from the notes",
    );
}

fn search_total(server: &crate::support::Server, query: &str) -> (u16, serde_json::Value) {
    json(server.get(&format!("/api/v1/search?q={query}&limit=100")))
}

#[test]
fn a_damaged_index_found_at_start_is_moved_aside_and_rebuilt() {
    let ws = Workspace::new();
    for i in 0..30 {
        ws.write(
            &format!("n{i:02}.md"),
            &note(
                &format!("Note {i}"),
                &["kiwi"],
                &format!("fruit{i} orchard"),
            ),
        );
    }
    assert!(ws.run(&["reindex"]).status.success());
    damage_index(&ws);
    // Another process holds the index's writer (as a `notes reindex` would): the server
    // cannot move the index aside yet, so it stays "being rebuilt" for as long as this
    // lock is held.
    let dir = tantivy::directory::MmapDirectory::open(ws.notes().join(".notes/index")).unwrap();
    let lock =
        tantivy::directory::Directory::acquire_lock(&dir, &tantivy::directory::INDEX_WRITER_LOCK)
            .unwrap();
    let server = ws.serve();
    assert_rebuilding(server.get("/api/v1/search?q=orchard"));
    let page = server.get("/search?q=orchard");
    assert_eq!(page.status(), 503);
    assert_eq!(page.headers()["retry-after"], "5");
    assert!(page.text().unwrap().contains("the index is being rebuilt"));
    // Notes are served meanwhile.
    let (status, list) = json(server.get("/api/v1/notes"));
    assert_eq!((status, list["total"].as_u64()), (200, Some(30)));

    drop(lock);
    assert!(
        eventually(Duration::from_secs(20), || {
            let (status, body) = search_total(&server, "orchard");
            assert!(status == 200 || status == 503, "{status} {body}");
            status == 200 && body["total"] == 30
        }),
        "{}",
        server.log()
    );
    assert_eq!(search_paths(&server, "fruit7"), ["n07.md"]);
    assert_eq!(moved_aside(&ws).len(), 1, "{}", server.log());
    let log = server.log();
    assert_eq!(
        log.matches("the index is damaged").count(),
        1,
        "one line says so: {log}"
    );
}

#[test]
fn an_index_damaged_while_serving_is_rebuilt_without_a_restart() {
    let ws = Workspace::new();
    for i in 0..20 {
        ws.write(
            &format!("n{i:02}.md"),
            &note(&format!("Note {i}"), &[], &format!("berry{i} hedge")),
        );
    }
    let server = ws.serve();
    assert!(eventually(
        WAIT,
        || search_total(&server, "hedge").1["total"] == 20
    ));
    // An older damaged index was kept aside: only one is kept.
    std::fs::create_dir_all(ws.notes().join(".notes/index.broken-1")).unwrap();
    damage_index(&ws);

    let mut seen = Vec::new();
    assert!(
        eventually(Duration::from_secs(20), || {
            let (status, body) = search_total(&server, "hedge");
            seen.push(status);
            if status == 503 {
                assert_eq!(body["code"], 503, "{body}");
            } else {
                assert_eq!(status, 200, "{body}");
            }
            status == 200 && body["total"] == 20 && !moved_aside(&ws).is_empty()
        }),
        "{seen:?}\n{}",
        server.log()
    );
    assert!(seen.contains(&503), "{seen:?}");
    assert_eq!(search_paths(&server, "berry3"), ["n03.md"]);
    let kept = moved_aside(&ws);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(!kept[0].ends_with("index.broken-1"));
    // Writes keep being indexed by the new index.
    let resp = server.put_markdown("/api/v1/notes/late.md", "a late quince");
    assert_eq!(resp.status(), 201);
    assert!(eventually(WAIT, || search_paths(&server, "quince") == ["late.md"]));
}

#[test]
fn snippets_show_text_and_link_targets_are_not_words() {
    let ws = Workspace::new();
    ws.write(
        "tokio.md",
        &note(
            "Tokio runtime",
            &["rust"],
            "# Tokio\n\nSee [the scheduler guide](https://example.org/internals/wombat.html) \
             and ![diagram of the scheduler](img/kangaroo.png).\n\n- **fast**\n- small\n",
        ),
    );
    let server = ws.serve();
    assert!(eventually(WAIT, || search_paths(&server, "tokio") == ["tokio.md"]));

    let (_, body) = json(server.get("/api/v1/search?q=scheduler"));
    let hit = &body["results"][0];
    assert_eq!(
        hit["snippet"],
        "Tokio See the ⟦scheduler⟧ guide and diagram of the ⟦scheduler⟧. fast small"
    );
    // Link and image targets are not words of the note; alt text is.
    for hidden in ["wombat", "kangaroo", "example", "internals", "png", "https"] {
        assert!(
            search_paths(&server, &format!("{hidden} ")).is_empty(),
            "{hidden}"
        );
    }
    assert_eq!(search_paths(&server, "diagram "), ["tokio.md"]);

    // The title's matches are marked in a field of their own; `title` stays plain.
    let (_, body) = json(server.get("/api/v1/search?q=tokio"));
    let hit = &body["results"][0];
    assert_eq!(hit["title"], "Tokio runtime");
    assert_eq!(hit["highlightedTitle"], "⟦Tokio⟧ runtime");
    assert_eq!(
        hit["snippet"],
        "⟦Tokio⟧ See the scheduler guide and diagram of the scheduler. fast small"
    );
    // A typed prefix is marked in the title too, and a title without a match is left as is.
    let (_, body) = json(server.get("/api/v1/search?q=runt"));
    assert_eq!(body["results"][0]["highlightedTitle"], "Tokio ⟦runtime⟧");
    let (_, body) = json(server.get("/api/v1/search?q=tag:rust"));
    assert_eq!(body["results"][0]["highlightedTitle"], "Tokio runtime");
    let keys: Vec<_> = hit.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "path",
            "title",
            "tags",
            "score",
            "snippet",
            "highlightedTitle"
        ]
    );

    // The web page marks the title's matches as well.
    let page = server.get("/search?q=tokio").text().unwrap();
    assert!(page.contains("<mark>Tokio</mark> runtime</a>"), "{page}");
}
