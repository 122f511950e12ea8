//! The watch of the notes folder: which changed paths reach the indexer's queue.

use super::*;

/// Watches the notes folder; notes and attachments changed by anyone else reach the
/// queue. The service's own hidden files (the index, temp files, the public record) are
/// ignored.
pub(super) fn watch(
    notes_dir: &Path,
    queue: Sender<Message>,
) -> notify::Result<notify::RecommendedWatcher> {
    let root = notes_dir
        .canonicalize()
        .unwrap_or_else(|_| notes_dir.to_path_buf());
    let queue = std::sync::Mutex::new(queue);
    let events_root = root.clone();
    let handler = move |event: notify::Result<notify::Event>| {
        let messages = match event {
            Ok(event) => messages_of(&events_root, &event),
            Err(_) => vec![Message::CatchUp],
        };
        let queue = queue.lock().unwrap_or_else(PoisonError::into_inner);
        for message in messages {
            let _ = queue.send(message);
        }
    };
    // Changes only: a watch that also asks for opens and closes makes every read of a
    // note wake the watcher thread.
    let config = notify::Config::default().with_event_kinds(notify::EventKindMask::CORE);
    let mut watcher = notify::RecommendedWatcher::new(handler, config)?;
    watcher.watch(&root, RecursiveMode::Recursive)?;
    Ok(watcher)
}

fn messages_of(root: &Path, event: &notify::Event) -> Vec<Message> {
    if matches!(event.kind, EventKind::Access(_)) {
        return Vec::new();
    }
    if event.need_rescan() {
        return vec![Message::CatchUp];
    }
    let mut out = Vec::new();
    for path in &event.paths {
        match classify(root, path) {
            Seen::Note(note) => out.push(Message::Changed(note)),
            Seen::File(file) => out.push(Message::FileChanged(file)),
            Seen::Under(folder) => out.push(Message::Under(folder)),
            Seen::Other => out.push(Message::CatchUp),
            Seen::Ignored => {}
        }
    }
    out
}

pub(super) enum Seen {
    Note(NotePath),
    /// An attachment (written or deleted: its document follows the file).
    File(FilePath),
    /// A folder, or a name gone (a folder or an attachment): compare what is under
    /// it, or is it.
    Under(String),
    /// Anything else that may hold notes: compare everything.
    Other,
    Ignored,
}

pub(super) fn classify(root: &Path, path: &Path) -> Seen {
    let Ok(rel) = path.strip_prefix(root) else {
        return Seen::Other;
    };
    // A name that is not UTF-8 is no path the API knows: compare everything.
    let Some(parts) = rel
        .components()
        .map(|c| c.as_os_str().to_str().map(str::to_string))
        .collect::<Option<Vec<String>>>()
    else {
        return Seen::Other;
    };
    // Hidden files and folders (the index under `.notes`, `.tmp-*` writes, the
    // public record) are never notes.
    if parts.is_empty() || parts.iter().any(|p| p.starts_with('.')) || parts[0] == INTERNAL_DIR {
        return Seen::Ignored;
    }
    let rel = parts.join("/");
    if rel.ends_with(".md") {
        return match NotePath::parse(&rel) {
            Ok(note) => Seen::Note(note),
            Err(_) => Seen::Ignored,
        };
    }
    if path.is_file() {
        // Not a note: an attachment (an image, a PDF), whose name is searchable.
        return match FilePath::parse(&rel) {
            Ok(file) => Seen::File(file),
            Err(_) => Seen::Ignored,
        };
    }
    Seen::Under(rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_files_are_ignored() {
        let root = Path::new("/n");
        assert!(matches!(
            classify(root, Path::new("/n/a/b.md")),
            Seen::Note(_)
        ));
        assert!(matches!(
            classify(root, Path::new("/n/.notes/index/meta.json")),
            Seen::Ignored
        ));
        assert!(matches!(
            classify(root, Path::new("/n/a/.tmp-x1")),
            Seen::Ignored
        ));
        assert!(matches!(
            classify(root, Path::new("/n/.public.json")),
            Seen::Ignored
        ));
        assert!(matches!(
            classify(root, Path::new("/n/gone-folder")),
            Seen::Under(folder) if folder == "gone-folder"
        ));
        assert!(matches!(
            classify(Path::new("/n"), Path::new("/elsewhere/a")),
            Seen::Other
        ));
    }
}
