//! Who may talk to the service. It has no login by default, so the browser on the same
//! machine is the threat: a page on another site can make it send requests here.
//!
//! - **Host check** (every request): a page on `attacker.example` that rebinds its name to
//!   127.0.0.1 sends `Host: attacker.example`. Only IP literals, `localhost` and
//!   `*.localhost`, the `--base-url` host and the `--allow-host` names are served.
//!   `X-Forwarded-Host` is never trusted for this.
//! - **Cross-site check** (POST, PUT, PATCH, DELETE): a request the browser marks as sent
//!   by another site (`Sec-Fetch-Site: cross-site` or `same-site`), or whose `Origin` is
//!   not the host it was sent to, changes nothing.
//!
//! Clients that send neither `Origin` nor `Sec-Fetch-Site` (curl, scripts) and a loopback
//! `Host` pass both checks untouched.

use std::net::IpAddr;
use std::sync::Arc;

use warp::Filter;
use warp::http::{HeaderMap, Method};

/// The host names the service answers to, beyond IP literals and `localhost`.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts {
    names: Vec<String>,
}

impl AllowedHosts {
    /// The names of `--allow-host` and the host of `--base-url`, normalised.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>, base_url: Option<&str>) -> Self {
        let mut hosts = AllowedHosts::default();
        for name in names {
            hosts.add(name);
        }
        if let Some(host) = base_url.and_then(url_host) {
            hosts.add(host);
        }
        hosts
    }

    fn add(&mut self, name: &str) {
        let name = normalise(name);
        if !name.is_empty() && !self.names.contains(&name) {
            self.names.push(name);
        }
    }

    /// Whether a `Host` header value (`name[:port]`) names this service.
    pub fn allows(&self, host: &str) -> bool {
        let (name, _port) = split_host(host);
        if name.parse::<IpAddr>().is_ok() {
            return true;
        }
        let name = name.strip_suffix('.').unwrap_or(name);
        // Most requests name 127.0.0.1 or localhost: no allocation for them.
        if name.eq_ignore_ascii_case("localhost") || ends_with_ignore_case(name, ".localhost") {
            return true;
        }
        self.names.iter().any(|n| n.eq_ignore_ascii_case(name))
    }
}

fn ends_with_ignore_case(text: &str, suffix: &str) -> bool {
    text.len() >= suffix.len()
        && text.as_bytes()[text.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// `Example.ORG.` → `example.org`; an `--allow-host` given with a port keeps only the name.
fn normalise(name: &str) -> String {
    let (name, _port) = split_host(name.trim());
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// The host of a URL (`https://notes.example.org:8443/x` → `notes.example.org`).
fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (name, _port) = split_host(authority);
    (!name.is_empty()).then_some(name)
}

/// `name:port` → (`name`, `Some(port)`); `[::1]:8080` → (`::1`, `Some("8080")`).
fn split_host(host: &str) -> (&str, Option<&str>) {
    if let Some(rest) = host.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((ip, tail)) => (ip, tail.strip_prefix(':')),
            None => (host, None),
        };
    }
    match host.rsplit_once(':') {
        // More than one colon: a bare IPv6 literal, not a port.
        Some((name, port)) if !name.contains(':') => (name, Some(port)),
        _ => (host, None),
    }
}

/// Why a request was refused; the recover handler answers 403 with this text.
#[derive(Debug)]
pub enum Refused {
    Host(String),
    CrossSite,
}

impl warp::reject::Reject for Refused {}

impl Refused {
    pub fn message(&self) -> String {
        match self {
            Refused::Host(host) => format!(
                "Host {host:?} is not allowed: this service answers to IP addresses, \
                 localhost and the names given with --allow-host (or NOTES_ALLOW_HOSTS). \
                 Restart it with --allow-host {} to use this name",
                split_host(host).0
            ),
            Refused::CrossSite => "Cross-site request refused: a change must come from a page \
                 of this service, or from a client that is not a browser"
                .to_string(),
        }
    }
}

/// The checks as one filter, put in front of every route.
pub fn filter(
    hosts: Arc<AllowedHosts>,
) -> impl Filter<Extract = (), Error = warp::Rejection> + Clone {
    // Three header look-ups; only `Host` is there on a script's request.
    warp::method()
        .and(warp::header::optional::<String>("host"))
        .and(warp::header::optional::<String>("sec-fetch-site"))
        .and(warp::header::optional::<String>("origin"))
        .and_then(
            move |method: Method,
                  host: Option<String>,
                  site: Option<String>,
                  origin: Option<String>| {
                let verdict = check(
                    &hosts,
                    &method,
                    Sent {
                        host: host.as_deref(),
                        site: site.as_deref(),
                        origin: origin.as_deref(),
                    },
                );
                async move { verdict.map_err(warp::reject::custom) }
            },
        )
        .untuple_one()
}

/// The headers the checks read, as the client sent them.
#[derive(Debug, Default, Clone, Copy)]
pub struct Sent<'a> {
    pub host: Option<&'a str>,
    pub site: Option<&'a str>,
    pub origin: Option<&'a str>,
}

impl<'a> Sent<'a> {
    /// The headers of a header map.
    pub fn of(headers: &'a HeaderMap) -> Self {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        Sent {
            host: header("host"),
            site: header("sec-fetch-site"),
            origin: header("origin"),
        }
    }
}

