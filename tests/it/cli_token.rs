//! `notes token create / list / revoke`: the secret printed once and stored only as a
//! hash, the JSON shapes, the file's mode, and one-line errors naming what is wrong.

use serde_json::Value;

use crate::support::{Workspace, stderr, stdout};

fn json(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{out:?}");
    serde_json::from_str(&stdout(out)).unwrap()
}

#[test]
fn create_prints_the_secret_once_and_stores_its_hash() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.notes()).unwrap();
    let out = ws.run(&["token", "create", "--name", "phone"]);
    assert!(out.status.success(), "{out:?}");
    let secret = stdout(&out).trim().to_string();
    assert!(
        secret.starts_with("notes_") && secret.len() == 46,
        "{secret}"
    );
    assert!(stderr(&out).contains("token phone (read and write, everywhere)"));
    let file = ws.notes().join(".notes/tokens.json");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains(&secret[6..]), "the secret is stored: {text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let made = json(&ws.run(&[
        "token",
        "create",
        "--read-only",
        "--prefix",
        "work/",
        "--json",
    ]));
    assert_eq!(made["name"], "token-1");
    assert_eq!(made["readOnly"], true);
    assert_eq!(made["prefix"], "work");
    assert!(made["token"].as_str().unwrap().starts_with("notes_"));
    assert!(made["created"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn list_never_shows_secrets_and_revoke_removes() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.notes()).unwrap();
    let none = ws.run(&["token", "list"]);
    assert!(stdout(&none).contains("No tokens"));
    assert_eq!(
        json(&ws.run(&["token", "list", "--json"]))["tokens"],
        Value::Array(vec![])
    );
    let secret = stdout(&ws.run(&["token", "create", "--name", "a"]))
        .trim()
        .to_string();
    ws.run(&["token", "create", "--name", "b", "--prefix", "notes/x"]);
    let listed = ws.run(&["token", "list"]);
    let text = stdout(&listed);
    assert!(
        text.contains("a ") && text.contains("inside notes/x/"),
        "{text}"
    );
    assert!(!text.contains(&secret));
    let listed = json(&ws.run(&["token", "list", "--json"]));
    let names: Vec<&str> = listed["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert!(!listed.to_string().contains(&secret));
    let revoked = json(&ws.run(&["token", "revoke", "a", "--json"]));
    assert_eq!(revoked["name"], "a");
    let out = ws.run(&["token", "revoke", "a"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.to_lowercase().contains("no token named \"a\""), "{err}");
}

#[test]
fn bad_input_is_one_line_and_changes_nothing() {
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.notes()).unwrap();
    ws.run(&["token", "create", "--name", "a"]);
    let before = std::fs::read(ws.notes().join(".notes/tokens.json")).unwrap();
    for (args, expected) in [
        (&["token", "create", "--name", "a"][..], "exists already"),
        (&["token", "create", "--name", "a b"], "Invalid token name"),
        (&["token", "create", "--prefix", "../up"], "--prefix"),
        (&["token", "create", "--prefix", ".notes"], "--prefix"),
    ] {
        let out = ws.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.to_lowercase().contains(&expected.to_lowercase()),
            "{args:?}: {err}"
        );
        assert!(stdout(&out).is_empty());
    }
    assert_eq!(
        std::fs::read(ws.notes().join(".notes/tokens.json")).unwrap(),
        before
    );
}
