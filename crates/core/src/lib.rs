//! gctrace text <-> model, the one statistics engine, the timeline events build, and the
//! headless reports. Above the model, below the sources: no file, process, terminal or thread
//! of its own beyond splitting work over the cores (`par`).
//!
//! Data flows one way: sources (`gcscope-source`) -> `gcscope_model::Event` -> state
//! (`timeline::Timeline`) -> views (`report` here, the dashboard in `gcscope-tui`).

#![forbid(unsafe_code)]

pub mod error;
pub mod fmt;
pub mod par;
pub mod read;
pub mod report;
pub mod stats;
pub mod timeline;
pub mod trace;

pub use error::Error;
