//! A/B comparison of runs, benchstat style: per metric, median [min-max] for each side and the
//! change of the medians in the unit that fits the figure. One verdict rule for every A/B view
//! (`compare`, the dashboard's strip, `lab --ab`): a direction only with at least `MIN_RUNS`
//! runs a side whose ranges do not overlap (seed 001's rule); otherwise no verdict, and why.
//! With at least `MIN_RUNS_FOR_P` runs a side, a two-sided Mann-Whitney U p-value is added
//! (shown only beside a direction, never beside "no verdict").
//!
//! The dashboard's comparison strip calls the same functions.

use super::dist::{self, Distribution};
use super::summary::{RunSummary, LOADED_CPUS, LOADED_SHARE};
use super::Spread;
use serde::Serialize;

gcscope_model::named_enum! {
    /// A figure compared between sides; one value per run.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Metric (key, from_key) {
        GcCpuPct => "gc_cpu_pct",
        CompulsoryMsPerCycle => "compulsory_cpu_ms_per_cycle",
        // Per-run totals beside the per-cycle mean: a collector that runs more, cheaper
        // cycles can save less per run than per cycle.
        CompulsorySPerRun => "compulsory_cpu_s_per_run",
        CyclesPerRun => "cycles_per_run",
        // Green Tea's mechanism, where the trace has it (gctrace=2, the lab), high in the
        // strip's few rows.
        PageDensity => "page_scan_density",
        GcCpuMsPerCycle => "gc_cpu_ms_per_cycle",
        AssistShare => "assist_share",
        IdleShare => "idle_share",
        ThreadCpuMsPerCycle => "thread_cpu_ms_per_cycle",
        PauseP50 => "pause_p50_ms",
        PauseP99 => "pause_p99_ms",
        PauseMax => "pause_max_ms",
        MarkMedian => "mark_wall_median_ms",
        CyclesPerSec => "cycles_per_s",
        HeapGoalMax => "heap_goal_max_mb",
    }
}

