//! The per-note index of the store, `notes-index` inside the bare repository: one line
//! per note a commit changed (commit, time, operation, size, blob, path), appended in
//! commit order. It answers a note's history without walking the commit graph; it is
//! a cache of the repository, so when it is missing or behind the ref it is completed
//! (or rebuilt) from the commits themselves.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::Path;

use git2::Oid;

/// The index's file name inside the repository.
pub(crate) const FILE: &str = "notes-index";

/// One change of one note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) commit: Oid,
    /// Seconds since the epoch (when the change was made).
    pub(crate) at: i64,
    /// Shared among the entries (a handful of distinct operations).
    pub(crate) op: std::sync::Arc<str>,
    pub(crate) size: u64,
    /// The note's text after the change; `None` when the change removed it.
    pub(crate) blob: Option<Oid>,
}

/// The index in memory: each note's entries, oldest first, and how far it has read.
#[derive(Debug, Default)]
pub(crate) struct Index {
    pub(crate) notes: HashMap<String, Vec<Entry>>,
    /// The commit of the last line read or written.
    pub(crate) tip: Option<Oid>,
    /// How many bytes of the file have been read.
    offset: u64,
    /// The file read (device, inode): a prune replaces it with a new file, which is
    /// then read from its start.
    file: Option<(u64, u64)>,
}

impl Index {
    /// Reads the lines the file gained since the last read (written by this process or
    /// another); a damaged line stops the reading there (the rest is completed from the
    /// repository).
    pub(crate) fn read_new(&mut self, repo: &Path) -> io::Result<()> {
        let mut file = match OpenOptions::new().read(true).open(repo.join(FILE)) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let identity = identity(&file.metadata()?);
        if self.file.is_some_and(|known| known != identity) {
            *self = Index::default();
        }
        self.file = Some(identity);
        file.seek(SeekFrom::Start(self.offset))?;
        // Line by line: at 100k notes the file is 14 MB, read at every start while the
        // note list is built.
        let mut lines = BufReader::with_capacity(1 << 16, file);
        let mut line = Vec::new();
        let mut read = 0;
        loop {
            line.clear();
            let n = lines.read_until(b'\n', &mut line)?;
            if n == 0 || !line.ends_with(b"\n") {
                break;
            }
            let Some((path, entry)) = parse_line(&line) else {
                break;
            };
            self.add(path, entry);
            read += n;
        }
        self.offset += read as u64;
        Ok(())
    }

