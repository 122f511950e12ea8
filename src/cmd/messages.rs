//! The command line's fixed lines, in one place (tests quote them literally).

/// `list-public` when the record exists but lists no note.
pub(super) const NO_PUBLIC_NOTES: &str = "Aucune note publique.";
/// `list-public` when no record exists (nothing was ever published).
pub(super) const NO_PUBLIC_RECORD: &str = "Aucune note publique trouvée.";

/// The `list-public` heading: `1 note publique :`, `3 notes publiques :`.
pub(super) fn public_heading(count: usize) -> String {
    match count {
        1 => "1 note publique :".to_string(),
        n => format!("{n} notes publiques :"),
    }
}

/// `search` and `reindex` when the search index was damaged and is rebuilt.
pub(super) fn index_rebuilt(why: &str, moved_to: &str) -> String {
    format!("notes: the search index was damaged ({why}); moved it to {moved_to} and rebuilt it")
}