impl Metric {
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            // Go's cpu fields are P time (wall time while holding a P), not CPU seconds.
            Metric::GcCpuPct => "Go's GC % (final)",
            Metric::CyclesPerRun => "cycles per run",
            Metric::CompulsorySPerRun => "compulsory P s per run",
            Metric::CompulsoryMsPerCycle => "mean compulsory P ms/cycle",
            Metric::GcCpuMsPerCycle => "mean GC P ms/cycle",
            Metric::AssistShare => "assist share of compulsory",
            Metric::IdleShare => "idle share of GC P time",
            Metric::PageDensity => "page scan density",
            Metric::ThreadCpuMsPerCycle => "mean thread CPU ms/cycle",
            Metric::PauseP50 => "pause p50 ms",
            Metric::PauseP99 => "pause p99 ms",
            Metric::PauseMax => "pause max ms",
            // A nearest-rank percentile, not the median (docs/SUMMARY.md): named for what it is.
            Metric::MarkMedian => "mark wall p50 ms",
            Metric::CyclesPerSec => "cycles/s",
            Metric::HeapGoalMax => "heap goal max MB",
        }
    }

    /// How a change of this figure is read: a relative change of a time or size, a difference
    /// in percentage points of a share, or a ratio of densities and rates.
    #[must_use]
    pub fn change(self) -> Change {
        match self {
            Metric::GcCpuPct | Metric::IdleShare | Metric::AssistShare => Change::Points,
            Metric::PageDensity | Metric::CyclesPerSec => Change::Ratio,
            _ => Change::Relative,
        }
    }

    /// Unit for Go benchmark format (benchstat reads `value unit` pairs).
    #[must_use]
    pub fn bench_unit(self) -> &'static str {
        match self {
            Metric::GcCpuPct => "gc-cpu-%",
            Metric::CyclesPerRun => "cycles",
            Metric::CompulsorySPerRun => "compulsory-s",
            Metric::AssistShare => "assist-share",
            Metric::CompulsoryMsPerCycle => "compulsory-ms/cycle",
            Metric::GcCpuMsPerCycle => "gc-cpu-ms/cycle",
            Metric::IdleShare => "idle-share",
            Metric::PageDensity => "objs/visit",
            Metric::ThreadCpuMsPerCycle => "thread-cpu-ms/cycle",
            Metric::PauseP50 => "pause-p50-ms",
            Metric::PauseP99 => "pause-p99-ms",
            Metric::PauseMax => "pause-max-ms",
            Metric::MarkMedian => "mark-ms",
            Metric::CyclesPerSec => "cycles/s",
            Metric::HeapGoalMax => "goal-MB",
        }
    }

    /// A time in milliseconds made of gctrace's values (printed at gctrace's precision).
    #[must_use]
    pub fn is_ms(self) -> bool {
        matches!(
            self,
            Metric::CompulsoryMsPerCycle
                | Metric::GcCpuMsPerCycle
                | Metric::ThreadCpuMsPerCycle
                | Metric::PauseP50
                | Metric::PauseP99
                | Metric::PauseMax
                | Metric::MarkMedian
        )
    }

    #[must_use]
    pub fn of(self, s: &RunSummary) -> Option<f64> {
        match self {
            Metric::GcCpuPct => Some(f64::from(s.final_gc_pct)),
            #[allow(clippy::cast_precision_loss)]
            Metric::CyclesPerRun => Some(s.cycles as f64),
            Metric::CompulsorySPerRun => Some(s.compulsory_cpu_ms / 1000.0),
            Metric::AssistShare => {
                (s.compulsory_cpu_ms > 0.0).then(|| s.cpu_ms.assist / s.compulsory_cpu_ms)
            }
            Metric::CompulsoryMsPerCycle => Some(s.compulsory_ms_per_cycle()),
            Metric::GcCpuMsPerCycle => Some(s.gc_cpu_ms_per_cycle()),
            Metric::IdleShare => s.idle_share,
            Metric::PageDensity => s.page_density(),
            Metric::ThreadCpuMsPerCycle => s.lab.as_ref().map(|l| l.thread_cpu_ms_per_cycle),
            Metric::PauseP50 => Some(s.pause_ms.p50),
            Metric::PauseP99 => Some(s.pause_ms.p99),
            Metric::PauseMax => Some(s.pause_ms.max),
            Metric::MarkMedian => Some(s.mark_ms.p50),
            Metric::CyclesPerSec => s.cycles_per_s,
            Metric::HeapGoalMax => s.heap_goal_mb.map(|g| g.max as f64),
        }
    }
}

/// What a comparison reads of a run: each figure, the program's own values (`--metric`) and
/// the cycles behind the figures. A run's full summary has it; so has the compact record
/// `compare` keeps of every run of a long log (`RunFigures`).
pub trait Figures {
    fn figure(&self, m: Metric) -> Option<f64>;
    /// The program's own figures (`--metric`), by name.
    fn values(&self) -> &[(String, f64)];
    fn cycles(&self) -> usize;
}

impl Figures for RunSummary {
    fn figure(&self, m: Metric) -> Option<f64> {
        m.of(self)
    }
    fn values(&self) -> &[(String, f64)] {
        &self.values
    }
    fn cycles(&self) -> usize {
        self.cycles
    }
}

/// What `compare` needs of one run, and nothing else: the figures it compares, the
/// program's values, and what its header and footnotes count (the lab's label, the load,
/// the findings' ids). About 250 bytes where a `RunSummary` takes about 2.4 KB: a log of a
/// million short processes compares in a few hundred MB, not a few GB. Each run's value of
/// each figure stays: the medians, ranges and rank test are exact over every run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFigures {
    /// `Metric::ALL`'s figures in order, NaN where the run has none.
    figures: [f64; Metric::ALL.len()],
    pub values: Vec<(String, f64)>,
    pub cycles: usize,
    pub procs: u32,
    pub label: Option<String>,
    /// Other work on the machine while the run ran, in CPUs (`RunSummary::other_cpus`).
    pub other_cpus: Option<f64>,
    /// The lab's share of the mark spent descheduled.
    pub offcpu_share: Option<f64>,
    /// The ids of the findings the run has, each once, sorted.
    pub findings: Vec<&'static str>,
}

