//! Headless views: `summary` and `compare` as text tables (`text`), JSON (`json`), CSV (`csv`)
//! and Go benchmark lines (`bench`). Each is a pure function of the sources' timelines and the
//! one statistics engine in `stats`.

mod ab;
mod bench;
mod csv;
mod json;
mod markdown;
mod spool;
mod text;
mod tune;

pub use ab::{ab_json, ab_markdown, ab_text, p_time_over_cpu, AbJson};
pub use bench::compare_bench;
pub use csv::CsvRows;
pub use json::{
    compare_json, retired_run_json, summary_json, write_summary_json_after, CompareJson,
    JsonSpools, SummaryJson,
};
pub use markdown::{retired_run_markdown, write_summary_markdown_after, MarkdownSpools};
pub use spool::Spool;
pub use text::{
    compare_markdown, compare_text, retired_run_text, run_text, summary_text,
    write_shown_runs_text, write_summary_text, write_summary_text_after,
};
pub use tune::{tune_change, tune_text, verify_text, worth_trying, worth_trying_predictions};

use crate::stats::compare::{RunFigures, Side};
use crate::stats::summary::RunSummary;
use crate::timeline::Timeline;
use std::borrow::Cow;

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
            let tl = &self.timeline;
            let mut runs = crate::timeline::summarize_with(&tl.runs, tl.last_process());
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

    /// What `compare` reads of the runs, folded (`compare::Side`): borrowed from the
    /// timeline once sealed (`seal_figures`, which a timeline that kept retired runs' figures
    /// needs first), else made from `summaries`.
    #[must_use]
    pub fn side(&self) -> Cow<'_, Side> {
        let tl = &self.timeline;
        if tl.figures_sealed {
            return Cow::Borrowed(&tl.retired_figures);
        }
        debug_assert!(
            tl.retired_figures.runs() == 0,
            "retired runs' figures are read once sealed"
        );
        let mut side = Side::default();
        for s in self.summaries() {
            side.push_record(&RunFigures::from(&s));
        }
        Cow::Owned(side)
    }

    /// Each run's compact record, oldest first: what `compare --format bench` prints a line
    /// of. Borrowed once sealed with the records kept (`Timeline::retired_records`).
    #[must_use]
    pub fn records(&self) -> Cow<'_, [RunFigures]> {
        let tl = &self.timeline;
        match &tl.retired_records {
            Some(records) if tl.figures_sealed => Cow::Borrowed(records),
            _ => Cow::Owned(self.summaries().iter().map(RunFigures::from).collect()),
        }
    }

    /// Fold every run into the timeline's figures (`Timeline::figures_sealed`): the retired
    /// runs' are there already, the live ones' are added. Call it once the source is read.
    pub fn seal_figures(&mut self) {
        if self.timeline.figures_sealed {
            return;
        }
        // `summaries()` holds the live runs only (or a program's samples, which are every
        // run of the program: nothing was retired into the figures then).
        let live: Vec<RunFigures> = self.summaries().iter().map(RunFigures::from).collect();
        let tl = &mut self.timeline;
        if !tl.programs.is_empty() {
            tl.retired_figures = Side::default();
            if let Some(records) = &mut tl.retired_records {
                records.clear();
            }
        }
        for r in &live {
            tl.retired_figures.push_record(r);
        }
        if let Some(records) = &mut tl.retired_records {
            records.extend(live);
        }
        tl.figures_sealed = true;
    }
}

/// One side's runs over its sources, folded (`Source::side`).
#[must_use]
pub fn side_of(sources: &[Source]) -> Side {
    let mut side = Side::default();
    for s in sources {
        side.append(&s.side());
    }
    side
}

