//! `GET /docs/api`: the HTTP API for a person, read from the OpenAPI document the
//! server serves (`assets/openapi.json`): each route with its methods and what they
//! do, how to send a token, and the link to the document itself.

use std::sync::{Arc, LazyLock};

use maud::{Markup, html};
use warp::Filter;
use warp::http::StatusCode;
use warp::reject::Rejection;
use warp::reply::Response;

use super::viewer::{Viewer, viewer};
use super::views::layout;
use super::{Reply, html};
use crate::http::State;
use crate::http::support::{is_read, method_is};

/// The document `GET /api/v1/openapi.json` serves.
const OPENAPI: &str = include_str!("../../../assets/openapi.json");
/// Its address.
const OPENAPI_URL: &str = "/api/v1/openapi.json";

/// One route of the API: its path and, per method, what it does.
struct Route {
    path: String,
    methods: Vec<(String, String)>,
}

/// The routes of the document, in its order; read once.
static ROUTES: LazyLock<Vec<Route>> = LazyLock::new(|| routes_of(OPENAPI));

fn routes_of(document: &str) -> Vec<Route> {
    const METHODS: [&str; 6] = ["get", "head", "put", "post", "patch", "delete"];
    let Ok(document) = serde_json::from_str::<serde_json::Value>(document) else {
        return Vec::new();
    };
    let Some(paths) = document.get("paths").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    paths
        .iter()
        .map(|(path, item)| Route {
            path: path.clone(),
            methods: METHODS
                .iter()
                .filter_map(|m| {
                    let summary = item.get(m)?.get("summary")?.as_str().unwrap_or_default();
                    Some((m.to_ascii_uppercase(), summary.to_string()))
                })
                .collect(),
        })
        .collect()
}

/// `GET /docs/api`.
pub(super) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (Response,), Error = Rejection> + Clone {
    warp::path!("docs" / "api")
        .and(method_is(is_read))
        .and(viewer(state))
        .and_then(page)
}

async fn page(viewer: Viewer) -> Reply {
    Ok(html(StatusCode::OK, view(&ROUTES, &viewer)))
}

fn view(routes: &[Route], viewer: &Viewer) -> Markup {
    let content = html! {
        nav.crumbs { a href="/" { "← All notes" } }
        header.page {
            h1 { "HTTP API" }
            p.meta {
                "Every route answers JSON; errors are ErrorResponse bodies ("
                code { "error" } ", " code { "message" } ", " code { "code" } "). "
                "The whole description: "
                a href=(OPENAPI_URL) { "OpenAPI document (JSON)" } "."
            }
        }
        section.api-help {
            h2 { "Tokens" }
            p {
                "Once a token exists (" code { "notes token create" } "), send it with each "
                "request: " code { "Authorization: Bearer <token>" } ". A read-only token "
                "cannot change anything; a token limited to a folder reaches that folder only."
            }
            p { "For example: " code { "curl -H 'Authorization: Bearer …' http://HOST/api/v1/notes" } }
        }
        h2 { "Routes" }
        div.versions-scroll {
            table.versions.api {
                thead { tr { th scope="col" { "Method" } th scope="col" { "Path" } th scope="col" { "What it does" } } }
                tbody {
                    @for route in routes {
                        @for (method, summary) in &route.methods {
                            tr {
                                td { code.method { (method) } }
                                td { code { (route.path) } }
                                td { (summary) }
                            }
                        }
                    }
                }
            }
        }
    };
    layout("HTTP API", Some(""), "history", viewer, content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_of_the_document_is_listed_with_its_methods() {
        let routes = routes_of(OPENAPI);
        let notes = routes
            .iter()
            .find(|r| r.path == "/api/v1/notes/{path}")
            .expect("the note route");
        let methods: Vec<&str> = notes.methods.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(methods, ["GET", "PUT", "DELETE"]);
        assert!(notes.methods.iter().all(|(_, s)| !s.is_empty()));
        assert!(routes_of("not json").is_empty());
    }
}
