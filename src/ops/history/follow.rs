//! A note's versions across its moves, like `git log --follow`: its entries in the
//! index, then at each move that brought it to a path (the commit `move FROM -> TO`),
//! the entries the note had at `FROM` before that commit, and so on back.

use git2::Oid;

use super::index::Entry;
use super::{MOVES_FOLLOWED, failed};
use crate::error::Result;
use crate::ops::history::Op;
use crate::ops::{NotePath, Notebook};

/// One version of a note as followed: the path it had then, and its entry.
pub(super) type Followed = (String, Entry);

impl Notebook {
    /// The note's versions newest first, across the moves that brought it to `path`;
    /// `None` when the index has no entry for `path`. Each step goes strictly back in
    /// the index (to the entries before the move's commit), and the steps are bounded,
    /// so a rename back to an earlier path or a damaged message cannot loop.
    pub(super) fn followed(&self, path: &NotePath) -> Result<Option<Vec<Followed>>> {
        let store = self.history_store()?;
        let mut out: Vec<Followed> = Vec::new();
        let mut at = path.to_string();
        // Only entries older than this commit (the move that left `at`).
        let mut before: Option<Oid> = None;
        for _ in 0..MOVES_FOLLOWED {
            // The index's entries of `at` (older than `before`), cloned: the messages
            // are read outside its lock.
            let segment = store
                .with_index(|index| {
                    let entries = index.notes.get(&at)?;
                    let end = match before {
                        None => entries.len(),
                        Some(commit) => entries.iter().rposition(|e| e.commit == commit)?,
                    };
                    Some(entries[..end].to_vec())
                })
                .map_err(failed)?;
            let Some(segment) = segment else {
                break;
            };
            if before.is_none() && segment.is_empty() {
                break;
            }
            let mut from = None;
            for entry in segment.into_iter().rev() {
                let arrived = entry.blob.is_some() && &*entry.op == Op::Move.as_str();
                let commit = entry.commit;
                out.push((at.clone(), entry));
                if arrived {
                    // A note whose links a move rewrote has a "move" entry too: only
                    // the move's target came from elsewhere.
                    let message = store.message(commit).map_err(failed)?;
                    if let Some(source) = moved_from(&message, &at) {
                        from = Some((source, commit));
                        break;
                    }
                }
            }
            let Some((source, commit)) = from else {
                break;
            };
            at = source;
            before = Some(commit);
        }
        if out.is_empty() {
            return Ok(None);
        }
        Ok(Some(out))
    }
}

/// The source of a move to `to` named by its commit message (`move FROM -> TO`).
fn moved_from(message: &str, to: &str) -> Option<String> {
    let first = message.lines().next()?;
    let rest = first.strip_prefix(Op::Move.as_str())?.strip_prefix(' ')?;
    let from = rest.strip_suffix(to)?.strip_suffix(" -> ")?;
    (!from.is_empty() && from != to).then(|| from.to_string())
}

#[cfg(test)]
mod tests {
    use super::moved_from;

    #[test]
    fn the_source_is_read_only_from_a_move_to_that_path() {
        assert_eq!(moved_from("move a.md -> b.md", "b.md"), Some("a.md".into()));
        assert_eq!(
            moved_from("move a -> b.md -> c.md", "c.md"),
            Some("a -> b.md".into())
        );
        assert_eq!(moved_from("move a.md -> b.md", "c.md"), None);
        assert_eq!(moved_from("put b.md", "b.md"), None);
        assert_eq!(moved_from("move b.md -> b.md", "b.md"), None);
    }
}
