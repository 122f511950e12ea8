//! The public pages under `/public/`: the index, the pages, the feed and the stylesheet,
//! as the export wrote them.

use std::sync::Arc;

use warp::Filter;
use warp::http::{HeaderValue, StatusCode, header};
use warp::path::FullPath;
use warp::reject::Rejection;
use warp::reply::Response;

use super::State;
use super::support::reject::HttpError;
use super::support::{accepts_html, blocking, is_read, method_is, reply, with_state};
use crate::ops::Notebook;
use crate::ops::publish::record::Record;
use crate::ops::publish::{PublicFile, site};

const PUBLIC_PREFIX: &str = "/public";

/// `/public` and every file below it: read with GET or HEAD, 405 to anything else.
pub(crate) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    let files = warp::path("public")
        .and(method_is(is_read))
        .and(warp::path::full())
        .and(accepts_html())
        .and(with_state(state))
        .and_then(file);
    let refused = warp::path("public")
        .and(method_is(|m| !is_read(m)))
        .and_then(|| async {
            Err::<Response, _>(Rejection::from(HttpError::MethodNotAllowed {
                allow: "GET, HEAD",
            }))
        });
    files.or(refused).unify()
}

/// `GET /public/…`: the index, the pages, the feed and the stylesheet. Before anything
/// is published there is no public dir: a browser (`html`) then gets an index saying so,
/// with its stylesheet, where an API client gets the spec's 404.
async fn file(full: FullPath, html: bool, state: Arc<State>) -> Result<Response, Rejection> {
    let rest = full.as_str().strip_prefix(PUBLIC_PREFIX).unwrap_or("");
    let Some(rel) = rest.strip_prefix('/') else {
        return Ok(redirect("/public/"));
    };
    // Decoded once, here: `%2e%2e` is `..` to the checks of `public_file`.
    let Ok(rel) = percent_encoding::percent_decode_str(rel).decode_utf8() else {
        return Err(HttpError::RouteNotFound.into());
    };
    let rel = rel.into_owned();
    let in_media = rel.starts_with(&format!("{}/", crate::ops::publish::media::MEDIA_DIR));
    let found = blocking(&state, move |s| {
        Ok::<_, HttpError>(
            s.notebook
                .public_file(&rel)
                .or_else(|| unpublished(&s.notebook, &rel, html)),
        )
    })
    .await;
    let file = match found {
        Ok(Some(file)) => file,
        Ok(None) => return Err(warp::reject::custom(Missing(HttpError::RouteNotFound))),
        Err(err) => return Err(warp::reject::custom(Missing(err))),
    };
    let mut response = reply::with_type(StatusCode::OK, file.bytes, content_type(&file.name));
    // Public pages share their origin with the API: no script may run in them, and no
    // other site may frame them. A published attachment that is not passive (SVG, XML,
    // …) is sandboxed besides, as the API serves it.
    let mut policy = &*PUBLIC_POLICY;
    if in_media {
        let media = crate::ops::files::content_type(&file.name);
        if !crate::ops::files::is_passive(&media) {
            policy = &*SANDBOXED_POLICY;
        }
        if let Some(value) = reply::header_value(media_type(&media).to_string()) {
            response.headers_mut().insert(header::CONTENT_TYPE, value);
        }
    }
    response
        .headers_mut()
        .insert(header::CONTENT_SECURITY_POLICY, policy.clone());
    Ok(response)
}

/// The files of an empty public dir: the index (for a browser) and its stylesheet, as
/// the export would write them, while nothing is published.
fn unpublished(notebook: &Notebook, rel: &str, html: bool) -> Option<PublicFile> {
    let stylesheet = format!("{}/{}", site::STATIC_DIR, site::STYLESHEET_FILE);
    let bytes = if html && (rel.is_empty() || rel == site::INDEX_FILE) {
        site::index(&Record::default()).into_bytes()
    } else if rel == stylesheet {
        site::STYLESHEET.as_bytes().to_vec()
    } else {
        return None;
    };
    let nothing_published = match notebook.public_pages() {
        Ok(pages) => pages.is_none_or(|pages| pages.is_empty()),
        Err(_) => false,
    };
    nothing_published.then(|| PublicFile {
        name: rel
            .rsplit('/')
            .next()
            .filter(|n| !n.is_empty())
            .unwrap_or(site::INDEX_FILE)
            .to_string(),
        bytes,
    })
}

/// A public file that could not be served: an ErrorResponse under the policy of the
/// public pages, like the pages themselves.
#[derive(Debug)]
pub(crate) struct Missing(HttpError);

impl warp::reject::Reject for Missing {}

impl Missing {
    pub(crate) fn response(&self) -> Response {
        let mut response = crate::http::support::reject::error(&self.0);
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, PUBLIC_POLICY.clone());
        response
    }
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

/// The policy of a published attachment that is not passive: the public policy and a
/// sandbox, so it never runs as a page of this origin.
static SANDBOXED_POLICY: std::sync::LazyLock<HeaderValue> = std::sync::LazyLock::new(|| {
    let policy = format!(
        "{}; sandbox",
        PUBLIC_POLICY.to_str().unwrap_or("default-src 'none'")
    );
    HeaderValue::from_str(&policy).unwrap_or_else(|_| HeaderValue::from_static("sandbox"))
});

/// The type a published attachment of media type `media` (from its extension, by the
/// table the API uses) is sent with; HTML goes out as plain text, never as a page.
fn media_type(media: &str) -> &str {
    match media {
        "text/html" | "application/xhtml+xml" => "text/plain; charset=utf-8",
        other => other,
    }
}

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
