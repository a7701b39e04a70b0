//! The bottom layer: the `Cycle` record and the vocabulary sources and state share (`Event`,
//! `NoteKind`, `ScanLine`), a lab run's settings, and the units every layer prints the same way
//! (`units`). It depends on no crate of the workspace; everything points down to it.

#![forbid(unsafe_code)]

pub mod cycle;
pub mod error;
pub mod event;
pub mod ids;
pub mod named;
pub mod settings;
pub mod store;
pub mod units;

pub use cycle::*;
pub use error::{IoError, SourceError};
pub use event::{Event, ExitStatus, NoteKind, ProgramExit, ProgramStart, ScanLine, Stopped};
pub use ids::{CycleIndex, RunId, SourceId};
pub use store::{CycleSlice, CycleStore};
