//! The domain: every operation the CLI and the HTTP server offer, with typed inputs and
//! outputs and no knowledge of terminals or HTTP.

pub(crate) mod batch;
pub(crate) mod check;
pub(crate) mod clock;
pub(crate) mod conflicts;
pub(crate) mod files;
pub mod front_matter;
pub(crate) mod fsutil;
pub(crate) mod history;
pub(crate) mod ids;
pub(crate) mod links;
pub(crate) mod locks;
pub(crate) mod merge;
pub(crate) mod model;
pub(crate) mod moves;
pub(crate) mod owner;
pub(crate) mod path;
pub(crate) mod publish;
pub(crate) mod root;
pub mod search;
pub(crate) mod sections;
pub mod store;
pub(crate) mod sync;
pub(crate) mod tags;
pub mod tokens;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub(crate) use model::{Note, NoteMeta};
pub use path::{FilePath, NotePath};
pub(crate) use publish::{PageEffect, PublicList, Publication};

/// What was written or deleted: a note, or an attachment.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Changed<'a> {
    Note(&'a NotePath),
    File(&'a FilePath),
}

/// Called with every note and attachment written or deleted (the search index listens).
pub(crate) type ChangeListener = Box<dyn Fn(Changed<'_>) + Send + Sync>;

/// Where the notes live and where published pages go.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) notes_dir: PathBuf,
    pub(crate) public_dir: PathBuf,
    /// Public origin for absolute links (Atom feed); relative links when `None`.
    pub(crate) base_url: Option<String>,
}

/// A notes folder, its search index and the operations on them. Shared by every
/// request and command.
pub struct Notebook {
    config: Config,
    note_locks: locks::KeyedLocks,
    cache: store::cache::Caches,
    /// Small attachments recently read (`files::cache`).
    files: files::cache::FileCache,
    root: root::RootDir,
    /// The public dir, for the files publishing writes beneath it (its media).
    public_root: root::RootDir,
    listener: OnceLock<ChangeListener>,
    history: history::Slot,
    /// The search index: the server's, or one caught up on each use (`search::source`).
    index: search::source::IndexSlot,
    /// Toggles waiting to be written together (`publish/toggles.rs`).
    toggles: publish::Toggles,
}

impl Notebook {
    pub(crate) fn new(config: Config) -> Self {
        Notebook {
            root: root::RootDir::new(config.notes_dir.clone()),
            public_root: root::RootDir::new(config.public_dir.clone()),
            config,
            note_locks: locks::KeyedLocks::default(),
            cache: store::cache::Caches::default(),
            files: files::cache::FileCache::default(),
            listener: OnceLock::new(),
            history: history::Slot::default(),
            index: search::source::IndexSlot::default(),
            toggles: publish::Toggles::default(),
        }
    }

    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    pub(crate) fn notes_dir(&self) -> &Path {
        &self.config.notes_dir
    }

    pub(crate) fn public_dir(&self) -> &Path {
        &self.config.public_dir
    }

    /// Registers the one listener told of every write and delete; later calls are ignored.
    pub(crate) fn on_change(&self, listener: ChangeListener) {
        let _ = self.listener.set(listener);
    }

    fn changed(&self, path: &NotePath) {
        if let Some(listener) = self.listener.get() {
            listener(Changed::Note(path));
        }
    }

    fn file_changed(&self, path: &FilePath) {
        if let Some(listener) = self.listener.get() {
            listener(Changed::File(path));
        }
    }
}

/// A notebook over an empty notes folder in a temp dir (public dir beside it), for the
/// unit tests of the operations; the dir goes when the first value is dropped.
#[cfg(test)]
pub(crate) fn temp_notebook() -> (tempfile::TempDir, Notebook) {
    let root = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(root.path().join("notes")).expect("notes dir");
    let notebook = Notebook::new(Config {
        notes_dir: root.path().join("notes"),
        public_dir: root.path().join("public"),
        base_url: None,
    });
    (root, notebook)
}
