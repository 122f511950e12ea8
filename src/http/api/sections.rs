//! One section of a note over HTTP, on a route of its own: `GET
//! /api/v1/sections/{path}` (the heading tree with line ranges) and `PATCH
//! /api/v1/sections/{path}` (append, prepend or replace under a heading path, or merge
//! front matter keys; `If-Match` as on PUT). The spec's `/api/v1/notes/{path}` takes
//! neither. The body becomes an `ops::sections::Edit` here; the edit itself is
//! `Notebook::edit_section`.

use std::sync::Arc;

use serde_json::{Map, Value};
use warp::http::{HeaderMap, StatusCode};
use warp::reject::Rejection;
use warp::reply::Response;

use super::note_request::object;
use super::notes::{json_only, precondition, with_etag, written};
use crate::error::Error;
use crate::http::State;
use crate::http::support::reject::HttpError;
use crate::http::support::{blocking, reply};
use crate::ops::NotePath;
use crate::ops::sections::Edit;

/// `GET /api/v1/sections/{path}`: the heading tree, tagged with the note's ETag.
pub(super) async fn outline(path: NotePath, state: Arc<State>) -> Result<Response, Rejection> {
    let outline = blocking(&state, move |s| s.notebook.outline(&path)).await?;
    Ok(with_etag(
        reply::json(StatusCode::OK, &outline),
        &outline.etag,
    ))
}

/// `PATCH /api/v1/sections/{path}`: one section edit, answered with the NoteResponse.
pub(super) async fn patch(
    path: NotePath,
    headers: HeaderMap,
    body: super::Body,
    state: Arc<State>,
) -> Result<Response, Rejection> {
    json_only(&headers)?;
    let bytes = body.read().await?;
    let cond = precondition(&headers);
    let outcome = blocking(&state, move |s| {
        path.check_writable()?;
        let edit = edit_of(&bytes)?;
        Ok::<_, HttpError>(s.notebook.edit_section(&path, edit, cond)?)
    })
    .await?;
    Ok(written(&outcome))
}

/// The edit a PATCH body asks for: `{"op": "append" | "prepend" | "replace",
/// "heading": [...], "text": "..."}` or `{"op": "set", "frontMatter": {...}}`. A field
/// another op takes, or an unknown one, is refused rather than ignored.
fn edit_of(body: &[u8]) -> Result<Edit, HttpError> {
    let mut fields = object(body)?;
    let op = match fields.remove("op") {
        Some(Value::String(op)) => op,
        Some(_) => return Err(invalid("\"op\" must be a string")),
        None => return Err(invalid(OPS)),
    };
    let edit = match op.as_str() {
        "append" | "prepend" | "replace" => {
            let heading = heading(fields.remove("heading"))?;
            let text = match fields.remove("text") {
                Some(Value::String(text)) => text,
                Some(_) => return Err(invalid("\"text\" must be a string")),
                None => return Err(invalid(&format!("\"{op}\" needs a \"text\" string"))),
            };
            match op.as_str() {
                "append" => Edit::Append { heading, text },
                "prepend" => Edit::Prepend { heading, text },
                _ => Edit::Replace { heading, text },
            }
        }
        "set" => {
            let map = match fields.remove("frontMatter") {
                Some(Value::Object(map)) => front_matter(map)?,
                Some(_) => return Err(invalid("\"frontMatter\" must be an object")),
                None => return Err(invalid("\"set\" needs a \"frontMatter\" object")),
            };
            Edit::SetFrontMatter { map }
        }
        _ => return Err(invalid(OPS)),
    };
    if let Some(extra) = fields.keys().next() {
        return Err(invalid(&format!("\"{extra}\" is not a field of \"{op}\"")));
    }
    Ok(edit)
}

const OPS: &str = "\"op\" must be one of \"append\", \"prepend\", \"replace\", \"set\"";

fn invalid(why: &str) -> HttpError {
    Error::InvalidSectionEdit(why.to_string()).into()
}

/// The heading path: an array of heading texts, outermost first.
fn heading(value: Option<Value>) -> Result<Vec<String>, HttpError> {
    const SHAPE: &str = "\"heading\" must be a non-empty array of heading texts, outermost \
                         first (for example [\"Top\", \"Sub\"])";
    let Some(Value::Array(items)) = value else {
        return Err(invalid(SHAPE));
    };
    let path: Option<Vec<String>> = items
        .into_iter()
        .map(|item| match item {
            Value::String(text) => Some(text),
            _ => None,
        })
        .collect();
    match path {
        Some(path) if !path.is_empty() => Ok(path),
        _ => Err(invalid(SHAPE)),
    }
}

/// The keys to merge, as YAML, in the order they came.
fn front_matter(map: Map<String, Value>) -> Result<serde_yaml::Mapping, HttpError> {
    match serde_yaml::to_value(&map).map_err(|e| Error::FrontMatterFailed(e.to_string()))? {
        serde_yaml::Value::Mapping(map) => Ok(map),
        _ => Ok(serde_yaml::Mapping::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(body: &str) -> String {
        edit_of(body.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn bodies_become_edits() {
        assert_eq!(
            edit_of(br#"{"op":"append","heading":["A","B"],"text":"x"}"#).unwrap(),
            Edit::Append {
                heading: vec!["A".into(), "B".into()],
                text: "x".into()
            }
        );
        assert!(matches!(
            edit_of(br#"{"op":"replace","heading":["A"],"text":""}"#).unwrap(),
            Edit::Replace { .. }
        ));
        match edit_of(br#"{"op":"set","frontMatter":{"z":1,"a":null}}"#).unwrap() {
            Edit::SetFrontMatter { map } => {
                let keys: Vec<_> = map.keys().filter_map(|k| k.as_str()).collect();
                assert_eq!(keys, ["z", "a"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_bodies_say_what_is_wrong() {
        assert!(message("[]").starts_with("Invalid JSON: "));
        assert_eq!(message("{}"), format!("Invalid section edit: {OPS}"));
        assert_eq!(
            message(r#"{"op":"delete"}"#),
            format!("Invalid section edit: {OPS}")
        );
        assert!(message(r#"{"op":"append","text":"x"}"#).contains("\"heading\" must be"));
        assert!(message(r#"{"op":"append","heading":[],"text":"x"}"#).contains("non-empty"));
        assert!(message(r#"{"op":"append","heading":"A","text":"x"}"#).contains("array"));
        assert!(message(r#"{"op":"append","heading":[1],"text":"x"}"#).contains("array"));
        assert!(message(r#"{"op":"prepend","heading":["A"]}"#).contains("needs a \"text\""));
        assert!(message(r#"{"op":"set"}"#).contains("needs a \"frontMatter\""));
        assert!(message(r#"{"op":"set","frontMatter":[]}"#).contains("must be an object"));
        assert!(
            message(r#"{"op":"append","heading":["A"],"text":"x","frontMatter":{}}"#)
                .contains("\"frontMatter\" is not a field of \"append\"")
        );
    }
}
