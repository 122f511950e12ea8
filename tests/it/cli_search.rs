//! `notes reindex` and `notes search`, offline.

use crate::support::{Workspace, stderr, stdout};

#[test]
fn reindex_then_search_offline() {
    let ws = Workspace::new();
    ws.write(
        "a.md",
        "---\ntitle: Café crème\ntags: [food]\n---\n\nUn café le matin.\n",
    );
    ws.write(
        "sub/b.md",
        "---\ntitle: Tea\n---\n\nNo coffee here, only cafe au lait.\n",
    );
    ws.write("sub/c.md", "no front matter at all\n");
    let out = ws.run(&["reindex"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let line = stdout(&out);
    assert!(line.starts_with("indexed 3 notes in "), "{line}");
    assert!(
        line.ends_with(" s\n") && line.lines().count() == 1,
        "{line}"
    );
    assert_eq!(
        stderr(&out),
        "",
        "no progress bar when stderr is not a terminal"
    );
    assert!(ws.notes().join(".notes/index/meta.json").is_file());

    let out = ws.run(&["search", "cafe"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("a.md") && first.contains("Café crème") && first.contains("#food"),
        "{text}"
    );
    assert!(text.contains("⟦café⟧"), "{text}");
    assert!(text.contains("sub/b.md"), "{text}");
    assert!(text.ends_with("2 notes found\n"), "{text}");

    let out = ws.run(&["search", "cafe", "--limit", "1", "--json"]);
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["query"], "cafe");
    assert_eq!(body["total"], 2);
    assert_eq!(body["results"].as_array().unwrap().len(), 1);
    assert_eq!(body["results"][0]["path"], "a.md");

    let out = ws.run(&["search", "nothing-like-this"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "no note matches \"nothing-like-this\"\n");
}

#[test]
fn search_builds_and_refreshes_the_index_by_itself() {
    let ws = Workspace::new();
    ws.write("x.md", "platypus");
    let out = ws.run(&["search", "platypus", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["results"][0]["path"], "x.md");
    // Edited and deleted since: the next search sees it.
    ws.write("y.md", "platypus again");
    std::fs::remove_file(ws.notes().join("x.md")).unwrap();
    let out = ws.run(&["search", "platypus", "--json"]);
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["total"], 1);
    assert_eq!(body["results"][0]["path"], "y.md");
}

#[test]
fn failures_exit_1_with_one_line() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.notes().join(".notes")).unwrap();
    std::fs::write(ws.notes().join(".notes/index"), "a file, not a folder").unwrap();
    let out = ws.run(&["reindex"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: ") && err.lines().count() == 1,
        "{err}"
    );
    let out = ws.run(&["search", "\"open"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: Invalid search query: a quote is not closed\n"
    );
    let out = ws.run(&["search", "x", "--limit", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn search_reads_and_reindex_refuses_while_a_server_owns_the_index() {
    let ws = Workspace::new();
    ws.write("n.md", "echidna");
    let server = ws.serve();
    assert!(crate::support::eventually(
        std::time::Duration::from_secs(10),
        || { crate::support::search_paths(&server, "echidna") == ["n.md"] }
    ));
    let out = ws.run(&["search", "echidna", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["results"][0]["path"], "n.md");
    let out = ws.run(&["reindex"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("running `notes serve`") && err.lines().count() == 1,
        "{err}"
    );
    drop(server);
}

#[test]
fn title_matches_are_coloured_on_a_colour_terminal() {
    let ws = Workspace::new();
    ws.write(
        "a.md",
        "---\ntitle: Café crème\n---\n\nUn [café](https://example.org/lait).\n",
    );
    let out = ws
        .cli()
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .args(["search", "cafe"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    let marked = |word: &str| {
        console::style(word)
            .yellow()
            .bold()
            .force_styling(true)
            .to_string()
    };
    assert!(
        first.contains(&format!("{} crème", marked("Café"))),
        "{text:?}"
    );
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .contains(&format!("Un {}.", marked("café"))),
        "{text:?}"
    );
    // Without colours the title is shown as it is, with no markers.
    let text = stdout(&ws.run(&["search", "cafe"]));
    assert!(
        text.lines().next().unwrap().ends_with("  Café crème"),
        "{text:?}"
    );
    assert!(text.contains("Un ⟦café⟧."), "{text:?}");
    assert!(ws.run(&["search", "lait"]).status.success());
    assert!(stdout(&ws.run(&["search", "lait"])).starts_with("no note matches"));
}
