//! HTTP to a running server: plain requests through reqwest, byte-exact ones over a raw
//! socket, and the checks every test makes of a response (content type, ErrorResponse).

use std::time::Duration;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::blocking::{RequestBuilder, Response};
use serde_json::Value;

/// What a query string leaves as is: the unreserved characters of RFC 3986.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// A client that never goes through a proxy, with the given timeout per request.
pub fn http_client(timeout: Duration) -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .build()
        .unwrap()
}

/// Requests to one server, by path.
pub struct Client {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    http: reqwest::blocking::Client,
}

/// A response read off the wire by `Client::raw`.
pub struct RawResponse {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Client {
    pub fn new(base: String) -> Self {
        Client {
            base,
            http: http_client(Duration::from_secs(30)),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// `HOST:PORT`, for sockets.
    pub fn addr(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    pub fn get(&self, path: &str) -> Response {
        self.http.get(self.url(path)).send().unwrap()
    }

    pub fn request(&self, method: &str, path: &str) -> RequestBuilder {
        self.http.request(
            reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
            self.url(path),
        )
    }

    pub fn put_json(&self, path: &str, body: &str) -> Response {
        self.send_body("PUT", path, "application/json", body)
    }

    pub fn put_markdown(&self, path: &str, body: &str) -> Response {
        self.send_body("PUT", path, "text/markdown", body)
    }

    /// POSTs an `application/x-www-form-urlencoded` body.
    pub fn post_form(&self, path: &str, body: &str) -> Response {
        self.send_body("POST", path, "application/x-www-form-urlencoded", body)
    }

    fn send_body(&self, method: &str, path: &str, content_type: &str, body: &str) -> Response {
        self.request(method, path)
            .header("Content-Type", content_type)
            .body(body.to_string())
            .send()
            .unwrap()
    }

    /// Toggles a note's publication through `POST /api/public/toggle`.
    pub fn toggle(&self, note: &str) -> (u16, Value) {
        let body = serde_urlencoded::to_string([("path", note)]).unwrap();
        json(self.post_form("/api/public/toggle", &body))
    }

    /// Sends one request byte for byte, with the target path exactly as given (no client
    /// normalisation of `..` or `%2e`), and reads the whole response.
    pub fn raw(
        &self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> RawResponse {
        use std::io::{Read, Write};
        let addr = self.addr();
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        // The `Host` the test gives, else the server's address.
        let mut request = format!("{method} {target} HTTP/1.1\r\nConnection: close\r\n");
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request.push_str(&format!("Host: {addr}\r\n"));
        }
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        let chunked = headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("transfer-encoding"));
        if !chunked && (!body.is_empty() || method == "PUT" || method == "POST") {
            request.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        let text = String::from_utf8_lossy(&response).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        RawResponse {
            status,
            head: head.to_string(),
            body: body.to_string(),
        }
    }
}

impl RawResponse {
    /// The value of header `name` (any case), the first when it repeats.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// Asserts an ErrorResponse with this status and message.
    pub fn assert_error(&self, status: u16, message: &str) {
        assert_eq!(self.status, status, "{}\n{}", self.head, self.body);
        let body = self.json();
        assert_eq!(body["code"], status);
        assert_eq!(body["message"], message, "{}", self.body);
        assert!(
            self.head
                .to_ascii_lowercase()
                .contains("content-type: application/json; charset=utf-8"),
            "{}",
            self.head
        );
    }
}

/// Reads a response as JSON, checking the spec's JSON content type on the way.
pub fn json(response: Response) -> (u16, Value) {
    let (status, text) = body_of_type(response, "application/json; charset=utf-8");
    let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, value)
}

/// Status and body of a response, asserting its exact content type.
pub fn body_of_type(response: Response, expected: &str) -> (u16, String) {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let body = response.text().unwrap();
    assert_eq!(content_type, expected, "status {status}, body {body}");
    (status, body)
}

/// The keys of a JSON object, in their order.
pub fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

/// Asserts an ErrorResponse with the given status and message.
pub fn assert_error(response: Response, status: u16, message: &str) {
    let (got, body) = json(response);
    assert_eq!(got, status, "{body}");
    assert_eq!(body["code"], status, "{body}");
    assert_eq!(body["message"], message, "{body}");
    let reason = reqwest::StatusCode::from_u16(status)
        .unwrap()
        .canonical_reason()
        .unwrap();
    assert_eq!(body["error"], reason, "{body}");
    assert_eq!(body.as_object().unwrap().len(), 3, "{body}");
}

/// Asserts the ErrorResponse of a body that is not the JSON a route takes: `400`, the
/// message `Invalid JSON: ` followed by what the parser said.
pub fn assert_invalid_json(response: Response, context: &str) {
    let (status, body) = json(response);
    assert_eq!(status, 400, "{context}\n{body}");
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Invalid JSON: ")),
        "{context}\n{body}"
    );
    assert_eq!(body["error"], "Bad Request", "{context}\n{body}");
}

/// A client that shows redirects instead of following them.
pub fn no_redirects() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// Asserts the refusal of a write from another site: 403 and the guard's message.
/// `context` says which request it was.
pub fn assert_cross_site_refused(status: u16, body: &Value, context: &str) {
    assert_eq!(status, 403, "{context}\n{body}");
    assert_eq!(body["error"], "Forbidden", "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("Cross-site request refused"),
        "{body}"
    );
}

/// The paths `GET /api/v1/search?q=…` returns, in rank order.
pub fn search_paths(client: &Client, query: &str) -> Vec<String> {
    let query = utf8_percent_encode(query, UNRESERVED);
    let (status, body) = json(client.get(&format!("/api/v1/search?q={query}&limit=100")));
    assert_eq!(status, 200, "{body}");
    body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect()
}

/// The paths `GET /api/public/list` returns, in its order.
pub fn public_paths(client: &Client) -> Vec<String> {
    let (status, body) = json(client.get("/api/public/list"));
    assert_eq!(status, 200, "{body}");
    body["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap().to_string())
        .collect()
}
