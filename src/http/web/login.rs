//! `/login` and `/logout`: the web interface's way in once tokens exist. The login form
//! posts a token, which is traded for a session cookie (`http::auth`); logging out ends
//! the session. Both posts pass the door's cross-site check like every other form.

use std::sync::Arc;

use maud::{Markup, html};
use serde::Deserialize;
use warp::Filter;
use warp::http::{HeaderMap, HeaderValue, StatusCode, header};
use warp::reject::Rejection;

use super::viewer::Viewer;
use super::{Reply, failed, html, read_body, see_other, views};
use crate::http::State;
use crate::http::support::body::{self, BodyStream};
use crate::http::support::{is_post, is_read, method_is, raw_query, with_state};

/// `GET /login`, `POST /login`, `POST /logout`.
pub(super) fn routes(
    state: Arc<State>,
) -> impl Filter<Extract = (warp::reply::Response,), Error = Rejection> + Clone {
    let page = warp::path!("login")
        .and(method_is(is_read))
        .and(raw_query())
        .and(with_state(state.clone()))
        .and_then(page);
    let log_in = warp::path!("login")
        .and(method_is(is_post))
        .and(warp::header::headers_cloned())
        .and(body::stream())
        .and(with_state(state.clone()))
        .and_then(log_in);
    let log_out = warp::path!("logout")
        .and(method_is(is_post))
        .and(warp::header::headers_cloned())
        .and(with_state(state))
        .and_then(log_out);
    let refused = warp::path!("login")
        .and(method_is(|m| !is_read(m) && !is_post(m)))
        .and_then(|| super::refuse("GET, HEAD, POST"))
        .or(warp::path!("logout")
            .and(method_is(|m| !is_post(m)))
            .and_then(|| super::refuse("POST")))
        .unify();
    page.or(log_in)
        .unify()
        .or(log_out)
        .unify()
        .or(refused)
        .unify()
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct LoginForm {
    token: String,
    next: String,
}

async fn page(raw: String, state: Arc<State>) -> Reply {
    let next = serde_urlencoded::from_str::<LoginForm>(&raw)
        .map(|f| f.next)
        .unwrap_or_default();
    if !state.auth.required(&state.notebook) {
        return Ok(see_other(&safe_next(&next)));
    }
    let problem = state.auth.no_token(&state.notebook);
    Ok(html(StatusCode::OK, view(&safe_next(&next), problem)))
}

async fn log_in(headers: HeaderMap, body: BodyStream, state: Arc<State>) -> Reply {
    let bytes = read_body(body, &headers, &state).await.map_err(failed)?;
    let form: LoginForm = serde_urlencoded::from_bytes(&bytes).unwrap_or_default();
    let next = safe_next(&form.next);
    let opened = state
        .auth
        .log_in(&state.notebook, &form.token)
        .map_err(failed)?;
    let Some((id, scope)) = opened else {
        let problem = state
            .auth
            .no_token(&state.notebook)
            .unwrap_or("This token is not accepted. Check it and try again.");
        return Ok(html(StatusCode::UNAUTHORIZED, view(&next, Some(problem))));
    };
    if scope.prefix().is_some() {
        state.auth.log_out(&id);
        return Ok(html(
            StatusCode::FORBIDDEN,
            view(
                &next,
                Some(
                    "This token is limited to a folder: it reaches the API only. \
                     Use a token without --prefix for the web interface.",
                ),
            ),
        ));
    }
    let mut response = see_other(&next);
    set_cookie(&mut response, &state.auth.set_cookie(&id));
    Ok(response)
}

async fn log_out(headers: HeaderMap, state: Arc<State>) -> Reply {
    for value in headers.get_all(header::COOKIE) {
        if let Some(id) = value.to_str().ok().and_then(|v| state.auth.session_in(v)) {
            state.auth.log_out(id);
        }
    }
    let mut response = see_other("/login");
    set_cookie(&mut response, &state.auth.clear_cookie());
    Ok(response)
}

fn set_cookie(response: &mut warp::reply::Response, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
}

/// Where to go after logging in: a path of this service, never another site
/// (`//evil.example` and `/\evil.example` are other sites to a browser).
fn safe_next(next: &str) -> String {
    let local = next.starts_with('/')
        && !next.starts_with("//")
        && !next.starts_with("/\\")
        && !next.chars().any(|c| c.is_control());
    if local && next != "/login" {
        next.to_string()
    } else {
        "/".to_string()
    }
}

/// The login form, framed like every page, for a visitor not logged in.
fn view(next: &str, problem: Option<&str>) -> Markup {
    let content = html! {
        section.login {
            h1 { "Log in" }
            p.lead { "This server asks for a token. Paste one that "
                code { "notes token create" } " printed." }
            @if let Some(problem) = problem {
                p.error role="alert" { (problem) }
            }
            form.editor method="post" action="/login" {
                input type="hidden" name="next" value=(next);
                label.field for="token" {
                    span { "Token" }
                    input #token type="password" name="token" required
                        autocomplete="current-password" autofocus
                        placeholder="notes_…" spellcheck="false";
                }
                div.submit {
                    button.button.primary type="submit" { "Log in" }
                }
            }
        }
    };
    views::layout(
        "Log in",
        None,
        views::LOGIN_PAGE,
        &Viewer::stranger(),
        content,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_followed() {
        assert_eq!(safe_next("/note/a.md"), "/note/a.md");
        assert_eq!(safe_next("/search?q=x"), "/search?q=x");
        for other in [
            "",
            "//evil.example",
            "/\\evil.example",
            "https://evil.example",
            "/login",
            "/a\nb",
        ] {
            assert_eq!(safe_next(other), "/", "{other:?}");
        }
    }
}
