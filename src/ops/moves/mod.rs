//! Moving or renaming a note, with every link to it rewritten (`plan`), crash-safe by a
//! journal (`journal`): the plan is written down first, then the file is renamed, the
//! linking notes rewritten, the public entry and page moved, and the journal removed.
//! Each step can run again without harm, so a move a crash interrupted is finished
//! (`finish_interrupted_move`) by the next `serve` start or writing command.

mod journal;
mod plan;
#[cfg(test)]
mod tests;

use serde::Serialize;

use self::journal::{Journal, Rewrite};
use self::plan::Move;
use crate::error::{Error, Result};
use crate::ops::model::{Precondition, etag};
use crate::ops::store::text_of;
use crate::ops::tokens::Scope;
use crate::ops::{NotePath, Notebook};

/// The environment variable that makes a move stop dead (as a crash would) after one of
/// its steps: `journal`, `rename` or `rewrite` (the first rewritten note). It exists so
/// the tests can check what a crash at each step leaves, and what finishes it.
pub(crate) const CRASH_AFTER: &str = "NOTES_TEST_CRASH_AFTER_MOVE_STEP";

/// Most threads writing the rewritten notes of one move.
const WRITERS: usize = 8;

/// How one planned rewrite went.
enum Outcome {
    Written,
    /// The note holds its new text already (written before a crash).
    Already,
    /// The note is gone, or was changed since the plan: neither its old text nor its new.
    LeftAlone,
}

/// The answer of a move: `{"from", "to", "rewritten"}`, the notes whose links changed
/// (by their path after the move), sorted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Moved {
    pub(crate) from: String,
    pub(crate) to: String,
    pub(crate) rewritten: Vec<String>,
}

/// What finishing an interrupted move did (for the log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finished {
    pub(crate) from: String,
    pub(crate) to: String,
    /// Whether the note was still to be renamed.
    pub(crate) renamed: bool,
    /// The notes whose new text was written now.
    pub(crate) rewritten: Vec<String>,
    /// The notes changed by someone since the move was planned: neither the text the
    /// plan was made from nor the planned one, so left as they are.
    pub(crate) left_alone: Vec<String>,
}

impl Notebook {
    /// Moves note `from` to `to` when `cond` holds of `from`, making the folders of
    /// `to`, and rewrites every link that leads to it so that it leads to `to`.
    /// `to` must not exist; the folder of `from` goes when this left it empty
    /// (`remove_emptied`). The caller's `scope` must reach both paths and every note
    /// the move would rewrite: a move that would change a note outside it changes
    /// nothing and says so without naming it.
    pub(crate) fn move_note(
        &self,
        from: &NotePath,
        to: &NotePath,
        cond: &Precondition,
        scope: &Scope,
    ) -> Result<Moved> {
        from.check_writable()?;
        to.check_writable()?;
        self.check_write(scope, from)?;
        self.check_write(scope, to)?;
        if from == to {
            return Err(Error::MoveOntoItself);
        }
        let _one_move = journal::lock(self.notes_dir())?;
        if let Some(done) = self.finish_journal()? {
            crate::log::warn(&done.to_string());
        }
        // A first look without locks, to find the notes to lock: each is read again
        // under its lock below.
        if self.current_for_write(from)?.is_none() {
            return Err(Error::NotFound);
        }
        let notes = self.names()?;
        let files = self.attachment_list()?;
        let plan = Move::new(from.clone(), to.clone(), &notes, &files);
        let linking = self.linking_notes(&plan, &notes)?;
        let mut keys: Vec<&str> = linking.iter().map(NotePath::as_str).collect();
        keys.extend([from.as_str(), to.as_str()]);
        let journal = self.note_locks.with_all(&keys, || {
            let (bytes, _) = self.current_for_write(from)?.ok_or(Error::NotFound)?;
            cond.check(Some(&bytes))?;
            if self.current_for_write(to)?.is_some() {
                return Err(Error::MoveDestinationExists(to.to_string()));
            }
            let mut rewrites = Vec::new();
            if let Some(text) = plan.retarget(from, &text_of(&bytes)) {
                rewrites.push(rewrite_of(to, &bytes, text));
            }
            for path in &linking {
                let Some((bytes, _)) = self.current_for_write(path)? else {
                    continue;
                };
                if let Some(text) = plan.retarget(path, &text_of(&bytes)) {
                    if !self.may_write(scope, path) {
                        return Err(Error::MoveOutsideScope);
                    }
                    rewrites.push(rewrite_of(path, &bytes, text));
                }
            }
            self.make_folders(to.parent()).map_err(|e| match e {
                Error::CreateDirFailed(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::NotADirectory | std::io::ErrorKind::AlreadyExists
                    ) =>
                {
                    Error::MoveFolderTaken(to.parent().to_string())
                }
                other => other,
            })?;
            let journal = Journal::new(from.to_string(), to.to_string(), rewrites);
            journal.save(&self.root)?;
            // The history first: a store that cannot record the move stops it here,
            // before anything changed.
            if let Err(e) =
                self.record_move(&journal.from, &journal.to, texts_after(&journal, &bytes))
            {
                Journal::remove(&self.root)?;
                return Err(e);
            }
            crash_after(true, "journal");
            self.apply(&journal, Some(scope))?;
            Ok(journal)
        })?;
        self.root.remove_emptied(from.parent());
        self.changed(from);
        self.changed(to);
        let mut rewritten: Vec<String> = journal.rewrites.into_iter().map(|r| r.path).collect();
        for path in &rewritten {
            if let Ok(path) = NotePath::parse(path) {
                self.changed(&path);
            }
        }
        rewritten.sort();
        Ok(Moved {
            from: from.to_string(),
            to: to.to_string(),
            rewritten,
        })
    }

