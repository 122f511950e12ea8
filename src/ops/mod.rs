//! The domain: every operation the CLI and the HTTP server offer, with typed inputs and
//! outputs and no knowledge of terminals or HTTP.

pub mod clock;
pub mod front_matter;
pub mod fsutil;
pub mod locks;
pub mod model;
pub(crate) mod owner;
pub mod path;
pub mod publish;
pub mod root;
pub mod search;
pub mod store;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use model::{DeleteConfirmation, Note, NoteList, NoteMeta, PutOutcome};
pub use path::NotePath;
pub use publish::{
    PageEffect, PublicFile, PublicList, PublicNote, PublicPage, Publication, ToggleResult,
    Visibility,
};

/// Called with the path of every note written or deleted (the search index listens).
pub type ChangeListener = Box<dyn Fn(&NotePath) + Send + Sync>;

/// Where the notes live and where published pages go.
#[derive(Debug, Clone)]
pub struct Config {
    pub notes_dir: PathBuf,
    pub public_dir: PathBuf,
    /// Public origin for absolute links (Atom feed); relative links when `None`.
    pub base_url: Option<String>,
}

/// A notes folder and the operations on it. Shared by every request and command.
pub struct Notebook {
    config: Config,
    note_locks: locks::KeyedLocks,
    cache: store::cache::Caches,
    root: root::RootDir,
    listener: OnceLock<ChangeListener>,
}

impl Notebook {
    pub fn new(config: Config) -> Self {
        Notebook {
            root: root::RootDir::new(config.notes_dir.clone()),
            config,
            note_locks: locks::KeyedLocks::default(),
            cache: store::cache::Caches::default(),
            listener: OnceLock::new(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn notes_dir(&self) -> &Path {
        &self.config.notes_dir
    }

    pub fn public_dir(&self) -> &Path {
        &self.config.public_dir
    }

    /// Registers the one listener told of every write and delete; later calls are ignored.
    pub fn on_change(&self, listener: ChangeListener) {
        let _ = self.listener.set(listener);
    }

    fn changed(&self, path: &NotePath) {
        if let Some(listener) = self.listener.get() {
            listener(path);
        }
    }
}
