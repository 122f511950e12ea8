//! Turns every rejection warp can produce into an ErrorResponse, so no plain-text error
//! ever reaches a client.

use std::convert::Infallible;

use warp::http::StatusCode;
use warp::reject::Rejection;
use warp::reply::Response;

use super::reply;

pub async fn handle(rejection: Rejection) -> Result<Response, Infallible> {
    let (status, message) = if rejection.is_not_found() {
        (StatusCode::NOT_FOUND, "Not found".to_string())
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
            crate::error::Error::UnsupportedContentType.to_string(),
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
    Ok(reply::error_message(status, &message))
}
