//! ARCHITECTURE.md is the map of `src/`: every module down to the second floor
//! (`src/x.rs`, `src/x/`, `src/x/y.rs`, `src/x/y/`) is named in it as `x/y`, and the page
//! stays one page; and the modules import each other in one direction only.

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

/// Every `.rs` file of `src/` that is not test code, by module path (`ops/store/list`;
/// `mod.rs` is its folder's module), with its text up to its `#[cfg(test)] mod tests`.
fn sources(dir: &Path, module: &[String], out: &mut Vec<(Vec<String>, String)>) {
    for entry in std::fs::read_dir(dir).expect("read a folder of src/") {
        let path = entry.expect("entry").path();
        let Some(name) = module_name(&path) else {
            continue;
        };
        if name == "tests" {
            continue;
        }
        let mut here = module.to_vec();
        if path.is_dir() {
            here.push(name);
            sources(&path, &here, out);
            continue;
        }
        if !matches!(name.as_str(), "mod" | "main" | "lib") {
            here.push(name);
        }
        let text = std::fs::read_to_string(&path).expect("read a source file");
        let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
        out.push((here, text[..end].to_string()));
    }
}

/// The paths a text names through `crate::`, groups (`crate::a::{b, c::d}`) expanded.
fn crate_paths(text: &str) -> Vec<Vec<String>> {
    fn path_at(text: &str, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
        let mut path = prefix.to_vec();
        let mut at = 0;
        loop {
            let rest = &text[at..];
            let ident: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !ident.is_empty() {
                path.push(ident.clone());
                at += ident.len();
                if text[at..].starts_with("::") {
                    at += 2;
                    continue;
                }
            } else if rest.starts_with('{') {
                at += 1;
                loop {
                    at += text[at..].len() - text[at..].trim_start().len();
                    if text[at..].starts_with('}') {
                        return at + 1;
                    }
                    at += path_at(&text[at..], &path, out);
                    at += text[at..].len() - text[at..].trim_start().len();
                    if text[at..].starts_with(',') {
                        at += 1;
                    } else if text[at..].starts_with('}') {
                        return at + 1;
                    } else {
                        return at;
                    }
                }
            }
            out.push(path);
            return at;
        }
    }
    let mut out = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        path_at(&text[at + "crate::".len()..], &[], &mut out);
    }
    out
}

#[test]
fn modules_import_each_other_in_one_direction() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &[], &mut files);
    let modules: std::collections::BTreeSet<Vec<String>> =
        files.iter().map(|(m, _)| m.clone()).collect();
    // An edge between two siblings (`ops/store` → `ops/links`, `http` → `mcp`) for each
    // path a file names into another branch of the tree.
    let mut edges: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    for (from, text) in &files {
        for path in crate_paths(text) {
            let Some(to) = (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains(p))
            else {
                continue;
            };
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                continue; // a module and its own parent or child
            }
            edges
                .entry(from[..=common].join("/"))
                .or_default()
                .insert(to[..=common].join("/"));
        }
    }
    // A depth-first walk: a module met again while on the current path closes a circle.
    fn walk(
        node: &str,
        edges: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut circle = path[at..].to_vec();
            circle.push(node.to_string());
            return Some(circle);
        }
        if !done.insert(node.to_string()) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(circle) = walk(next, edges, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        None
    }
    let mut done = Default::default();
    for node in edges.keys() {
        if let Some(circle) = walk(node, &edges, &mut Vec::new(), &mut done) {
            panic!(
                "modules import each other in a circle: {}",
                circle.join(" → ")
            );
        }
    }
    assert!(
        edges
            .get("ops/store")
            .is_some_and(|to| to.contains("ops/links")),
        "the import graph missed ops/store → ops/links: {edges:?}"
    );
}