    /// Finishes a move a crash interrupted, if its journal is there; what it did, for
    /// the log. Waits while a move is in progress (in this process or another).
    pub(crate) fn finish_interrupted_move(&self) -> Result<Option<Finished>> {
        if !journal::exists(self.notes_dir()) {
            return Ok(None);
        }
        let _one_move = journal::lock(self.notes_dir())?;
        self.finish_journal()
    }

    /// Finishes the move of the journal left, holding the moves' lock.
    fn finish_journal(&self) -> Result<Option<Finished>> {
        let Some(journal) = Journal::load(&self.root)? else {
            return Ok(None);
        };
        let mut keys: Vec<&str> = journal.rewrites.iter().map(|r| r.path.as_str()).collect();
        keys.extend([journal.from.as_str(), journal.to.as_str()]);
        let finished = self
            .note_locks
            .with_all(&keys, || self.apply(&journal, None))?;
        if finished.renamed
            && let Ok(from) = NotePath::parse(&journal.from)
        {
            self.root.remove_emptied(from.parent());
        }
        for path in [&journal.from, &journal.to]
            .into_iter()
            .chain(&finished.rewritten)
        {
            if let Ok(path) = NotePath::parse(path) {
                self.changed(&path);
            }
        }
        Ok(Some(finished))
    }

    /// Carries out the journal's steps, holding the locks of every note it names: the
    /// rename, each rewrite (while the note holds the text the plan was made from), the
    /// public entry, then the journal's removal. `live` is the scope of the move that
    /// wrote the journal (`None`: one a crash left, finished by the owner): a rename
    /// that cannot happen then fails the move, which changed nothing; a public page is
    /// rendered for that scope.
    fn apply(&self, journal: &Journal, live: Option<&Scope>) -> Result<Finished> {
        let everything = Scope::full();
        let scope = live.unwrap_or(&everything);
        let live = live.is_some();
        let from = NotePath::parse(&journal.from)?;
        let to = NotePath::parse(&journal.to)?;
        let mut done = Finished {
            from: journal.from.clone(),
            to: journal.to.clone(),
            renamed: false,
            rewritten: Vec::new(),
            left_alone: Vec::new(),
        };
        match self.root.rename_note(&from, &to) {
            Ok(()) => done.renamed = true,
            Err(e) if live => {
                Journal::remove(&self.root)?;
                return Err(match e.kind() {
                    std::io::ErrorKind::AlreadyExists => {
                        Error::MoveDestinationExists(to.to_string())
                    }
                    std::io::ErrorKind::NotFound => Error::NotFound,
                    _ => crate::ops::root::path_error(e, Error::MoveFailed),
                });
            }
            Err(e) => {
                let from_there = self.current_for_write(&from)?.is_some();
                match (from_there, self.current_for_write(&to)?.is_some()) {
                    // Renamed before the crash.
                    (false, true) => {}
                    // Still to do, and it fails: the journal stays for the next try.
                    (true, false) => return Err(Error::MoveFailed(e)),
                    // Both there or both gone: which note the links should lead to is
                    // unknown, so nothing is changed.
                    _ => {
                        done.left_alone = journal.rewrites.iter().map(|r| r.path.clone()).collect();
                        Journal::remove(&self.root)?;
                        return Ok(done);
                    }
                }
            }
        }
        crash_after(live, "rename");
        let outcomes = self.rewrite_all(&journal.rewrites, live)?;
        for (rewrite, outcome) in journal.rewrites.iter().zip(outcomes) {
            match outcome {
                Outcome::Written => done.rewritten.push(rewrite.path.clone()),
                Outcome::Already => {}
                Outcome::LeftAlone => done.left_alone.push(rewrite.path.clone()),
            }
        }
        self.moved_public(&from, &to, scope)?;
        Journal::remove(&self.root)?;
        Ok(done)
    }

