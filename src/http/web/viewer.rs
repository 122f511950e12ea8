//! Who is looking at a page, for what the pages offer: a read-only session sees no
//! button that changes a note, a visitor not logged in sees only the way to log in,
//! a session sees "Log out". This only decides what is shown: the door (`http::auth`)
//! and the operations still check every request.

use std::sync::Arc;

use warp::Filter;

use crate::http::State;
use crate::http::auth::Caller;
use crate::http::support::with_state;
use crate::ops::Notebook;
use crate::ops::tokens::Scope;

/// The rights of the request a page answers.
#[derive(Debug, Clone)]
pub(crate) struct Viewer {
    /// `None`: every right (tokens off, or a full token).
    scope: Option<Scope>,
    /// Logged in at `/login`: the pages offer "Log out".
    session: bool,
    /// Tokens are in force and the request carries none (the login page): nothing but
    /// the login and the public pages is offered.
    stranger: bool,
    /// Whether what it may change is known: not for a page made without its request.
    known: bool,
}

impl Viewer {
    /// A server without tokens: everything, no login.
    pub(crate) fn open() -> Self {
        Viewer {
            scope: None,
            session: false,
            stranger: false,
            known: true,
        }
    }

    /// A visitor who has not logged in, on a server with tokens.
    pub(crate) fn stranger() -> Self {
        Viewer {
            stranger: true,
            ..Viewer::open()
        }
    }

    /// An admitted request with `scope`; `session`: through the login's cookie.
    pub(crate) fn admitted(scope: Scope, session: bool) -> Self {
        Viewer {
            scope: (!scope.is_full()).then_some(scope),
            session,
            stranger: false,
            known: true,
        }
    }

    /// A page made without its request (the 404 of an address nothing answers): it
    /// offers reading only.
    pub(crate) fn unknown() -> Self {
        Viewer {
            known: false,
            ..Viewer::open()
        }
    }

    /// Whether the pages of notes are open to it (not to a stranger).
    pub(crate) fn browses(&self) -> bool {
        !self.stranger
    }

    /// Whether it may change anything at all (write a new note).
    pub(crate) fn writes(&self) -> bool {
        self.known
            && !self.stranger
            && self
                .scope
                .as_ref()
                .is_none_or(|s| s.allows_any_write() && s.prefix().is_none())
    }

    /// Whether it may change the note at `path` (where the path leads, as the
    /// operations judge it).
    pub(crate) fn may_change(&self, notebook: &Notebook, path: &str) -> bool {
        self.known
            && !self.stranger
            && self
                .scope
                .as_ref()
                .is_none_or(|s| notebook.may_write(s, path))
    }

    /// Whether the pages offer "Log out".
    pub(crate) fn logged_in(&self) -> bool {
        self.session
    }
}

/// The viewer of a request, from what the door found (`http::auth::Caller` and the
/// scope) and whether tokens are in force.
pub(super) fn viewer(
    state: Arc<State>,
) -> impl Filter<Extract = (Viewer,), Error = std::convert::Infallible> + Clone {
    crate::http::auth::caller()
        .and(crate::http::auth::scope())
        .and(with_state(state))
        .map(
            |caller: Option<Caller>, scope: Option<Scope>, state: Arc<State>| match caller {
                Some(caller) => Viewer::admitted(scope.unwrap_or_default(), caller.session),
                None if state.auth.required(&state.notebook) => Viewer::stranger(),
                None => Viewer::open(),
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tokens::Prefix;

    #[test]
    fn rights_follow_the_scope() {
        let (_dir, notebook) = crate::ops::temp_notebook();
        let open = Viewer::open();
        assert!(open.writes() && open.may_change(&notebook, "a.md") && !open.logged_in());
        let full = Viewer::admitted(Scope::full(), true);
        assert!(full.writes() && full.logged_in());
        let ro = Viewer::admitted(Scope::new(true, None), true);
        assert!(ro.browses() && !ro.writes() && !ro.may_change(&notebook, "a.md"));
        let work = Viewer::admitted(
            Scope::new(false, Some(Prefix::parse("work").unwrap())),
            false,
        );
        assert!(!work.writes());
        assert!(work.may_change(&notebook, "work/a.md"));
        assert!(!work.may_change(&notebook, "home/a.md"));
        let stranger = Viewer::stranger();
        assert!(!stranger.browses() && !stranger.writes());
        assert!(!Viewer::unknown().writes() && Viewer::unknown().browses());
    }
}
