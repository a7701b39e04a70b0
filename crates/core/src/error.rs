//! The one error type of this crate: what a headless report can fail on while writing.

/// A report could not be written. Bad input never is one: a line that cannot be read becomes
/// a problem in the timeline, and the rest is still read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The output went away (a closed pipe, a full disk): the kind says which, and a closed
    /// pipe ends the command quietly.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The CSV writer refused a row (never expected: every field is a number or escaped text).
    #[error("writing CSV: {0}")]
    Csv(String),
}

impl Error {
    /// The I/O error underneath, if that is what it is.
    #[must_use]
    pub fn io(&self) -> Option<&std::io::Error> {
        match self {
            Error::Io(e) => Some(e),
            Error::Csv(_) => None,
        }
    }
}

/// An I/O error inside a csv error comes out as itself (a closed pipe must be seen as one).
impl From<csv::Error> for Error {
    fn from(e: csv::Error) -> Error {
        match e.into_kind() {
            csv::ErrorKind::Io(io) => Error::Io(io),
            other => Error::Csv(format!("{other:?}")),
        }
    }
}
