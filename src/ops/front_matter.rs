//! Front matter: split a note into its YAML block and body, read the four spec'd fields
//! leniently, and emit the block again with every other key kept in its place.

use serde::{Deserialize, Serialize};
use serde_yaml::{Mapping, Value};

/// The four spec'd fields, as they are shown in JSON and stored in YAML.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontMatter {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub date: String,
    #[serde(default)]
    pub last_modified: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A note's text split in two. `yaml` is the whole mapping, unknown keys included, in
/// the order the file has them.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub yaml: Mapping,
    pub body: String,
    /// Whether a blank line separates the closing `---` from the body; kept so that a
    /// re-emitted note keeps its layout.
    pub blank_line: bool,
    /// The line ending of the delimiter lines (`\n` or `\r\n`).
    pub newline: &'static str,
}

/// Splits `text` into front matter and body. `None` when the text does not start with a
/// `---` line, has no closing `---` line, or the YAML between is not a mapping.
pub fn parse(text: &str) -> Option<Document> {
    let (first, mut rest) = split_line(text);
    if first.trim_end_matches('\r') != "---" {
        return None;
    }
    let newline = if first.ends_with('\r') { "\r\n" } else { "\n" };
    let yaml_start = text.len() - rest.len();
    loop {
        if rest.is_empty() {
            return None;
        }
        let line_start = text.len() - rest.len();
        let (line, after) = split_line(rest);
        if line.trim_end_matches('\r') == "---" {
            let yaml_text = &text[yaml_start..line_start];
            let yaml = parse_mapping(yaml_text)?;
            let (body, blank_line) = match after.strip_prefix(newline) {
                Some(body) => (body, true),
                None => (after, false),
            };
            return Some(Document {
                yaml,
                body: body.to_string(),
                blank_line,
                newline,
            });
        }
        rest = after;
    }
}

/// Splits off the first line, without its `\n`; the rest starts after it.
fn split_line(text: &str) -> (&str, &str) {
    match text.find('\n') {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    }
}

fn parse_mapping(yaml_text: &str) -> Option<Mapping> {
    if yaml_text.trim().is_empty() {
        return Some(Mapping::new());
    }
    match serde_yaml::from_str::<Value>(yaml_text).ok()? {
        Value::Mapping(map) => Some(map),
        Value::Null => Some(Mapping::new()),
        _ => None,
    }
}

impl Document {
    /// A new document with `fields` in the spec's key order.
    pub fn new(fields: &FrontMatter, body: String) -> Self {
        let mut yaml = Mapping::new();
        yaml.insert("title".into(), fields.title.clone().into());
        yaml.insert("date".into(), fields.date.clone().into());
        yaml.insert("last_modified".into(), fields.last_modified.clone().into());
        yaml.insert(
            "tags".into(),
            Value::Sequence(fields.tags.iter().cloned().map(Value::from).collect()),
        );
        Document {
            yaml,
            body,
            blank_line: true,
            newline: "\n",
        }
    }

    /// The four spec'd fields, read leniently: scalars become strings, a single tag
    /// string becomes a one-element list, anything else reads as empty.
    pub fn fields(&self) -> FrontMatter {
        FrontMatter {
            title: self.string("title"),
            date: self.string("date"),
            last_modified: self.string("last_modified"),
            tags: match self.yaml.get("tags") {
                Some(Value::Sequence(items)) => items.iter().filter_map(scalar).collect(),
                Some(other) => scalar(other).into_iter().collect(),
                None => Vec::new(),
            },
        }
    }

    fn string(&self, key: &str) -> String {
        self.yaml.get(key).and_then(scalar).unwrap_or_default()
    }

    /// Sets `last_modified`, in place when the key exists, else after `date` (or
    /// `title`, or first), so the spec's order holds for notes that had none.
    pub fn set_last_modified(&mut self, value: String) {
        let key = Value::from("last_modified");
        if let Some(slot) = self.yaml.get_mut(&key) {
            *slot = value.into();
            return;
        }
        let keys: Vec<&Value> = self.yaml.keys().collect();
        let at = ["date", "title"]
            .iter()
            .find_map(|k| keys.iter().position(|key| key.as_str() == Some(*k)))
            .map_or(0, |i| i + 1);
        let mut rebuilt = Mapping::with_capacity(self.yaml.len() + 1);
        let mut entries = std::mem::take(&mut self.yaml).into_iter();
        rebuilt.extend(entries.by_ref().take(at));
        rebuilt.insert(key, value.into());
        rebuilt.extend(entries);
        self.yaml = rebuilt;
    }

    /// Adds the keys of `extra` that the mapping does not have yet, after the others.
    pub fn extend(&mut self, extra: Mapping) {
        for (key, value) in extra {
            if !self.yaml.contains_key(&key) {
                self.yaml.insert(key, value);
            }
        }
    }

