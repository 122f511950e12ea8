//! Request bodies turned into the typed input of `ops`: a note PUT's JSON NoteRequest
//! into `NoteFields`, its Markdown body into its text; and the one rule every JSON
//! body of the API follows (an object, else 400 `Invalid JSON: …`).

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
    let request: NoteRequest = serde_json::from_value(object(body)?.into())
        .map_err(|e| HttpError::InvalidJson(e.to_string()))?;
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

/// A JSON body that must be an object: any other JSON value is refused by name, as
/// the OpenAPI document allows objects only.
pub(super) fn object(body: &[u8]) -> Result<serde_json::Map<String, serde_json::Value>, HttpError> {
    use serde_json::Value;
    match serde_json::from_slice(body).map_err(|e| HttpError::InvalidJson(e.to_string()))? {
        Value::Object(object) => Ok(object),
        other => Err(HttpError::InvalidJson(format!(
            "expected an object, found {}",
            match other {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            }
        ))),
    }
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