impl<T: Figures> Figures for &T {
    fn figure(&self, m: Metric) -> Option<f64> {
        (*self).figure(m)
    }
    fn values(&self) -> &[(String, f64)] {
        (*self).values()
    }
    fn cycles(&self) -> usize {
        (*self).cycles()
    }
}

impl From<&RunSummary> for RunFigures {
    fn from(s: &RunSummary) -> RunFigures {
        let mut findings: Vec<&'static str> = s.findings.iter().map(|f| f.id).collect();
        findings.sort_unstable();
        findings.dedup();
        RunFigures {
            figures: Metric::ALL.map(|m| m.of(s).unwrap_or(f64::NAN)),
            values: s.values.clone(),
            cycles: s.cycles,
            procs: s.procs,
            label: s.label.clone(),
            other_cpus: s.other_cpus,
            offcpu_share: s.lab.as_ref().and_then(|l| l.offcpu_share),
            findings,
        }
    }
}

impl Figures for RunFigures {
    fn figure(&self, m: Metric) -> Option<f64> {
        let v = self.figures[m as usize];
        (!v.is_nan()).then_some(v)
    }
    fn values(&self) -> &[(String, f64)] {
        &self.values
    }
    fn cycles(&self) -> usize {
        self.cycles
    }
}

/// Cycles a run needs for its p99 to be other than its maximum.
pub const P99_CYCLES: usize = 100;

/// Runs a side a verdict needs.
pub const MIN_RUNS: usize = 3;
/// Runs a side a p-value needs.
pub const MIN_RUNS_FOR_P: usize = 4;

/// How a figure's change is expressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Change {
    /// (B - A) / A of the medians, in percent.
    #[serde(rename = "%")]
    Relative,
    /// B - A of the medians of a share, in percentage points.
    #[serde(rename = "pp")]
    Points,
    /// B / A of the medians.
    #[serde(rename = "x")]
    Ratio,
}

/// B against A, by the one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Lower,
    Higher,
    None,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub metric: String,
    pub label: String,
    pub a: Option<Spread>,
    pub b: Option<Spread>,
    /// (median B - median A) / median A, in percent.
    pub delta_pct: Option<f64>,
    /// True when the ranges overlap: no result, whatever the delta. Also true when a side
    /// has no values (nothing to compare, no result).
    pub overlap: bool,
    /// Two-sided Mann-Whitney U p-value, with >= 4 runs a side.
    pub p: Option<f64>,
    /// B against A: a direction only with `MIN_RUNS` runs a side and disjoint ranges.
    pub verdict: Verdict,
    /// Why there is no verdict (`None` when there is one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The change of the medians in `unit`: percent, percentage points, or B/A.
    pub change: Option<f64>,
    pub unit: Change,
}

impl Row {
    /// False when no run on either side has the figure: the text views print no row for it
    /// (JSON keeps every metric, with `a` and `b` null).
    #[must_use]
    pub fn has_values(&self) -> bool {
        self.a.is_some() || self.b.is_some()
    }
}

/// What a comparison keeps of one side's runs, folded in as they come: each figure's
/// distribution over the runs (exact up to `dist::EXACT_CAP` runs, binned past that), the
/// programs' own values, and what the header and footnotes count (the findings, the load, the
/// lab's settings). Its memory is bounded by the figures' ranges, never by the number of
/// runs: a log of a million short processes compares in constant memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Side {
    runs: usize,
    /// `Metric::ALL`'s figures in order.
    figures: [Distribution; Metric::ALL.len()],
    /// The programs' own figures (`--metric`), in the order first seen.
    values: Vec<(String, Distribution)>,
    /// A run had fewer than `P99_CYCLES` cycles: its p99 is its maximum.
    short_runs: bool,
    /// Each finding's id and in how many runs it was, in the order first seen.
    findings: Vec<(&'static str, usize)>,
    /// Runs whose load was measured, and those of them on a loaded machine.
    load_known: usize,
    loaded: usize,
    /// The lab's settings, one label for each experiment (labels that differ only in the
    /// marker or the seed are one: `settings::differences`).
    labels: Vec<String>,
}

