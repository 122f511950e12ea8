//! Front matter: split a note into its YAML block and body, read the four spec'd fields
//! leniently, and emit the block again with every other key kept in its place.

mod edit;
mod scan;
pub(crate) mod tags;

/// Notes with front matters as people write them, for property tests.
#[cfg(test)]
pub(crate) use edit::tests::properties::note as sample_note;
pub(crate) use edit::{Change, edit, touch};

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
    /// Obsidian's other names of the note (`aliases:`, or `alias:`; a list or one
    /// string): link targets and searched words, never part of the spec'd JSON.
    #[serde(skip)]
    pub(crate) aliases: Vec<String>,
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
        // A byte-order mark before the first `---` (as some editors on Windows write).
        let (first, mut rest) = split_line(text.strip_prefix('\u{feff}').unwrap_or(text));
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
        tags: strings(yaml.get("tags")),
        aliases: strings(yaml.get("aliases").or_else(|| yaml.get("alias")))
            .into_iter()
            .map(|alias| alias.trim().to_string())
            .filter(|alias| !alias.is_empty())
            .collect(),
    }
}

/// A list of scalars, or one scalar as a list of one.
fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Sequence(items)) => items.iter().filter_map(scalar).collect(),
        Some(other) => scalar(other).into_iter().collect(),
        None => Vec::new(),
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
mod tests;
