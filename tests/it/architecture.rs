//! ARCHITECTURE.md is the map of `src/`: every module down to the second floor
//! (`src/x.rs`, `src/x/`, `src/x/y.rs`, `src/x/y/`) is named in it as `x/y`, and the page
//! stays one page.

use std::path::Path;

/// The module names the map must carry: `x` and `x/y` for every file or folder under
/// `src/` at depth one or two, `mod.rs` and `main.rs`/`lib.rs` left out.
fn modules(src: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for first in std::fs::read_dir(src).expect("read src/") {
        let first = first.expect("entry of src/").path();
        let Some(top) = module_name(&first) else {
            continue;
        };
        if top == "main" || top == "lib" {
            continue;
        }
        names.push(top.clone());
        if first.is_dir() {
            for second in std::fs::read_dir(&first).expect("read a folder of src/") {
                let second = second.expect("entry").path();
                if let Some(name) = module_name(&second).filter(|n| n != "mod" && n != "tests") {
                    names.push(format!("{top}/{name}"));
                }
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The module a path of `src/` declares: a folder's name, or a `.rs` file's stem.
fn module_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if path.is_dir() {
        Some(name.to_string())
    } else {
        name.strip_suffix(".rs").map(str::to_string)
    }
}

#[test]
fn every_module_is_on_the_map() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let missing: Vec<String> = modules(&root.join("src"))
        .into_iter()
        .filter(|name| !map.contains(&format!("`{name}")))
        .collect();
    assert!(
        missing.is_empty(),
        "modules not named in ARCHITECTURE.md (as `name` or `name/`): {missing:?}"
    );
}

#[test]
fn the_map_is_one_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let lines = map.lines().count();
    assert!(
        lines <= 160,
        "ARCHITECTURE.md has {lines} lines; the map is one page (160 at most)"
    );
    let longest = map.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(
        longest <= 200,
        "a line of ARCHITECTURE.md has {longest} characters; one line says one thing"
    );
}