impl Side {
    /// The figures of `runs`, as `push` folds them.
    #[must_use]
    pub fn of<T: Figures>(runs: &[T]) -> Side {
        let mut side = Side::default();
        runs.iter().for_each(|r| side.push(r));
        side
    }

    /// A run's figures and the program's values.
    pub fn push<T: Figures>(&mut self, r: &T) {
        self.runs += 1;
        for (m, d) in Metric::ALL.iter().zip(&mut self.figures) {
            if let Some(v) = r.figure(*m).filter(|v| !v.is_nan()) {
                d.push(v);
            }
        }
        for (name, v) in r.values().iter().filter(|(_, v)| !v.is_nan()) {
            entry(&mut self.values, name).push(*v);
        }
        self.short_runs |= r.cycles() < P99_CYCLES;
    }

    /// A run's compact record: its figures, findings, load and label.
    pub fn push_record(&mut self, r: &RunFigures) {
        self.push(r);
        for &id in &r.findings {
            *entry(&mut self.findings, &id) += 1;
        }
        if r.other_cpus.is_some() || r.offcpu_share.is_some() {
            self.load_known += 1;
            self.loaded += usize::from(
                r.offcpu_share.is_some_and(|s| s > LOADED_SHARE)
                    || r.other_cpus.is_some_and(|c| c > LOADED_CPUS),
            );
        }
        if let Some(label) = &r.label {
            self.add_label(label);
        }
    }

    /// Keeps the first label, and after it one label an experiment: `settings::mismatches`
    /// compares each label with the first and reads only its experiment.
    fn add_label(&mut self, label: &str) {
        use gcscope_model::settings::experiment;
        let Some(key) = experiment(label) else {
            if self.labels.is_empty() {
                self.labels.push(label.to_string());
            }
            return;
        };
        if !self
            .labels
            .iter()
            .any(|l| experiment(l).as_ref() == Some(&key))
        {
            self.labels.push(label.to_string());
        }
    }

    /// Another side's runs with these (several files of one side).
    pub fn append(&mut self, other: &Side) {
        if other.runs == 0 {
            return;
        }
        self.runs += other.runs;
        for (mine, theirs) in self.figures.iter_mut().zip(&other.figures) {
            mine.append(theirs);
        }
        for (name, d) in &other.values {
            entry(&mut self.values, name).append(d);
        }
        self.short_runs |= other.short_runs;
        for &(id, n) in &other.findings {
            *entry(&mut self.findings, &id) += n;
        }
        self.load_known += other.load_known;
        self.loaded += other.loaded;
        for label in &other.labels {
            self.add_label(label);
        }
    }

