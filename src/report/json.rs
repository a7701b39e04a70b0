//! `summary --json` and `compare --json`: stable field names (docs/SUMMARY.md).

use super::{all_runs, Source};
use crate::model::NoteKind;
use crate::stats::compare::{self, Row};
use crate::stats::summary::RunSummary;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
pub struct SummaryJson {
    pub runs: Vec<RunJson>,
    pub problems: Vec<ProblemJson>,
    pub notes: BTreeMap<&'static str, usize>,
    pub sources: Vec<SourceJson>,
}

#[derive(Serialize)]
pub struct RunJson {
    pub source: String,
    /// 1-based run number within its source.
    pub run: usize,
    #[serde(flatten)]
    pub summary: RunSummary,
}

#[derive(Serialize)]
pub struct ProblemJson {
    pub source: String,
    pub line: u64,
    pub reason: String,
}

#[derive(Serialize)]
pub struct SourceJson {
    pub source: String,
    pub runs: usize,
    pub cycles: usize,
    pub output_lines: usize,
    pub problems: usize,
}

pub fn summary_json(sources: &[Source]) -> SummaryJson {
    let mut out = SummaryJson {
        runs: vec![],
        problems: vec![],
        notes: NoteKind::ALL.iter().map(|k| (k.name(), 0)).collect(),
        sources: vec![],
    };
    for s in sources {
        let tl = &s.timeline;
        for (i, summary) in s.summaries().into_iter().enumerate() {
            out.runs.push(RunJson {
                source: s.name.clone(),
                run: i + 1,
                summary,
            });
        }
        out.problems.extend(tl.problems.iter().map(|p| ProblemJson {
            source: s.name.clone(),
            line: p.line,
            reason: p.reason.clone(),
        }));
        for n in &tl.notes {
            *out.notes.entry(n.kind.name()).or_default() += 1;
        }
        out.sources.push(SourceJson {
            source: s.name.clone(),
            runs: tl.runs.len(),
            cycles: tl.cycle_count(),
            output_lines: tl.output.len(),
            problems: tl.problems.len(),
        });
    }
    out
}

#[derive(Serialize)]
pub struct CompareJson {
    pub a: Vec<String>,
    pub b: Vec<String>,
    pub a_runs: usize,
    pub b_runs: usize,
    pub metrics: Vec<Row>,
}

pub fn compare_json(a: &[Source], b: &[Source]) -> CompareJson {
    let (sa, sb) = (all_runs(a), all_runs(b));
    CompareJson {
        a: a.iter().map(|s| s.name.clone()).collect(),
        b: b.iter().map(|s| s.name.clone()).collect(),
        a_runs: sa.len(),
        b_runs: sb.len(),
        metrics: compare::compare(&sa, &sb),
    }
}
