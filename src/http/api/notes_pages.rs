//! `GET /api/v1/pages/notes?limit=N&after=PATH`: the list of notes one page at a time,
//! after a cursor, with the cursor of the next page. A route of its own: the spec's
//! list (`GET /api/v1/notes`) takes no parameter and always answers every note.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use warp::http::StatusCode;
use warp::reject::Rejection;
use warp::reply::Response;

use crate::error::Error;
use crate::http::support::{blocking, reply};
use crate::http::{State, auth};
use crate::ops::model::{NoteList, NoteMeta};
use crate::ops::tokens::Scope;

/// The largest page, and the size of a page whose request gives no `limit`.
const MAX_PAGE: usize = 1000;

/// What a page request asks for.
#[derive(Debug, PartialEq, Eq)]
struct PageRequest {
    limit: usize,
    after: Option<String>,
}

/// `GET /api/v1/pages/notes[?limit=N&after=PATH]`; a folder token (`scope`) pages
/// through its folder's notes only, as its list shows them.
pub(super) async fn page(
    raw: String,
    scope: Option<Scope>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let page = page_request(&raw)?;
    if let Some(scope) = scope.filter(|s| s.narrows(".")) {
        let list = blocking(&state, move |s| {
            let snapshot = s.notebook.list_snapshot()?;
            let reader = s.notebook.reader_of(&scope, &snapshot);
            Ok::<_, Error>(auth::lists::notes(&snapshot.list, &reader))
        })
        .await?;
        return Ok(page_reply(&list, &page));
    }
    let snapshot = blocking(&state, |s| s.notebook.list_snapshot()).await?;
    Ok(page_reply(&snapshot.list, &page))
}

/// One page of `list` after the request's cursor.
fn page_reply(list: &NoteList, page: &PageRequest) -> Response {
    let shown = list.page_after(page.after.as_deref(), page.limit);
    let more = shown
        .last()
        .zip(list.notes.last())
        .is_some_and(|(last, end)| last.path != end.path);
    let body = Page {
        notes: shown,
        total: list.total,
        next: shown.last().filter(|_| more).map(|n| n.path.as_str()),
    };
    reply::json(StatusCode::OK, &body)
}

/// A page: its notes, how many the whole list has, and the cursor of the next page
/// (`null` on the last).
#[derive(Serialize)]
struct Page<'a> {
    notes: &'a [NoteMeta],
    total: usize,
    next: Option<&'a str>,
}

/// `limit` (1 to `MAX_PAGE`, `MAX_PAGE` when absent) and `after` (a path, the `next`
/// of the previous page; the first page when absent or empty). Other parameters are
/// ignored, as a cache buster should be.
fn page_request(raw: &str) -> Result<PageRequest, Error> {
    let params: HashMap<String, String> = serde_urlencoded::from_str(raw)
        .map_err(|e| Error::InvalidQuery(format!("the query string is malformed: {e}")))?;
    let after = params.get("after").filter(|a| !a.is_empty()).cloned();
    let limit = match params.get("limit") {
        None => MAX_PAGE,
        Some(text) => text
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=MAX_PAGE).contains(n))
            .ok_or_else(|| Error::InvalidPageLimit(text.clone()))?,
    };
    Ok(PageRequest { limit, after })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_requests() {
        let ok = |raw| page_request(raw).unwrap();
        let first = PageRequest {
            limit: MAX_PAGE,
            after: None,
        };
        assert_eq!(ok(""), first);
        assert_eq!(ok("other=1&_=123"), first);
        assert_eq!(ok("after="), first);
        assert_eq!(
            ok("limit=2"),
            PageRequest {
                limit: 2,
                after: None
            }
        );
        assert_eq!(
            ok("limit=5&after=a%2Fb.md"),
            PageRequest {
                limit: 5,
                after: Some("a/b.md".into())
            }
        );
        assert_eq!(
            ok("after=x.md"),
            PageRequest {
                limit: MAX_PAGE,
                after: Some("x.md".into())
            }
        );
        for bad in ["limit=0", "limit=1001", "limit=ab", "limit="] {
            assert!(
                matches!(page_request(bad), Err(Error::InvalidPageLimit(_))),
                "{bad}"
            );
        }
    }
}