    /// How many runs were pushed.
    #[must_use]
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// Each finding's id and in how many runs it was.
    #[must_use]
    pub fn findings(&self) -> &[(&'static str, usize)] {
        &self.findings
    }

    /// Whether a run had the program's figure `name` (`--metric`).
    #[must_use]
    pub fn has_value(&self, name: &str) -> bool {
        self.values.iter().any(|(n, d)| n == name && !d.is_empty())
    }

    /// Runs on a loaded machine; `None` when no run's load was measured (unknown, not 0).
    #[must_use]
    pub fn loaded_runs(&self) -> Option<usize> {
        (self.load_known > 0).then_some(self.loaded)
    }

    /// The lab's settings, one label an experiment.
    pub fn labels(&self) -> impl Iterator<Item = &str> {
        self.labels.iter().map(String::as_str)
    }

    /// Whether every figure is over the runs' own values (no side has passed
    /// `dist::EXACT_CAP` runs).
    #[must_use]
    pub fn is_exact(&self) -> bool {
        self.figures.iter().all(Distribution::is_exact)
            && self.values.iter().all(|(_, d)| d.is_exact())
    }

    fn figure(&self, m: Metric) -> &Distribution {
        &self.figures[m as usize]
    }
}

/// The value kept for `key` in a short list of pairs in the order first met, a default one
/// added where there is none (a side has a few figure names and finding ids).
fn entry<'a, K: PartialEq + Clone, V: Default>(list: &'a mut Vec<(K, V)>, key: &K) -> &'a mut V {
    let at = match list.iter().position(|(k, _)| k == key) {
        Some(at) => at,
        None => {
            list.push((key.clone(), V::default()));
            list.len() - 1
        }
    };
    &mut list[at].1
}

/// Every figure: the programs' own (`--metric`) first, as the published A/Bs put the
/// application's figure beside the GC's, then the GC figures.
#[must_use]
pub fn compare<T: Figures>(a: &[T], b: &[T]) -> Vec<Row> {
    compare_sides(&Side::of(a), &Side::of(b))
}

/// `compare` of two sides already folded.
#[must_use]
pub fn compare_sides(a: &Side, b: &Side) -> Vec<Row> {
    let mut names: Vec<&str> = Vec::new();
    for (n, _) in a.values.iter().chain(&b.values) {
        if !names.contains(&n.as_str()) {
            names.push(n);
        }
    }
    let empty = Distribution::default();
    let mut rows: Vec<Row> = Vec::new();
    for name in names {
        let [va, vb] = [a, b].map(|s| {
            s.values
                .iter()
                .find(|(n, _)| n == name)
                .map_or(&empty, |(_, d)| d)
        });
        rows.push(row_of(name, name, Change::Relative, va, vb));
    }
    rows.extend(Metric::ALL.iter().map(|&m| side_row(m, a, b)));
    rows
}

#[must_use]
pub fn row<T: Figures>(m: Metric, a: &[T], b: &[T]) -> Row {
    side_row(m, &Side::of(a), &Side::of(b))
}

fn side_row(m: Metric, a: &Side, b: &Side) -> Row {
    let mut r = row_of(m.key(), m.label(), m.change(), a.figure(m), b.figure(m));
    // GC CPU % is printed in percent already; the idle and assist shares are fractions.
    if matches!(m, Metric::IdleShare | Metric::AssistShare) {
        r.change = r.change.map(|pp| pp * 100.0);
    }
    // A p99 of fewer than 100 values is their maximum (nearest rank): said, not implied.
    if m == Metric::PauseP99 && (a.short_runs || b.short_runs) {
        r.label = format!("pause p99 ms (=max, <{P99_CYCLES})");
    }
    r
}

