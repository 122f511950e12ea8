//! Where a path beneath the notes dir lands once its symlinks are followed: a folder
//! token is judged by that place, not by the name it was given (`work/shared` linking
//! to `../private` is `private`). cap-std's `canonicalize` follows the longest part of
//! the path that exists, beneath the dir only; a path found plain is trusted for the
//! rest of that tick of the coarse clock (1–10 ms), as the tokens file is: a symlink
//! made meanwhile counts from the next tick.

use std::path::{Component, Path};

use super::RootDir;
use super::dir::OpenRoot;

/// The paths found free of symlinks, with the tick of the coarse clock they were
/// found in; entries of older ticks are worthless and go when the map is full.
#[derive(Debug, Default)]
pub(super) struct PlainPaths(
    std::sync::Mutex<std::collections::HashMap<Box<str>, u64, foldhash::fast::RandomState>>,
);

/// Most paths remembered at once.
const PLAIN_PATHS: usize = 1024;

impl PlainPaths {
    fn holds(&self, rel: &str, now: u64) -> bool {
        let map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.get(rel) == Some(&now)
    }

    fn insert(&self, rel: &str, now: u64) {
        let mut map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.len() >= PLAIN_PATHS {
            map.retain(|_, tick| *tick == now);
            if map.len() >= PLAIN_PATHS {
                map.clear();
            }
        }
        map.insert(rel.into(), now);
    }
}

/// Where a path leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Landing {
    /// Where it says: no symlink on the way (or nothing there yet).
    AsNamed,
    /// Elsewhere beneath the notes dir: that path, cleaned, relative to it.
    At(String),
    /// Nowhere that can be told: outside the notes dir, a loop, a dangling symlink,
    /// or a place the system would not name.
    Unknown,
}

impl RootDir {
    /// Where the cleaned relative path `rel` leads beneath the notes dir.
    pub(crate) fn landing(&self, rel: &str) -> Landing {
        let now = crate::ops::clock::coarse_millis();
        if self.plain_paths().holds(rel, now) {
            return Landing::AsNamed;
        }
        let Ok(root) = self.handle() else {
            // No notes dir: nothing beneath it can be a symlink.
            return Landing::AsNamed;
        };
        let landing = landing_in(&root, rel);
        if landing == Landing::AsNamed {
            self.plain_paths().insert(rel, now);
        }
        landing
    }
}

/// Where `rel` leads beneath `root`: the longest part of it that exists, followed
/// beneath `root` (an escape, a loop or a dangling symlink is `Unknown`), with the
/// names after it kept as they are.
fn landing_in(root: &OpenRoot, rel: &str) -> Landing {
    let names: Vec<&str> = rel
        .split('/')
        .filter(|n| !n.is_empty() && *n != ".")
        .collect();
    for found in (0..=names.len()).rev() {
        let head = if found == 0 {
            ".".to_string()
        } else {
            names[..found].join("/")
        };
        let at = match root.beneath(&head, |dir, head| dir.canonicalize(head)) {
            Ok(at) => at,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return Landing::Unknown,
        };
        // The first missing name must not be a symlink leading nowhere (yet): a
        // later write would go where it points.
        if let Some(next) = names.get(found)
            && root
                .beneath(&head, |dir, head| {
                    dir.symlink_metadata(format!("{head}/{next}"))
                })
                .is_ok()
        {
            return Landing::Unknown;
        }
        return landed(joined(&at, &names[found..]), &names);
    }
    Landing::Unknown
}

/// The landing of a path whose names are `names`, found to lead to `path`.
fn landed(path: Option<String>, names: &[&str]) -> Landing {
    match path {
        Some(path) if path == names.join("/") || (path == "." && names.is_empty()) => {
            Landing::AsNamed
        }
        Some(path) => Landing::At(path),
        None => Landing::Unknown,
    }
}

/// The relative path `at` with the names `rest` after it, `/`-separated.
fn joined(at: &Path, rest: &[&str]) -> Option<String> {
    let mut names: Vec<&str> = Vec::new();
    for part in at.components() {
        match part {
            Component::Normal(name) => names.push(name.to_str()?),
            Component::CurDir => {}
            _ => return None,
        }
    }
    names.extend_from_slice(rest);
    Some(if names.is_empty() {
        ".".to_string()
    } else {
        names.join("/")
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn symlinks_are_followed_to_where_they_lead() {
        let root = tempfile::tempdir().unwrap();
        let at = |p: &str| root.path().join(p);
        std::fs::create_dir_all(at("work/deep")).unwrap();
        std::fs::create_dir_all(at("private")).unwrap();
        std::fs::write(at("private/secret.md"), "x").unwrap();
        std::os::unix::fs::symlink("../private", at("work/shared")).unwrap();
        std::os::unix::fs::symlink("../private/secret.md", at("work/s.md")).unwrap();
        std::os::unix::fs::symlink("../private/none.md", at("work/dangling.md")).unwrap();
        std::os::unix::fs::symlink("deep", at("work/alias")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), at("work/out")).unwrap();
        let dir = RootDir::new(root.path().to_path_buf());
        assert_eq!(dir.landing("work/a.md"), Landing::AsNamed);
        assert_eq!(dir.landing("work/deep/new/b.md"), Landing::AsNamed);
        assert_eq!(dir.landing("private/secret.md"), Landing::AsNamed);
        assert_eq!(
            dir.landing("work/shared/secret.md"),
            Landing::At("private/secret.md".into())
        );
        assert_eq!(
            dir.landing("work/shared/new/c.md"),
            Landing::At("private/new/c.md".into())
        );
        assert_eq!(
            dir.landing("work/s.md"),
            Landing::At("private/secret.md".into())
        );
        assert_eq!(
            dir.landing("work/alias/x.md"),
            Landing::At("work/deep/x.md".into())
        );
        assert_eq!(dir.landing("work/dangling.md"), Landing::Unknown);
        assert_eq!(dir.landing("work/out/x.md"), Landing::Unknown);
    }
}
