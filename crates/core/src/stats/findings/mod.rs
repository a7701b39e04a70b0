//! Findings: what a run's numbers say, with the cycles that show it, and no more than the
//! sources support (docs/FINDINGS.md has each rule, its threshold and its source).
//!
//! Two halves. `Facts` is a bounded accumulator fed cycle by cycle with the run's other
//! statistics (`RunStats`), mergeable exactly as they are (a large file is read in pieces):
//! sums, counts, the first or largest few cycles of each kind, and live-heap means over
//! fixed time buckets. `evaluate` is a pure function of the run's summary and its facts. No
//! rule reads text. Each rule is one type in a file of its own (condition, evidence and text
//! together), behind the small `Rule` trait; `RULES` lists them in the order they are shown.

mod assist_bound;
mod facts;
mod forced;
mod gogc_off;
mod idle_marking;
mod live_growth;
mod memory_limit;
mod min_heap;
mod overshoot;
mod page_density;
mod pause_outlier;
mod periodic;
mod roots_dominate;
mod stretched_mark;
mod stw_dominates;

use super::summary::RunSummary;
use facts::Ev;
pub use facts::Facts;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warn,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub id: &'static str,
    pub severity: Severity,
    /// The cycles that show it, by the runtime's numbers (unique within a run).
    pub cycles: Vec<u32>,
    /// What it saw, in numbers; what the sources support as advice; what it does not claim.
    pub text: String,
}

/// What every rule is given: the run's summary and facts, and the figures several rules share.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    pub s: &'a RunSummary,
    pub f: &'a Facts,
    /// Cycles the facts saw.
    pub n: f64,
    /// GOMAXPROCS x the run's span, ms: what a share of the Ps' time is of; 0 when the run is
    /// too short, or its lines sampled, to make one.
    pub capacity_ms: f64,
    /// All GC P time over that, when there is one.
    pub gc_share: Option<f64>,
}

/// One finding's rule: its condition, evidence and text, in a file of its own.
trait Rule: Sync {
    /// The finding's id (docs/FINDINGS.md): the one its findings carry.
    fn id(&self) -> &'static str;
    /// Pushes the finding when its condition holds.
    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>);
}

/// Every rule, in the order findings are shown (warnings first, then this order).
const RULES: &[&dyn Rule] = &[
    &idle_marking::IdleMarking,
    &assist_bound::AssistBound,
    &min_heap::MinHeap,
    &memory_limit::MemoryLimit,
    &gogc_off::GogcOff,
    &forced::Forced,
    &periodic::Periodic,
    &pause_outlier::PauseOutlier,
    &live_growth::LiveGrowth,
    &page_density::PageDensity,
    &overshoot::Overshoot,
    &roots_dominate::RootsDominate,
    &stw_dominates::StwDominates,
    &stretched_mark::StretchedMark,
];

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn finding(id: &'static str, severity: Severity, evidence: &[Ev], text: String) -> Finding {
    Finding {
        id,
        severity,
        cycles: evidence.iter().map(|e| e.num).collect(),
        text,
    }
}

/// Cycles per second from the cycle numbers (sampled lines count the cycles they skip), over
/// at least a second; `None` for a shorter run: too short to judge a rate.
fn cycle_rate(s: &RunSummary) -> Option<f64> {
    let span = s.end_s - s.start_s;
    (span >= 1.0).then(|| f64::from(s.last_cycle.saturating_sub(s.first_cycle)) / span)
}

fn gogc_words(p: &crate::stats::pacer::PacerSummary) -> String {
    match (p.gogc, p.gogc_range) {
        (Some(g), _) => format!("GOGC {g}"),
        (None, Some([lo, hi])) => format!("GOGC {lo}-{hi}"),
        _ => "the run's GOGC (unknown)".into(),
    }
}

fn cycles_of(nums: &[u32]) -> Vec<Ev> {
    nums.iter()
        .map(|&num| Ev {
            num,
            ..Ev::default()
        })
        .collect()
}

/// The run's findings, most severe first (then in the table's order). Nothing for a run of
/// fewer than two cycles: one cycle shows no pattern.
#[must_use]
pub fn evaluate(s: &RunSummary, f: &Facts) -> Vec<Finding> {
    let mut out = Vec::new();
    if f.n < 2 || s.cycles < 2 {
        return out;
    }
    let n = f.n as f64;
    // From the first cycle's start to the last one's end: n cycles, not n - 1 gaps. Shares
    // of it only over a second or more (starts are printed to the ms; two cycles 1 ms apart
    // would make any share absurd).
    let span_ms = (s.end_s - s.start_s) * 1e3 + f.last_wall as f64 / 1e6;
    // Nor over sampled lines: the sums then hold only the cycles the trace kept, and a share of
    // the span would be of some cycles' time over all cycles' span.
    let capacity_ms = if span_ms >= 1000.0 && s.missing_cycles == 0 {
        span_ms * f64::from(s.procs.max(1))
    } else {
        0.0
    };
    let gc_share = (capacity_ms > 0.0).then(|| (s.gc_cpu_ms / capacity_ms).min(1.0));

    let cx = Ctx {
        s,
        f,
        n,
        capacity_ms,
        gc_share,
    };
    for rule in RULES {
        rule.check(&cx, &mut out);
    }
    out.sort_by_key(|f| std::cmp::Reverse(f.severity == Severity::Warn));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(lines: &[&str]) -> RunSummary {
        let mut stats = crate::stats::summary::RunStats::default();
        for l in lines {
            match crate::trace::parse::parse_line(l.as_bytes()) {
                crate::trace::parse::Line::Cycle { cycle, .. } => stats.push(&cycle),
                _ => panic!("{l}"),
            }
        }
        stats.summary(1, None).unwrap()
    }

    /// Two cycles 1 ms apart make no share of the Ps' time (it would read 1000%), and a
    /// pause median of two says nothing about outliers.
    #[test]
    fn short_runs_make_no_shares_and_no_outliers() {
        let s = run_of(&[
            "gc 1 @0.100s 1%: 0.010+1.0+0.010 ms clock, 0.02+5.0/1.0/5.0+0.02 ms cpu, 4->5->1 MB, 5 MB goal, 1 P",
            "gc 2 @0.101s 1%: 1.0+1.0+1.0 ms clock, 2.0+5.0/1.0/5.0+2.0 ms cpu, 4->5->1 MB, 5 MB goal, 1 P",
        ]);
        assert!(s.findings.is_empty(), "{:?}", s.findings);
    }

    /// Every rule has one id, and docs/FINDINGS.md describes each.
    #[test]
    fn every_rule_is_documented_once() {
        let doc = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/FINDINGS.md"),
        )
        .unwrap();
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id()).collect();
        for id in &ids {
            assert!(
                doc.contains(&format!("| `{id}` |")),
                "{id} is not in docs/FINDINGS.md"
            );
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len(), "two rules share an id");
    }
}
