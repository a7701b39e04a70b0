//! The one error type of the dashboard.

use gcscope_model::SourceError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "the dashboard needs a terminal, and standard output is not one; for a report use `gcscope summary FILE` (or --json, --csv), for the lab `gcscope lab --headless`"
    )]
    NotATerminal,
    /// The terminal or its input failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Drawing failed (the backend's own error, in words).
    #[error("drawing the dashboard failed: {0}")]
    Draw(String),
    /// A signal ended it: the terminal was restored, the caller exits with 128 + it.
    #[error(transparent)]
    Interrupted(#[from] gcscope_source::Interrupted),
    /// Every source failed before a cycle was read: the dashboard showed why, and so does the
    /// exit status.
    #[error("nothing could be read: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    NothingRead(Vec<SourceError>),
}

impl Error {
    /// The signal that ended the dashboard, if one did.
    #[must_use]
    pub fn signal(&self) -> Option<i32> {
        match self {
            Error::Interrupted(i) => Some(i.0),
            _ => None,
        }
    }
}
