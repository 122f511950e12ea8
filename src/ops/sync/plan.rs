//! What a sync does per path, decided from three trees: B the merge base (the last
//! sync's commit and the remote tip's common ancestor; empty on a first sync), L the
//! notebook (the history's head tree) and R the remote tip. Only the paths git's tree
//! diffs B→R and B→L name are looked at (renames detected), so the cost follows the
//! change, not the notebook.

use std::collections::{BTreeMap, HashMap, HashSet};

use git2::{Delta, DiffFindOptions, DiffOptions, FileMode, Oid, Repository, Tree};

use crate::error::{Cause, Error, Result};
use crate::ops::{FilePath, NotePath};

/// A blob of a tree: its id and mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Blob {
    pub(super) id: Oid,
    pub(super) mode: u32,
}

/// What a path of a tree is to the notebook.
#[derive(Debug, Clone)]
pub(super) enum Kind {
    Note(NotePath),
    File(FilePath),
}

/// Why a path of the remote is not taken: a symlink, a submodule, a dot path, a path
/// climbing out, a name too long.
pub(super) fn kind_of(path: &str, mode: u32) -> std::result::Result<Kind, &'static str> {
    match mode {
        m if m == u32::from(FileMode::Blob) || m == u32::from(FileMode::BlobExecutable) => {}
        m if m == u32::from(FileMode::Link) => return Err("a symlink"),
        m if m == u32::from(FileMode::Commit) => return Err("a submodule"),
        _ => return Err("not a file"),
    }
    if path.split('/').any(|name| name.starts_with('.')) {
        return Err("a hidden path");
    }
    let kind = match NotePath::parse(path) {
        Ok(note) => Kind::Note(note),
        Err(Error::NotMarkdown) => match FilePath::parse(path) {
            Ok(file) => Kind::File(file),
            Err(_) => return Err("an invalid path"),
        },
        Err(_) => return Err("an invalid path"),
    };
    let cleaned = match &kind {
        Kind::Note(p) => p.as_str(),
        Kind::File(p) => p.as_str(),
    };
    if cleaned != path {
        return Err("an invalid path");
    }
    Ok(kind)
}

/// One step of a sync.
#[derive(Debug, Clone)]
pub(super) enum Action {
    /// Write `theirs` at `path`, merged (three-way, from `base`) with `ours`, the
    /// notebook's version when there is one. The write's precondition is the
    /// notebook's text `expect` (`None`: no note); anything else found there is
    /// merged again.
    Write {
        path: String,
        base: Option<Oid>,
        ours: Option<Oid>,
        theirs: Blob,
        expect: Option<Oid>,
    },
    /// Remove `path` when it is still `expect`.
    Remove { path: String, expect: Oid },
    /// Move note `from`, still `expect` (the base's version), to `to`, as the remote
    /// did, then write `theirs` there (three-way from `expect`): the history follows
    /// the note. When `from` changed meanwhile, a write of `to` and a removal of
    /// `from` if still `expect`, as for any other path.
    Move {
        from: String,
        to: String,
        expect: Oid,
        theirs: Blob,
    },
}

/// The changes of one side from the base: each path's new blob (`None`: removed), and
/// where a path that moved went.
#[derive(Default)]
pub(super) struct Side {
    pub(super) changed: BTreeMap<String, Option<Blob>>,
    pub(super) moved_to: HashMap<String, String>,
}

fn git_failed(what: &'static str) -> impl Fn(git2::Error) -> Error {
    move |e| Error::HistoryFailed(Cause::new(what, e))
}

/// The changes from `base` to `tree`, renames detected.
pub(super) fn side(
    repo: &Repository,
    base: Option<&Tree<'_>>,
    tree: Option<&Tree<'_>>,
) -> Result<Side> {
    let mut options = DiffOptions::new();
    options.include_typechange(true);
    let mut diff = repo
        .diff_tree_to_tree(base, tree, Some(&mut options))
        .map_err(git_failed("cannot compare two trees"))?;
    diff.find_similar(Some(DiffFindOptions::new().renames(true)))
        .map_err(git_failed("cannot compare two trees"))?;
    let mut side = Side::default();
    for delta in diff.deltas() {
        let old = delta
            .old_file()
            .path()
            .and_then(|p| p.to_str())
            .map(str::to_string);
        let new = delta
            .new_file()
            .path()
            .and_then(|p| p.to_str())
            .map(str::to_string);
        let blob = Blob {
            id: delta.new_file().id(),
            mode: u32::from(delta.new_file().mode()),
        };
        match delta.status() {
            Delta::Deleted => {
                if let Some(old) = old {
                    side.changed.insert(old, None);
                }
            }
            Delta::Renamed => {
                if let (Some(old), Some(new)) = (old, new) {
                    side.changed.insert(old.clone(), None);
                    side.changed.insert(new.clone(), Some(blob));
                    side.moved_to.insert(old, new);
                }
            }
            Delta::Added | Delta::Modified | Delta::Copied | Delta::Typechange => {
                if let Some(new) = new {
                    side.changed.insert(new, Some(blob));
                }
            }
            _ => {}
        }
    }
    Ok(side)
}

