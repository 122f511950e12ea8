//! Commits made from the log's records, and the formats of their messages. Each
//! commit's message ends with a trailer naming its record (`Notes-Log: epoch:end`), so
//! a record is committed once, whichever handle or process does it, and again after a
//! crash that lost the commit; the first commit of a pruned history lists when each
//! version it keeps was made.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use git2::{ObjectType, Oid, Repository, Signature, Time, build::TreeUpdateBuilder};

use super::Op;
use super::change::{Body, Record, decode};
use super::error::{HResult, err, io_err};
use super::index::{self, Entry};
use super::repo::{tip, write_readable};
use super::rfc3339;
use super::wal;

/// The trailer of a commit's message naming the log record it was made from.
const TRAILER: &str = "Notes-Log: ";
/// The id of the tree of no entry.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/// The first word of a pruned history's first commit.
const BASE_TITLE: &str = "pruned";
/// The first word of a commit that holds several records.
const GROUP_TITLE: &str = "grouped";
/// A log holding more records than this has those that change one note each share
/// commits: one commit per write would cost each a tree of its folder.
const GROUP_FROM: usize = 16;
/// The most records one commit holds.
const GROUP_MOST: usize = 1000;

/// What `commit_records` made.
pub(super) struct Made {
    /// The ref before, and the last commit made (`None`: nothing to commit).
    pub(super) parent: Option<Oid>,
    pub(super) tip: Option<Oid>,
    /// Every object written, in order.
    pub(super) objects: Vec<Oid>,
    /// The index lines of the commits.
    pub(super) entries: Vec<(String, Entry)>,
    /// The log's length.
    pub(super) log_bytes: u64,
    /// Whether records were left for the next call (the budget was spent).
    pub(super) more: bool,
}

/// The log position the commit `tip` was made from.
pub(super) fn position(repo: &Repository, tip: Option<Oid>) -> HResult<Option<wal::Position>> {
    let Some(tip) = tip else {
        return Ok(None);
    };
    let commit = repo.find_commit(tip).map_err(err("cannot read a commit"))?;
    let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
    Ok(trailer(&message))
}

/// The log position a commit message names.
pub(super) fn trailer(message: &str) -> Option<wal::Position> {
    let line = message
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(TRAILER))?;
    let (epoch, end) = line.trim().split_once(':')?;
    Some(wal::Position {
        epoch: epoch.parse().ok()?,
        end: end.parse().ok()?,
    })
}

/// `message` with its trailer naming `at`.
fn with_trailer(message: &str, at: wal::Position) -> String {
    format!(
        "{}\n\n{TRAILER}{}:{}\n",
        message.trim_end(),
        at.epoch,
        at.end
    )
}

/// Commits the records of the log after the one the tip was made from, on top of the
/// tip (the commit lock held); the ref is not moved. A record gets a commit of its own,
/// unless the log holds more than `GROUP_FROM` of them: then the records that each
/// change one note, none of them a note another changes or a folder on its way, share a
/// commit whose message lists when each version was made and by what (`group_message`),
/// so the committer keeps up with many writers and every version stays one. The objects
/// go where `repo` writes them: memory for the committer, loose files for a prune.
/// Stops once the objects written reach `budget` bytes (`Made::more`).
pub(super) fn commit_records(repo: &Repository, dir: &Path, budget: u64) -> HResult<Made> {
    let parent = tip(repo, dir)?;
    let (records, log_bytes) =
        wal::records_after(dir, position(repo, parent)?).map_err(io_err("cannot read the log"))?;
    let mut made = Made {
        parent,
        tip: parent,
        objects: Vec::new(),
        entries: Vec::new(),
        log_bytes,
        more: false,
    };
    let grouping = records.len() > GROUP_FROM;
    let mut records = records
        .into_iter()
        .filter_map(|(at, objects)| Some((at, decode(objects)?)))
        .peekable();
    let odb = repo.odb().map_err(err("cannot open the objects"))?;
    let mut written = 0;
    while let Some(first) = records.next() {
        if written >= budget {
            made.more = true;
            break;
        }
        let mut unit = vec![first];
        if grouping && let Some(path) = sole_note(&unit[0].1) {
            let mut taken = Taken::default();
            taken.take(path);
            while unit.len() < GROUP_MOST
                && let Some(next) =
                    records.next_if(|(_, r)| sole_note(r).is_some_and(|path| taken.free(path)))
            {
                taken.take(&next.1.changes[0].0);
                unit.push(next);
            }
        }
        written += commit_unit(repo, dir, &odb, unit, &mut made)?;
    }
    Ok(made)
}

/// A record that changes one note and moves nothing: its path.
fn sole_note(record: &Record) -> Option<&str> {
    match record.changes.as_slice() {
        [(path, _)] if op_of(&record.message) != Op::Move.as_str() => Some(path),
        _ => None,
    }
}

