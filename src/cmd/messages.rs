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

/// `links`: the headings of a note's links and of the notes linking to it.
pub(super) const LINKS_OUT: &str = "Links to:";
pub(super) const LINKS_IN: &str = "Linked from:";
/// `links`: under a heading with nothing to show.
pub(super) const NONE: &str = "  (none)";
/// `links`: a link that resolves to no note.
pub(super) const NO_SUCH_NOTE: &str = "no such note";

/// `check`: the headings, with their counts.
pub(super) fn broken_heading(count: usize) -> String {
    format!("Broken links ({count}):")
}
pub(super) fn orphans_heading(count: usize) -> String {
    format!("Notes nothing links to ({count}):")
}
pub(super) fn missing_files_heading(count: usize) -> String {
    format!("Missing files ({count}):")
}
pub(super) fn orphan_files_heading(count: usize) -> String {
    format!("Attachments nothing links to ({count}):")
}
/// `check` when every link resolves.
pub(super) const NO_BROKEN_LINKS: &str = "No broken links.";
/// `mv` when a note (or anything else) is at the destination already.
pub(super) const MOVE_DESTINATION_TAKEN: &str =
    "a note already exists there (choose another path, or move that note first)";

/// What `mv` did: the move, then the notes whose links were rewritten.
pub(super) fn moved(from: &str, to: &str, rewritten: &[String]) -> String {
    match rewritten.len() {
        0 => format!("moved {from} → {to}; no link needed rewriting\n"),
        1 => format!(
            "moved {from} → {to}; rewrote links in 1 note: {}\n",
            rewritten[0]
        ),
        n => format!(
            "moved {from} → {to}; rewrote links in {n} notes: {}\n",
            rewritten.join(", ")
        ),
    }
}

/// `token list` when no token exists and none was (or tokens were turned off).
pub(super) const NO_TOKENS: &str =
    "No tokens: `notes serve` asks for none (create one with `notes token create`).";

/// What a folder with no token left but closed does: `token list`, and `token revoke`
/// of the last token.
pub(super) const NO_TOKEN_LEFT: &str = "No token left: `notes serve` now refuses every \
    request that needs one until `notes token create` makes one, or `notes token off` \
    turns tokens off on purpose.";

/// `token off`: what it did.
pub(super) fn tokens_off(revoked: &[&str]) -> String {
    let what = if revoked.is_empty() {
        String::new()
    } else {
        format!(" (revoked {})", revoked.join(", "))
    };
    format!(
        "Tokens are off{what}: `notes serve` answers without a token on loopback; \
         `notes token create` turns them on again."
    )
}

/// `token create`, under the token: what it is and that it is not shown again.
pub(super) fn token_created(name: &str, scope: &str) -> String {
    format!("token {name} ({scope}): copy it now, it is not shown again")
}

/// `serve --listen` on an address other machines reach, with no token and no `--no-auth`.
pub(super) fn no_token_off_loopback(listen: &std::net::SocketAddr) -> String {
    format!(
        "refusing to listen on {listen}: other machines could use every note without a \
         token; create one with `notes token create`, or pass --no-auth if a proxy \
         authenticates"
    )
}
