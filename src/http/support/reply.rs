//! Building responses: indented JSON with the spec's content type, and the
//! ErrorResponse body every failure is written as.

use serde::Serialize;
use warp::http::{HeaderValue, StatusCode, header};
use warp::reply::Response;

pub const JSON_TYPE: &str = "application/json; charset=utf-8";

/// ErrorResponse: reason phrase, message, status code.
#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
    message: &'a str,
    code: u16,
}

/// An indented JSON response.
pub fn json<T: Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_string_pretty(value) {
        Ok(mut text) => {
            text.push('\n');
            with_type(status, text, JSON_TYPE)
        }
        Err(e) => error_message(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("Failed to encode response: {e}"),
        ),
    }
}

/// A response with a body and a content type.
pub fn with_type(
    status: StatusCode,
    body: impl Into<bytes::Bytes>,
    content_type: &'static str,
) -> Response {
    let mut response = Response::new(body.into().into());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// A header value made from a string without copying it; `None` when it is not a
/// valid header value.
pub fn header_value(text: String) -> Option<HeaderValue> {
    HeaderValue::from_maybe_shared(bytes::Bytes::from(text)).ok()
}

/// An ErrorResponse with a given status and message.
pub fn error_message(status: StatusCode, message: &str) -> Response {
    let body = ErrorBody {
        error: status.canonical_reason().unwrap_or("Error"),
        message,
        code: status.as_u16(),
    };
    let mut text = serde_json::to_string_pretty(&body).unwrap_or_default();
    text.push('\n');
    with_type(status, text, JSON_TYPE)
}

/// An ErrorResponse with an added `candidates` array: the heading paths a section edit
/// could have named.
pub fn error_with_candidates(
    status: StatusCode,
    message: &str,
    candidates: &[Vec<String>],
) -> Response {
    #[derive(Serialize)]
    struct WithCandidates<'a> {
        #[serde(flatten)]
        error: ErrorBody<'a>,
        candidates: &'a [Vec<String>],
    }
    let body = WithCandidates {
        error: ErrorBody {
            error: status.canonical_reason().unwrap_or("Error"),
            message,
            code: status.as_u16(),
        },
        candidates,
    };
    json(status, &body)
}