/// A tree's blob at `path`.
pub(super) fn at(tree: Option<&Tree<'_>>, path: &str) -> Option<Oid> {
    let entry = tree?.get_path(std::path::Path::new(path)).ok()?;
    (entry.kind() == Some(git2::ObjectType::Blob)).then(|| entry.id())
}

/// The plan: the steps, and the paths of the remote refused (never written).
pub(super) struct Plan {
    pub(super) actions: Vec<Action>,
    pub(super) refused: Vec<(String, &'static str)>,
}

/// Decides each path the remote changed, against what the notebook did with it.
pub(super) fn plan(
    base: Option<&Tree<'_>>,
    local_tree: Option<&Tree<'_>>,
    remote: &Side,
    local: &Side,
) -> Plan {
    let mut actions = Vec::new();
    let mut refused = Vec::new();
    let mut done: HashSet<String> = HashSet::new();
    let base_of = |path: &str| at(base, path);
    let ours_at = |path: &str| at(local_tree, path);
    // Where a path of the remote came from, when the remote moved it.
    let moved_from: HashMap<&str, &str> = remote
        .moved_to
        .iter()
        .map(|(from, to)| (to.as_str(), from.as_str()))
        .collect();
    // The removals first: an edit here of a note moved there is written at its new
    // path before that path's own turn comes.
    let removals = remote.changed.iter().filter(|(_, t)| t.is_none());
    let writes = remote.changed.iter().filter(|(_, t)| t.is_some());
    for (path, theirs) in removals.chain(writes) {
        match theirs {
            None => {
                // Removed (or moved away) on the remote.
                let Some(expect) = base_of(path) else {
                    continue;
                };
                if kind_of(path, u32::from(FileMode::Blob)).is_err() {
                    continue;
                }
                let moved = remote.moved_to.get(path);
                match local.changed.get(path) {
                    // Untouched here, moved there to a path free here: moved here
                    // too, so its history follows it.
                    None if let Some(to) = moved
                        && let Some(Some(theirs)) = remote.changed.get(to)
                        && matches!(
                            kind_of(path, u32::from(FileMode::Blob)),
                            Ok(Kind::Note(_))
                        )
                        && matches!(kind_of(to, theirs.mode), Ok(Kind::Note(_)))
                        && !local.changed.contains_key(to.as_str())
                        && ours_at(to).is_none() =>
                    {
                        actions.push(Action::Move {
                            from: path.clone(),
                            to: to.clone(),
                            expect,
                            theirs: *theirs,
                        });
                        done.insert(to.clone());
                    }
                    // Untouched here: removed here too (a move's new path is written
                    // as the remote's change of that path).
                    None => actions.push(Action::Remove {
                        path: path.clone(),
                        expect,
                    }),
                    // Edited here, moved there: the moved note with the edit.
                    Some(Some(ours)) => {
                        if let (Some(to), Some(Some(theirs))) =
                            (moved, moved.and_then(|to| remote.changed.get(to)))
                            && !local.changed.contains_key(to.as_str())
                            && ours_at(to).is_none()
                        {
                            actions.push(Action::Write {
                                path: to.clone(),
                                base: Some(expect),
                                ours: Some(ours.id),
                                theirs: *theirs,
                                expect: None,
                            });
                            actions.push(Action::Remove {
                                path: path.clone(),
                                expect: ours.id,
                            });
                            done.insert(to.clone());
                        }
                        // Edited here, removed there: the edit stays.
                    }
                    // Removed or moved here too.
                    Some(None) => {}
                }
            }
            Some(theirs) => {
                if done.contains(path) {
                    continue;
                }
                if let Err(why) = kind_of(path, theirs.mode) {
                    refused.push((path.clone(), why));
                    continue;
                }
                let from = moved_from.get(path.as_str()).copied();
                let base = base_of(path).or_else(|| from.and_then(base_of));
                // Moved here and there to two different paths: the note stays where
                // the notebook put it, with the remote's edit merged.
                if let Some(from) = from
                    && let Some(mine) = local.moved_to.get(from)
                    && mine != path
                {
                    let ours = ours_at(mine);
                    actions.push(Action::Write {
                        path: mine.clone(),
                        base,
                        ours,
                        theirs: *theirs,
                        expect: ours,
                    });
                    continue;
                }
                match local.changed.get(path) {
                    None => actions.push(Action::Write {
                        path: path.clone(),
                        base,
                        ours: ours_at(path),
                        theirs: *theirs,
                        expect: ours_at(path),
                    }),
                    Some(Some(ours)) if ours.id == theirs.id => {}
                    Some(Some(ours)) => actions.push(Action::Write {
                        path: path.clone(),
                        base,
                        ours: Some(ours.id),
                        theirs: *theirs,
                        expect: Some(ours.id),
                    }),
                    Some(None) => match local.moved_to.get(path) {
                        // Edited there, moved here: the moved note with the edit.
                        Some(to) => {
                            let ours = ours_at(to);
                            actions.push(Action::Write {
                                path: to.clone(),
                                base,
                                ours,
                                theirs: *theirs,
                                expect: ours,
                            });
                        }
                        // Edited there, removed here: the edit comes back.
                        None => actions.push(Action::Write {
                            path: path.clone(),
                            base,
                            ours: None,
                            theirs: *theirs,
                            expect: None,
                        }),
                    },
                }
            }
        }
    }
    Plan { actions, refused }
}
