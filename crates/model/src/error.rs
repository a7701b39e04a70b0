//! Why a source stopped before its end: the one error type sources produce. It travels in
//! `Event::End` to the state (the timeline keeps it) and to the views (the dashboard's header,
//! the headless commands' stderr), so it is here, below all of them, cloneable and comparable.

use crate::units::path as shown;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Each message carries its cause already; there is no `source()` chain to print it twice
/// (`cannot open X: No such file ...: No such file ...`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SourceError {
    #[error("cannot open {}: {error}", shown(path))]
    Open { path: PathBuf, error: IoError },
    #[error("read error on {}: {error}", shown(path))]
    Read { path: PathBuf, error: IoError },
    /// The lab stopped with an error of its own (`gcscope_lab::LabError`, said in words).
    #[error("{0}")]
    Lab(String),
    /// A program could not be started.
    #[error("cannot start {command}: {error}")]
    Start { command: String, error: IoError },
    /// A record could not be written (a full disk): it stops there.
    #[error("writing {} failed: {error}; the record stops there", shown(path))]
    Write { path: PathBuf, error: IoError },
    /// An A/B stopped before its last run (a run failed, the user stopped it): why, in words.
    #[error("{0}")]
    Stopped(String),
}

impl SourceError {
    #[must_use]
    pub fn open(path: &Path, error: std::io::Error) -> SourceError {
        SourceError::Open {
            path: path.to_path_buf(),
            error: error.into(),
        }
    }

    #[must_use]
    pub fn read(path: &Path, error: std::io::Error) -> SourceError {
        SourceError::Read {
            path: path.to_path_buf(),
            error: error.into(),
        }
    }

    #[must_use]
    pub fn write(path: &Path, error: std::io::Error) -> SourceError {
        SourceError::Write {
            path: path.to_path_buf(),
            error: error.into(),
        }
    }

    /// The I/O error underneath, if there is one (a closed pipe, a full disk).
    #[must_use]
    pub fn io(&self) -> Option<&std::io::Error> {
        match self {
            SourceError::Open { error, .. }
            | SourceError::Read { error, .. }
            | SourceError::Start { error, .. }
            | SourceError::Write { error, .. } => Some(&error.0),
            SourceError::Lab(_) | SourceError::Stopped(_) => None,
        }
    }
}

/// An `io::Error` that events can carry: shared, and equal when kind and message are.
#[derive(Debug, Clone)]
pub struct IoError(pub Arc<std::io::Error>);

impl From<std::io::Error> for IoError {
    fn from(e: std::io::Error) -> IoError {
        IoError(Arc::new(e))
    }
}

impl PartialEq for IoError {
    fn eq(&self, other: &IoError) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl std::fmt::Display for IoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_path_escaped_and_the_cause_once() {
        let e = SourceError::open(
            Path::new("a\u{1b}b.log"),
            std::io::Error::from(std::io::ErrorKind::NotFound),
        );
        assert_eq!(e.to_string(), "cannot open a\\u{1b}b.log: entity not found");
        assert!(std::error::Error::source(&e).is_none());
        assert_eq!(
            e.io().map(std::io::Error::kind),
            Some(std::io::ErrorKind::NotFound)
        );
        assert_eq!(e.clone(), e);
        assert_ne!(
            e,
            SourceError::open(Path::new("a\u{1b}b.log"), std::io::Error::other("x"))
        );
    }
}
