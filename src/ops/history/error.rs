//! The history store's one error type: what the store was doing, and the failure under
//! it (kept as the error's source).

/// A failure of the history store.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HistoryError {
    #[error("{what}: {source}")]
    Git {
        what: &'static str,
        #[source]
        source: git2::Error,
    },
    #[error("{what}: {source}")]
    Io {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// A change the committer thread could not commit (its own error, told as text:
    /// the thread keeps running and the next batch tries again).
    #[error("cannot commit the history: {0}")]
    Committer(String),
}

/// A result of the history store.
pub(crate) type HResult<T> = Result<T, HistoryError>;

pub(super) fn err(what: &'static str) -> impl Fn(git2::Error) -> HistoryError {
    move |source| HistoryError::Git { what, source }
}

pub(super) fn io_err(what: &'static str) -> impl Fn(std::io::Error) -> HistoryError {
    move |source| HistoryError::Io { what, source }
}
