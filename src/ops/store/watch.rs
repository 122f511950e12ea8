//! What keeps the list valid without a walk per request: an inotify watch on every
//! folder the list walks, read without blocking at the start of each list. The kernel
//! queues an event before the write that caused it returns, so a change made before a
//! request (by the service, an editor, `git pull`) is seen by that request.
//!
//! The events name the notes to read again; anything they cannot name (a folder
//! created, moved or removed, a watched folder gone, the root replaced, events lost to
//! an overflow of the kernel's queue, more events than `max_events` at once) asks for
//! a full re-scan, which also sets the watches anew.

use std::collections::{BTreeSet, HashMap};
use std::io;
use std::path::Path;

use inotify::{EventMask, Inotify, WatchMask};

/// Past this many events between two lists, a re-scan is cheaper than reading each
/// note they name (and the kernel's own queue may have overflowed meanwhile anyway).
const MAX_EVENTS: usize = 4096;

/// Lowers `MAX_EVENTS`, so a test can make the watch overflow with a few changes and
/// check that the re-scan shows them all.
pub(crate) const MAX_EVENTS_VAR: &str = "NOTES_TEST_WATCH_QUEUE";

/// What changed since the last drain.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Drained {
    /// Only these notes may have changed (paths relative to the root, maybe invalid
    /// or no longer there).
    Notes(BTreeSet<String>),
    /// Anything may have changed: re-scan.
    Everything,
    /// Events were lost (the kernel's queue overflowed) or were too many to follow one
    /// by one: re-scan.
    Lost,
}

/// The watches of one scan of the tree.
pub(crate) struct TreeWatch {
    inotify: Inotify,
    /// The folder of each watch, relative to the root (`""` for the root).
    dirs: HashMap<i32, String>,
    /// The root folder watched (device, inode), to notice it replaced.
    root: (u64, u64),
    max_events: usize,
    buffer: Vec<u8>,
    /// Whether an attachment was added, removed or renamed since `take_files_changed`.
    files_changed: bool,
}

/// The events that change what a folder lists.
fn mask() -> WatchMask {
    WatchMask::MODIFY
        | WatchMask::ATTRIB
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
}

impl TreeWatch {
    /// A new watch of `root` (the folder itself; its sub-folders are added by the scan
    /// with `add`).
    pub(crate) fn new(root: &Path) -> io::Result<TreeWatch> {
        use std::os::unix::fs::MetadataExt;
        let inotify = Inotify::init()?;
        let meta = std::fs::metadata(root)?;
        let max_events = crate::test_hooks::var(MAX_EVENTS_VAR)
            .and_then(|v| v.parse().ok())
            .unwrap_or(MAX_EVENTS);
        let mut watch = TreeWatch {
            inotify,
            dirs: HashMap::new(),
            root: (meta.dev(), meta.ino()),
            max_events,
            buffer: vec![0; 64 << 10],
            files_changed: false,
        };
        watch.add(root, "")?;
        Ok(watch)
    }

    /// Watches the folder `full`, at `rel` under the root. Fails when the kernel's
    /// limit of watches is reached: the list then walks the tree on every request.
    pub(crate) fn add(&mut self, full: &Path, rel: &str) -> io::Result<()> {
        let wd = self.inotify.watches().add(full, mask())?;
        self.dirs
            .insert(wd.get_watch_descriptor_id(), rel.to_string());
        Ok(())
    }

    /// Every event queued since the last drain, without waiting for more.
    pub(crate) fn drain(&mut self, root: &Path) -> Drained {
        if !self.same_root(root) {
            return Drained::Everything;
        }
        let mut notes = BTreeSet::new();
        let mut count = 0usize;
        loop {
            let events = match self.inotify.read_events(&mut self.buffer) {
                Ok(events) => events,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                // A watch that cannot be read any more could have lost anything.
                Err(_) => return Drained::Everything,
            };
            for event in events {
                count += 1;
                if count > self.max_events || event.mask.contains(EventMask::Q_OVERFLOW) {
                    return Drained::Lost;
                }
                let Some(dir) = self.dirs.get(&event.wd.get_watch_descriptor_id()) else {
                    continue;
                };
                match changed_note(dir, event.mask, event.name) {
                    Change::None => {}
                    Change::Note(path) => {
                        notes.insert(path);
                    }
                    Change::File => self.files_changed = true,
                    Change::Everything => return Drained::Everything,
                }
            }
        }
        Drained::Notes(notes)
    }

    /// Whether an attachment was added, removed or renamed since the last call (the
    /// events drained so far tell).
    pub(crate) fn take_files_changed(&mut self) -> bool {
        std::mem::take(&mut self.files_changed)
    }