/// The operation a record's or a commit's message names (its first word).
pub(super) fn op_of(message: &str) -> &str {
    message.split_whitespace().next().unwrap_or("put")
}

/// The paths a group of records changes, and the folders on their way.
#[derive(Default)]
struct Taken {
    paths: HashSet<String>,
    folders: HashSet<String>,
}

impl Taken {
    /// Whether `path` can join: not changed yet, not a folder of a changed path, and
    /// no changed path a folder of it.
    fn free(&self, path: &str) -> bool {
        !self.paths.contains(path)
            && !self.folders.contains(path)
            && !folders_of(path).any(|folder| self.paths.contains(folder))
    }

    fn take(&mut self, path: &str) {
        self.paths.insert(path.to_string());
        for folder in folders_of(path) {
            self.folders.insert(folder.to_string());
        }
    }
}

/// `a` and `a/b` for `a/b/c.md`.
fn folders_of(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(|(end, _)| &path[..end])
}

/// Commits the records of `unit` as one commit on `made`'s tip; the bytes written.
fn commit_unit(
    repo: &Repository,
    dir: &Path,
    odb: &git2::Odb,
    unit: Vec<(wal::Position, Record)>,
    made: &mut Made,
) -> HResult<u64> {
    let mut written = 0;
    let last = unit.last().map(|(at, _)| *at);
    let at = unit.iter().map(|(_, r)| r.at).max().unwrap_or_default();
    let message = match unit.as_slice() {
        [(_, one)] => one.message.clone(),
        many => group_message(
            many.iter()
                .map(|(_, r)| (r.changes[0].0.as_str(), r.at, op_of(&r.message))),
        ),
    };
    // Each change, and the time and operation of the record it is from.
    let mut changes = Vec::new();
    let mut whose = Vec::new();
    for (_, record) in unit {
        let op = index::op_named(op_of(&record.message));
        for change in record.changes {
            whose.push((record.at, op.clone()));
            changes.push(change);
        }
    }
    let parent = match made.tip {
        Some(id) => Some(repo.find_commit(id).map_err(err("cannot read a commit"))?),
        None => None,
    };
    let base = match &parent {
        Some(commit) => commit.tree().map_err(err("cannot read a tree"))?,
        // The empty tree, which libgit2 reads without it being stored.
        None => Oid::from_str(EMPTY_TREE)
            .and_then(|empty| repo.find_tree(empty))
            .map_err(err("cannot read a tree"))?,
    };
    let (base, displaced) = clear_the_way(repo, base, &changes)?;
    let mut update = TreeUpdateBuilder::new();
    let mut blobs = Vec::with_capacity(changes.len());
    for (path, text) in &changes {
        match text {
            Some(Body::Text(text)) => {
                let blob = write_readable(dir, odb, ObjectType::Blob, text)?;
                made.objects.push(blob);
                written += text.len() as u64;
                update.upsert(path.as_str(), blob, git2::FileMode::Blob);
                blobs.push(Some((blob, text.len() as u64)));
            }
            // An attachment's blob, in the repository since its record was made
            // (not packed again with the batch: stored once).
            Some(Body::Stored(blob, size)) => {
                update.upsert(path.as_str(), *blob, git2::FileMode::Blob);
                blobs.push(Some((*blob, *size)));
            }
            None => {
                if base.get_path(Path::new(path)).is_ok() {
                    update.remove(path.as_str());
                }
                blobs.push(None);
            }
        }
    }
    let tree_id = update
        .create_updated(repo, &base)
        .map_err(err("cannot write a tree"))?;
    let tree = repo.find_tree(tree_id).map_err(err("cannot read a tree"))?;
    let trees = trees_along(&tree, changes.iter().map(|c| c.0.as_str()));
    for id in &trees {
        // A folder of many notes writes a large tree at each commit.
        written += odb.read_header(*id).map_or(0, |(size, _)| size as u64);
    }
    made.objects.extend(trees);
    let signature = Signature::new("notes", "notes@localhost", &Time::new(at, 0))
        .map_err(err("cannot sign the commit"))?;
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    let message = match last {
        Some(last) => with_trailer(&message, last),
        None => message,
    };
    let buffer = repo
        .commit_create_buffer(&signature, &signature, &message, &tree, &parents)
        .map_err(err("cannot make the commit"))?;
    let commit = write_readable(dir, odb, ObjectType::Commit, &buffer)?;
    made.objects.push(commit);
    let gone = index::op_named(Op::Delete.as_str());
    for path in displaced {
        made.entries.push((
            path,
            Entry {
                commit,
                at,
                op: gone.clone(),
                size: 0,
                blob: None,
            },
        ));
    }
    for (((path, _), blob), (at, op)) in changes.into_iter().zip(blobs).zip(whose) {
        made.entries.push((
            path,
            Entry {
                commit,
                at,
                op,
                size: blob.map_or(0, |(_, size)| size),
                blob: blob.map(|(id, _)| id),
            },
        ));
    }
    made.tip = Some(commit);
    Ok(written)
}