    /// Carries out every rewrite, on up to `WRITERS` threads: each write waits for its
    /// own syncs to reach the disk, which serves several side by side (a move that
    /// rewrites 50 notes spends most of its time there). The outcomes, in order.
    fn rewrite_all(&self, rewrites: &[Rewrite], live: bool) -> Result<Vec<Outcome>> {
        let size = rewrites.len().div_ceil(WRITERS).max(1);
        let results: Vec<Result<Outcome>> = std::thread::scope(|scope| {
            let workers: Vec<_> = rewrites
                .chunks(size)
                .map(|chunk| {
                    scope.spawn(move || {
                        let mut outcomes = Vec::with_capacity(chunk.len());
                        for rewrite in chunk {
                            let outcome = self.rewrite_one(rewrite);
                            if matches!(outcome, Ok(Outcome::Written)) {
                                crash_after(live, "rewrite");
                            }
                            outcomes.push(outcome);
                        }
                        outcomes
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| {
                    worker.join().unwrap_or_else(|_| {
                        vec![Err(Error::MoveFailed(std::io::Error::other(
                            "a writer of the move stopped",
                        )))]
                    })
                })
                .collect()
        });
        results.into_iter().collect()
    }

    /// Writes one note's new text while it still holds the text the plan was made from.
    fn rewrite_one(&self, rewrite: &Rewrite) -> Result<Outcome> {
        let path = NotePath::parse(&rewrite.path)?;
        let Some((bytes, mode)) = self.current_for_write(&path)? else {
            return Ok(Outcome::LeftAlone);
        };
        let current = etag(&bytes);
        if current == etag(rewrite.text.as_bytes()) {
            return Ok(Outcome::Already);
        }
        if current != rewrite.old {
            return Ok(Outcome::LeftAlone);
        }
        self.store(&path, rewrite.text.as_bytes(), mode, false)?;
        Ok(Outcome::Written)
    }

    /// The path and aliases of every note, for resolving links.
    fn names(&self) -> Result<Vec<(NotePath, Vec<String>)>> {
        Ok(self
            .list()?
            .notes
            .iter()
            .filter_map(|n| {
                let aliases = n.aliases.iter().map(|a| a.to_string()).collect();
                Some((NotePath::parse(&n.path).ok()?, aliases))
            })
            .collect())
    }

    /// The notes (other than the moved one) whose links the move changes: those that
    /// link to `from`, and those with a link that `to` would take over. Found by
    /// reading every note, and parsing those a quick look cannot rule out.
    fn linking_notes(
        &self,
        plan: &Move,
        notes: &[(NotePath, Vec<String>)],
    ) -> Result<Vec<NotePath>> {
        let mut found = Vec::new();
        for (path, _) in notes {
            if *path == plan.from {
                continue;
            }
            // A note that cannot be read now is one the move cannot rewrite either.
            let Ok(Some((bytes, _))) = self.current_for_write(path) else {
                continue;
            };
            let text = text_of(&bytes);
            if plan.may_change(&text) && plan.retarget(path, &text).is_some() {
                found.push(path.clone());
            }
        }
        Ok(found)
    }
}

/// Each note's text after the move: the moved note's at its new path (rewritten or as
/// it was, `moved`), and every rewritten note's.
fn texts_after(journal: &Journal, moved: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut texts: Vec<(String, Vec<u8>)> = journal
        .rewrites
        .iter()
        .map(|r| (r.path.clone(), r.text.as_bytes().to_vec()))
        .collect();
    if !texts.iter().any(|(path, _)| *path == journal.to) {
        texts.push((journal.to.clone(), moved.to_vec()));
    }
    texts
}

fn rewrite_of(path: &NotePath, old: &[u8], text: String) -> Rewrite {
    Rewrite {
        path: path.to_string(),
        old: etag(old),
        text,
    }
}

/// Stops the process dead after `step` of a `live` move when the tests ask for it
/// (`CRASH_AFTER`).
fn crash_after(live: bool, step: &str) {
    if live && crate::test_hooks::var(CRASH_AFTER).is_some_and(|s| s == step) {
        std::process::abort();
    }
}

/// The log line of a finished move.
impl std::fmt::Display for Finished {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "finished the interrupted move of {} to {}",
            self.from, self.to
        )?;
        if self.renamed {
            f.write_str(": renamed the note")?;
        }
        if !self.rewritten.is_empty() {
            write!(f, "; rewrote links in {}", self.rewritten.join(", "))?;
        }
        if !self.left_alone.is_empty() {
            write!(
                f,
                "; left alone (changed since the move began): {}",
                self.left_alone.join(", ")
            )?;
        }
        Ok(())
    }
}