/// One figure's row from its values over each side's runs, by the one rule.
#[must_use]
pub fn row_of(key: &str, label: &str, unit: Change, va: &Distribution, vb: &Distribution) -> Row {
    let sa = Spread::of_distribution(va);
    let sb = Spread::of_distribution(vb);
    let delta_pct = match (sa, sb) {
        (Some(x), Some(y)) if x.median != 0.0 => Some((y.median - x.median) / x.median * 100.0),
        _ => None,
    };
    let overlap = match (sa, sb) {
        (Some(x), Some(y)) => x.overlaps(&y),
        _ => true,
    };
    let change = match (unit, sa, sb) {
        (Change::Relative, ..) => delta_pct,
        (Change::Points, Some(x), Some(y)) => Some(y.median - x.median),
        (Change::Ratio, Some(x), Some(y)) if x.median != 0.0 => Some(y.median / x.median),
        _ => None,
    };
    let why = match (sa, sb) {
        (None, None) => Some("no run has the figure".to_string()),
        (None, Some(_)) => Some("no run of A has the figure".to_string()),
        (Some(_), None) => Some("no run of B has the figure".to_string()),
        (Some(x), Some(y)) if x.n < MIN_RUNS || y.n < MIN_RUNS => Some(if x.n == y.n {
            format!(
                "{} run{} a side; a verdict needs {MIN_RUNS}",
                x.n,
                plural(x.n)
            )
        } else {
            format!("{} v {} runs; a verdict needs {MIN_RUNS} a side", x.n, y.n)
        }),
        _ if overlap => Some("ranges overlap".to_string()),
        _ => None,
    };
    let verdict = match (sa, sb, &why) {
        (Some(x), Some(y), None) if y.median < x.median => Verdict::Lower,
        (Some(x), Some(y), None) if y.median > x.median => Verdict::Higher,
        _ => Verdict::None,
    };
    let p = (va.len() >= MIN_RUNS_FOR_P && vb.len() >= MIN_RUNS_FOR_P)
        .then(|| dist::mann_whitney(va, vb).map(|r| r.p))
        .flatten();
    Row {
        metric: key.to_string(),
        label: label.to_string(),
        a: sa,
        b: sb,
        delta_pct,
        overlap,
        p,
        verdict,
        why,
        change,
        unit,
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// One run as a Go benchmark-format line (`BenchmarkName-P  N  value unit ...`), so that
/// benchstat can read gcscope's figures.
#[must_use]
pub fn bench_line(name: &str, s: &RunFigures) -> String {
    let mut line = format!("Benchmark{}-{} {}", name, s.procs, s.cycles);
    for m in Metric::ALL {
        if let Some(v) = s.figure(m) {
            line.push_str(&format!(" {:.6} {}", v, m.bench_unit()));
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one run of a trace's text.
    fn run(text: &str) -> RunSummary {
        let tl = crate::read::read_all(text.as_bytes()).unwrap();
        assert!(tl.problems.is_empty(), "{:?}", tl.problems);
        assert_eq!(tl.runs.len(), 1);
        tl.runs[0].summary().unwrap()
    }

    fn gc(n: u32, cpu: &str) -> String {
        format!("gc {n} @0.{n}s 1%: 0.01+1.0+0.01 ms clock, {cpu} ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n")
    }

    const SCAN: &str = "scan: total 10+20+30=60 objs, 5+5=10 spans\n";
    const LAB: &str = "lab: objs 800 bytes 12800 visits 100 freed 0 cpu_ns 1000000 hist 4\n";

    /// The compact record compares exactly as the summaries it was made from: every row's
    /// spreads, change, p-value and verdict, the p99 label and a figure one side lacks.
    #[test]
    fn a_runs_compact_record_compares_as_its_summary() {
        let early = run("gc #1 @0.166s 0%: 0.22+2.3+0.074+0.76+0.56 ms clock, 0.45+2.3+0+0.55/0.59/0+1.1 ms cpu, 5->5->1 MB, 4 P\n");
        let a: Vec<RunSummary> = ["0.02+0.1/0.5/0.4+0.02", "0.03+0.2/0.4/0.1+0.02"]
            .iter()
            .map(|c| run(&(gc(1, c) + &gc(2, c))))
            .chain([early])
            .collect();
        let b: Vec<RunSummary> = ["0.04+0.3/0.9/0.2+0.06", "0.05+0.3/0.8/0.2+0.07"]
            .iter()
            .cycle()
            .take(4)
            .map(|c| run(&(gc(1, c) + &gc(2, c) + &gc(3, c))))
            .collect();
        let fa: Vec<RunFigures> = a.iter().map(RunFigures::from).collect();
        let fb: Vec<RunFigures> = b.iter().map(RunFigures::from).collect();
        let json = |rows: Vec<Row>| serde_json::to_string(&rows).unwrap();
        assert_eq!(json(compare(&a, &b)), json(compare(&fa, &fb)));
        let refs: (Vec<&RunFigures>, Vec<&RunFigures>) = (fa.iter().collect(), fb.iter().collect());
        assert_eq!(json(compare(&a, &b)), json(compare(&refs.0, &refs.1)));
        for m in Metric::ALL {
            assert_eq!(m.of(&a[2]), fa[2].figure(m), "{}", m.key());
        }
    }

    /// A side keeps one label an experiment, and says the same mismatches as every label
    /// would: seeds and markers vary, a setting is missing from one label, a label is not a
    /// lab's (first, or later).
    #[test]
    fn a_side_keeps_one_label_an_experiment_and_the_same_mismatches() {
        use gcscope_model::settings::mismatches;
        let lab = |w: &str, m: &str, seed: u32, scale: &str| {
            format!("lab {w} {m} GOGC=100 P=2 seed={seed}{scale} duration=5s")
        };
        let cases: Vec<(Vec<String>, Vec<String>)> = vec![
            (
                (0..50)
                    .map(|k| lab("tree", "legacy", k, " scale=1"))
                    .collect(),
                (0..50)
                    .map(|k| lab("tree", "greentea", k, " scale=1"))
                    .collect(),
            ),
            (
                (0..20)
                    .map(|k| {
                        lab(
                            "tree",
                            "legacy",
                            k,
                            if k == 7 { " scale=2" } else { " scale=1" },
                        )
                    })
                    .collect(),
                (0..20).map(|k| lab("graph", "greentea", k, "")).collect(),
            ),
            (
                vec!["not a lab".into(), lab("tree", "legacy", 1, " scale=3")],
                vec![lab("tree", "legacy", 1, " scale=1")],
            ),
            (
                vec![],
                vec![
                    lab("map", "legacy", 1, ""),
                    "x".into(),
                    lab("map", "legacy", 2, " scale=4"),
                ],
            ),
        ];
        for (a, b) in cases {
            let side = |labels: &[String]| {
                let mut s = Side::default();
                for l in labels {
                    s.push_record(&RunFigures {
                        figures: [f64::NAN; Metric::ALL.len()],
                        values: Vec::new(),
                        cycles: 1,
                        procs: 2,
                        label: Some(l.clone()),
                        other_cpus: None,
                        offcpu_share: None,
                        findings: Vec::new(),
                    });
                }
                s
            };
            let (sa, sb) = (side(&a), side(&b));
            assert!(
                sa.labels.len() <= 3 && sb.labels.len() <= 3,
                "{:?}",
                sa.labels
            );
            assert_eq!(
                mismatches(sa.labels(), sb.labels()),
                mismatches(a.iter().map(String::as_str), b.iter().map(String::as_str)),
                "{a:?} {b:?}"
            );
        }
    }

    /// Folded sides compare as the runs they were folded from, in parts too (`append`).
    #[test]
    fn appended_sides_compare_as_the_whole() {
        let runs: Vec<RunSummary> = (1..=9)
            .map(|k| {
                let c = format!("0.0{k}+0.{k}/0.5/0.4+0.02");
                run(&(gc(1, &c) + &gc(2, "0.02+0.1/0.5/0.4+0.02")))
            })
            .collect();
        let whole = Side::of(&runs[..]);
        let mut parts = Side::of(&runs[..4]);
        parts.append(&Side::of(&runs[4..]));
        assert_eq!(whole, parts);
        let json = |rows: Vec<Row>| serde_json::to_string(&rows).unwrap();
        assert_eq!(
            json(compare(&runs[..5], &runs[5..])),
            json(compare_sides(&Side::of(&runs[..5]), &Side::of(&runs[5..])))
        );
    }

    #[test]
    fn a_side_without_the_figure_says_so() {
        // Early Go 1.5 lines print no goal; one cycle a run has no cycles/s.
        let early = run("gc #1 @0.166s 0%: 0.22+2.3+0.074+0.76+0.56 ms clock, 0.45+2.3+0+0.55/0.59/0+1.1 ms cpu, 5->5->1 MB, 4 P\n");
        let now = run(&gc(1, "0.02+0.1/0.5/0.4+0.02"));
        let (early, now) = ([early], [now]);
        let goal = row(Metric::HeapGoalMax, &early, &now);
        assert!(goal.a.is_none() && goal.delta_pct.is_none() && goal.has_values());
        assert_eq!(goal.b.map(|s| (s.n, s.median)), Some((1, 5.0)));
        assert_eq!(crate::fmt::verdict_text(&goal), "B only");
        let goal = row(Metric::HeapGoalMax, &now, &early);
        assert_eq!(crate::fmt::verdict_text(&goal), "A only");
        let rate = row(Metric::CyclesPerSec, &early, &now);
        assert!(!rate.has_values());
        assert_eq!(crate::fmt::verdict_text(&rate), "n/a");
    }

    #[test]
    fn gc_cpu_idle_share_and_page_density_of_a_run() {
        // GC CPU 0.02+0.1+0.5+0.4+0.02 = 1.04 and 0.04+0.3+0.9+0.2+0.06 = 1.5 ms; idle
        // (0.4+0.2) of mark (0.1+0.5+0.4 + 0.3+0.9+0.2).
        let cpu = ["0.02+0.1/0.5/0.4+0.02", "0.04+0.3/0.9/0.2+0.06"];
        let plain = run(&(gc(1, cpu[0]) + &gc(2, cpu[1])));
        let v = |m: Metric, s: &RunSummary| m.of(s);
        let close = |x: Option<f64>, want: f64| {
            assert!(
                x.is_some_and(|x| (x - want).abs() < 1e-9),
                "{x:?} != {want}"
            )
        };
        close(v(Metric::GcCpuMsPerCycle, &plain), 1.27);
        close(v(Metric::IdleShare, &plain), 0.25);
        assert_eq!(v(Metric::PageDensity, &plain), None, "no scan or lab lines");

        // gctrace=2: Green Tea's objects per span visit, (A+B+C)/(A+S+D) = 60/20.
        let scanned = run(&(gc(1, cpu[0]) + SCAN + &gc(2, cpu[1]) + SCAN));
        close(v(Metric::PageDensity, &scanned), 3.0);
        close(v(Metric::GcCpuMsPerCycle, &scanned), 1.27);

        // Lab lines win over scan lines: 800 objects / 100 page visits.
        let lab = run(&(LAB.to_string() + &gc(1, cpu[0]) + SCAN));
        close(v(Metric::PageDensity, &lab), 8.0);
        assert!(lab.scan.is_some());

        // No mark CPU at all: no idle share (and no row value), GC CPU still counted.
        let idle = run(&gc(1, "0.02+0/0/0+0.02"));
        assert_eq!(v(Metric::IdleShare, &idle), None);
        close(v(Metric::GcCpuMsPerCycle, &idle), 0.04);

        // A side without the figure: its spread is None, no delta; the other side's values
        // are kept as they are.
        let plain = [plain];
        let r = row(Metric::PageDensity, &plain, &[scanned, lab]);
        assert!(r.a.is_none() && r.delta_pct.is_none());
        assert_eq!(r.b.map(|s| (s.n, s.min, s.max)), Some((2, 3.0, 8.0)));
        assert!(r.has_values());
        assert_eq!(crate::fmt::verdict_text(&r), "B only");
        assert!(!row(Metric::PageDensity, &plain, &plain).has_values());
    }

    #[test]
    fn new_metrics_follow_compulsory_cpu() {
        let keys: Vec<&str> = Metric::ALL.iter().map(|m| m.key()).collect();
        assert_eq!(
            keys[1..8],
            [
                "compulsory_cpu_ms_per_cycle",
                "compulsory_cpu_s_per_run",
                "cycles_per_run",
                "page_scan_density",
                "gc_cpu_ms_per_cycle",
                "assist_share",
                "idle_share",
            ]
        );
    }
}
