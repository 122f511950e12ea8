//! Carrying out a sync's plan through the notebook's own writes (beneath the root,
//! atomic, recorded in the history as `sync`, told to the index): a note's text
//! three-way merged (`ops::merge`), conflicts marked; an attachment both sides changed
//! kept twice. Each write's precondition is the notebook's text the plan was made
//! from: a change that landed since is merged again, never overwritten.

use std::cell::Cell;
use std::io::Read;

use git2::{ObjectType, Oid, Repository};

use super::plan::{Action, Kind, kind_of};
use crate::error::{Cause, Error, Result};
use crate::ops::ids::Op;
use crate::ops::merge::{has_conflict, merge};
use crate::ops::model::{Precondition, etag};
use crate::ops::tokens::Scope;
use crate::ops::{FilePath, NotePath, Notebook};

/// What the steps did.
#[derive(Default)]
pub(super) struct Applied {
    /// Paths changed in the notebook.
    pub(super) pulled: u64,
    /// Paths that could not be written (kept on the remote as they are), and why.
    pub(super) failed: Vec<(String, String)>,
}

fn blob(repo: &Repository, id: Oid) -> Result<Vec<u8>> {
    repo.find_blob(id)
        .map(|b| b.content().to_vec())
        .map_err(|e| Error::HistoryFailed(Cause::new("cannot read a synced version", e)))
}

fn text(repo: &Repository, id: Option<Oid>) -> Result<String> {
    match id {
        Some(id) => Ok(String::from_utf8_lossy(&blob(repo, id)?).into_owned()),
        None => Ok(String::new()),
    }
}

impl Notebook {
    pub(super) fn apply_plan(&self, repo: &Repository, actions: &[Action]) -> Applied {
        let mut applied = Applied::default();
        for action in actions {
            let path = match action {
                Action::Write { path, .. } | Action::Remove { path, .. } => path.clone(),
                Action::Move { to, .. } => to.clone(),
            };
            match self.apply_one(repo, action) {
                Ok(true) => applied.pulled += 1,
                Ok(false) => {}
                Err(e) => applied.failed.push((path, e.detailed())),
            }
        }
        applied
    }

    /// One step; whether it changed the notebook.
    fn apply_one(&self, repo: &Repository, action: &Action) -> Result<bool> {
        match action {
            Action::Write {
                path,
                base,
                ours,
                theirs,
                expect,
            } => match kind_of(path, theirs.mode).map_err(|_| Error::InvalidPath)? {
                Kind::Note(note) => self.sync_note(repo, &note, *base, *ours, theirs.id, *expect),
                Kind::File(file) => self.sync_file(repo, &file, *base, *ours, theirs.id, *expect),
            },
            Action::Move {
                from,
                to,
                expect,
                theirs,
            } => self.sync_move(repo, from, to, *expect, theirs.id),
            Action::Remove { path, expect } => {
                match kind_of(path, u32::from(git2::FileMode::Blob))
                    .map_err(|_| Error::InvalidPath)?
                {
                    Kind::Note(note) => {
                        let cond = Precondition::IfMatch(vec![etag(&blob(repo, *expect)?)]);
                        match self.delete(&note, &cond) {
                            Ok(_) => Ok(true),
                            // Edited (or removed) meanwhile: the edit stays.
                            Err(Error::PreconditionFailed | Error::NotFound) => Ok(false),
                            Err(e) => Err(e),
                        }
                    }
                    Kind::File(file) => {
                        if self.file_blob(&file)? != Some(*expect) {
                            return Ok(false);
                        }
                        match self.delete_file(&file, &Precondition::None) {
                            Ok(_) => Ok(true),
                            Err(Error::FileNotFound) => Ok(false),
                            Err(e) => Err(e),
                        }
                    }
                }
            }
        }
    }

    /// `Action::Move`: the notebook's own move (links to the note rewritten, its
    /// public page moved, one `move` in the history), then the remote's text merged
    /// at the new path.
    fn sync_move(
        &self,
        repo: &Repository,
        from: &str,
        to: &str,
        expect: Oid,
        theirs: Oid,
    ) -> Result<bool> {
        let (Kind::Note(from_note), Kind::Note(to_note)) = (
            kind_of(from, u32::from(git2::FileMode::Blob)).map_err(|_| Error::InvalidPath)?,
            kind_of(to, u32::from(git2::FileMode::Blob)).map_err(|_| Error::InvalidPath)?,
        ) else {
            return Err(Error::InvalidPath);
        };
        let cond = Precondition::IfMatch(vec![etag(&blob(repo, expect)?)]);
        match self.move_note(&from_note, &to_note, &cond, &Scope::full()) {
            Ok(_) => {
                self.sync_note(
                    repo,
                    &to_note,
                    Some(expect),
                    Some(expect),
                    theirs,
                    Some(expect),
                )?;
                Ok(true)
            }
            // Changed or gone here since the plan: the new path written, the old one
            // removed only if still as it was.
            Err(Error::PreconditionFailed | Error::NotFound | Error::MoveDestinationExists(_)) => {
                let wrote = self.sync_note(repo, &to_note, Some(expect), None, theirs, None)?;
                let removed = self.apply_one(
                    repo,
                    &Action::Remove {
                        path: from.to_string(),
                        expect,
                    },
                )?;
                Ok(wrote || removed)
            }
            Err(e) => Err(e),
        }
    }

