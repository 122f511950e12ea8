//! A note named on the command line: `courses` means `courses.md`, a move to `folder/`
//! keeps the note's name, and a note not found gets a hint (the path relative to the
//! notes folder, or the nearest name) when one is close.

use crate::error::Error;
use crate::ops::{NotePath, Notebook};

/// The note `raw` names: with `.md` added when its last segment has no extension.
pub(super) fn parse(notebook: &Notebook, raw: &str) -> anyhow::Result<NotePath> {
    NotePath::parse(&with_extension(raw)).map_err(|err| super::at_note(notebook, raw, err))
}

/// Where `notes mv` puts `from` when told `raw`: into the folder when `raw` ends in
/// `/` or names a folder, keeping the note's name.
pub(super) fn destination(
    notebook: &Notebook,
    from: &NotePath,
    raw: &str,
) -> anyhow::Result<NotePath> {
    let into_folder =
        raw.ends_with('/') || (super::is_inside(raw) && notebook.notes_dir().join(raw).is_dir());
    if into_folder {
        let folder = raw.trim_end_matches('/');
        let name = from.as_str().rsplit('/').next().unwrap_or(from.as_str());
        let joined = if folder.is_empty() {
            name.to_string()
        } else {
            format!("{folder}/{name}")
        };
        return NotePath::parse(&joined).map_err(|err| super::at_note(notebook, raw, err));
    }
    parse(notebook, raw)
}

fn with_extension(raw: &str) -> std::borrow::Cow<'_, str> {
    let last = raw.rsplit('/').next().unwrap_or(raw);
    if last.is_empty() || last.contains('.') {
        raw.into()
    } else {
        format!("{raw}.md").into()
    }
}

/// A hint for a note `raw` that was not found: the same path without the notes
/// folder's own name in front, or the closest note path by edit distance; `None` when
/// nothing is close.
pub(super) fn hint(notebook: &Notebook, raw: &str) -> Option<String> {
    let list = notebook.list().ok()?;
    let wanted = with_extension(raw);
    let exists = |path: &str| list.notes.iter().any(|n| n.path.as_str() == path);
    let dir = notebook.notes_dir();
    let dir_name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if let Some(inner) = wanted
        .strip_prefix(dir_name)
        .and_then(|rest| rest.strip_prefix('/'))
        .filter(|inner| exists(inner))
    {
        return Some(format!(
            "paths are relative to the notes folder {}: did you mean `{inner}`?",
            dir.display()
        ));
    }
    let name = wanted.rsplit('/').next().unwrap_or(&wanted).to_lowercase();
    let (score, best) = list
        .notes
        .iter()
        .map(|note| {
            let path = note.path.as_str();
            let same_name = path
                .rsplit('/')
                .next()
                .is_some_and(|n| n.to_lowercase() == name);
            let score = if same_name {
                1.0
            } else {
                strsim::normalized_damerau_levenshtein(&stem(&wanted), &stem(path))
            };
            (score, path)
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    // One typo in a short name (`cuorses`), a few in a long path.
    (score >= 0.75).then(|| format!("did you mean `{best}`?"))
}

/// A path as names are compared: lowercased, without `.md`.
fn stem(path: &str) -> String {
    path.strip_suffix(".md").unwrap_or(path).to_lowercase()
}

/// Whether `err` is the one a hint helps with.
pub(super) fn wants_hint(err: &Error) -> bool {
    matches!(err, Error::NotFound)
}
