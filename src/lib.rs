//! gcscope: see what Go's garbage collector did, from `GODEBUG=gctrace=1` logs.
//!
//! Data flows one way: sources (`trace`, `lab`) -> `event::Event` -> state (`timeline::Timeline`) ->
//! views (`ui` for the dashboard, `report` for the headless commands).

pub mod fmt;
pub mod lab;
pub mod model;
pub mod par;
pub mod report;
pub mod source;
pub mod stats;
pub mod timeline;
pub mod trace;
pub mod ui;
