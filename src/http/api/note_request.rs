//! The body of a note PUT turned into the typed input of `ops`: a JSON NoteRequest
//! into `NoteFields`, a Markdown body into its text.

use serde::Deserialize;

use crate::error::Error;
use crate::http::support::reject::HttpError;
use crate::ops::model::{FrontMatterInput, NoteFields, NoteInput};

/// NoteRequest, the body of a JSON create-or-replace. Every field is optional.
#[derive(Debug, Default, Deserialize)]
struct NoteRequest {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(rename = "frontMatter", default)]
    front_matter: Option<FrontMatterRequest>,
}

/// A supplied front matter: the four spec'd fields, and any other keys.
#[derive(Debug, Default, Deserialize)]
struct FrontMatterRequest {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    date: Option<String>,
    #[serde(default)]
    last_modified: Option<String>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(flatten)]
    extra: serde_json::Map<String, serde_json::Value>,
}

/// The input of a PUT: JSON fields, or Markdown text.
pub fn input(json: bool, body: bytes::Bytes) -> Result<NoteInput, HttpError> {
    Ok(if json {
        NoteInput::Fields(fields(&body)?)
    } else {
        NoteInput::Markdown(text(body)?)
    })
}

/// A NoteRequest body: a JSON object (serde alone would also take an array of fields).
pub fn fields(body: &[u8]) -> Result<NoteFields, HttpError> {
    let invalid = |e: serde_json::Error| HttpError::InvalidJson(e.to_string());
    let request: NoteRequest = match serde_json::from_slice(body).map_err(invalid)? {
        object @ serde_json::Value::Object(_) => serde_json::from_value(object).map_err(invalid)?,
        other => {
            return Err(HttpError::InvalidJson(format!(
                "expected an object, found {}",
                match other {
                    serde_json::Value::Array(_) => "an array",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Number(_) => "a number",
                    serde_json::Value::Bool(_) => "a boolean",
                    _ => "null",
                }
            )));
        }
    };
    let front_matter = match request.front_matter {
        None => None,
        Some(supplied) => {
            // The other keys go into the YAML in the order they came.
            let extra = match serde_yaml::to_value(&supplied.extra)
                .map_err(|e| Error::FrontMatterFailed(e.to_string()))?
            {
                serde_yaml::Value::Mapping(extra) => extra,
                _ => serde_yaml::Mapping::new(),
            };
            Some(FrontMatterInput {
                title: supplied.title,
                date: supplied.date,
                last_modified: supplied.last_modified,
                tags: supplied.tags,
                extra,
            })
        }
    };
    Ok(NoteFields {
        content: request.content,
        body: request.body,
        front_matter,
    })
}

/// A Markdown body as text: it must be UTF-8.
pub fn text(body: bytes::Bytes) -> Result<String, HttpError> {
    String::from_utf8(Vec::from(body)).map_err(|_| HttpError::BodyUnreadable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_objects_and_keep_their_other_keys_in_order() {
        let fields = fields(br#"{"body":"b","frontMatter":{"title":"T","z":1,"a":"x"}}"#).unwrap();
        assert_eq!(fields.body.as_deref(), Some("b"));
        let fm = fields.front_matter.unwrap();
        assert_eq!(fm.title.as_deref(), Some("T"));
        let keys: Vec<_> = fm.extra.keys().filter_map(|k| k.as_str()).collect();
        assert_eq!(keys, ["z", "a"]);
        for (bad, why) in [("[1]", "an array"), ("\"x\"", "a string"), ("null", "null")] {
            let err = super::fields(bad.as_bytes()).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("Invalid JSON: expected an object, found {why}")
            );
        }
        assert!(
            super::fields(b"{")
                .unwrap_err()
                .to_string()
                .starts_with("Invalid JSON: ")
        );
        assert!(matches!(
            text(bytes::Bytes::from_static(&[0xff])),
            Err(HttpError::BodyUnreadable)
        ));
    }
}
