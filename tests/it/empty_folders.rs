//! No empty folders left by the service: a delete or a move that empties a folder
//! removes it and the parents it emptied, up to the notes dir; a folder holding
//! anything (a hidden file, an empty folder of the user's) stays, and so do the notes
//! dir and `.notes/`. A PUT or move racing the removal of its folder never fails nor
//! loses its note.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{Client, Workspace, stderr, stdout};

fn delete(client: &Client, path: &str) {
    let r = client
        .request("DELETE", &format!("/api/v1/notes/{path}"))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "DELETE {path}: {}", r.text().unwrap());
}

fn put(client: &Client, path: &str, text: &str) {
    let r = client.put_markdown(&format!("/api/v1/notes/{path}"), text);
    let status = r.status();
    assert!(
        status == 200 || status == 201,
        "PUT {path}: {status} {}",
        r.text().unwrap()
    );
}

fn move_note(client: &Client, from: &str, to: &str) {
    let r = client
        .request("POST", "/api/v1/move")
        .header("Content-Type", "application/json")
        .body(json!({"from": from, "to": to}).to_string())
        .send()
        .unwrap();
    assert_eq!(
        r.status(),
        200,
        "move {from} -> {to}: {}",
        r.text().unwrap()
    );
}

#[test]
fn deleting_the_last_note_removes_its_folder_and_the_parents_it_emptied() {
    let ws = Workspace::new();
    ws.write("a/b/n.md", "one\n");
    ws.write("c/d/n.md", "two\n");
    ws.write("c/x.md", "stays\n");
    ws.write("top.md", "last at the root\n");
    let server = ws.serve();
    delete(&server, "a/b/n.md");
    assert!(!ws.notes().join("a").exists(), "a/b and a go");
    delete(&server, "c/d/n.md");
    assert!(!ws.notes().join("c/d").exists());
    assert!(
        ws.notes().join("c/x.md").is_file(),
        "c holds a note: it stays"
    );
    delete(&server, "c/x.md");
    assert!(!ws.notes().join("c").exists());
    // The last note of all: the notes dir and the service's own folder stay.
    delete(&server, "top.md");
    assert!(ws.notes().is_dir());
    assert!(ws.notes().join(".notes").is_dir());
    // The notes list answers as before.
    let r = server.get("/api/v1/notes");
    assert_eq!(r.status(), 200);
}

#[test]
fn folders_holding_hidden_files_or_folders_of_their_own_stay() {
    let ws = Workspace::new();
    ws.write("h/n.md", "one\n");
    ws.write("h/.DS_Store", "");
    ws.write("o/n.md", "two\n");
    ws.write("o/.obsidian/workspace.json", "{}");
    ws.write("e/deep/n.md", "three\n");
    std::fs::create_dir(ws.notes().join("e/empty")).unwrap();
    let server = ws.serve();
    for path in ["h/n.md", "o/n.md", "e/deep/n.md"] {
        delete(&server, path);
    }
    assert!(ws.notes().join("h/.DS_Store").is_file());
    assert!(ws.notes().join("o/.obsidian/workspace.json").is_file());
    assert!(!ws.notes().join("e/deep").exists());
    assert!(
        ws.notes().join("e/empty").is_dir(),
        "a folder the user left empty is theirs"
    );
}

#[test]
fn moves_and_attachment_deletes_remove_the_folders_they_emptied() {
    let ws = Workspace::new();
    ws.write("in/box/n.md", "moved over HTTP\n");
    ws.write("img/sub/a.bin", "bytes");
    let server = ws.serve();
    move_note(&server, "in/box/n.md", "done/n.md");
    assert!(!ws.notes().join("in").exists(), "in/box and in go");
    assert_eq!(ws.read("done/n.md"), "moved over HTTP\n");
    let r = server
        .request("DELETE", "/api/v1/files/img/sub/a.bin")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap());
    assert!(!ws.notes().join("img").exists());
}

#[test]
fn the_cli_removes_emptied_folders_and_the_trash_still_brings_notes_back() {
    let ws = Workspace::new();
    for (path, text) in [("p/q/moved.md", "moved\n"), ("r/s/gone.md", "gone\n")] {
        let out = ws.run_stdin(&["put", path], text.as_bytes());
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = ws.run(&["mv", "p/q/moved.md", "moved.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!ws.notes().join("p").exists());
    let out = ws.run(&["rm", "r/s/gone.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!ws.notes().join("r").exists());
    // The Trash lists the deleted note (not the moved one) and restores it, its
    // folders made again.
    let out = ws.run(&["trash", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let trash: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let paths: Vec<&str> = trash["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["path"].as_str())
        .collect();
    assert_eq!(paths, ["r/s/gone.md"]);
    let out = ws.run(&["restore", "r/s/gone.md"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(ws.read("r/s/gone.md").ends_with("gone\n"));
    assert!(ws.read("moved.md").ends_with("moved\n"));
}

/// Rounds of the race: each deletes the last note of `x/` while other notes are put
/// (or one moved) into `x/`, so the delete's removal of the folder meets their making
/// of it.
const RACE_ROUNDS: usize = 60;
/// The race stops early past this much time.
const RACE_TIME: Duration = Duration::from_millis(1500);
/// Notes put into `x/` in each round, beside the delete.
const WRITERS: usize = 4;

#[test]
fn a_put_or_move_racing_the_removal_of_its_folder_neither_fails_nor_loses_its_note() {
    let ws = Workspace::new();
    let server = ws.serve();
    let client: &Client = &server;
    let started = Instant::now();
    let mut rounds = 0;
    while rounds < RACE_ROUNDS && started.elapsed() < RACE_TIME {
        let last = format!("x/last-{rounds}.md");
        let new: Vec<String> = (0..WRITERS)
            .map(|w| format!("x/new-{rounds}-{w}.md"))
            .collect();
        let moved = format!("m-{rounds}.md");
        put(client, &last, "the last note of x\n");
        put(client, &moved, "written while x went\n");
        std::thread::scope(|s| {
            s.spawn(|| delete(client, &last));
            for (w, path) in new.iter().enumerate() {
                // Writers set off 0-31 ms after the delete (which takes 10-40 ms),
                // shifting from round to round, so some open the folder just before
                // the delete removes it.
                let wait = Duration::from_millis(((rounds * 7 + w * 9) % 32) as u64);
                let moved = &moved;
                s.spawn(move || {
                    std::thread::sleep(wait);
                    if w == 0 {
                        move_note(client, moved, path);
                    } else {
                        put(client, path, "written while x went\n");
                    }
                });
            }
        });
        for path in &new {
            let r = client.get(&format!("/api/v1/notes/{path}"));
            assert_eq!(r.status(), 200, "round {rounds}: {path} is lost");
            assert!(ws.notes().join(path).is_file(), "round {rounds}: {path}");
        }
        // Empty again for the next round: the folder goes.
        for path in &new {
            delete(client, path);
        }
        assert!(!ws.notes().join("x").exists(), "round {rounds}");
        rounds += 1;
    }
    assert!(rounds > 0);
}