    /// Whether `root` is still the folder watched.
    fn same_root(&self, root: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(root).is_ok_and(|m| (m.dev(), m.ino()) == self.root)
    }
}

enum Change {
    None,
    Note(String),
    /// An attachment came, went or was renamed: the listing of files is made again.
    File,
    Everything,
}

/// What one event on the folder `dir` says about the list.
fn changed_note(dir: &str, mask: EventMask, name: Option<&std::ffi::OsStr>) -> Change {
    if mask.intersects(
        EventMask::Q_OVERFLOW
            | EventMask::IGNORED
            | EventMask::DELETE_SELF
            | EventMask::MOVE_SELF
            | EventMask::UNMOUNT,
    ) {
        return Change::Everything;
    }
    let Some(name) = name.and_then(|n| n.to_str()) else {
        // A name that is not UTF-8 is never a listed note; a folder event without a
        // name (its own attributes) changes nothing listed.
        return Change::None;
    };
    // Hidden names are never listed, nor is anything beneath them.
    if name.starts_with('.') {
        return Change::None;
    }
    if mask.contains(EventMask::ISDIR) {
        // A folder appeared, went or moved: the notes beneath it are not named.
        return if mask.intersects(
            EventMask::CREATE | EventMask::DELETE | EventMask::MOVED_FROM | EventMask::MOVED_TO,
        ) {
            Change::Everything
        } else {
            Change::None
        };
    }
    if !name.ends_with(".md") {
        let listed =
            EventMask::CREATE | EventMask::DELETE | EventMask::MOVED_FROM | EventMask::MOVED_TO;
        return if mask.intersects(listed) {
            Change::File
        } else {
            Change::None
        };
    }
    Change::Note(if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drained(notes: &[&str]) -> Drained {
        Drained::Notes(notes.iter().map(|n| n.to_string()).collect())
    }

    #[test]
    fn events_name_the_notes_they_change() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::create_dir(dir.path().join(".hidden")).unwrap();
        let mut watch = TreeWatch::new(dir.path()).unwrap();
        watch.add(&dir.path().join("sub"), "sub").unwrap();
        assert_eq!(watch.drain(dir.path()), drained(&[]));
        std::fs::write(dir.path().join("a.md"), "a").unwrap();
        std::fs::write(dir.path().join("sub/b.md"), "b").unwrap();
        std::fs::write(dir.path().join("sub/.tmp-1"), "x").unwrap();
        std::fs::write(dir.path().join("picture.png"), "x").unwrap();
        std::fs::rename(dir.path().join("sub/.tmp-1"), dir.path().join("sub/c.md")).unwrap();
        // Seen at once: the kernel queued them before the writes returned.
        assert_eq!(
            watch.drain(dir.path()),
            drained(&["a.md", "sub/b.md", "sub/c.md"])
        );
        // The picture came: the attachments are listed again, once.
        assert!(watch.take_files_changed());
        assert!(!watch.take_files_changed());
        assert_eq!(watch.drain(dir.path()), drained(&[]));
        std::fs::remove_file(dir.path().join("sub/b.md")).unwrap();
        std::fs::write(dir.path().join("picture.png"), "changed").unwrap();
        assert_eq!(watch.drain(dir.path()), drained(&["sub/b.md"]));
        assert!(!watch.take_files_changed(), "new bytes keep the names");
        std::fs::rename(dir.path().join("picture.png"), dir.path().join("sub/p.png")).unwrap();
        assert_eq!(watch.drain(dir.path()), drained(&[]));
        assert!(watch.take_files_changed());
    }

    #[test]
    fn folder_changes_and_a_replaced_root_ask_for_a_rescan() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("notes");
        std::fs::create_dir(&root).unwrap();
        let mut watch = TreeWatch::new(&root).unwrap();
        std::fs::create_dir(root.join("new")).unwrap();
        assert_eq!(watch.drain(&root), Drained::Everything);
        let mut watch = TreeWatch::new(&root).unwrap();
        assert_eq!(watch.drain(&root), drained(&[]));
        std::fs::rename(&root, dir.path().join("aside")).unwrap();
        std::fs::create_dir(&root).unwrap();
        assert_eq!(watch.drain(&root), Drained::Everything);
    }

    #[test]
    fn more_events_than_the_bound_ask_for_a_rescan() {
        let dir = tempfile::tempdir().unwrap();
        let mut watch = TreeWatch::new(dir.path()).unwrap();
        watch.max_events = 3;
        for n in 0..5 {
            std::fs::write(dir.path().join(format!("n{n}.md")), "x").unwrap();
        }
        assert_eq!(watch.drain(dir.path()), Drained::Lost);
    }
}
