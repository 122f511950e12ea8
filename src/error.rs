//! The one domain error type: every failure of `ops` is a variant carrying its spec'd
//! message. The HTTP layer maps it to a status (`http::support::reject`), the CLI to an
//! exit code (`exit_code`); failures of the HTTP exchange itself (methods, routes,
//! bodies) are not domain errors and live in `http::support::reject::HttpError`.

use std::path::PathBuf;

/// A failure of a domain operation. The `Display` text is the message the spec
/// prescribes for it, so HTTP and CLI show exactly the same words.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Invalid path")]
    InvalidPath,
    #[error("Only .md files are supported")]
    NotMarkdown,
    #[error("Failed to list notes")]
    ListFailed(#[source] std::io::Error),
    #[error("Note not found")]
    NotFound,
    #[error("Failed to access note")]
    AccessFailed(#[source] std::io::Error),
    #[error("Failed to read note")]
    ReadFailed(#[source] std::io::Error),
    #[error("Failed to create parent directory")]
    CreateDirFailed(#[source] std::io::Error),
    #[error("Failed to write note")]
    WriteFailed(#[source] std::io::Error),
    #[error("Failed to generate front matter")]
    FrontMatterFailed(String),
    #[error("Failed to delete note")]
    DeleteFailed(#[source] std::io::Error),
    #[error("Failed to generate HTML")]
    PublishFailed(#[source] Cause),
    #[error("Failed to read the public record {}: {reason}", path.display())]
    PublicRecordUnreadable { path: PathBuf, reason: String },
    #[error("Note is not public: {0}")]
    NotPublic(String),
    #[error("Notes directory does not exist: {}", .0.display())]
    NotesDirMissing(PathBuf),
    #[error("The note has changed since it was read (If-Match does not match)")]
    PreconditionFailed,
    #[error("The note already exists (If-None-Match: *)")]
    AlreadyExists,
    #[error("Invalid search query: {0}")]
    InvalidQuery(String),
    #[error("Invalid limit: {0:?} (use a whole number from 1 to 100)")]
    InvalidLimit(String),
    /// The `limit` of a page of the list (`GET /api/v1/pages/notes?limit=N`).
    #[error("Invalid limit: {0:?} (use a whole number from 1 to 1000)")]
    InvalidPageLimit(String),
    #[error("Search index failure: {0}")]
    Index(#[source] Cause),
    /// Another process (a running `notes serve`) holds the index's writer and keeps the
    /// index up to date: a command reads it as it is, or stops.
    #[error(
        "Search index failure: the index is being updated by another process (a running \
         `notes serve` keeps it up to date)"
    )]
    IndexOwned,
    /// The index could not be opened or read (corrupt or missing files): it is moved aside
    /// and rebuilt, never retried as it is.
    #[error("The search index is unreadable: {0}")]
    IndexBroken(String),
    #[error("Search is unavailable for a moment: the index is being rebuilt from the notes")]
    IndexRebuilding,
    #[error("Front matter is larger than {0} bytes")]
    FrontMatterTooLarge(usize),
    #[error("Front matter is nested deeper than {0} levels")]
    FrontMatterTooDeep(usize),
    #[error("Front matter aliases expand to more than {0} values")]
    FrontMatterAliases(usize),
    #[error("A note cannot be moved onto itself")]
    MoveOntoItself,
    #[error("A note already exists at the destination: {0}")]
    MoveDestinationExists(String),
    #[error("A file is in the way of the destination's folder: {0}")]
    MoveFolderTaken(String),
    #[error("Failed to move note")]
    MoveFailed(#[source] std::io::Error),
    #[error("This path is a note (.md): use the notes routes")]
    FileIsNote,
    #[error("File not found")]
    FileNotFound,
    #[error("The file has changed since it was read (If-Match does not match)")]
    FileChanged,
    #[error("The file already exists (If-None-Match: *)")]
    FileExists,
    #[error("Failed to read file")]
    FileReadFailed(#[source] std::io::Error),
    #[error("Failed to write file")]
    FileWriteFailed(#[source] std::io::Error),
    #[error("Failed to delete file")]
    FileDeleteFailed(#[source] std::io::Error),
    /// The history store could not record a change (so the change was not made), or
    /// could not be read.
    #[error("Failed to record the note's history")]
    HistoryFailed(#[source] Cause),
    #[error("Version not found")]
    VersionNotFound,
    /// A restore of a note that was moved and is there at its new path: restoring it
    /// at its old one would make a second copy.
    #[error("The note was moved and is now at {0}: restore it there")]
    NoteMovedTo(String),
    /// A section edit whose heading path names no section; `candidates` are the
    /// note's heading paths.
    #[error("Heading not found: {}", heading_path(heading))]
    HeadingNotFound {
        heading: Vec<String>,
        candidates: Vec<Vec<String>>,
    },
    /// A section edit whose heading path names more than one section.
    #[error(
        "Heading is ambiguous: more than one section is {}",
        heading_path(heading)
    )]
    HeadingAmbiguous {
        heading: Vec<String>,
        candidates: Vec<Vec<String>>,
    },
    #[error("Invalid section edit: {0}")]
    InvalidSectionEdit(String),
    #[error("The note's front matter does not parse: replace the note to fix it")]
    FrontMatterUnreadable,
    #[error("The tokens file is unreadable: {0}")]
    TokensUnreadable(String),
    #[error("Failed to write the tokens file")]
    TokensWriteFailed(#[source] std::io::Error),
    #[error("A token named {0:?} exists already")]
    TokenExists(String),
    #[error("No token named {0:?}")]
    TokenNotFound(String),
    #[error(
        "Invalid token name {0:?}: use 1 to 64 letters, digits, '-', '_', '.' or '@', \
         not starting with '-'"
    )]
    InvalidTokenName(String),
    /// A caller limited to a folder named a path outside it, or one that resolves
    /// (through a symlink) outside it.
    #[error("This token is limited to a folder, and this path is outside it")]
    OutsideScope,
    /// A move by a caller limited to a folder would rewrite notes outside it; which
    /// ones is not said (the caller may not read them).
    #[error(
        "This token is limited to a folder, and this move would rewrite links in notes \
         outside it: nothing was moved"
    )]
    MoveOutsideScope,
    /// `notes sync` with no remote set yet.
    #[error("No sync remote is set: run `notes sync --remote URL` once")]
    SyncNoRemote,
    /// A remote URL that cannot be one.
    #[error("Invalid sync remote: {0:?}")]
    SyncInvalidRemote(String),
    /// Sync works on the history store, which is turned off.
    #[error("Sync needs the history, which is turned off (--history off)")]
    SyncNeedsHistory,
    /// The remote could not be reached, refused the credentials or the push (the text
    /// names the remote with its credentials stripped).
    #[error("Sync failed: {0}")]
    SyncFailed(String),
}

/// A heading path as the messages show it: `["Top", "Sub"]`.
fn heading_path(path: &[String]) -> String {
    serde_json::to_string(path).unwrap_or_default()
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What stopped an operation below a domain failure: what was being done, and the
/// error that stopped it, kept as the failure's source (shown by `detailed`).
#[derive(Debug)]
pub struct Cause {
    what: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl Cause {
    /// `what` was being done when `source` stopped it.
    pub fn new(
        what: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Cause {
            what: what.into(),
            source: Some(Box::new(source)),
        }
    }

    /// `source` stopped it, and says all there is to say.
    pub fn of(source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Cause::new("", source)
    }
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.source {
            Some(source) if self.what.is_empty() => write!(f, "{source}"),
            Some(source) => write!(f, "{}: {source}", self.what),
            None => f.write_str(&self.what),
        }
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<String> for Cause {
    fn from(what: String) -> Self {
        Cause { what, source: None }
    }
}

impl From<&str> for Cause {
    fn from(what: &str) -> Self {
        Cause::from(what.to_string())
    }
}

impl Error {
    /// The process exit code of a command that ends with this failure: 1 for every
    /// domain failure (0 success, 1 failure, 2 a usage error, which is clap's; the README says so per command).
    pub fn exit_code(&self) -> u8 {
        1
    }

    /// The message with its underlying cause, for logs and the CLI (the HTTP body shows
    /// only the spec'd message).
    pub(crate) fn detailed(&self) -> String {
        let mut out = self.to_string();
        if let Error::FrontMatterFailed(why) = self {
            out.push_str(": ");
            out.push_str(why);
        }
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            // A cause the text already ends with (a `Cause` in the message) is not repeated.
            let text = cause.to_string();
            if !out.ends_with(&text) {
                out.push_str(": ");
                out.push_str(&text);
            }
            source = cause.source();
        }
        out
    }
}