    /// The full note text: `---`, the YAML, `---`, the body.
    pub fn emit(&self) -> Result<String, serde_yaml::Error> {
        let yaml = if self.yaml.is_empty() {
            String::new()
        } else {
            serde_yaml::to_string(&self.yaml)?
        };
        let nl = self.newline;
        let yaml = if nl == "\n" {
            yaml
        } else {
            yaml.replace('\n', nl)
        };
        let blank = if self.blank_line { nl } else { "" };
        Ok(format!("---{nl}{yaml}---{nl}{blank}{}", self.body))
    }
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Tagged(tagged) => scalar(&tagged.value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_reads_fields() {
        let text = "---\ntitle: Hello\ndate: 01-02-2024\nlast_modified: 01-02-2024:10:30\ntags:\n- a\n- b\n---\n\n# Hi\n";
        let doc = parse(text).unwrap();
        assert_eq!(
            doc.fields(),
            FrontMatter {
                title: "Hello".into(),
                date: "01-02-2024".into(),
                last_modified: "01-02-2024:10:30".into(),
                tags: vec!["a".into(), "b".into()],
            }
        );
        assert_eq!(doc.body, "# Hi\n");
        assert!(doc.blank_line);
        assert_eq!(doc.emit().unwrap(), text);
    }

    #[test]
    fn unknown_keys_keep_their_order() {
        let text = "---\nzeta: 1\ntitle: T\nauthor: Ann\nlast_modified: old\nextra:\n  nested: true\n---\nbody";
        let mut doc = parse(text).unwrap();
        doc.set_last_modified("new".into());
        let out = doc.emit().unwrap();
        assert_eq!(
            out,
            "---\nzeta: 1\ntitle: T\nauthor: Ann\nlast_modified: new\nextra:\n  nested: true\n---\nbody"
        );
    }

    #[test]
    fn last_modified_is_inserted_after_date() {
        let mut doc = parse("---\ntitle: T\ndate: d\nx: 1\n---\nb").unwrap();
        doc.set_last_modified("now".into());
        let keys: Vec<_> = doc.yaml.keys().filter_map(|k| k.as_str()).collect();
        assert_eq!(keys, ["title", "date", "last_modified", "x"]);
    }

    #[test]
    fn lenient_reading() {
        let doc = parse("---\ntitle: 2024\ntags: solo\n---\n").unwrap();
        let f = doc.fields();
        assert_eq!(f.title, "2024");
        assert_eq!(f.tags, ["solo"]);
        assert_eq!(f.date, "");
        let doc = parse("---\n---\nbody").unwrap();
        assert_eq!(doc.fields(), FrontMatter::default());
        assert_eq!(doc.body, "body");
    }

    #[test]
    fn broken_front_matter_does_not_parse() {
        assert!(parse("no front matter").is_none());
        assert!(parse("---\ntitle: [unclosed\n---\nbody").is_none());
        assert!(parse("---\ntitle: never closed\n").is_none());
        assert!(parse("---\n- a list\n---\n").is_none());
        assert!(parse("----\ntitle: x\n---\n").is_none());
    }

    #[test]
    fn crlf_notes_round_trip() {
        let text = "---\r\ntitle: T\r\n---\r\n\r\nbody\r\n";
        let doc = parse(text).unwrap();
        assert_eq!(doc.fields().title, "T");
        assert_eq!(doc.body, "body\r\n");
        assert_eq!(doc.emit().unwrap(), text);
    }

    #[test]
    fn new_documents_use_spec_key_order() {
        let fields = FrontMatter {
            title: "My Note".into(),
            date: "21-11-2026".into(),
            last_modified: "21-11-2026:09:05".into(),
            tags: vec![],
        };
        let doc = Document::new(&fields, "text".into());
        assert_eq!(
            doc.emit().unwrap(),
            "---\ntitle: My Note\ndate: 21-11-2026\nlast_modified: 21-11-2026:09:05\ntags: []\n---\n\ntext"
        );
        assert_eq!(parse(&doc.emit().unwrap()).unwrap(), doc);
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        fn value() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                any::<String>().prop_map(Value::from),
                any::<i64>().prop_map(Value::from),
                any::<bool>().prop_map(Value::from),
                Just(Value::Null),
            ];
            leaf.prop_recursive(3, 16, 4, |inner| {
                prop::collection::vec(inner, 0..4).prop_map(Value::Sequence)
            })
        }

        fn mapping() -> impl Strategy<Value = Mapping> {
            prop::collection::vec(("[a-zA-Z_][a-zA-Z0-9_ -]{0,10}", value()), 0..8).prop_map(
                |pairs| {
                    let mut map = Mapping::new();
                    for (k, v) in pairs {
                        map.insert(Value::from(k), v);
                    }
                    map
                },
            )
        }

        proptest! {
            #[test]
            fn emit_then_parse_keeps_every_key_and_the_body(
                yaml in mapping(),
                body in any::<String>(),
            ) {
                let doc = Document { yaml, body, blank_line: true, newline: "\n" };
                let text = doc.emit().unwrap();
                let back = parse(&text).expect("emitted text parses");
                prop_assert_eq!(&back.yaml, &doc.yaml);
                prop_assert_eq!(&back.body, &doc.body);
                prop_assert_eq!(back.emit().unwrap(), text);
            }

            #[test]
            fn last_modified_update_keeps_the_rest(yaml in mapping(), body in any::<String>()) {
                let mut doc = Document { yaml, body, blank_line: true, newline: "\n" };
                let before: Vec<Value> = doc.yaml.keys().filter(|k| k.as_str() != Some("last_modified")).cloned().collect();
                doc.set_last_modified("21-11-2026:10:00".into());
                let back = parse(&doc.emit().unwrap()).unwrap();
                let after: Vec<Value> = back.yaml.keys().filter(|k| k.as_str() != Some("last_modified")).cloned().collect();
                prop_assert_eq!(before, after);
                prop_assert_eq!(back.fields().last_modified, "21-11-2026:10:00");
                prop_assert_eq!(back.body, doc.body);
            }
        }
    }
}
