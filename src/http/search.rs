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
use crate::error::Error;
use crate::ops::search::{DEFAULT_LIMIT, MAX_LIMIT, RETRY_AFTER_SECS, query};

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
    let (query, limit) = match parse_params(&raw) {
        Ok(params) => params,
        Err(err) => return Ok(reject::error(&err.into())),
    };
    // A malformed query is the client's error, whatever the state of the index.
    if let Err(why) = query::parse(&query) {
        return Ok(reject::error(&Error::InvalidQuery(why).into()));
    }
    let result = match tokio::task::spawn_blocking(move || {
        state
            .search
            .search(state.notebook.notes_dir(), &query, limit)
    })
    .await
    {
        Ok(result) => result.map_err(HttpError::from),
        Err(e) => Err(HttpError::WorkerFailed(format!(
            "search worker failed: {e}"
        ))),
    };
    let mut response = reject::result(StatusCode::OK, result);
    if response.status() == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
    }
    Ok(response)
}

/// `q` (required, not blank) and `limit` (1 to 100, default 20).
fn parse_params(raw: &str) -> Result<(String, usize), Error> {
    let params: HashMap<String, String> = serde_urlencoded::from_str(raw)
        .map_err(|e| Error::InvalidQuery(format!("the query string is malformed: {e}")))?;
    let query = params.get("q").cloned().unwrap_or_default();
    if query.trim().is_empty() {
        return Err(Error::InvalidQuery(
            "the query is empty (use ?q=words)".into(),
        ));
    }
    let limit = match params.get("limit") {
        None => DEFAULT_LIMIT,
        Some(text) => match text.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_LIMIT).contains(&n) => n,
            _ => return Err(Error::InvalidLimit(text.clone())),
        },
    };
    Ok((query, limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters() {
        assert_eq!(
            parse_params("q=caf%C3%A9+noir").unwrap(),
            ("café noir".into(), 20)
        );
        assert_eq!(parse_params("q=x&limit=5").unwrap().1, 5);
        for bad in [
            "",
            "q=",
            "q=+",
            "limit=3",
            "q=x&limit=0",
            "q=x&limit=101",
            "q=x&limit=ab",
        ] {
            let err = parse_params(bad).unwrap_err();
            assert_eq!(
                crate::http::reject::status(&err),
                StatusCode::BAD_REQUEST,
                "{bad}"
            );
        }
    }
}
