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

use std::cell::Cell;
use std::net::IpAddr;

use warp::http::header::{HOST, ORIGIN};
use warp::http::{HeaderMap, HeaderName, HeaderValue, Method};

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

/// `Sec-Fetch-Site`, which the `http` crate has no constant for.
const SEC_FETCH_SITE: HeaderName = HeaderName::from_static("sec-fetch-site");

/// The checks on a request's own headers, run by the server's door before any route.
/// `memo` is the connection's: a keep-alive client names the same host on every
/// request, so its Host is checked once per connection.
pub(crate) fn admit(
    hosts: &AllowedHosts,
    memo: &HostMemo,
    method: &Method,
    headers: &HeaderMap,
) -> Result<(), Refused> {
    let host = headers.get(HOST);
    if let Some(value) = host
        && !memo.holds(value.as_bytes())
    {
        let text = value
            .to_str()
            .map_err(|_| Refused::Host(String::from_utf8_lossy(value.as_bytes()).into()))?;
        check_host(hosts, text)?;
        memo.keep(value.as_bytes());
    }
    if is_safe(method) {
        return Ok(());
    }
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    check_cross_site(Sent {
        host: host.and_then(|v| v.to_str().ok()),
        site: text(SEC_FETCH_SITE),
        origin: text(ORIGIN),
    })
}

/// The last Host of a connection that passed the check, kept as bytes (a copy: holding
/// the header itself would pin the connection's read buffer).
#[derive(Default)]
pub(crate) struct HostMemo(Cell<Option<([u8; HostMemo::LONGEST], u8)>>);

impl HostMemo {
    /// Longer hosts are checked on every request.
    const LONGEST: usize = 64;

    fn holds(&self, host: &[u8]) -> bool {
        self.0
            .get()
            .is_some_and(|(bytes, len)| &bytes[..usize::from(len)] == host)
    }

    fn keep(&self, host: &[u8]) {
        if let Ok(len) = u8::try_from(host.len())
            && host.len() <= Self::LONGEST
        {
            let mut bytes = [0; Self::LONGEST];
            bytes[..host.len()].copy_from_slice(host);
            self.0.set(Some((bytes, len)));
        }
    }
}

/// The headers the checks read, as the client sent them.
#[derive(Debug, Default, Clone, Copy)]
struct Sent<'a> {
    host: Option<&'a str>,
    site: Option<&'a str>,
    origin: Option<&'a str>,
}

fn check_host(hosts: &AllowedHosts, host: &str) -> Result<(), Refused> {
    if hosts.allows(host.trim()) {
        Ok(())
    } else {
        Err(Refused::Host(host.trim().to_string()))
    }
}

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Whether a state-changing request comes from a page of this service, or from a client
/// that is not a browser.
fn check_cross_site(sent: Sent<'_>) -> Result<(), Refused> {
    if let Some(site) = sent.site {
        let site = site.trim();
        if site.eq_ignore_ascii_case("cross-site") || site.eq_ignore_ascii_case("same-site") {
            return Err(Refused::CrossSite);
        }
    }
    match sent.origin {
        None => Ok(()),
        Some(origin) if same_origin(origin.trim(), sent.host.map(str::trim)) => Ok(()),
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
                admit(&hosts, &HostMemo::default(), &method, &headers(pairs)).is_ok(),
                "{pairs:?}"
            );
        }
    }

    #[test]
    fn rebinding_and_cross_site_writes_fail() {
        let hosts = hosts();
        assert!(matches!(
            admit(&hosts, &HostMemo::default(), &Method::GET, &headers(&[("host", "attacker.example:8080")])),
            Err(Refused::Host(h)) if h == "attacker.example:8080"
        ));
        // Forwarded hosts are never trusted.
        assert!(
            admit(
                &hosts,
                &HostMemo::default(),
                &Method::POST,
                &headers(&[
                    ("host", "127.0.0.1:8080"),
                    ("x-forwarded-host", "evil.example"),
                    ("origin", "https://evil.example"),
                ])
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
                        admit(&hosts, &HostMemo::default(), &method, &headers(pairs)),
                        Err(Refused::CrossSite)
                    ),
                    "{method} {pairs:?}"
                );
            }
        }
    }

    #[test]
    fn a_connection_checks_its_host_once_and_each_new_host_again() {
        let hosts = hosts();
        let memo = HostMemo::default();
        let local = headers(&[("host", "127.0.0.1:8080")]);
        assert!(admit(&hosts, &memo, &Method::GET, &local).is_ok());
        assert!(memo.holds(b"127.0.0.1:8080"));
        assert!(admit(&hosts, &memo, &Method::GET, &local).is_ok());
        // Another host on the same connection is checked, and refused, on its own.
        let rebound = headers(&[("host", "attacker.example:8080")]);
        assert!(admit(&hosts, &memo, &Method::GET, &rebound).is_err());
        assert!(!memo.holds(b"attacker.example:8080"));
        assert!(memo.holds(b"127.0.0.1:8080"));
        // A host held in memory still gets the cross-site check of a write.
        let cross = headers(&[("host", "127.0.0.1:8080"), ("sec-fetch-site", "cross-site")]);
        assert!(matches!(
            admit(&hosts, &memo, &Method::POST, &cross),
            Err(Refused::CrossSite)
        ));
        // Hosts too long to keep are checked every time, and still pass.
        let long = format!("{}.localhost", "a".repeat(80));
        let long_headers = headers(&[("host", &long)]);
        assert!(admit(&hosts, &memo, &Method::GET, &long_headers).is_ok());
        assert!(!memo.holds(long.as_bytes()));
        // A Host that is not text is refused, not ignored.
        let mut binary = HeaderMap::new();
        binary.insert(HOST, HeaderValue::from_bytes(b"\xff.example").unwrap());
        assert!(matches!(
            admit(&hosts, &memo, &Method::GET, &binary),
            Err(Refused::Host(_))
        ));
    }

    #[test]
    fn url_hosts() {
        assert_eq!(url_host("https://a.example:1/x"), Some("a.example"));
        assert_eq!(url_host("http://u:p@b.example"), Some("b.example"));
        assert_eq!(url_host("https://[::1]:8080"), Some("::1"));
        assert_eq!(url_host("c.example/path"), Some("c.example"));
    }
}