/// `base` without the entries that stand where a record's new versions go: a file
/// where a folder on the way to one must be (`a` for `a/b.md`), or a folder where one
/// is (`a/` for `a`). The disk never holds both, so the tree gives up what the disk
/// gave up (a write recorded then refused, a change made by hand) instead of failing
/// every commit after; the paths of the files it drops come with it.
fn clear_the_way<'r>(
    repo: &'r Repository,
    base: git2::Tree<'r>,
    changes: &[(String, Option<Body>)],
) -> HResult<(git2::Tree<'r>, Vec<String>)> {
    let mut in_the_way = Vec::new();
    for (path, _) in changes.iter().filter(|(_, body)| body.is_some()) {
        for at in folders_of(path).chain([path.as_str()]) {
            let Ok(entry) = base.get_path(Path::new(at)) else {
                break;
            };
            let file = entry.kind() == Some(ObjectType::Blob);
            if (file && at != path) || (!file && at == path) {
                if !in_the_way.iter().any(|(seen, _, _)| seen == at) {
                    in_the_way.push((at.to_string(), entry.id(), file));
                }
                break;
            }
        }
    }
    if in_the_way.is_empty() {
        return Ok((base, Vec::new()));
    }
    let mut update = TreeUpdateBuilder::new();
    let mut dropped = Vec::new();
    for (at, id, file) in &in_the_way {
        update.remove(at.as_str());
        if *file {
            dropped.push(at.clone());
            continue;
        }
        let folder = repo.find_tree(*id).map_err(err("cannot read a tree"))?;
        folder
            .walk(git2::TreeWalkMode::PreOrder, |inside, entry| {
                if entry.kind() == Some(ObjectType::Blob)
                    && let Ok(name) = entry.name()
                {
                    dropped.push(format!("{at}/{inside}{name}"));
                }
                git2::TreeWalkResult::Ok
            })
            .map_err(err("cannot read a tree"))?;
    }
    let cleared = update
        .create_updated(repo, &base)
        .map_err(err("cannot write a tree"))?;
    let cleared = repo.find_tree(cleared).map_err(err("cannot read a tree"))?;
    Ok((cleared, dropped))
}

/// The ids of the root tree and of each folder tree on the way to a changed note.
fn trees_along<'a>(tree: &git2::Tree, paths: impl Iterator<Item = &'a str>) -> Vec<Oid> {
    let mut ids = vec![tree.id()];
    for path in paths {
        for folder in folders_of(path) {
            if let Ok(entry) = tree.get_path(Path::new(folder))
                && !ids.contains(&entry.id())
            {
                ids.push(entry.id());
            }
        }
    }
    ids
}

/// The first commit's message: the cut, then one line per note kept from before it
/// (when its version was made, by what, its path), so the index rebuilt from the
/// commits still tells when each of those versions was made.
pub(super) fn base_message(cutoff: i64, base: &[(String, Entry)]) -> String {
    let mut message = format!(
        "{BASE_TITLE} versions replaced before {}\n\n",
        rfc3339(cutoff)
    );
    for (path, entry) in base {
        message.push_str(&version_line(path, entry.at, &entry.op));
    }
    message
}

/// The message of a commit that holds several records: how many, then a line per note
/// as in a pruned history's first commit.
fn group_message<'a>(versions: impl ExactSizeIterator<Item = (&'a str, i64, &'a str)>) -> String {
    let mut message = format!("{GROUP_TITLE} {} changes\n\n", versions.len());
    for (path, at, op) in versions {
        message.push_str(&version_line(path, at, op));
    }
    message
}

/// When a version was made, by what, and its path (JSON, so any name fits a line).
fn version_line(path: &str, at: i64, op: &str) -> String {
    let path = serde_json::to_string(path).unwrap_or_default();
    format!("{at}\t{op}\t{path}\n")
}

/// The time and operation of each note's version in a pruned history's first commit or
/// a commit of several records, read from its message (empty for any other commit).
pub(super) fn base_versions(message: &str) -> HashMap<String, (i64, String)> {
    let mut lines = message.lines();
    if lines
        .next()
        .is_none_or(|l| !matches!(l.split_whitespace().next(), Some(BASE_TITLE | GROUP_TITLE)))
    {
        return HashMap::new();
    }
    lines
        .filter_map(|line| {
            let mut fields = line.splitn(3, '\t');
            let at = fields.next()?.parse().ok()?;
            let op = fields.next()?.to_string();
            let path: String = serde_json::from_str(fields.next()?).ok()?;
            Some((path, (at, op)))
        })
        .collect()
}
