//! Three-way merge of a note's text against the version both sides started from: the
//! one merge behind offline edits from the web interface and sync. Front matter merges
//! key by key, the body line by line (diffy); where both sides changed the same lines
//! (or the same key to different values) both versions are kept between git's conflict
//! markers, so nothing either side typed is lost.

use diffy::{ConflictStyle, MergeOptions};
use serde_yaml::Value;

use super::front_matter::{self, Change};

/// The merged text, and whether it holds conflict markers the user has to resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Merged {
    pub(crate) text: String,
    pub(crate) conflicted: bool,
}

impl Merged {
    fn clean(text: &str) -> Self {
        Merged {
            text: text.to_string(),
            conflicted: false,
        }
    }
}

/// The opening conflict marker's line start, as git writes it.
const OURS_MARK: &str = "<<<<<<< ";
const SPLIT_MARK: &str = "=======";
const THEIRS_MARK: &str = ">>>>>>> ";

/// Merges `ours` and `theirs`, both edited from `base`. `ours` is the version in the
/// notebook; where the two disagree, `ours` comes first between the markers.
pub(crate) fn merge(base: &str, ours: &str, theirs: &str) -> Merged {
    if ours == theirs || base == theirs {
        return Merged::clean(ours);
    }
    if base == ours {
        return Merged::clean(theirs);
    }
    match (
        front_matter::parse(base),
        front_matter::parse(ours),
        front_matter::parse(theirs),
    ) {
        (Some(b), Some(o), Some(t)) => merge_with_front_matter(base, ours, theirs, (b, o, t)),
        _ => merge_lines(base, ours, theirs),
    }
}

/// Line by line, with git's two-part markers.
fn merge_lines(base: &str, ours: &str, theirs: &str) -> Merged {
    match MergeOptions::new()
        .set_conflict_style(ConflictStyle::Merge)
        .merge(base, ours, theirs)
    {
        Ok(text) => Merged {
            text,
            conflicted: false,
        },
        Err(text) => Merged {
            text,
            conflicted: true,
        },
    }
}

type Documents = (
    front_matter::Document,
    front_matter::Document,
    front_matter::Document,
);

/// The body merged line by line; the front matter key by key: a key only one side
/// changed takes that change, `last_modified` the later time, `tags` the tags either
/// side added less those either side removed; any other key both sides set differently
/// keeps ours, with both values in a marked block at the top of the body.
fn merge_with_front_matter(base: &str, ours: &str, theirs: &str, docs: Documents) -> Merged {
    let (b, o, t) = docs;
    let body = |text: &str| text[front_matter::body_offset(text)..].to_string();
    let mut merged = merge_lines(&body(base), &body(ours), &body(theirs));

    let mut changes = Vec::new();
    let mut clashes = Vec::new();
    let keys = t.yaml.keys().chain(o.yaml.keys()).chain(b.yaml.keys());
    let mut seen = Vec::new();
    for key in keys {
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let Some(name) = key.as_str() else { continue };
        let (bv, ov, tv) = (b.yaml.get(key), o.yaml.get(key), t.yaml.get(key));
        if tv == bv || ov == tv {
            continue;
        }
        if ov == bv {
            changes.push(match tv {
                Some(value) => Change::Set(name.to_string(), value.clone()),
                None => Change::Remove(name.to_string()),
            });
            continue;
        }
        match (name, ov, tv) {
            ("last_modified", Some(Value::String(a)), Some(Value::String(z))) => {
                if z > a {
                    changes.push(Change::text(name, z.clone()));
                }
            }
            ("tags", _, _) => {
                let tags = merge_sets(&strings(bv), &strings(ov), &strings(tv));
                changes.push(Change::list(name, &tags));
            }
            _ => clashes.push((name, ov, tv)),
        }
    }

    let head = &ours[..front_matter::body_offset(ours)];
    let mut block = String::new();
    for (name, ov, tv) in &clashes {
        block.push_str(OURS_MARK);
        block.push_str("ours\n");
        block.push_str(&key_yaml(name, *ov));
        block.push_str(SPLIT_MARK);
        block.push('\n');
        block.push_str(&key_yaml(name, *tv));
        block.push_str(THEIRS_MARK);
        block.push_str("theirs\n");
    }
    let text = format!("{head}{block}{}", merged.text);
    merged.conflicted |= !clashes.is_empty();
    merged.text = match front_matter::edit(&text, &changes) {
        Ok(edited) => edited,
        // The front matter parsed above, so an edit cannot fail; if it ever did, the
        // text keeps ours' keys and every body line, which loses nothing typed.
        Err(_) => text,
    };
    merged
}

/// One key as a YAML line or lines, for a conflict block; `(absent)` when a side
/// removed it.
fn key_yaml(name: &str, value: Option<&Value>) -> String {
    let Some(value) = value else {
        return format!("{name}: (absent)\n");
    };
    let mut map = serde_yaml::Mapping::new();
    map.insert(Value::String(name.to_string()), value.clone());
    serde_yaml::to_string(&map).unwrap_or_else(|_| format!("{name}: ?\n"))
}

fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Sequence(items)) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

/// Ours in its order, then what theirs added; less what either side removed.
fn merge_sets(base: &[String], ours: &[String], theirs: &[String]) -> Vec<String> {
    let removed = |side: &[String], item: &String| base.contains(item) && !side.contains(item);
    let mut out: Vec<String> = Vec::new();
    for item in ours.iter().chain(theirs) {
        if !out.contains(item) && !removed(ours, item) && !removed(theirs, item) {
            out.push(item.clone());
        }
    }
    out
}

/// Whether `text` holds a conflict block: a line opening with `<<<<<<< `, later a
/// `=======` line, later a line opening with `>>>>>>> `.
pub(crate) fn has_conflict(text: &str) -> bool {
    let mut stage = 0;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        stage = match stage {
            0 if line.starts_with(OURS_MARK) => 1,
            1 if line == SPLIT_MARK => 2,
            1 if line.starts_with(OURS_MARK) => 1,
            2 if line.starts_with(THEIRS_MARK) => return true,
            s => s,
        };
    }
    false
}

/// The two sides of every conflict block of `text`: `(ours, theirs)`, each the whole
/// text with that side's lines kept (for a side-by-side view).
pub(crate) fn sides(text: &str) -> (String, String) {
    let (mut ours, mut theirs) = (String::new(), String::new());
    let mut stage = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match stage {
            0 if bare.starts_with(OURS_MARK) => stage = 1,
            1 if bare == SPLIT_MARK => stage = 2,
            2 if bare.starts_with(THEIRS_MARK) => stage = 0,
            0 => {
                ours.push_str(line);
                theirs.push_str(line);
            }
            1 => ours.push_str(line),
            _ => theirs.push_str(line),
        }
    }
    (ours, theirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "---\ntitle: T\ntags: [a, b]\nlast_modified: '2026-01-01T00:00:00Z'\n---\n\none\ntwo\nthree\nfour\nfive\n";

    #[test]
    fn edits_to_different_lines_merge() {
        let ours = BASE.replace("one\n", "ONE\n");
        let theirs = BASE.replace("five\n", "FIVE\n");
        let m = merge(BASE, &ours, &theirs);
        assert!(!m.conflicted, "{}", m.text);
        assert_eq!(
            m.text,
            BASE.replace("one\n", "ONE\n").replace("five\n", "FIVE\n")
        );
    }

    #[test]
    fn edits_to_the_same_lines_keep_both() {
        let ours = BASE.replace("three\n", "mine\n");
        let theirs = BASE.replace("three\n", "yours\n");
        let m = merge(BASE, &ours, &theirs);
        assert!(m.conflicted);
        assert!(
            m.text
                .contains("<<<<<<< ours\nmine\n=======\nyours\n>>>>>>> theirs\n")
        );
        assert!(has_conflict(&m.text));
        let (o, t) = sides(&m.text);
        assert_eq!(o, ours);
        assert_eq!(t, theirs);
    }

    #[test]
    fn front_matter_merges_key_by_key() {
        let ours = BASE
            .replace("title: T", "title: Mine")
            .replace("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")
            .replace("[a, b]", "[a, b, c]");
        let theirs = BASE
            .replace("2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z")
            .replace("[a, b]", "[b, d]")
            .replace("two\n", "TWO\n");
        let m = merge(BASE, &ours, &theirs);
        assert!(!m.conflicted, "{}", m.text);
        let doc = front_matter::parse(&m.text).unwrap();
        let fields = doc.fields();
        assert_eq!(fields.title, "Mine");
        assert_eq!(fields.last_modified, "2026-03-01T00:00:00Z");
        assert_eq!(fields.tags, ["b", "c", "d"]);
        assert!(m.text.contains("\nTWO\n"));
    }

    #[test]
    fn the_same_key_set_differently_keeps_both_values() {
        let ours = BASE.replace("title: T", "title: Mine");
        let theirs = BASE.replace("title: T", "title: Yours");
        let m = merge(BASE, &ours, &theirs);
        assert!(m.conflicted);
        assert!(m.text.starts_with("---\ntitle: Mine\n"), "{}", m.text);
        assert!(
            m.text
                .contains("<<<<<<< ours\ntitle: Mine\n=======\ntitle: Yours\n>>>>>>> theirs\n")
        );
    }

    #[test]
    fn one_sided_changes_and_texts_without_front_matter() {
        assert_eq!(merge("a\n", "a\n", "b\n").text, "b\n");
        assert_eq!(merge("a\n", "b\n", "a\n").text, "b\n");
        let m = merge("a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n");
        assert_eq!(m, Merged::clean("A\nb\nC\n"));
        assert!(!has_conflict("<<<<<<< ours\nno split\n>>>>>>> theirs\n"));
    }
}
