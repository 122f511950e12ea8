//! `.public.json`: which notes are public, since when, under which page name. Our own
//! versioned layout, keyed by note path; written atomically; a file that cannot be read
//! is an error, never an empty record.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::ops::fsutil;

/// The record's file name inside the notes dir (hidden, so note listings skip it).
pub(crate) const FILE: &str = ".public.json";
/// The layout version this build reads and writes.
pub(crate) const VERSION: u32 = 1;

/// The marker of a change in progress to pages whose name several notes share
/// (hidden, beside the record). A crash can leave such a page showing a note the record
/// does not give it to; the repair rewrites each page the marker names from its owner.
pub(crate) const PENDING_FILE: &str = ".public-pending.json";

/// One public note.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub(crate) path: String,
    pub(crate) title: String,
    pub(crate) tags: Vec<String>,
    /// The opening words of the note, for the feed.
    pub(crate) summary: String,
    /// Kept to the nanosecond so that publications made within one second keep their order.
    pub(crate) published_at: DateTime<Utc>,
    /// Page file name inside the public dir.
    pub(crate) file: String,
}

/// Every public note, and when the set last changed (the feed's `updated`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Record {
    entries: BTreeMap<String, Entry>,
    updated: Option<DateTime<Utc>>,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    updated: Option<String>,
    notes: BTreeMap<String, StoredEntry>,
}

#[derive(Serialize, Deserialize)]
struct StoredEntry {
    title: String,
    published_at: String,
    file: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    summary: String,
}

fn stamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Nanos, true)
}

fn parse_stamp(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

impl Record {
    /// The record's path for a notes dir.
    pub(crate) fn path(notes_dir: &Path) -> PathBuf {
        notes_dir.join(FILE)
    }

    /// Reads the record; `None` when the file does not exist (nothing was ever published).
    pub(crate) fn load(file: &Path) -> Result<Option<Record>> {
        let unreadable = |reason: String| Error::PublicRecordUnreadable {
            path: file.to_path_buf(),
            reason,
        };
        let bytes = match std::fs::read(file) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(unreadable(e.to_string())),
        };
        let stored: Stored =
            serde_json::from_slice(&bytes).map_err(|e| unreadable(e.to_string()))?;
        if stored.version != VERSION {
            return Err(unreadable(format!(
                "unsupported version {}",
                stored.version
            )));
        }
        let updated = match stored.updated.as_deref() {
            Some(text) => {
                Some(parse_stamp(text).ok_or_else(|| unreadable(format!("bad date {text:?}")))?)
            }
            None => None,
        };
        let mut entries = BTreeMap::new();
        for (path, e) in stored.notes {
            let published_at = parse_stamp(&e.published_at)
                .ok_or_else(|| unreadable(format!("bad date {:?} for {path}", e.published_at)))?;
            if e.file.contains('/') || e.file.starts_with('.') || !e.file.ends_with(".html") {
                return Err(unreadable(format!("bad page name {:?} for {path}", e.file)));
            }
            let entry = Entry {
                path: path.clone(),
                title: e.title,
                tags: e.tags,
                summary: e.summary,
                published_at,
                file: e.file,
            };
            entries.insert(path, entry);
        }
        Ok(Some(Record { entries, updated }))
    }

    /// Writes the record atomically.
    pub(crate) fn save(&self, file: &Path) -> io::Result<()> {
        fsutil::write_atomic(file, &self.to_bytes()?)
    }

    /// The record's file as `save` writes it.
    pub(crate) fn to_bytes(&self) -> io::Result<Vec<u8>> {
        let stored = Stored {
            version: VERSION,
            updated: self.updated.map(stamp),
            notes: self
                .entries
                .iter()
                .map(|(path, e)| {
                    let stored = StoredEntry {
                        title: e.title.clone(),
                        published_at: stamp(e.published_at),
                        file: e.file.clone(),
                        tags: e.tags.clone(),
                        summary: e.summary.clone(),
                    };
                    (path.clone(), stored)
                })
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&stored).map_err(io::Error::other)?;
        text.push('\n');
        Ok(text.into_bytes())
    }

    pub(crate) fn get(&self, path: &str) -> Option<&Entry> {
        self.entries.get(path)
    }

    /// Every entry, by note path.
    pub(crate) fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values()
    }

    /// Whether a note other than `path` is published under page `file`.
    pub(crate) fn shares_page(&self, file: &str, path: &str) -> bool {
        self.entries
            .values()
            .any(|e| e.file == file && e.path != path)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// When the set of public notes last changed.
    pub(crate) fn updated(&self) -> Option<DateTime<Utc>> {
        self.updated
    }

    /// A time for a new change: now, or just after the latest stamp already recorded,
    /// so that a later publication always sorts after an earlier one.
    pub(crate) fn next_stamp(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        let latest = self
            .entries
            .values()
            .map(|e| e.published_at)
            .chain(self.updated)
            .max();
        match latest {
            Some(latest) if latest >= now => latest + TimeDelta::microseconds(1),
            _ => now,
        }
    }

    /// Adds or replaces an entry; the record is updated at its publication time.
    pub(crate) fn insert(&mut self, entry: Entry) {
        self.updated = Some(entry.published_at);
        self.entries.insert(entry.path.clone(), entry);
    }

    /// Replaces the entry of `from` with `entry`, the same note under its new path,
    /// marking the record changed at `at`.
    pub(crate) fn moved(&mut self, from: &str, entry: Entry, at: DateTime<Utc>) {
        self.entries.remove(from);
        self.entries.insert(entry.path.clone(), entry);
        self.updated = Some(at);
    }

    /// Removes an entry, marking the record changed at `at`.
    pub(crate) fn remove(&mut self, path: &str, at: DateTime<Utc>) -> Option<Entry> {
        let removed = self.entries.remove(path);
        if removed.is_some() {
            self.updated = Some(at);
        }
        removed
    }

    /// Entries newest first; equal times ordered by path.
    pub(crate) fn newest_first(&self) -> Vec<&Entry> {
        let mut entries: Vec<&Entry> = self.entries.values().collect();
        entries.sort_by(|a, b| newest_first(a, b));
        entries
    }

    /// The latest publication that uses page `file`, if any: that note owns the page.
    pub(crate) fn owner_of(&self, file: &str) -> Option<&Entry> {
        self.entries
            .values()
            .filter(|e| e.file == file)
            .min_by(|a, b| newest_first(a, b))
    }
}

