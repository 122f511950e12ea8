//! `GET /api/v1/search?q=QUERY[&limit=N]`: ranked full-text search, JSON errors like
//! every other route; 503 with `Retry-After` while a damaged index is rebuilt.

use std::collections::HashMap;
use std::sync::Arc;

use warp::http::StatusCode;
use warp::reject::Rejection;
use warp::reply::Response;

use crate::error::Error;
use crate::http::State;
use crate::http::support::{blocking, reply};
use crate::ops::search::{Limit, Query};
use crate::ops::tokens::Scope;

/// `GET /api/v1/search`. A malformed query is the client's error, whatever the state of
/// the index, so it is checked first.
pub(super) async fn search(
    raw: String,
    scope: Option<Scope>,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    let (query, limit) = parse_params(&raw)?;
    // A folder token's results and total count the notes it may read only.
    let scope = scope.unwrap_or_default();
    let hits = blocking(&state, move |s| s.notebook.search(&query, limit, &scope)).await?;
    Ok(reply::json(StatusCode::OK, &hits))
}

/// `q` (required, not blank, a valid query) and `limit` (1 to 100, default 20), checked
/// in that order: a blank `q` first, then the limit, then the query's syntax.
fn parse_params(raw: &str) -> Result<(Query, Limit), Error> {
    let params: HashMap<String, String> = serde_urlencoded::from_str(raw)
        .map_err(|e| Error::InvalidQuery(format!("the query string is malformed: {e}")))?;
    let text = params.get("q").map_or("", String::as_str);
    if text.trim().is_empty() {
        return Err(Error::InvalidQuery(
            "the query is empty (use ?q=words)".into(),
        ));
    }
    let limit = match params.get("limit") {
        None => Limit::DEFAULT,
        Some(text) => text
            .trim()
            .parse()
            .ok()
            .and_then(Limit::new)
            .ok_or_else(|| Error::InvalidLimit(text.clone()))?,
    };
    Ok((Query::parse(text)?, limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters() {
        let (query, limit) = parse_params("q=caf%C3%A9+noir").unwrap();
        assert_eq!(query.as_str(), "café noir");
        assert_eq!(limit, Limit::DEFAULT);
        assert_eq!(parse_params("q=x&limit=5").unwrap().1.get(), 5);
        for bad in [
            "",
            "q=",
            "q=+",
            "limit=3",
            "q=x&limit=0",
            "q=x&limit=101",
            "q=x&limit=ab",
            "q=%22open",
            "q=-draft",
        ] {
            let err = parse_params(bad).unwrap_err();
            assert_eq!(
                crate::http::support::reject::status(&err),
                StatusCode::BAD_REQUEST,
                "{bad}"
            );
        }
        // A blank query is reported before a bad limit, a bad limit before bad syntax.
        assert!(matches!(
            parse_params("q=&limit=0"),
            Err(Error::InvalidQuery(_))
        ));
        assert!(matches!(
            parse_params("q=%22open&limit=0"),
            Err(Error::InvalidLimit(_))
        ));
    }
}
