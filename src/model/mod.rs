//! The bottom layer: the `Cycle` record and the vocabulary sources and state share (`Event`,
//! `NoteKind`, `ScanLine`). It depends on nothing else in the crate; everything points down to it.

pub mod cycle;
pub mod event;
pub mod settings;

pub use cycle::*;
pub use event::{Event, ExitStatus, NoteKind, ProgramExit, ProgramStart, ScanLine, Stopped};