/// The order of `newest_first`: the latest publication first, then by path.
fn newest_first(a: &Entry, b: &Entry) -> std::cmp::Ordering {
    b.published_at
        .cmp(&a.published_at)
        .then_with(|| a.path.cmp(&b.path))
}

/// The page names of an interrupted change; a marker that cannot be read names every
/// page the record knows, so the repair errs on the side of rewriting.
pub(crate) fn load_pending(notes_dir: &Path, record: &Record) -> io::Result<Option<Vec<String>>> {
    let bytes = match std::fs::read(notes_dir.join(PENDING_FILE)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let pages = match serde_json::from_slice::<Vec<String>>(&bytes) {
        Ok(pages) => pages,
        Err(_) => record.entries().map(|e| e.file.clone()).collect(),
    };
    Ok(Some(pages))
}

/// Notes, durably, that `pages` are about to change.
pub(crate) fn save_pending(notes_dir: &Path, pages: &[&str]) -> io::Result<()> {
    let text = serde_json::to_string(pages).map_err(io::Error::other)?;
    fsutil::write_atomic(&notes_dir.join(PENDING_FILE), text.as_bytes())
}

/// Removes the marker of a change that finished (or was undone).
pub(crate) fn clear_pending(notes_dir: &Path) -> io::Result<()> {
    match fsutil::remove_durable(&notes_dir.join(PENDING_FILE)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn entry(path: &str, file: &str, at: DateTime<Utc>) -> Entry {
        Entry {
            path: path.into(),
            title: format!("T {path}"),
            tags: vec!["x".into()],
            summary: "Words.".into(),
            published_at: at,
            file: file.into(),
        }
    }

    #[test]
    fn round_trips_with_sub_second_order() {
        let dir = tempfile::tempdir().unwrap();
        let file = Record::path(dir.path());
        assert_eq!(Record::load(&file).unwrap(), None);
        let t = Utc.with_ymd_and_hms(2026, 11, 21, 9, 5, 0).unwrap();
        let mut record = Record::default();
        record.insert(entry("b.md", "b.html", t));
        record.insert(entry("a/a.md", "a.html", t + TimeDelta::nanoseconds(5)));
        record.insert(entry("c.md", "c.html", t));
        record.save(&file).unwrap();
        let loaded = Record::load(&file).unwrap().unwrap();
        assert_eq!(loaded, record);
        let order: Vec<_> = loaded
            .newest_first()
            .iter()
            .map(|e| e.path.as_str())
            .collect();
        assert_eq!(order, ["a/a.md", "b.md", "c.md"]);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("\"version\": 1"), "{text}");
        assert!(
            text.contains("\"published_at\": \"2026-11-21T09:05:00.000000005Z\""),
            "{text}"
        );
    }

    #[test]
    fn stamps_only_move_forward() {
        let t = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        let mut record = Record::default();
        assert_eq!(record.next_stamp(t), t);
        record.insert(entry("a.md", "a.html", t));
        assert!(record.next_stamp(t) > t);
        assert!(record.next_stamp(t - TimeDelta::seconds(5)) > t);
        let later = t + TimeDelta::seconds(1);
        assert_eq!(record.next_stamp(later), later);
    }

    #[test]
    fn the_latest_publication_owns_a_shared_page() {
        let t = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        let mut record = Record::default();
        record.insert(entry("x/n.md", "n.html", t));
        record.insert(entry("y/n.md", "n.html", t + TimeDelta::seconds(1)));
        assert_eq!(record.owner_of("n.html").unwrap().path, "y/n.md");
        record.remove("y/n.md", t + TimeDelta::seconds(2));
        assert_eq!(record.owner_of("n.html").unwrap().path, "x/n.md");
        assert!(record.owner_of("m.html").is_none());
    }

    #[test]
    fn unreadable_records_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let file = Record::path(dir.path());
        for bad in [
            "not json",
            r#"{"version": 2, "notes": {}}"#,
            r#"{"version": 1, "notes": {"a.md": {"title": "a", "published_at": "yesterday", "file": "a.html"}}}"#,
            r#"{"version": 1, "notes": {"a.md": {"title": "a", "published_at": "2026-01-01T00:00:00Z", "file": "../a.html"}}}"#,
        ] {
            std::fs::write(&file, bad).unwrap();
            assert!(
                matches!(
                    Record::load(&file),
                    Err(Error::PublicRecordUnreadable { .. })
                ),
                "{bad}"
            );
        }
    }
}
