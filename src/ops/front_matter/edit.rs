//! Textual edits of a front matter: a top-level key replaced, inserted or removed in
//! place, every other byte of the note kept (indentation, quoting, comments, key order,
//! line endings, the body).

use serde_yaml::{Mapping, Value};

use super::{Block, Document, split};
use crate::error::Error;

/// One change of a top-level key of a front matter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    /// The key gets this value: replaced where it is, or inserted.
    Set(String, Value),
    /// The key goes, with its value.
    Remove(String),
}

impl Change {
    /// Sets `key` to a string.
    pub(crate) fn text(key: &str, value: impl Into<String>) -> Self {
        Change::Set(key.to_string(), Value::String(value.into()))
    }

    /// Sets `key` to a list of strings.
    pub(crate) fn list(key: &str, items: &[String]) -> Self {
        let items = items.iter().cloned().map(Value::String).collect();
        Change::Set(key.to_string(), Value::Sequence(items))
    }
}

/// The spec's key order: a spec'd key a note lacks goes after the one before it.
const SPEC_ORDER: [&str; 4] = ["title", "date", "last_modified", "tags"];

/// `text` with `changes` made to its front matter, and nothing else changed: a key that
/// already has the value asked keeps its text, a changed key's lines are replaced by
/// the YAML of that key alone (a list keeps its indentation or `[…]` form, a quoted
/// string its quotes), a new key goes after its spec'd neighbour (else last). When the
/// YAML is laid out in a way this cannot edit line by line, the front matter is written
/// out whole (key order kept), so the result always reads as asked.
/// `FrontMatterUnreadable` when the text has no front matter that parses.
pub(crate) fn edit(text: &str, changes: &[Change]) -> Result<String, Error> {
    let (old, _, _, _) = split(text).ok_or(Error::FrontMatterUnreadable)?;
    let block = Block::of(text).ok_or(Error::FrontMatterUnreadable)?;
    let start = block.yaml.as_ptr() as usize - text.as_ptr() as usize;
    let end = start + block.yaml.len();
    let mut expected = old.clone();
    let mut yaml = Some(block.yaml.to_string());
    for change in changes {
        let key = match change {
            Change::Set(key, _) | Change::Remove(key) => key.as_str(),
        };
        let asked = match change {
            Change::Set(_, value) => Some(value),
            Change::Remove(_) => None,
        };
        if expected.get(key) == asked {
            continue;
        }
        apply(&mut expected, change);
        yaml = yaml.and_then(|y| edit_lines(&y, change, block.newline));
    }
    if expected == old {
        return Ok(text.to_string());
    }
    if let Some(yaml) = yaml {
        let edited = format!("{}{yaml}{}", &text[..start], &text[end..]);
        if split(&edited).is_some_and(|(map, _, _, _)| map == expected) {
            return Ok(edited);
        }
    }
    rewrite_whole(text, expected)
}

/// The note with its front matter written out whole from `yaml` (the old way, for
/// layouts `edit_lines` does not handle).
fn rewrite_whole(text: &str, yaml: Mapping) -> Result<String, Error> {
    let mut doc = super::parse(text).ok_or(Error::FrontMatterUnreadable)?;
    doc.yaml = yaml;
    let out = Document::emit(&doc).map_err(|e| Error::FrontMatterFailed(e.to_string()))?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(_) => format!("\u{feff}{out}"),
        None => out,
    })
}

/// `change` made to the mapping, at the place `edit_lines` makes it in the text.
fn apply(map: &mut Mapping, change: &Change) {
    match change {
        Change::Remove(key) => {
            map.shift_remove(key.as_str());
        }
        Change::Set(key, value) => {
            if let Some(slot) = map.get_mut(key.as_str()) {
                *slot = value.clone();
                return;
            }
            let keys: Vec<Option<&str>> = map.keys().map(Value::as_str).collect();
            let at = match place(key, |k| keys.iter().position(|have| *have == Some(k))) {
                Place::After(i) => i + 1,
                Place::Before(i) => i,
                Place::End => keys.len(),
            };
            let mut rebuilt = Mapping::with_capacity(map.len() + 1);
            let mut entries = std::mem::take(map).into_iter();
            rebuilt.extend(entries.by_ref().take(at));
            rebuilt.insert(key.as_str().into(), value.clone());
            rebuilt.extend(entries);
            *map = rebuilt;
        }
    }
}

/// Where a new key goes, given where each key is (`find`).
enum Place {
    After(usize),
    Before(usize),
    End,
}

fn place(key: &str, find: impl Fn(&str) -> Option<usize>) -> Place {
    let Some(rank) = SPEC_ORDER.iter().position(|k| *k == key) else {
        return Place::End;
    };
    if let Some(i) = SPEC_ORDER[..rank].iter().rev().find_map(|k| find(k)) {
        return Place::After(i);
    }
    match SPEC_ORDER[rank + 1..].iter().find_map(|k| find(k)) {
        Some(i) => Place::Before(i),
        None => Place::End,
    }
}

