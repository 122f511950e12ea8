//! What can go wrong with a request: the domain's errors, and the failures of the HTTP
//! exchange itself (method, route, body). Each has one status and becomes a rejection;
//! every rejection warp can produce has an ErrorResponse, so no plain-text error ever
//! reaches a client.

use warp::http::{HeaderValue, StatusCode, header};
use warp::reject::Rejection;
use warp::reply::Response;

use super::reply;
use crate::error::Error;
use crate::ops::search::RETRY_AFTER_SECS;

/// A request that failed: in the domain, or before it got there.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(transparent)]
    Domain(#[from] Error),
    /// A method the route does not take; `allow` lists those it does.
    #[error("Method not allowed")]
    MethodNotAllowed { allow: &'static str },
    #[error("Method not allowed. Supported: GET, PUT, DELETE")]
    NoteMethodNotAllowed,
    #[error("Not found")]
    RouteNotFound,
    #[error("Path is required")]
    PathRequired,
    #[error("Invalid JSON: {0}")]
    InvalidJson(String),
    #[error("Failed to read body")]
    BodyUnreadable,
    #[error("Unsupported Content-Type. Use application/json or text/markdown")]
    UnsupportedContentType,
    /// A section edit (PATCH) whose body is not declared as JSON.
    #[error("Unsupported Content-Type. Use application/json")]
    JsonContentTypeRequired,
    #[error("Request body is larger than the limit of {0} bytes")]
    PayloadTooLarge(u64),
    #[error("The request body stalled")]
    RequestTimeout,
    /// A range request none of whose ranges lies within the file (of this length).
    #[error("Range not satisfiable: the file has {0} bytes")]
    RangeNotSatisfiable(u64),
    /// The caller's token does not reach this path (read-only, or outside its folder).
    #[error("{0}")]
    Forbidden(&'static str),
    /// A task of the blocking pool panicked or was cancelled.
    #[error("Internal error: {0}")]
    WorkerFailed(String),
}

impl warp::reject::Reject for HttpError {}

/// A domain error is an `HttpError` as a rejection (`HttpError` itself converts through
/// warp's `From<Reject>`).
impl From<Error> for Rejection {
    fn from(err: Error) -> Self {
        warp::reject::custom(HttpError::Domain(err))
    }
}

impl HttpError {
    /// The status of this failure, as the spec assigns it.
    pub fn status(&self) -> StatusCode {
        match self {
            HttpError::Domain(err) => status(err),
            HttpError::MethodNotAllowed { .. } | HttpError::NoteMethodNotAllowed => {
                StatusCode::METHOD_NOT_ALLOWED
            }
            HttpError::RouteNotFound => StatusCode::NOT_FOUND,
            HttpError::PathRequired | HttpError::InvalidJson(_) | HttpError::BodyUnreadable => {
                StatusCode::BAD_REQUEST
            }
            HttpError::UnsupportedContentType | HttpError::JsonContentTypeRequired => {
                StatusCode::UNSUPPORTED_MEDIA_TYPE
            }
            HttpError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            HttpError::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            HttpError::RangeNotSatisfiable(_) => StatusCode::RANGE_NOT_SATISFIABLE,
            HttpError::Forbidden(_) => StatusCode::FORBIDDEN,
            HttpError::WorkerFailed(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The methods the route takes, for the `Allow` header of a 405.
    pub fn allow(&self) -> Option<&'static str> {
        match self {
            HttpError::MethodNotAllowed { allow } => Some(allow),
            HttpError::NoteMethodNotAllowed => Some("GET, PUT, DELETE"),
            _ => None,
        }
    }

    /// The message with its underlying cause, for the log.
    pub fn detailed(&self) -> String {
        match self {
            HttpError::Domain(err) => err.detailed(),
            other => other.to_string(),
        }
    }
}

/// The HTTP status of a domain error: the one place it is decided.
pub fn status(err: &Error) -> StatusCode {
    use Error::*;
    match err {
        InvalidPath
        | NotMarkdown
        | InvalidQuery(_)
        | InvalidLimit(_)
        | InvalidPageLimit(_)
        | FrontMatterTooLarge(_)
        | FrontMatterTooDeep(_)
        | FrontMatterAliases(_)
        | MoveOntoItself
        | FileIsNote
        | InvalidSectionEdit(_)
        | InvalidTokenName(_)
        | SyncInvalidRemote(_) => StatusCode::BAD_REQUEST,
        NotFound | NotesDirMissing(_) | FileNotFound | VersionNotFound | TokenNotFound(_) => {
            StatusCode::NOT_FOUND
        }
        HeadingNotFound { .. } => StatusCode::NOT_FOUND,
        NotPublic(_)
        | MoveDestinationExists(_)
        | MoveFolderTaken(_)
        | TokenExists(_)
        | NoteMovedTo(_) => StatusCode::CONFLICT,
        HeadingAmbiguous { .. } | FrontMatterUnreadable => StatusCode::CONFLICT,
        SyncNoRemote | SyncNeedsHistory => StatusCode::CONFLICT,
        SyncFailed(_) => StatusCode::BAD_GATEWAY,
        PreconditionFailed | AlreadyExists | FileChanged | FileExists => {
            StatusCode::PRECONDITION_FAILED
        }
        OutsideScope | MoveOutsideScope => StatusCode::FORBIDDEN,
        IndexRebuilding => StatusCode::SERVICE_UNAVAILABLE,
        ListFailed(_)
        | AccessFailed(_)
        | ReadFailed(_)
        | CreateDirFailed(_)
        | WriteFailed(_)
        | FrontMatterFailed(_)
        | DeleteFailed(_)
        | PublishFailed(_)
        | MoveFailed(_)
        | PublicRecordUnreadable { .. }
        | Index(_)
        | IndexOwned
        | IndexBroken(_)
        | FileReadFailed(_)
        | FileWriteFailed(_)
        | FileDeleteFailed(_)
        | HistoryFailed(_)
        | TokensUnreadable(_)
        | TokensWriteFailed(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The ErrorResponse of a failed request (with `Allow` on a 405, `Retry-After` while
/// the index is rebuilt); server-side failures are logged with their cause.
pub fn error(err: &HttpError) -> Response {
    let status = err.status();
    if status.is_server_error() {
        crate::log::error(&err.detailed());
    }
    let mut response = match err {
        // A section edit that names no section, or several: the note's heading paths
        // come along, so the client can pick one.
        HttpError::Domain(
            Error::HeadingNotFound { candidates, .. } | Error::HeadingAmbiguous { candidates, .. },
        ) => reply::error_with_candidates(status, &err.to_string(), candidates),
        _ => reply::error_message(status, &err.to_string()),
    };
    if let Some(allow) = err.allow() {
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static(allow));
    }
    if let HttpError::RangeNotSatisfiable(len) = err
        && let Some(value) = reply::header_value(format!("bytes */{len}"))
    {
        response.headers_mut().insert(header::CONTENT_RANGE, value);
    }
    if matches!(err, HttpError::Domain(Error::IndexRebuilding)) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
    }
    response
}

/// The ErrorResponse of any rejection: ours, warp's own, or no route at all.
pub fn response(rejection: &Rejection) -> Response {
    if let Some(err) = rejection.find::<HttpError>() {
        return error(err);
    }
    let (status, message) = if rejection.is_not_found() {
        (StatusCode::NOT_FOUND, HttpError::RouteNotFound.to_string())
    } else if rejection.find::<warp::reject::MethodNotAllowed>().is_some() {
        (
            StatusCode::METHOD_NOT_ALLOWED,
            "Method not allowed".to_string(),
        )
    } else if rejection.find::<warp::reject::PayloadTooLarge>().is_some() {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            "Request body is too large".to_string(),
        )
    } else if rejection.find::<warp::reject::LengthRequired>().is_some() {
        (
            StatusCode::LENGTH_REQUIRED,
            "Content-Length is required".to_string(),
        )
    } else if rejection
        .find::<warp::reject::UnsupportedMediaType>()
        .is_some()
    {
        (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            HttpError::UnsupportedContentType.to_string(),
        )
    } else if let Some(e) = rejection.find::<warp::reject::InvalidQuery>() {
        (StatusCode::BAD_REQUEST, e.to_string())
    } else if let Some(e) = rejection.find::<warp::reject::MissingHeader>() {
        (StatusCode::BAD_REQUEST, e.to_string())
    } else if let Some(e) = rejection.find::<warp::reject::InvalidHeader>() {
        (StatusCode::BAD_REQUEST, e.to_string())
    } else if let Some(e) = rejection.find::<warp::filters::body::BodyDeserializeError>() {
        (StatusCode::BAD_REQUEST, format!("Invalid body: {e}"))
    } else {
        crate::log::error(&format!("unhandled rejection: {rejection:?}"));
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal server error".to_string(),
        )
    };
    reply::error_message(status, &message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_and_allow() {
        assert_eq!(
            HttpError::from(Error::NotFound).status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            HttpError::NoteMethodNotAllowed.allow(),
            Some("GET, PUT, DELETE")
        );
        assert_eq!(HttpError::PathRequired.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            HttpError::from(Error::NotFound).to_string(),
            "Note not found"
        );
    }
}
