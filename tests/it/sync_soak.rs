//! The sync soak: two `serve`s on two notebooks sharing a bare remote, random edits,
//! creates, moves and deletes through the API on both for a bounded time (10 s here;
//! `NOTES_SYNC_SOAK_SECONDS` for `just soak-sync`), one side syncing in the background
//! (`--sync-every`) and the other asked to (`POST /api/v1/sync`) every few seconds.
//! Then both sync until quiet and must hold identical files, with every edit's text in
//! the final notes unless a delete (of a text holding it) took it, and in the history.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{
    Server, Workspace, eventually, git_command, git_present, init_bare, notebook_files, stdout,
    sync_ok,
};

/// xorshift64*: a seeded, repeatable sequence (`NOTES_SOAK_SEED` replays a run).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One notebook and its server, with what the driver did on it.
struct Side {
    name: &'static str,
    ws: Workspace,
    server: Server,
    /// The texts this side deleted (the tokens in them may go).
    deleted: Vec<String>,
    /// Operations acknowledged, by kind.
    done: BTreeMap<&'static str, usize>,
}

impl Side {
    fn notes(&self) -> Vec<String> {
        let r = self.server.get("/api/v1/notes");
        assert_eq!(r.status().as_u16(), 200);
        let list: Value = r.json().unwrap();
        list["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["path"].as_str().unwrap().to_string())
            .collect()
    }

    /// A note's text and entity tag; `None` when it is gone (a sync moved or deleted it).
    fn read(&self, note: &str) -> Option<(String, String)> {
        let r = self
            .server
            .request("GET", &format!("/api/v1/notes/{note}"))
            .header("Accept", "text/markdown")
            .send()
            .unwrap();
        match r.status().as_u16() {
            200 => {
                let etag = r.headers()["etag"].to_str().unwrap().to_string();
                Some((r.text().unwrap(), etag))
            }
            404 => None,
            other => panic!("{} GET {note}: {other}", self.name),
        }
    }

    /// Sends a write; whether it was acknowledged (412, 404 and 409: a sync changed the
    /// note meanwhile, or the target is taken).
    fn send(&mut self, kind: &'static str, request: reqwest::blocking::RequestBuilder) -> bool {
        let r = request.send().unwrap();
        let status = r.status().as_u16();
        match status {
            200 | 201 => {
                *self.done.entry(kind).or_default() += 1;
                true
            }
            404 | 409 | 412 => false,
            _ => panic!("{} {kind}: {status} {}", self.name, r.text().unwrap()),
        }
    }

    /// `POST /api/v1/sync`: the status, or the failure's ErrorResponse.
    fn try_sync(&self) -> Result<Value, Value> {
        let r = self.server.request("POST", "/api/v1/sync").send().unwrap();
        let status = r.status().as_u16();
        let body: Value = r.json().unwrap();
        match status {
            200 => Ok(body),
            _ => Err(body),
        }
    }

    fn sync(&self) -> Value {
        self.try_sync()
            .unwrap_or_else(|e| panic!("{} sync: {e}", self.name))
    }

    fn history(&self) -> String {
        let out = git_command()
            .arg("--git-dir")
            .arg(self.ws.notes().join(".notes/history.git"))
            .args(["log", "-p", "--all"])
            .output()
            .unwrap();
        stdout(&out)
    }
}

/// One random operation on `side`; the token it wrote, if it wrote one.
fn operate(side: &mut Side, rng: &mut Rng, n: usize) -> Option<String> {
    let token = format!("tok-{}-{n}", side.name);
    let notes = side.notes();
    let roll = rng.below(100);
    if roll < 15 || notes.is_empty() {
        let note = format!("{}/{n}.md", side.name);
        let body = json!({ "content": format!("# {token}\n\n{token}\n") });
        let put = side
            .server
            .request("PUT", &format!("/api/v1/notes/{note}"))
            .header("Content-Type", "application/json")
            .header("If-None-Match", "*")
            .body(body.to_string());
        return side.send("create", put).then_some(token);
    }
    let note = notes[rng.below(notes.len())].clone();
    let (text, etag) = side.read(&note)?;
    if roll < 75 {
        // An edit: a line inserted somewhere after the title.
        let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
        let at = 1 + rng.below(lines.len().max(1));
        let line = format!("{token}\n");
        lines.insert(at.min(lines.len()), &line);
        let body = json!({ "content": lines.concat() });
        let put = side
            .server
            .request("PUT", &format!("/api/v1/notes/{note}"))
            .header("Content-Type", "application/json")
            .header("If-Match", etag)
            .body(body.to_string());
        side.send("edit", put).then_some(token)
    } else if roll < 88 {
        let to = format!("moved/{}-{n}.md", side.name);
        let post = side
            .server
            .request("POST", "/api/v1/move")
            .header("Content-Type", "application/json")
            .header("If-Match", etag)
            .body(json!({ "from": note, "to": to }).to_string());
        side.send("move", post);
        None
    } else {
        let delete = side
            .server
            .request("DELETE", &format!("/api/v1/notes/{note}"))
            .header("If-Match", etag);
        if side.send("delete", delete) {
            side.deleted.push(text);
        }
        None
    }
}

fn soak_seconds() -> u64 {
    std::env::var("NOTES_SYNC_SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10)
}

#[test]
fn two_notebooks_edited_on_both_sides_end_identical_with_every_edit_kept() {
    if !git_present() {
        return;
    }
    let seconds = soak_seconds();
    let seed = std::env::var("NOTES_SOAK_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("sync soak: {seconds} s, NOTES_SOAK_SEED={seed}");
    let mut rng = Rng(seed);

    let scratch = tempfile::tempdir().unwrap();
    let bare = scratch.path().join("remote.git");
    init_bare(&bare);
    let remote = bare.to_str().unwrap();
    let a_ws = Workspace::new();
    for i in 0..12 {
        let text = format!("# Seed {i}\n\none\ntwo\nthree\nfour\nfive\n");
        let out = a_ws.run_stdin(
            &["put", "--quiet", &format!("seed/{i}.md")],
            text.as_bytes(),
        );
        assert!(out.status.success());
    }
    sync_ok(&a_ws, &["--remote", remote]);
    let b_ws = Workspace::new();
    sync_ok(&b_ws, &["--remote", remote]);
    assert_eq!(notebook_files(&a_ws), notebook_files(&b_ws));

    // A syncs by itself every 2 s; B is asked to every 2 s.
    let a_server = a_ws.serve_with(&["--sync-every", "2s"]);
    let b_server = b_ws.serve();
    let mut sides = [
        Side {
            name: "a",
            ws: a_ws,
            server: a_server,
            deleted: Vec::new(),
            done: BTreeMap::new(),
        },
        Side {
            name: "b",
            ws: b_ws,
            server: b_server,
            deleted: Vec::new(),
            done: BTreeMap::new(),
        },
    ];
    let mut tokens: Vec<(usize, String)> = Vec::new();
    let started = Instant::now();
    let mut synced_at = Instant::now();
    let mut syncs = 0;
    let mut failed = Vec::new();
    let max_ops = seconds as usize * 400;
    for n in 0..max_ops {
        if started.elapsed() >= Duration::from_secs(seconds) {
            break;
        }
        let s = rng.below(2);
        if let Some(token) = operate(&mut sides[s], &mut rng, n) {
            tokens.push((s, token));
        }
        if synced_at.elapsed() >= Duration::from_secs(2) {
            // A failure is checked at the end, after what it may have cost.
            if let Err(e) = sides[1].try_sync() {
                failed.push(e);
            }
            syncs += 1;
            synced_at = Instant::now();
        }
    }

    // Both sync until a round changes nothing on either side (bounded).
    let mut quiet = false;
    for _ in 0..12 {
        let a = sides[0].sync();
        let b = sides[1].sync();
        let idle = |s: &Value| s["pulled"] == 0 && s["pushed"] == 0;
        if idle(&a) && idle(&b) && notebook_files(&sides[0].ws) == notebook_files(&sides[1].ws) {
            quiet = true;
            break;
        }
    }
    let a_files = notebook_files(&sides[0].ws);
    let b_files = notebook_files(&sides[1].ws);
    eprintln!(
        "sync soak: {} tokens, a {:?}, b {:?}, {syncs} syncs asked of b ({} failed), \
         {} notes at the end",
        tokens.len(),
        sides[0].done,
        sides[1].done,
        failed.len(),
        a_files.len()
    );
    assert!(quiet, "the two sides never settled (seed {seed})");
    let a_names: BTreeSet<_> = a_files.keys().collect();
    let b_names: BTreeSet<_> = b_files.keys().collect();
    assert_eq!(a_names, b_names, "seed {seed}");
    assert!(a_files == b_files, "the files differ (seed {seed})");
    for side in &sides {
        assert!(side.done.values().sum::<usize>() >= 10, "{:?}", side.done);
    }

    // Every edit's text is in the final notes, unless a delete took a text holding it.
    let finals: String = a_files
        .values()
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
        .collect();
    let deleted: String = sides
        .iter()
        .flat_map(|s| s.deleted.iter().cloned())
        .collect();
    let finals_words: BTreeSet<&str> = finals.split_whitespace().collect();
    let deleted_words: BTreeSet<&str> = deleted.split_whitespace().collect();
    let lost: Vec<&String> = tokens
        .iter()
        .map(|(_, t)| t)
        .filter(|t| !finals_words.contains(t.as_str()) && !deleted_words.contains(t.as_str()))
        .collect();
    assert!(lost.is_empty(), "edits lost (seed {seed}): {lost:?}");
    // And each is in the history of the side that made it (committed within a second
    // or so).
    for (s, side) in sides.iter().enumerate() {
        let mine: Vec<&String> = tokens
            .iter()
            .filter(|(t, _)| *t == s)
            .map(|(_, t)| t)
            .collect();
        let mut missing = Vec::new();
        let recorded = eventually(Duration::from_secs(10), || {
            let history = side.history();
            // Diff lines start with `+` or `-`.
            let words: BTreeSet<&str> = history
                .split_whitespace()
                .map(|w| w.trim_start_matches(['+', '-']))
                .collect();
            missing = mine
                .iter()
                .filter(|t| !words.contains(t.as_str()))
                .map(|t| t.to_string())
                .collect();
            missing.is_empty()
        });
        assert!(recorded, "{} history lacks {missing:?}", side.name);
    }
    // No sync asked for failed: two machines pushing at once is no failure.
    assert!(
        failed.is_empty(),
        "{} of {syncs} syncs failed: {failed:?}",
        failed.len()
    );
    let log = sides[0].server.log();
    assert!(
        !log.contains("WARN sync:"),
        "the background sync failed:\n{log}"
    );
}