    fn sync_note(
        &self,
        repo: &Repository,
        path: &NotePath,
        base: Option<Oid>,
        ours: Option<Oid>,
        theirs: Oid,
        expect: Option<Oid>,
    ) -> Result<bool> {
        let theirs_text = text(repo, Some(theirs))?;
        let merged = match ours {
            None => crate::ops::merge::Merged {
                text: theirs_text,
                conflicted: false,
            },
            Some(ours) => merge(&text(repo, base)?, &text(repo, Some(ours))?, &theirs_text),
        };
        let expected = match expect {
            Some(id) => Some(text(repo, Some(id))?),
            None => None,
        };
        // A note the remote holds with markers is conflicted here too.
        let conflicted = Cell::new(merged.conflicted || has_conflict(&merged.text));
        let unchanged = Cell::new(false);
        let current = self
            .current_for_write(path)?
            .map(|(bytes, _)| String::from_utf8_lossy(&bytes).into_owned());
        if current.as_deref() == Some(merged.text.as_str()) {
            if merged.conflicted {
                self.mark_conflicted(path)?;
            }
            return Ok(false);
        }
        self.write_recorded(path, &Precondition::None, Op::Sync, |existing| {
            if existing == expected.as_deref() {
                return Ok(merged.text.clone());
            }
            // Changed since the plan was made: that change is merged in too.
            let again = merge(
                expected.as_deref().unwrap_or(""),
                existing.unwrap_or(""),
                &merged.text,
            );
            conflicted.set(conflicted.get() || again.conflicted);
            unchanged.set(existing == Some(again.text.as_str()));
            Ok(again.text)
        })?;
        if conflicted.get() {
            self.mark_conflicted(path)?;
        }
        Ok(!unchanged.get())
    }

    fn sync_file(
        &self,
        repo: &Repository,
        path: &FilePath,
        base: Option<Oid>,
        ours: Option<Oid>,
        theirs: Oid,
        expect: Option<Oid>,
    ) -> Result<bool> {
        let bytes = blob(repo, theirs)?;
        let current = self.file_blob(path)?;
        if current == Some(theirs) {
            return Ok(false);
        }
        let both_changed = ours.is_some() && ours != base;
        if both_changed || current != expect {
            // Both sides changed it: the other side's bytes beside it.
            let copy = self.conflict_copy(path, theirs)?;
            if let Some(copy) = copy {
                self.put_file_as(&copy, &bytes, &Precondition::IfNoneMatchAny, Op::Sync)?;
                return Ok(true);
            }
            return Ok(false);
        }
        self.put_file_as(path, &bytes, &Precondition::None, Op::Sync)?;
        Ok(true)
    }

    /// The blob id of the attachment at `path` as it is on disk; `None` when absent.
    fn file_blob(&self, path: &FilePath) -> Result<Option<Oid>> {
        let mut file = match self.root.open_attachment(path) {
            Ok((file, _)) => file,
            Err(Error::NotFound | Error::FileNotFound) => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(Error::FileReadFailed)?;
        Oid::hash_object(ObjectType::Blob, &bytes)
            .map(Some)
            .map_err(|e| Error::HistoryFailed(Cause::new("cannot hash a file", e)))
    }

    /// `name (conflict YYYY-MM-DD).ext` beside `path` (` 2`, ` 3`… when taken); `None`
    /// when a copy with these bytes is there already.
    fn conflict_copy(&self, path: &FilePath, theirs: Oid) -> Result<Option<FilePath>> {
        let name = path.file_name();
        let (stem, ext) = match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
            _ => (name, String::new()),
        };
        let day = chrono::Utc::now().format("%Y-%m-%d");
        for n in 1..100 {
            let suffix = if n == 1 {
                format!(" (conflict {day})")
            } else {
                format!(" (conflict {day} {n})")
            };
            let file = format!("{stem}{suffix}{ext}");
            let rel = match path.parent() {
                "." => file,
                parent => format!("{parent}/{file}"),
            };
            let copy = FilePath::parse(&rel)?;
            match self.file_blob(&copy)? {
                None => return Ok(Some(copy)),
                Some(id) if id == theirs => return Ok(None),
                Some(_) => {}
            }
        }
        Err(Error::FileExists)
    }
}