/// A top-level entry of the YAML text: a key line and the lines of its value (trailing
/// blank lines and comments at the key's indentation are not part of it).
#[derive(Debug)]
struct Entry {
    key: Option<String>,
    /// The key as written (quotes included).
    key_text: String,
    start: usize,
    end: usize,
}

/// The top-level entries of a block mapping and its indentation; `None` for YAML laid
/// out otherwise (flow mapping, explicit `?` keys, a value line before any key).
fn entries(yaml: &str) -> Option<(usize, Vec<Entry>)> {
    let mut indent = None;
    let mut found: Vec<Entry> = Vec::new();
    let mut at = 0;
    for raw in yaml.split_inclusive('\n') {
        let (line_start, line_end) = (at, at + raw.len());
        at = line_end;
        let line = raw.trim_end_matches('\n').trim_end_matches('\r');
        let rest = line.trim_start_matches(' ');
        if rest.trim().is_empty() {
            continue;
        }
        let depth = line.len() - rest.len();
        if rest.starts_with('#') && indent.is_none_or(|n| depth <= n) {
            continue;
        }
        let n = *indent.get_or_insert(depth);
        let item = rest == "-" || rest.starts_with("- ") || rest.starts_with("-\t");
        if depth < n {
            return None;
        }
        if depth == n && !item {
            let (key, key_text) = key_of(rest)?;
            found.push(Entry {
                key,
                key_text,
                start: line_start,
                end: line_end,
            });
        } else {
            found.last_mut()?.end = line_end;
        }
    }
    Some((indent.unwrap_or(0), found))
}

/// The key of an entry's first line (`None` when it is written in a way not read here)
/// and its text; `None` for a line that cannot start a plain block mapping entry.
fn key_of(rest: &str) -> Option<(Option<String>, String)> {
    if rest.starts_with(['?', '{', '[', '&', '*', '!', '|', '>', '%', '@', '`']) {
        return None;
    }
    let key_end = match rest.chars().next()? {
        quote @ ('"' | '\'') => closing_quote(rest, quote)? + 1,
        _ => {
            rest.char_indices()
                .find(|&(i, c)| c == ':' && value_follows(&rest[i + 1..]))?
                .0
        }
    };
    let key_text = &rest[..key_end];
    if !rest[key_end..].trim_start().starts_with(':') {
        return None;
    }
    let key_text = key_text.trim_end();
    // A plain key is its own text (read alone it could be YAML of another shape).
    let key = if rest.starts_with(['"', '\'']) {
        serde_yaml::from_str::<Value>(key_text)
            .ok()
            .and_then(|k| k.as_str().map(str::to_string))
    } else {
        Some(key_text.to_string())
    };
    Some((key, key_text.to_string()))
}

/// Whether what follows a `:` makes it a key's colon (a space, a tab or the line's end).
fn value_follows(after: &str) -> bool {
    after.is_empty() || after.starts_with([' ', '\t'])
}

/// Where the quoted scalar that `text` starts with ends.
fn closing_quote(text: &str, quote: char) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == '"' => i += 2,
            b'\'' if quote == '\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote as u8 => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The YAML text with `change` made to its lines; `None` when the layout is not one
/// this edits.
fn edit_lines(yaml: &str, change: &Change, newline: &str) -> Option<String> {
    let (indent, all) = entries(yaml)?;
    let (key, value) = match change {
        Change::Set(key, value) => (key, Some(value)),
        Change::Remove(key) => (key, None),
    };
    let entry = all.iter().find(|e| e.key.as_deref() == Some(key.as_str()));
    let mut out = yaml.to_string();
    match (entry, value) {
        (Some(entry), None) => out.replace_range(entry.start..entry.end, ""),
        (None, None) => {}
        (Some(entry), Some(value)) => {
            let old = &yaml[entry.start..entry.end];
            let lines = render(key, &entry.key_text, value, Some(old), indent, newline)?;
            out.replace_range(entry.start..entry.end, &lines);
        }
        (None, Some(value)) => {
            let find = |k: &str| all.iter().position(|e| e.key.as_deref() == Some(k));
            let at = match place(key, find) {
                Place::After(i) => all[i].end,
                Place::Before(i) => all[i].start,
                Place::End => yaml.len(),
            };
            let key_text = plain(&Value::String(key.clone()))?;
            let lines = render(key, &key_text, value, None, indent, newline)?;
            out.insert_str(at, &lines);
        }
    }
    Some(out)
}

