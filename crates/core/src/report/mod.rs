//! Headless views: `summary` and `compare` as text tables (`text`), JSON (`json`), CSV (`csv`)
//! and Go benchmark lines (`bench`). Each is a pure function of the sources' timelines and the
//! one statistics engine in `stats`.

mod ab;
mod bench;
mod csv;
mod json;
mod markdown;
mod text;
mod tune;

pub use ab::{ab_json, ab_markdown, ab_text, p_time_over_cpu, AbJson};
pub use bench::compare_bench;
pub use csv::CsvRows;
pub use json::{compare_json, summary_json, CompareJson, SummaryJson};
pub use markdown::summary_markdown;
pub use text::{compare_markdown, compare_text, run_text, summary_text, write_summary_text};
pub use tune::{tune_change, tune_text, verify_text, worth_trying, worth_trying_predictions};

use crate::stats::summary::RunSummary;
use crate::timeline::Timeline;

/// A timeline with the name it was read from.
pub struct Source {
    pub name: String,
    pub timeline: Timeline,
}

impl Source {
    /// The runs it compares as: each run of a trace; for programs gcscope ran, each that
    /// ended well (`Timeline::program_samples`).
    #[must_use]
    pub fn summaries(&self) -> Vec<RunSummary> {
        if self.timeline.programs.is_empty() {
            let mut runs = crate::timeline::summarize(&self.timeline.runs);
            if let Some(load) = self.timeline.recorded_other_cpus {
                for r in &mut runs {
                    r.other_cpus.get_or_insert(load);
                }
            }
            runs
        } else {
            self.timeline.program_samples()
        }
    }
}

#[must_use]
pub fn all_runs(sources: &[Source]) -> Vec<RunSummary> {
    sources.iter().flat_map(|s| s.summaries()).collect()
}
