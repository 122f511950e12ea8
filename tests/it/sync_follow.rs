//! What follows the notes a sync brings into a running server, as it follows an edit
//! made there: search finds their words, their links count as backlinks, and a
//! published note changed elsewhere says its public page is out of date. And what a
//! sync takes from the folder: attachments put there by hand.

use std::time::Duration;

use crate::support::{Workspace, eventually, json, png};
use crate::sync::{Remote, git_in, sync};

#[test]
fn search_links_and_public_freshness_follow_a_synced_change() {
    let remote = Remote::new();
    let a = Workspace::new();
    a.write("target.md", "---\ntitle: Target\n---\nThe target.\n");
    a.write("published.md", "---\ntitle: Published\n---\nfirst text\n");
    sync(&a, &["--remote", &remote.path()]);
    let server = a.serve();
    let (status, body) = server.toggle("published.md");
    assert_eq!((status, body["status"].as_str()), (200, Some("public")));
    let page = server.get("/note/published.md").text().unwrap();
    assert!(!page.contains("The public page is out of date"), "{page}");

    // Another machine adds a note linking to the target and edits the published one,
    // past the file system clock's tick.
    std::thread::sleep(Duration::from_millis(50));
    let scratch = tempfile::tempdir().unwrap();
    let clone = remote.clone_into(scratch.path());
    std::fs::write(
        clone.join("new.md"),
        "---\ntitle: New\n---\nA zanzibarquokka points to [[target]].\n",
    )
    .unwrap();
    std::fs::write(
        clone.join("published.md"),
        "---\ntitle: Published\n---\nsecond text\n",
    )
    .unwrap();
    git_in(&clone, &["add", "-A"]);
    git_in(&clone, &["commit", "--quiet", "-m", "elsewhere"]);
    git_in(&clone, &["push", "--quiet", "origin", "main"]);

    let (status, body) = json(server.request("POST", "/api/v1/sync").send().unwrap());
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["pulled"], 2, "{body}");

    // The index catches up in the background.
    let found = || json(server.get("/api/v1/search?q=zanzibarquokka")).1;
    assert!(
        eventually(Duration::from_secs(10), || found()["total"] == 1),
        "{}",
        found()
    );
    assert_eq!(found()["results"][0]["path"], "new.md");
    let (_, links) = json(server.get("/api/v1/links/target.md"));
    let incoming: Vec<&str> = links["incoming"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["path"].as_str())
        .collect();
    assert_eq!(incoming, ["new.md"], "{links}");
    let page = server.get("/note/published.md").text().unwrap();
    assert!(page.contains("The public page is out of date"), "{page}");
}

#[test]
fn attachments_put_in_the_folder_by_hand_are_pushed() {
    let remote = Remote::new();
    let a = Workspace::new();
    // In the folder before the first sync.
    std::fs::create_dir_all(a.notes().join("pics")).unwrap();
    std::fs::write(a.notes().join("pics/old.png"), png(3, 2, [200, 10, 10])).unwrap();
    sync(&a, &["--remote", &remote.path()]);
    assert_eq!(remote.files(), ["pics/old.png"]);

    // Copied in while a server runs: recorded as it lands, pushed by the next sync.
    let server = a.serve();
    std::fs::write(a.notes().join("pics/new.png"), png(4, 4, [10, 200, 10])).unwrap();
    let recorded = || server.get("/api/v1/history/pics/new.png").status().as_u16() == 200;
    assert!(
        eventually(Duration::from_secs(20), recorded),
        "{}",
        server.log()
    );
    let (status, body) = json(server.request("POST", "/api/v1/sync").send().unwrap());
    assert_eq!(status, 200, "{body}");
    assert_eq!(remote.files(), ["pics/new.png", "pics/old.png"]);
}