/// How many runs the sources compare as.
#[must_use]
pub fn run_count(sources: &[Source]) -> usize {
    sources.iter().map(|s| s.side().runs()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::Retire;
    use std::sync::{Arc, Mutex};

    /// A log of many processes: pieces of real traces (their first lines each, so the counter
    /// restarts at gc 1), a long pause now and then for findings, a window.
    fn many_processes() -> Vec<u8> {
        let mut lines = Vec::new();
        for f in [
            "traces/go/go1.27.3_greentea_map_p2_gctrace2.log",
            "traces/go/go1.26.6_legacy_tree_p2_r1.stdout.txt",
            "traces/go/go1.21.13_legacy_map_p2_r1.log",
        ] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(f);
            let text = std::fs::read_to_string(path).unwrap();
            lines.push(
                text.lines()
                    .take(40)
                    .map(|l| format!("{l}\n"))
                    .collect::<String>(),
            );
        }
        let mut out = String::new();
        for k in 0..300 {
            out += &lines[k % 3];
            if k % 7 == 0 {
                out += "not a gc line\n";
            }
        }
        out.into_bytes()
    }

    /// Text and JSON of a timeline that retired its older runs, and of one that kept them all.
    fn both_ways(
        bytes: &[u8],
        pieces: usize,
        window: crate::timeline::Window,
    ) -> [(Vec<u8>, Vec<u8>); 2] {
        let base = || crate::timeline::Timeline {
            drop_cycles: true,
            drop_text: true,
            window,
            ..Default::default()
        };
        let kept = crate::read::read_bytes_in_pieces(bytes, base(), pieces).0;
        let spools = Arc::new(Mutex::new((Spool::default(), JsonSpools::default())));
        let to = spools.clone();
        let retiring = crate::timeline::Timeline {
            retire: Some(Retire::new(move |r| {
                let mut s = to.lock().unwrap();
                retired_run_text(&r, &mut s.0);
                retired_run_json(&r, "log", &mut s.1);
            })),
            ..base()
        };
        let mut retired = crate::read::read_bytes_in_pieces(bytes, retiring, pieces).0;
        retired.retire = None;
        assert!(retired.run_base > 0, "no run was retired");
        assert!(retired.runs.len() <= 2 * crate::timeline::KEEP_RUNS);
        let mut s = std::mem::take(&mut *spools.lock().unwrap());
        let (a, b) = (
            Source {
                name: "log".into(),
                timeline: kept,
            },
            Source {
                name: "log".into(),
                timeline: retired,
            },
        );
        let mut out = [(Vec::new(), Vec::new()), (Vec::new(), Vec::new())];
        write_summary_text(std::slice::from_ref(&a), &mut out[0].0).unwrap();
        write_summary_json_after(std::slice::from_ref(&a), &mut [], &mut out[0].1).unwrap();
        write_summary_text_after(std::slice::from_ref(&b), &mut [s.0], &mut out[1].0).unwrap();
        write_summary_json_after(
            std::slice::from_ref(&b),
            std::slice::from_mut(&mut s.1),
            &mut out[1].1,
        )
        .unwrap();
        // The JSON writer writes what serde writes of the whole document.
        let whole = serde_json::to_vec_pretty(&summary_json(std::slice::from_ref(&a))).unwrap();
        assert!(out[0].1 == whole, "the JSON writer differs from serde's");
        out
    }

    /// `summary` of a log of 300 processes reads the same, text and JSON byte for byte,
    /// whether its timeline kept every run or retired all but its latest ones, on one thread
    /// or in pieces.
    #[test]
    fn retired_runs_are_summarised_exactly_as_kept_ones() {
        let bytes = many_processes();
        let window = crate::timeline::Window {
            from_cycle: Some(2),
            after_ns: None,
        };
        for pieces in [1, 3] {
            let [kept, retired] = both_ways(&bytes, pieces, window);
            let text = String::from_utf8(kept.0.clone()).unwrap();
            assert!(text.contains("log: 200 runs"), "{}", &text[..200]);
            assert_eq!(text.matches("an earlier process of this log").count(), 199);
            assert!(text.contains("window       from gc 2"));
            assert!(kept.0 == retired.0, "text differs ({pieces} pieces)");
            assert!(kept.1 == retired.1, "JSON differs ({pieces} pieces)");
        }
    }

    /// Past `MAX_UNDECIDED_RUNS` runs that the log has not yet shown to be processes of their
    /// own (the counter went back, never to gc 1), runs are retired as they are; when a
    /// restart at gc 1 then shows they were earlier processes, the summary says that those
    /// written were left unmarked. In pieces too: a piece of more runs than a piece may hold
    /// is read again, on, retiring as it goes.
    #[test]
    fn runs_retired_before_a_second_process_shows_are_said_to_be() {
        let line = |n: u32| {
            format!("gc {n} @0.{n}s 1%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 2 P\n")
        };
        let mut text = String::new();
        for _ in 0..10_000 {
            text += &line(5);
        }
        text += &line(1);
        for pieces in [1, 2] {
            let [kept, retired] = both_ways(text.as_bytes(), pieces, Default::default());
            let (kept, retired) = (
                String::from_utf8(kept.0).unwrap(),
                String::from_utf8(retired.0).unwrap(),
            );
            assert_eq!(
                kept.matches("an earlier process of this log").count(),
                10_000
            );
            assert!(
                retired.contains("are not marked as an earlier process"),
                "{pieces} pieces"
            );
            assert!(retired.contains("10001 runs, 10001 cycles"));
        }
    }
}
