//! The one domain error type: every failure of `ops` is a variant carrying its spec'd
//! message, its HTTP status and its CLI exit code.

use std::path::PathBuf;

/// A failure of a domain operation. The `Display` text is the message the spec
/// prescribes for it, so HTTP and CLI show exactly the same words.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Invalid path")]
    InvalidPath,
    #[error("Only .md files are supported")]
    NotMarkdown,
    #[error("Method not allowed")]
    MethodNotAllowed,
    #[error("Method not allowed. Supported: GET, PUT, DELETE")]
    NoteMethodNotAllowed,
    #[error("Failed to list notes")]
    ListFailed(#[source] std::io::Error),
    #[error("Note not found")]
    NotFound,
    #[error("Failed to access note")]
    AccessFailed(#[source] std::io::Error),
    #[error("Failed to read note")]
    ReadFailed(#[source] std::io::Error),
    #[error("Invalid JSON: {0}")]
    InvalidJson(String),
    #[error("Failed to read body")]
    BodyUnreadable,
    #[error("Unsupported Content-Type. Use application/json or text/markdown")]
    UnsupportedContentType,
    #[error("Failed to create parent directory")]
    CreateDirFailed(#[source] std::io::Error),
    #[error("Failed to write note")]
    WriteFailed(#[source] std::io::Error),
    #[error("Failed to generate front matter")]
    FrontMatterFailed(String),
    #[error("Failed to delete note")]
    DeleteFailed(#[source] std::io::Error),
    #[error("Path is required")]
    PathRequired,
    #[error("Failed to generate HTML")]
    PublishFailed(String),
    #[error("Failed to read the public record {}: {reason}", path.display())]
    PublicRecordUnreadable { path: PathBuf, reason: String },
    #[error("Note is not public: {0}")]
    NotPublic(String),
    #[error("Notes directory does not exist: {}", .0.display())]
    NotesDirMissing(PathBuf),
    #[error("Request body is larger than the limit of {0} bytes")]
    PayloadTooLarge(u64),
    #[error("The note has changed since it was read (If-Match does not match)")]
    PreconditionFailed,
    #[error("The note already exists (If-None-Match: *)")]
    AlreadyExists,
    #[error("Invalid search query: {0}")]
    InvalidQuery(String),
    #[error("Invalid limit: {0:?} (use a whole number from 1 to 100)")]
    InvalidLimit(String),
    #[error("Search index failure: {0}")]
    Index(String),
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
    #[error("Not found")]
    RouteNotFound,
    /// A task of the blocking pool panicked or was cancelled.
    #[error("Internal error: {0}")]
    WorkerFailed(String),
    #[error("The request body stalled")]
    RequestTimeout,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The HTTP status of this failure, as the spec assigns it.
    pub fn http_status(&self) -> u16 {
        use Error::*;
        match self {
            InvalidPath
            | NotMarkdown
            | InvalidJson(_)
            | BodyUnreadable
            | PathRequired
            | InvalidQuery(_)
            | InvalidLimit(_)
            | FrontMatterTooLarge(_)
            | FrontMatterTooDeep(_)
            | FrontMatterAliases(_) => 400,
            NotFound | NotesDirMissing(_) | RouteNotFound => 404,
            MethodNotAllowed | NoteMethodNotAllowed => 405,
            NotPublic(_) => 409,
            PreconditionFailed | AlreadyExists => 412,
            RequestTimeout => 408,
            PayloadTooLarge(_) => 413,
            UnsupportedContentType => 415,
            IndexRebuilding => 503,
            ListFailed(_)
            | AccessFailed(_)
            | ReadFailed(_)
            | CreateDirFailed(_)
            | WriteFailed(_)
            | FrontMatterFailed(_)
            | DeleteFailed(_)
            | PublishFailed(_)
            | PublicRecordUnreadable { .. }
            | Index(_)
            | IndexOwned
            | IndexBroken(_)
            | WorkerFailed(_) => 500,
        }
    }

    /// The message with its underlying cause, for logs and the CLI (the HTTP body shows
    /// only the spec'd message).
    pub fn detailed(&self) -> String {
        let mut out = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            out.push_str(": ");
            out.push_str(&cause.to_string());
            source = cause.source();
        }
        match self {
            Error::FrontMatterFailed(why) | Error::PublishFailed(why) => {
                out.push_str(": ");
                out.push_str(why);
            }
            _ => {}
        }
        out
    }
}
