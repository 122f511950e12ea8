//! Handlers of the public export: the toggle, the list of public notes and the public
//! pages themselves.

use std::convert::Infallible;
use std::sync::Arc;

use warp::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use warp::path::FullPath;
use warp::reply::Response;

use super::State;
use super::reject::{self, HttpError};
use super::support::body::{self, BodyStream};
use super::support::reply;
use super::support::{blocking, content_length};
use crate::ops::NotePath;

const PUBLIC_PREFIX: &str = "/public";

/// `POST /api/public/toggle` with the form field `path`. Like a form handler reading
/// a field, it also takes `path` from the query string, or from a JSON object body.
pub async fn toggle(
    method: Method,
    headers: HeaderMap,
    query: String,
    body: BodyStream,
    state: Arc<State>,
) -> Result<Response, Infallible> {
    if method != Method::POST {
        return Ok(reject::error(&HttpError::MethodNotAllowed {
            allow: "POST",
        }));
    }
    let path = match body::read(
        body,
        content_length(&headers),
        state.max_body,
        state.request_timeout,
    )
    .await
    {
        Ok(bytes) => form_path(&headers, &bytes, &query),
        Err(err) => Err(err),
    };
    let result = match path {
        Ok(path) => blocking(&state, move |s| s.notebook.toggle_public(&path)).await,
        Err(err) => Err(err),
    };
    Ok(reject::result(StatusCode::OK, result.map(|p| p.result)))
}

/// The `path` field: from the body (form, or a JSON object), else from the query
/// string; required, then checked like any note path.
fn form_path(headers: &HeaderMap, body: &[u8], query: &str) -> Result<NotePath, HttpError> {
    let is_json = headers
        .get(warp::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.to_ascii_lowercase().contains("application/json"));
    let from_body = if is_json {
        serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .and_then(|v| v.get("path")?.as_str().map(str::to_string))
    } else {
        field(body, "path")
    };
    let raw = from_body
        .filter(|value| !value.is_empty())
        .or_else(|| field(query.as_bytes(), "path"))
        .filter(|value| !value.is_empty())
        .ok_or(HttpError::PathRequired)?;
    Ok(NotePath::parse(&raw)?)
}

/// A field of a URL-encoded form or query string.
fn field(encoded: &[u8], name: &str) -> Option<String> {
    serde_urlencoded::from_bytes::<Vec<(String, String)>>(encoded)
        .ok()?
        .into_iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value)
}

/// `GET /api/public/list`.
pub async fn list(method: Method, state: Arc<State>) -> Result<Response, Infallible> {
    if method != Method::GET {
        return Ok(reject::error(&HttpError::MethodNotAllowed { allow: "GET" }));
    }
    Ok(reject::result(
        StatusCode::OK,
        blocking(&state, |s| s.notebook.public_list()).await,
    ))
}

/// `GET /public/…`: the index, the pages, the feed and the stylesheet.
pub async fn file(
    full: FullPath,
    method: Method,
    state: Arc<State>,
) -> Result<Response, Infallible> {
    if method != Method::GET && method != Method::HEAD {
        return Ok(reject::error(&HttpError::MethodNotAllowed {
            allow: "GET, HEAD",
        }));
    }
    let rest = full.as_str().strip_prefix(PUBLIC_PREFIX).unwrap_or("");
    let Some(rel) = rest.strip_prefix('/') else {
        return Ok(redirect("/public/"));
    };
    // Decoded once, here: `%2e%2e` is `..` to the checks of `public_file`.
    let Ok(rel) = percent_encoding::percent_decode_str(rel).decode_utf8() else {
        return Ok(reject::error(&HttpError::RouteNotFound));
    };
    let rel = rel.into_owned();
    let mut response = match blocking(&state, move |s| {
        Ok::<_, HttpError>(s.notebook.public_file(&rel))
    })
    .await
    {
        Ok(Some(file)) => reply::with_type(StatusCode::OK, file.bytes, content_type(&file.name)),
        Ok(None) => reject::error(&HttpError::RouteNotFound),
        Err(err) => reject::error(&err),
    };
    // Public pages share their origin with the API: no script may run in them, and no
    // other site may frame them.
    response
        .headers_mut()
        .insert(header::CONTENT_SECURITY_POLICY, PUBLIC_POLICY.clone());
    Ok(response)
}

/// The policy of everything under `/public/`: the pages' own policy (also in each page's
/// `<meta>`), plus no framing, which a `<meta>` policy cannot say.
static PUBLIC_POLICY: std::sync::LazyLock<HeaderValue> = std::sync::LazyLock::new(|| {
    HeaderValue::from_str(&format!(
        "{}; frame-ancestors 'none'",
        crate::ops::publish::site::PUBLIC_CSP
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"))
});

fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("xml") => "application/atom+xml; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

fn redirect(location: &'static str) -> Response {
    let mut response = reply::with_type(StatusCode::MOVED_PERMANENTLY, "", "text/plain");
    response
        .headers_mut()
        .insert(header::LOCATION, HeaderValue::from_static(location));
    response
}