/// The Host check, then the cross-site check of state-changing methods.
pub fn check(hosts: &AllowedHosts, method: &Method, sent: Sent<'_>) -> Result<(), Refused> {
    let host = sent.host;
    if let Some(host) = host
        && !hosts.allows(host.trim())
    {
        return Err(Refused::Host(host.trim().to_string()));
    }
    let safe = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if safe {
        return Ok(());
    }
    if let Some(site) = sent.site {
        let site = site.trim();
        if site.eq_ignore_ascii_case("cross-site") || site.eq_ignore_ascii_case("same-site") {
            return Err(Refused::CrossSite);
        }
    }
    match sent.origin {
        None => Ok(()),
        Some(origin) if same_origin(origin.trim(), host.map(str::trim)) => Ok(()),
        Some(_) => Err(Refused::CrossSite),
    }
}

/// Whether `Origin` names the host (and port) the request was sent to. `null` (sandboxed
/// frames, some redirects) never does.
fn same_origin(origin: &str, host: Option<&str>) -> bool {
    let Some(host) = host else { return false };
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let default_port = if scheme.eq_ignore_ascii_case("https") {
        "443"
    } else if scheme.eq_ignore_ascii_case("http") {
        "80"
    } else {
        return false;
    };
    let authority = authority.trim_end_matches('/');
    let (origin_name, origin_port) = split_host(authority);
    let (host_name, host_port) = split_host(host);
    // A Host without a port is the scheme's default port: behind a TLS proxy the
    // browser's `https://name` arrives as `Host: name`.
    origin_name.eq_ignore_ascii_case(host_name)
        && origin_port.unwrap_or(default_port) == host_port.unwrap_or(default_port)
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

    fn hosts() -> AllowedHosts {
        AllowedHosts::new(
            ["Notes.Home.Arpa."],
            Some("https://pub.example.org:8443/base"),
        )
    }

    #[test]
    fn hosts_allowed() {
        let hosts = hosts();
        for host in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "[::1]:8080",
            "::1",
            "10.0.0.2:80",
            "localhost:8080",
            "LOCALHOST",
            "app.localhost:1",
            "localhost.",
            "notes.home.arpa",
            "NOTES.home.arpa.:8080",
            "pub.example.org",
        ] {
            assert!(hosts.allows(host), "{host}");
        }
        for host in [
            "attacker.example",
            "attacker.example:8080",
            "localhost.attacker.example",
            "notlocalhost",
            "127.0.0.1.nip.io",
            "example.org",
            "",
        ] {
            assert!(!hosts.allows(host), "{host}");
        }
    }

    #[test]
    fn scripts_and_same_origin_pages_pass() {
        let hosts = hosts();
        for (method, pairs) in [
            (Method::PUT, &[("host", "127.0.0.1:8080")][..]),
            (Method::DELETE, &[][..]),
            (
                Method::POST,
                &[
                    ("host", "127.0.0.1:8080"),
                    ("origin", "http://127.0.0.1:8080"),
                    ("sec-fetch-site", "same-origin"),
                ],
            ),
            (
                Method::POST,
                &[
                    ("host", "pub.example.org"),
                    ("origin", "https://pub.example.org"),
                ],
            ),
            (
                Method::GET,
                &[
                    ("host", "127.0.0.1:8080"),
                    ("origin", "https://evil.example"),
                    ("sec-fetch-site", "cross-site"),
                ],
            ),
            (
                Method::POST,
                &[("host", "localhost:80"), ("origin", "http://localhost")],
            ),
        ] {
            assert!(
                check(&hosts, &method, Sent::of(&headers(pairs))).is_ok(),
                "{pairs:?}"
            );
        }
    }

    #[test]
    fn rebinding_and_cross_site_writes_fail() {
        let hosts = hosts();
        assert!(matches!(
            check(&hosts, &Method::GET, Sent::of(&headers(&[("host", "attacker.example:8080")]))),
            Err(Refused::Host(h)) if h == "attacker.example:8080"
        ));
        // Forwarded hosts are never trusted.
        assert!(
            check(
                &hosts,
                &Method::POST,
                Sent::of(&headers(&[
                    ("host", "127.0.0.1:8080"),
                    ("x-forwarded-host", "evil.example"),
                    ("origin", "https://evil.example"),
                ]))
            )
            .is_err()
        );
        for method in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
            for pairs in [
                &[("host", "127.0.0.1:8080"), ("sec-fetch-site", "cross-site")][..],
                &[("host", "127.0.0.1:8080"), ("sec-fetch-site", "Same-Site")],
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
                assert!(
                    matches!(
                        check(&hosts, &method, Sent::of(&headers(pairs))),
                        Err(Refused::CrossSite)
                    ),
                    "{method} {pairs:?}"
                );
            }
        }
    }

    #[test]
    fn url_hosts() {
        assert_eq!(url_host("https://a.example:1/x"), Some("a.example"));
        assert_eq!(url_host("http://u:p@b.example"), Some("b.example"));
        assert_eq!(url_host("https://[::1]:8080"), Some("::1"));
        assert_eq!(url_host("c.example/path"), Some("c.example"));
    }
}
