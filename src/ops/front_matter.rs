//! Front matter: split a note into its YAML block and body, read the four spec'd fields
//! leniently, and emit the block again with every other key kept in its place.

mod scan;

use std::cell::Cell;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_yaml::{Mapping, Value};

use crate::error::Error;

/// Deepest nesting of collections a front matter may have (the top mapping is one level).
pub(crate) const MAX_DEPTH: usize = 64;
/// Largest front matter, in bytes (the YAML between the `---` lines).
pub(crate) const MAX_BYTES: usize = 256 * 1024;
/// Values a front matter may expand to through its aliases, beyond one per byte of text
/// (which no alias-free YAML reaches).
const ALIAS_SLACK: usize = 1024;

/// The four spec'd fields, as they are shown in JSON and stored in YAML.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontMatter {
    #[serde(default)]
    pub(crate) title: String,
    #[serde(default)]
    pub(crate) date: String,
    #[serde(default)]
    pub(crate) last_modified: String,
    #[serde(default)]
    pub(crate) tags: Vec<String>,
}

/// A note's text split in two. `yaml` is the whole mapping, unknown keys included, in
/// the order the file has them.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub(crate) yaml: Mapping,
    pub body: String,
    /// Whether a blank line separates the closing `---` from the body; kept so that a
    /// re-emitted note keeps its layout.
    pub(crate) blank_line: bool,
    /// The line ending of the delimiter lines (`\n` or `\r\n`).
    pub(crate) newline: &'static str,
}

/// Splits `text` into front matter and body. `None` when the text does not start with a
/// `---` line, has no closing `---` line, the YAML between is not a mapping, or it is
/// beyond the bounds `check` enforces on writes (read as unreadable, without parsing it).
pub fn parse(text: &str) -> Option<Document> {
    let (yaml, body, blank_line, newline) = split(text)?;
    Some(Document {
        yaml,
        body: body.to_string(),
        blank_line,
        newline,
    })
}

/// What `parse` reads, the body borrowed: the mapping, the body, whether a blank line
/// came before it, the line ending.
fn split(text: &str) -> Option<(Mapping, &str, bool, &'static str)> {
    let block = Block::of(text)?;
    within_bounds(block.yaml).ok()?;
    let yaml = parse_mapping(block.yaml)?;
    let (body, blank_line) = match block.after.strip_prefix(block.newline) {
        Some(body) => (body, true),
        None => (block.after, false),
    };
    Some((yaml, body, blank_line, block.newline))
}

/// The fields of `text`'s front matter and where its body starts, as `parse` reads
/// them, without a copy of the body (the search index reads every note this way).
pub(crate) fn parse_fields(text: &str) -> Option<(FrontMatter, usize)> {
    let (yaml, body, _, _) = split(text)?;
    Some((fields_of(&yaml), text.len() - body.len()))
}

/// Refuses a note text whose front matter is too large, nested too deeply or expands its
/// aliases too far; a text without a front matter block passes.
pub(crate) fn check(text: &str) -> Result<(), Error> {
    match Block::of(text) {
        Some(block) => within_bounds(block.yaml),
        None => Ok(()),
    }
}

/// Where a note's Markdown starts: after the closing `---` line of its front matter
/// block, whether the YAML in it parses or not; 0 when the text has no such block.
pub(crate) fn body_offset(text: &str) -> usize {
    Block::of(text).map_or(0, |block| text.len() - block.after.len())
}

/// The front matter block of a note text: between a first `---` line and the next one.
struct Block<'a> {
    yaml: &'a str,
    /// Everything after the closing `---` line.
    after: &'a str,
    newline: &'static str,
}

impl<'a> Block<'a> {
    fn of(text: &'a str) -> Option<Self> {
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
                return Some(Block {
                    yaml: &text[yaml_start..line_start],
                    after,
                    newline,
                });
            }
            rest = after;
        }
    }
}

/// The bounds, checked in time linear in the text before the YAML parser sees it: size,
/// then nesting (a linear scan), then, only for YAML that uses aliases, the number of
/// values the aliases expand to (counted while parsing, stopped at the budget).
fn within_bounds(yaml: &str) -> Result<(), Error> {
    if yaml.len() > MAX_BYTES {
        return Err(Error::FrontMatterTooLarge(MAX_BYTES));
    }
    let shape = scan::shape(yaml, MAX_DEPTH);
    if shape.depth > MAX_DEPTH {
        return Err(Error::FrontMatterTooDeep(MAX_DEPTH));
    }
    if shape.aliases > 0 {
        let budget = alias_budget(yaml);
        if !expands_within(yaml, budget) {
            return Err(Error::FrontMatterAliases(budget));
        }
    }
    Ok(())
}