    /// Appends the entries of one commit, in memory and in the file (not synced: the
    /// repository is the truth, the index is completed from it after a crash).
    pub(crate) fn append(&mut self, repo: &Path, entries: Vec<(String, Entry)>) -> io::Result<()> {
        let mut text = String::new();
        for (path, entry) in &entries {
            text.push_str(&line_of(path, entry));
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(repo.join(FILE))?;
        // Torn by a crash before: the new lines start on a line of their own.
        let meta = file.metadata()?;
        let len = meta.len();
        if len > self.offset || self.file.is_some_and(|known| known != identity(&meta)) {
            self.read_new(repo)?;
            if len > self.offset {
                file.set_len(self.offset)?;
            }
        }
        file.write_all(text.as_bytes())?;
        let meta = file.metadata()?;
        self.offset = meta.len();
        self.file = Some(identity(&meta));
        for (path, entry) in entries {
            self.add(path, entry);
        }
        Ok(())
    }

    /// Forgets everything and empties the file (before a rebuild).
    pub(crate) fn reset(&mut self, repo: &Path) -> io::Result<()> {
        *self = Index::default();
        match std::fs::remove_file(repo.join(FILE)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Replaces the file with one holding `entries` (a temp file renamed over it, so a
    /// crash leaves the old index or the new one, both completed from the commits),
    /// and reads it.
    pub(crate) fn replace(&mut self, repo: &Path, entries: &[(String, Entry)]) -> io::Result<()> {
        let mut text = String::new();
        for (path, entry) in entries {
            text.push_str(&line_of(path, entry));
        }
        let temp = repo.join(format!("{FILE}.new"));
        std::fs::write(&temp, text)?;
        std::fs::rename(&temp, repo.join(FILE))?;
        *self = Index::default();
        self.read_new(repo)
    }

    fn add(&mut self, path: String, entry: Entry) {
        self.tip = Some(entry.commit);
        // Most notes have one version: room for one, not the four of a first push.
        self.notes
            .entry(path)
            .or_insert_with(|| Vec::with_capacity(1))
            .push(entry);
    }

    /// The latest entry of a note.
    pub(crate) fn latest(&self, path: &str) -> Option<&Entry> {
        self.notes.get(path).and_then(|entries| entries.last())
    }
}

/// How much of the file's end `append_after` reads.
const TAIL: u64 = 64 << 10;

/// Appends the lines of commits made on top of `parent` to the file when its last
/// line is `parent`'s (else the lookups complete the index from the commits): the
/// committer's write, which holds no index in memory. A line a crash left torn goes.
pub(crate) fn append_after(
    repo: &Path,
    parent: Option<Oid>,
    entries: &[(String, Entry)],
) -> io::Result<()> {
    let path = repo.join(FILE);
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .write(true)
        .truncate(false)
        .open(&path)?;
    // The tail only: a line is about 150 bytes, the file megabytes.
    let len = file.metadata()?.len();
    let from = len.saturating_sub(TAIL);
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::with_capacity((len - from) as usize);
    io::Read::read_to_end(&mut file, &mut bytes)?;
    let whole = bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    let last = bytes[..whole.saturating_sub(1)]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    let last_commit = parse_line(&bytes[last..whole]).map(|(_, entry)| entry.commit);
    if last_commit != parent {
        return Ok(());
    }
    let whole = from + whole as u64;
    if whole < len {
        file.set_len(whole)?;
    }
    file.seek(SeekFrom::Start(whole))?;
    let mut text = String::new();
    for (path, entry) in entries {
        text.push_str(&line_of(path, entry));
    }
    file.write_all(text.as_bytes())
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    // No inode: the creation time tells a replaced file apart.
    let created = meta
        .created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    (0, created)
}

/// The operation `name`, shared with every other entry of it.
pub(crate) fn op_named(name: &str) -> std::sync::Arc<str> {
    use std::sync::{Arc, Mutex, PoisonError};
    static OPS: Mutex<Vec<Arc<str>>> = Mutex::new(Vec::new());
    let mut ops = OPS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(op) = ops.iter().find(|op| &***op == name) {
        return Arc::clone(op);
    }
    let op: Arc<str> = Arc::from(name);
    // The service's own operations are few; a damaged line's are not kept.
    if ops.len() < 32 {
        ops.push(Arc::clone(&op));
    }
    op
}

fn line_of(path: &str, entry: &Entry) -> String {
    let blob = entry
        .blob
        .map_or_else(|| "-".to_string(), |b| b.to_string());
    let path = serde_json::to_string(path).unwrap_or_default();
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\n",
        entry.commit, entry.at, entry.op, entry.size, blob, path
    )
}

fn parse_line(line: &[u8]) -> Option<(String, Entry)> {
    let line = std::str::from_utf8(line).ok()?.trim_end_matches('\n');
    let mut fields = line.splitn(6, '\t');
    let commit = Oid::from_str(fields.next()?).ok()?;
    let at = fields.next()?.parse().ok()?;
    let op = op_named(fields.next()?);
    let size = fields.next()?.parse().ok()?;
    let blob = match fields.next()? {
        "-" => None,
        hex => Some(Oid::from_str(hex).ok()?),
    };
    let path: String = serde_json::from_str(fields.next()?).ok()?;
    Some((
        path,
        Entry {
            commit,
            at,
            op,
            size,
            blob,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_other_writers_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let commit = Oid::hash_object(git2::ObjectType::Blob, b"c").unwrap();
        let blob = Oid::hash_object(git2::ObjectType::Blob, b"b").unwrap();
        let entry = Entry {
            commit,
            at: 7,
            op: "put".into(),
            size: 1,
            blob: Some(blob),
        };
        let gone = Entry {
            blob: None,
            size: 0,
            op: "delete".into(),
            ..entry.clone()
        };
        let mut mine = Index::default();
        mine.append(dir.path(), vec![("a\tb.md".into(), entry.clone())])
            .unwrap();
        let mut other = Index::default();
        other.read_new(dir.path()).unwrap();
        other
            .append(dir.path(), vec![("x.md".into(), gone.clone())])
            .unwrap();
        mine.read_new(dir.path()).unwrap();
        assert_eq!(mine.latest("a\tb.md"), Some(&entry));
        assert_eq!(mine.latest("x.md"), Some(&gone));
        assert_eq!(mine.tip, Some(commit));
    }
}
