//! The cross-site check of form posts. The service has no login, so any page the user
//! visits could try to post a form to it; a post is accepted only when the browser says
//! it comes from this very origin (or says nothing, like curl or an old browser).

use warp::http::{HeaderMap, header};

/// Why a post was refused, for the 403 page.
pub(crate) const REFUSED: &str = "This form was sent from another site, so it was refused. \
     Open the page on this service and send it from there.";

/// Whether a form post may proceed: `Sec-Fetch-Site` must not name another site, and
/// `Origin`, when sent, must name the host the request was sent to.
pub(crate) fn same_origin(headers: &HeaderMap) -> bool {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_ascii_lowercase())
    };
    if let Some(site) = get("sec-fetch-site")
        && (site == "cross-site" || site == "same-site")
    {
        return false;
    }
    let Some(origin) = get(header::ORIGIN.as_str()) else {
        return true;
    };
    // `null` is what sandboxed frames and some redirects send: never ours.
    let Some(origin_host) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let origin_host = origin_host.trim_end_matches('/');
    // Behind a reverse proxy the browser's host arrives as X-Forwarded-Host.
    [get("x-forwarded-host"), get(header::HOST.as_str())]
        .into_iter()
        .flatten()
        .any(|host| host == origin_host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn same_origin_posts_pass() {
        assert!(same_origin(&headers(&[])));
        assert!(same_origin(&headers(&[("host", "127.0.0.1:8080")])));
        assert!(same_origin(&headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080"),
            ("sec-fetch-site", "same-origin"),
        ])));
        assert!(same_origin(&headers(&[
            ("host", "127.0.0.1:8080"),
            ("x-forwarded-host", "notes.example.org"),
            ("origin", "https://notes.example.org"),
        ])));
    }

    #[test]
    fn cross_site_posts_fail() {
        for pairs in [
            &[("sec-fetch-site", "cross-site")][..],
            &[("sec-fetch-site", "same-site")],
            &[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://evil.example"),
            ],
            &[("host", "127.0.0.1:8080"), ("origin", "null")],
            &[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:9999"),
            ],
            &[("origin", "http://127.0.0.1:8080")],
        ] {
            assert!(!same_origin(&headers(pairs)), "{pairs:?}");
        }
    }
}