fn alias_budget(yaml: &str) -> usize {
    yaml.len() + ALIAS_SLACK
}

/// Whether the YAML, aliases expanded, holds at most `budget` values. Broken YAML passes
/// (it is refused, or read as unreadable, elsewhere).
fn expands_within(yaml: &str, budget: usize) -> bool {
    let left = Cell::new(budget);
    match Counter(&left).deserialize(serde_yaml::Deserializer::from_str(yaml)) {
        Ok(()) => true,
        Err(_) => left.get() > 0,
    }
}

/// Counts the values a deserializer produces (an alias counts each time it is expanded)
/// and fails once the budget is spent, which stops the expansion.
#[derive(Clone, Copy)]
struct Counter<'a>(&'a Cell<usize>);

impl Counter<'_> {
    fn tick<E: de::Error>(self) -> Result<(), E> {
        match self.0.get() {
            0 => Err(E::custom("the front matter expands to too many values")),
            n => {
                self.0.set(n - 1);
                Ok(())
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Counter<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counter<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.tick()
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.tick()
    }

    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.tick()
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.tick()
    }

    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.tick()
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.tick()
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.tick()
    }

    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<(), E> {
        self.tick()
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.tick()
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.tick()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.tick()?;
        deserializer.deserialize_any(self)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.tick()?;
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.tick()?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.tick()?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        use de::VariantAccess;
        self.tick()?;
        let ((), variant) = data.variant_seed(self)?;
        variant.newtype_variant_seed(self)
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
    pub(crate) fn new(fields: &FrontMatter, body: String) -> Self {
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
        fields_of(&self.yaml)
    }

    /// Sets `last_modified`, in place when the key exists, else after `date` (or
    /// `title`, or first), so the spec's order holds for notes that had none.
    pub(crate) fn set_last_modified(&mut self, value: String) {
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
    pub(crate) fn extend(&mut self, extra: Mapping) {
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

/// The four spec'd fields of a front matter mapping, read leniently.
fn fields_of(yaml: &Mapping) -> FrontMatter {
    let string = |key: &str| yaml.get(key).and_then(scalar).unwrap_or_default();
    FrontMatter {
        title: string("title"),
        date: string("date"),
        last_modified: string("last_modified"),
        tags: match yaml.get("tags") {
            Some(Value::Sequence(items)) => items.iter().filter_map(scalar).collect(),
            Some(other) => scalar(other).into_iter().collect(),
            None => Vec::new(),
        },
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

    fn note(yaml: &str) -> String {
        format!("---\n{yaml}---\nbody\n")
    }

    #[test]
    fn deep_large_and_exploding_front_matter_is_refused_and_read_as_unreadable() {
        let deep = note(&format!(
            "x: {}1{}\n",
            "[".repeat(40_000),
            "]".repeat(40_000)
        ));
        assert!(parse(&deep).is_none());
        assert!(matches!(check(&deep), Err(Error::FrontMatterTooDeep(64))));

        let large = note(&format!("x: \"{}\"\n", "a".repeat(MAX_BYTES)));
        assert!(parse(&large).is_none());
        assert!(matches!(check(&large), Err(Error::FrontMatterTooLarge(_))));

        let laughs = note(&billion_laughs());
        let started = std::time::Instant::now();
        assert!(parse(&laughs).is_none());
        assert!(matches!(check(&laughs), Err(Error::FrontMatterAliases(_))));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));

        // Aliases used as YAML intends are fine.
        let shared = note("base: &b {x: 1}\nother: *b\ntags: &t [a]\nmore: *t\n");
        assert!(check(&shared).is_ok());
        assert_eq!(parse(&shared).unwrap().yaml.len(), 4);
        // No front matter, or one never closed: nothing to refuse.
        assert!(check("just text").is_ok());
        assert!(check(&format!("---\nx: {}", "[".repeat(1000))).is_ok());
    }

    /// Nine levels of ten aliases each: a billion values once expanded.
    pub(crate) fn billion_laughs() -> String {
        let mut yaml = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for level in 1..=9 {
            let prev = format!("*a{}", level - 1);
            let items = [prev.as_str(); 10].join(", ");
            yaml.push_str(&format!("a{level}: &a{level} [{items}]\n"));
        }
        yaml
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        /// How one level of a generated front matter nests its child.
        #[derive(Debug, Clone, Copy)]
        enum Style {
            BlockMap,
            BlockSeq,
            FlowSeq,
            FlowMap,
        }

        /// Decoys: brackets, quotes and `#` that are text, not structure.
        const FLOW_LEAVES: &[&str] = &["\"a [[ {{ \\\" ]]\"", "'b [[ '' {{'", "word", "'# [['"];
        const BLOCK_LEAVES: &[&str] = &[
            "\"a [[ {{ \\\" ]]\"",
            "'b [[ '' {{'",
            "plain [text] {with} brackets",
            "x # [[[[ a comment",
        ];

        fn flow(chain: &[Style], leaf: usize) -> String {
            match chain.first() {
                None => FLOW_LEAVES[leaf % FLOW_LEAVES.len()].to_string(),
                Some(Style::FlowMap) => format!("{{a: {}, 'b': '{{'}}", flow(&chain[1..], leaf)),
                Some(_) => format!("[{}, \"]\"]", flow(&chain[1..], leaf)),
            }
        }

        /// The text after `key:` (or `-`) at column `indent`, for the chain of styles.
        fn block(chain: &[Style], leaf: usize, indent: usize) -> String {
            let pad = " ".repeat(indent + 2);
            match chain.first() {
                None if leaf % 5 == 4 => format!(" |\n{pad}literal [[[ {{{{ '\"\n{pad}  ]]\n"),
                None => format!(" {}\n", BLOCK_LEAVES[leaf % BLOCK_LEAVES.len()]),
                Some(Style::BlockMap) => format!(
                    "\n{pad}k:{}{pad}other: 'x[['  # [[\n",
                    block(&chain[1..], leaf, indent + 2)
                ),
                Some(Style::BlockSeq) => format!(
                    "\n{pad}-{}{pad}- \"[[\"\n",
                    block(&chain[1..], leaf, indent + 2)
                ),
                Some(_) => format!(" {}\n", flow(chain, leaf)),
            }
        }

        /// Block levels first, then flow levels (block collections cannot be inside flow).
        fn chain() -> impl Strategy<Value = Vec<Style>> {
            (0..40usize, 0..60usize, any::<u64>()).prop_map(|(blocks, flows, seed)| {
                let mut out = Vec::new();
                for i in 0..blocks {
                    out.push(if (seed >> (i % 64)) & 1 == 0 {
                        Style::BlockMap
                    } else {
                        Style::BlockSeq
                    });
                }
                for i in 0..flows {
                    out.push(if (seed >> ((i + 7) % 64)) & 1 == 0 {
                        Style::FlowSeq
                    } else {
                        Style::FlowMap
                    });
                }
                out
            })
        }

        fn value_depth(value: &Value) -> usize {
            match value {
                Value::Sequence(items) => 1 + items.iter().map(value_depth).max().unwrap_or(0),
                Value::Mapping(map) => 1 + map.values().map(value_depth).max().unwrap_or(0),
                Value::Tagged(tagged) => value_depth(&tagged.value),
                _ => 0,
            }
        }

        proptest! {
            #[test]
            fn nesting_up_to_the_limit_parses_and_beyond_is_refused(
                chain in chain(),
                leaf in 0..20usize,
            ) {
                let yaml = format!(
                    "title: T\n# a comment [[[[\nx:{}after: \"done\"\n",
                    block(&chain, leaf, 0)
                );
                let depth = 1 + chain.len();
                let shape = scan::shape(&yaml, MAX_DEPTH);
                prop_assert_eq!(shape.depth, depth.min(MAX_DEPTH + 1), "{}", yaml);
                prop_assert!(shape.steps <= 4 * yaml.len() + 4);
                let text = format!("---\n{yaml}---\nbody");
                if depth <= MAX_DEPTH {
                    let doc = parse(&text);
                    prop_assert!(doc.is_some(), "{}", yaml);
                    let doc = doc.unwrap();
                    prop_assert_eq!(value_depth(&Value::Mapping(doc.yaml.clone())), depth);
                    prop_assert_eq!(doc.fields().title, "T");
                    prop_assert!(check(&text).is_ok());
                } else {
                    prop_assert!(parse(&text).is_none());
                    prop_assert!(matches!(check(&text), Err(Error::FrontMatterTooDeep(64))));
                }
            }

            #[test]
            fn the_scan_is_linear(lines in prop::collection::vec(
                prop_oneof![
                    Just("key: value [x] # c\n"),
                    Just("- 'q''s [['\n"),
                    Just("  nested: {a: [1, 2]}\n"),
                    Just("text: |\n  [[[[\n"),
                    Just("x: \"multi\n  line [[\"\n"),
                    Just("[[[[[[[[\n"),
                    Just("]]]]]]]]\n"),
                    Just("*alias &anchor !tag\n"),
                ],
                0..400,
            )) {
                let yaml: String = lines.concat();
                let shape = scan::shape(&yaml, MAX_DEPTH);
                prop_assert!(shape.steps <= 4 * yaml.len() + 4, "{:?} for {} bytes", shape, yaml.len());
            }
        }

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
