//! Headless views: `summary` and `compare` as text tables (`text`), JSON (`json`), CSV (`csv`)
//! and Go benchmark lines (`bench`). Each is a pure function of the sources' timelines and the
//! one statistics engine in `stats`.

mod bench;
mod csv;
mod json;
mod text;

pub use bench::compare_bench;
pub use csv::CsvRows;
pub use json::{compare_json, summary_json, CompareJson, SummaryJson};
pub use text::{compare_text, run_text, summary_text, write_summary_text};

use crate::stats::summary::RunSummary;
use crate::timeline::Timeline;

/// A timeline with the name it was read from.
pub struct Source {
    pub name: String,
    pub timeline: Timeline,
}

impl Source {
    pub fn summaries(&self) -> Vec<RunSummary> {
        crate::timeline::summarize(&self.timeline.runs)
    }
}

pub fn all_runs(sources: &[Source]) -> Vec<RunSummary> {
    sources.iter().flat_map(|s| s.summaries()).collect()
}
