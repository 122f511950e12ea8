//! What makes the interface installable and usable offline: the web app manifest, the
//! service worker `/sw.js`, the favicon and icons, the offline scripts and page. All
//! are static, embedded in the binary, and open without a session (a browser fetches a
//! manifest without credentials); the worker's behaviour is in `assets/sw.js`.

use warp::Filter;
use warp::http::{HeaderValue, StatusCode, header};
use warp::reject::Rejection;
use warp::reply::Response;

use crate::http::support::{is_read, method_is};

/// The files served at the root: the worker must be at `/` to control every page.
pub(crate) const ROOT_FILES: [&str; 3] = ["/manifest.webmanifest", "/sw.js", "/favicon.ico"];

/// A static file: its bytes and content type.
struct Static {
    body: &'static [u8],
    content_type: &'static str,
}

/// The file named `name` (at the root, or under `/assets/`), if it is one of these.
fn find(name: &str) -> Option<Static> {
    let (body, content_type): (&'static [u8], _) = match name {
        "manifest.webmanifest" => (
            include_bytes!("../../../assets/manifest.webmanifest"),
            "application/manifest+json",
        ),
        "sw.js" => (
            include_bytes!("../../../assets/sw.js"),
            "text/javascript; charset=utf-8",
        ),
        "favicon.ico" => (
            include_bytes!("../../../assets/icons/favicon.ico"),
            "image/x-icon",
        ),
        "offline.js" => (
            include_bytes!("../../../assets/offline.js"),
            "text/javascript; charset=utf-8",
        ),
        "offline-store.js" => (
            include_bytes!("../../../assets/offline-store.js"),
            "text/javascript; charset=utf-8",
        ),
        "offline.html" => (
            include_bytes!("../../../assets/offline.html"),
            "text/html; charset=utf-8",
        ),
        "favicon.svg" => (
            include_bytes!("../../../assets/icons/favicon.svg"),
            "image/svg+xml",
        ),
        "icon-192.png" => (
            include_bytes!("../../../assets/icons/icon-192.png"),
            "image/png",
        ),
        "icon-512.png" => (
            include_bytes!("../../../assets/icons/icon-512.png"),
            "image/png",
        ),
        "icon-maskable-512.png" => (
            include_bytes!("../../../assets/icons/icon-maskable-512.png"),
            "image/png",
        ),
        _ => return None,
    };
    Some(Static { body, content_type })
}

/// `GET /manifest.webmanifest`, `/sw.js` and `/favicon.ico`; other methods get a 405.
pub(super) fn routes() -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let named = warp::path!("manifest.webmanifest")
        .map(|| "manifest.webmanifest")
        .or(warp::path!("sw.js").map(|| "sw.js"))
        .unify()
        .or(warp::path!("favicon.ico").map(|| "favicon.ico"))
        .unify();
    let get = named
        .and(method_is(is_read))
        .and_then(
            |name: &'static str| async move { answer(name).ok_or_else(warp::reject::not_found) },
        );
    let refused = named
        .and(method_is(|m| !is_read(m)))
        .and_then(|_| super::refuse("GET, HEAD"));
    get.or(refused).unify()
}

/// One of these files under `/assets/`, or `None`.
pub(super) fn asset(name: &str) -> Option<Response> {
    match name {
        "manifest.webmanifest" | "sw.js" | "favicon.ico" => None,
        _ => answer(name),
    }
}

/// The file's answer: revalidated on each use (`no-cache`), so a new version of the
/// binary is picked up at once; the offline page carries the pages' headers.
fn answer(name: &str) -> Option<Response> {
    let file = find(name)?;
    let mut response =
        crate::http::support::reply::with_type(StatusCode::OK, file.body, file.content_type);
    if file.content_type.starts_with("text/html") {
        super::secure(response.headers_mut());
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Some(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_found_with_its_type() {
        for root in ROOT_FILES {
            assert!(find(root.trim_start_matches('/')).is_some(), "{root}");
        }
        assert_eq!(
            find("manifest.webmanifest").unwrap().content_type,
            "application/manifest+json"
        );
        assert!(
            asset("sw.js").is_none(),
            "the worker is served from the root only"
        );
        assert!(asset("icon-512.png").is_some());
        assert!(find("../app.js").is_none());
    }

    #[test]
    fn the_manifest_names_its_icons() {
        let manifest: serde_json::Value =
            serde_json::from_slice(find("manifest.webmanifest").unwrap().body).unwrap();
        for icon in manifest["icons"].as_array().unwrap() {
            let src = icon["src"].as_str().unwrap();
            let name = src.strip_prefix("/assets/").unwrap();
            assert!(asset(name).is_some(), "{src}");
        }
        assert_eq!(manifest["start_url"], "/");
        assert_eq!(manifest["display"], "standalone");
    }
}
