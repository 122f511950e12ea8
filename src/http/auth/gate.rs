//! Whether a request needs a token when none may exist: the decision that makes "no
//! token" fail closed, its 401 messages and its word in the log. A folder that had a
//! token stays closed when the last is revoked, and a server listening off loopback
//! without `--no-auth` needs a token in force at every request, not only at start.

use std::net::SocketAddr;

use crate::ops::tokens::Keyring;

/// What the tokens file, and where the server listens, ask of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Gate {
    /// Nothing: no token ever existed here (or tokens were turned off), on loopback.
    Open,
    /// A token from the keyring.
    Tokens,
    /// A token, and none exists: the last one was revoked. Refused until one is made.
    Closed,
    /// A token, and none exists, off loopback: refused until one is made.
    Exposed,
    /// The file is unreadable: refused until it is repaired.
    Broken,
}

/// The 401 of a closed folder with no token.
pub(super) const CLOSED: &str = "No token exists, and this server asks for one: create one \
     with `notes token create` and send it as Authorization: Bearer <token>, or turn \
     tokens off on purpose with `notes token off`";
/// The 401 off loopback with no token.
pub(super) const EXPOSED: &str = "No token exists, and this server listens on an address \
     other machines reach: every request is refused until one is created with \
     `notes token create` (or the server is started with --no-auth behind a proxy that \
     authenticates)";

/// The decision: a reading of the file, and whether the server listens off loopback
/// without `--no-auth`.
pub(super) fn decide(ring: &Result<Keyring, String>, exposed: bool) -> Gate {
    match ring {
        Err(_) => Gate::Broken,
        Ok(ring) if !ring.is_empty() => Gate::Tokens,
        Ok(ring) if ring.is_closed() => Gate::Closed,
        Ok(_) if exposed => Gate::Exposed,
        Ok(_) => Gate::Open,
    }
}

/// The log's word on a state that refuses every request, said when the server enters
/// it (the unreadable file is logged where it is read). `exposed`: the address, when
/// the server listens off loopback without `--no-auth`.
pub(super) fn log(gate: Gate, exposed: Option<SocketAddr>) {
    match (gate, exposed) {
        (Gate::Closed, _) => crate::log::warn(
            "no token is left in .notes/tokens.json: every request that needs one is \
             refused (401) until `notes token create` makes one, or `notes token off` \
             turns tokens off",
        ),
        (Gate::Exposed, Some(addr)) => crate::log::error(&format!(
            "listening on {addr}, reachable from other machines, and no token exists \
             (.notes/tokens.json emptied or removed): every request that needs one is \
             refused (401) until `notes token create` makes one"
        )),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Notebook;
    use crate::ops::tokens::Scope;

    /// No token in force is open only on loopback for a folder that never had one (or
    /// turned them off); off loopback without `--no-auth` it refuses, whenever the file
    /// lost its tokens.
    #[test]
    fn no_token_fails_closed() {
        let (_dir, notebook) = crate::ops::temp_notebook();
        let ring = |n: &Notebook| Ok::<Keyring, String>(n.keyring().unwrap());
        assert_eq!(decide(&ring(&notebook), false), Gate::Open);
        assert_eq!(decide(&ring(&notebook), true), Gate::Exposed);
        notebook.create_token(Some("a"), Scope::full()).unwrap();
        assert_eq!(decide(&ring(&notebook), false), Gate::Tokens);
        assert_eq!(decide(&ring(&notebook), true), Gate::Tokens);
        notebook.revoke_token("a").unwrap();
        assert_eq!(decide(&ring(&notebook), false), Gate::Closed);
        assert_eq!(decide(&ring(&notebook), true), Gate::Closed);
        notebook.tokens_off().unwrap();
        assert_eq!(decide(&ring(&notebook), false), Gate::Open);
        assert_eq!(decide(&ring(&notebook), true), Gate::Exposed);
        // The file removed by hand: open on loopback, refused off it.
        notebook.create_token(Some("b"), Scope::full()).unwrap();
        std::fs::remove_file(notebook.notes_dir().join(".notes/tokens.json")).unwrap();
        assert_eq!(decide(&ring(&notebook), false), Gate::Open);
        assert_eq!(decide(&ring(&notebook), true), Gate::Exposed);
        assert_eq!(decide(&Err("bad".into()), false), Gate::Broken);
    }
}
