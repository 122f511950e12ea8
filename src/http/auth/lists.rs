//! What a folder token sees of a listing: the notes list and the attachments list, cut
//! to its folder. Whole-notebook listings are made as usual and filtered here with the
//! scope's own `allows_read`; searches, links and tags are cut in `ops` (the search's
//! total must count only what the token may read).

use crate::ops::model::NoteList;
use crate::ops::tokens::{Reader, Scope};

/// The notes the reader sees (inside its folder, and not a link leading out of it);
/// `total` counts them.
pub(crate) fn notes(list: &NoteList, reader: &Reader) -> NoteList {
    let notes: Vec<_> = list
        .notes
        .iter()
        .filter(|n| reader.holds(n.path.as_str()))
        .cloned()
        .collect();
    NoteList {
        total: notes.len(),
        notes,
    }
}

/// The folder an attachments listing of `folder` may show: itself when it is inside
/// the scope's folder, the scope's folder when that is inside it, else none.
pub(crate) fn files_folder(folder: String, scope: &Scope) -> Option<String> {
    if scope.allows_read(folder.as_str()) {
        return Some(folder);
    }
    let prefix = scope.prefix()?.as_str();
    let inside = folder == "."
        || prefix
            .strip_prefix(folder.as_str())
            .is_some_and(|r| r.starts_with('/'));
    inside.then(|| prefix.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tokens::Prefix;

    #[test]
    fn folders_of_a_files_listing() {
        let scope = Scope::new(false, Some(Prefix::parse("a/b").unwrap()));
        assert_eq!(files_folder(".".into(), &scope).as_deref(), Some("a/b"));
        assert_eq!(files_folder("a".into(), &scope).as_deref(), Some("a/b"));
        assert_eq!(
            files_folder("a/b/c".into(), &scope).as_deref(),
            Some("a/b/c")
        );
        assert_eq!(files_folder("ab".into(), &scope), None);
        assert_eq!(files_folder("x".into(), &scope), None);
    }
}