/// The lines of `key: value` (the key written as `key_text`), indented by `indent`,
/// each ending with `newline`: serde_yaml's YAML of that key alone, in the style of
/// `old` (the entry's lines before) where that style still reads as `value`.
fn render(
    key: &str,
    key_text: &str,
    value: &Value,
    old: Option<&str>,
    indent: usize,
    newline: &str,
) -> Option<String> {
    let old_value = old.map(|old| {
        let first = old.lines().next().unwrap_or_default().trim_start();
        first
            .get(key_text.len()..)
            .unwrap_or_default()
            .trim_start()
            .trim_start_matches(':')
            .trim()
    });
    let styled = old
        .zip(old_value)
        .and_then(|(old, old_value)| styled(key_text, value, old, old_value));
    let reads_as_value = |lines: &str| {
        serde_yaml::from_str::<Mapping>(lines)
            .ok()
            .is_some_and(|m| m.len() == 1 && m.values().next() == Some(value))
    };
    let lines = match styled.filter(|s| reads_as_value(s)) {
        Some(lines) => lines,
        None => {
            let mut single = Mapping::new();
            single.insert(Value::String(key.to_string()), value.clone());
            let whole = serde_yaml::to_string(&single).ok()?;
            let rest = whole.strip_prefix(&plain(&Value::String(key.to_string()))?)?;
            let (first, tail) = rest.split_once('\n').unwrap_or((rest, ""));
            let tail = tail.trim_end_matches('\n');
            let nested = matches!(value, Value::Sequence(_) | Value::Mapping(_));
            let step = match old {
                Some(old) if nested && first == ":" => child_depth(old.lines().skip(1), indent)
                    .saturating_sub(child_depth(tail.lines(), 0)),
                _ => 0,
            };
            if tail.is_empty() {
                format!("{key_text}{first}\n")
            } else {
                format!("{key_text}{first}\n{}\n", shifted(tail, step))
            }
        }
    };
    let prefix = " ".repeat(indent);
    let mut out = String::with_capacity(lines.len() + 16);
    for line in lines.lines() {
        if !line.is_empty() {
            out.push_str(&prefix);
        }
        out.push_str(line);
        out.push_str(newline);
    }
    Some(out)
}

/// `key: value` in the style of the old value: `[a, b]` kept as a flow list, a quoted
/// string kept quoted with the same quotes. `None` when no such style applies.
fn styled(key_text: &str, value: &Value, old: &str, old_value: &str) -> Option<String> {
    let single_line = old.trim_end().lines().count() == 1;
    match value {
        Value::Sequence(items) if single_line && old_value.starts_with('[') => {
            let items: Option<Vec<String>> = items.iter().map(flow_item).collect();
            Some(format!("{key_text}: [{}]\n", items?.join(", ")))
        }
        Value::String(s) if single_line && !s.contains('\n') => {
            if old_value.starts_with('"') {
                Some(format!("{key_text}: {}\n", serde_json::to_string(s).ok()?))
            } else if old_value.starts_with('\'') {
                Some(format!("{key_text}: '{}'\n", s.replace('\'', "''")))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// One item of a flow list: plain when that reads back the same, else double-quoted.
fn flow_item(item: &Value) -> Option<String> {
    match item {
        Value::String(s) => {
            let text = plain(item)?;
            if text.contains(['[', ']', '{', '}', ',', '\n']) || text.starts_with(['"', '\'']) {
                serde_json::to_string(s).ok()
            } else {
                Some(text)
            }
        }
        Value::Number(_) | Value::Bool(_) | Value::Null => plain(item),
        _ => None,
    }
}

/// A scalar as serde_yaml writes it on one line.
fn plain(value: &Value) -> Option<String> {
    let text = serde_yaml::to_string(value).ok()?;
    let text = text.trim_end_matches('\n');
    (!text.contains('\n')).then(|| text.to_string())
}

/// How far the first value line of `lines` sits beyond `indent`.
fn child_depth<'a>(mut lines: impl Iterator<Item = &'a str>, indent: usize) -> usize {
    lines
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map_or(0, |l| {
            (l.len() - l.trim_start_matches(' ').len()).saturating_sub(indent)
        })
}

/// Every line of `text` moved right by `by` spaces (blank lines left empty), joined
/// by `\n`.
fn shifted(text: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
/// `text` with its `last_modified` set to `now` when its front matter has that key (a
/// write outside the spec's PUT adds no key); any other text as it is.
pub(crate) fn touch(text: String, now: &str) -> Result<String, Error> {
    let has_stamp = split(&text).is_some_and(|(map, _, _, _)| map.contains_key("last_modified"));
    if has_stamp {
        edit(&text, &[Change::text("last_modified", now)])
    } else {
        Ok(text)
    }
}

#[cfg(test)]
pub(crate) mod tests;
