//! `GET /api/v1/search?q=QUERY[&limit=N]`: ranked full-text search, JSON errors like
//! every other route; 503 with `Retry-After` while a damaged index is rebuilt.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use warp::Filter;
use warp::http::{HeaderValue, Method, StatusCode, header};
use warp::reply::Response;

use super::State;
use super::reject::{self, HttpError};
use super::support::blocking;
use crate::error::Error;
use crate::ops::search::{Limit, Query, RETRY_AFTER_SECS};

/// The route: path first, so any other method gets a 405 ErrorResponse.
pub fn filter(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = warp::Rejection> + Clone {
    warp::path!("api" / "v1" / "search")
        .and(warp::method())
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .and(warp::any().map(move || state.clone()))
        .and_then(handle)
}

async fn handle(method: Method, raw: String, state: Arc<State>) -> Result<Response, Infallible> {
    if method != Method::GET {
        return Ok(reject::error(&HttpError::MethodNotAllowed { allow: "GET" }));
    }
    // A malformed query is the client's error, whatever the state of the index.
    let (query, limit) = match parse_params(&raw) {
        Ok(params) => params,
        Err(err) => return Ok(reject::error(&err.into())),
    };
    let result = blocking(&state, move |s| s.notebook.search(&s.search, &query, limit)).await;
    let mut response = reject::result(StatusCode::OK, result);
    if response.status() == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
    }
    Ok(response)
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
                crate::http::reject::status(&err),
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
