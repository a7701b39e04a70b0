//! One run of cycles -> the figures `gcscope summary` prints (and the dashboard shows).
//!
//! Every field name here is part of the documented `--json` output (docs/SUMMARY.md).
//! The engine that computes them is `run_stats::RunStats`; percentiles are `percentile`'s.

use serde::Serialize;

pub use super::percentile::{histogram, percentiles, percentiles_of, Percentiles, SIGFIG};
pub use super::run_stats::RunStats;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// What the source calls the run: a lab trace's settings (`# gcscope lab tree ...`).
    pub label: Option<String>,
    /// Which line shape the run was printed in.
    pub format: &'static str,
    pub first_line: u64,
    /// `[new, previous]` cycle numbers when this run began because the counter restarted.
    pub restart: Option<(u32, u32)>,
    pub procs: u32,
    /// The cycles the figures are of: all but the setup cycles, or the setup cycles when the
    /// run has no others.
    pub cycles: usize,
    /// Cycles that ran while the lab's workload was still building its heap (warm-up), left
    /// out of every other figure: `cycles + setup_cycles` is every cycle of the run. (A run of
    /// setup cycles only has figures of those, and 0 here.)
    pub setup_cycles: usize,
    /// A sum reached 2^64 - 1 ns and stayed there (values read from text may be anything): the
    /// sums and the figures made of them are lower bounds.
    pub saturated: bool,
    /// Cycles read before the steady-state window (`--from-cycle`, `--after`), left out.
    pub before_window: usize,
    pub forced: usize,
    pub first_cycle: u32,
    pub last_cycle: u32,
    /// Start of the first and last cycle, seconds since process start.
    pub start_s: f64,
    pub end_s: f64,
    /// Cycles per second between the first and last cycle's start, by the runtime's cycle
    /// numbers (None for one cycle).
    pub cycles_per_s: Option<f64>,
    /// Cycles between the first and last whose lines the trace lacks (sampled or lost lines):
    /// `last_cycle - first_cycle + 1 - cycles`.
    pub missing_cycles: u64,
    /// The runtime's cumulative GC CPU % printed on the last line.
    pub final_gc_pct: u16,
    /// Sums over the run, ms.
    pub cpu_ms: CpuMs,
    pub clock_ms: ClockMs,
    /// All GC CPU (`/cpu/classes/gc/total`), and that minus idle marking (compulsory), ms.
    pub gc_cpu_ms: f64,
    pub compulsory_cpu_ms: f64,
    /// Per-cycle medians, ms.
    pub per_cycle_median_ms: PerCycle,
    /// The run passed `per_cycle::ROWS_CAP` cycles, so its per-cycle figures come from
    /// streaming bins (`stats::dist`): the medians of gctrace's own values and every
    /// percentile are still exact; `gc_cpu` and `compulsory_cpu` are within 2^-10 of the
    /// exact median. In JSON only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub per_cycle_binned: bool,
    /// idle / (assist + background + idle), over the run.
    pub idle_share: Option<f64>,
    /// STW pauses (sweep termination + mark termination), never the concurrent mark.
    pub pause_ms: Percentiles,
    /// Concurrent mark wall time.
    pub mark_ms: Percentiles,
    pub heap_live_mb: MinMax,
    pub heap_goal_mb: Option<MinMax>,
    /// From `GODEBUG=gctrace=2` lines, when present.
    pub scan: Option<ScanSummary>,
    /// From the lab's `lab:` lines, when present.
    pub lab: Option<LabSummary>,
    /// Not the last process of a log of several (the counter restarted at gc 1): under `go
    /// run` or `go test`, the go command's or a compile step's (`timeline::summarize`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub earlier_process: bool,
    /// The pacer read back from the cycles: GOGC, the floor, a memory limit
    /// (`pacer::PacerSummary`). `None` only for a summary not made from cycles.
    pub pacer: Option<super::pacer::PacerSummary>,
    /// What the run's numbers say (`findings::evaluate`): in `summary --json` as the
    /// top-level `findings` list, not here.
    #[serde(skip)]
    pub findings: Vec<super::findings::Finding>,
    /// The program's own figures (`--metric NAME=REGEX` of `ab` and `compare`), in the order
    /// first seen.
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "as_map")]
    pub values: Vec<(String, f64)>,
    /// For a program gcscope ran: what other processes used of the machine meanwhile, in
    /// CPUs. Over `LOADED_CPUS` it shared the machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_cpus: Option<f64>,
}

/// Other processes using more than this many CPUs on average while a program ran made its
/// run a loaded one (a quarter of a core: a busy loop on a 2-core machine is 1.0).
pub const LOADED_CPUS: f64 = 0.25;

fn as_map<S: serde::Serializer>(v: &[(String, f64)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(v.iter().map(|(k, x)| (k, x)))
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CpuMs {
    pub sweep_term: f64,
    pub assist: f64,
    pub background: f64,
    pub idle: f64,
    pub mark_term: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClockMs {
    pub sweep_term: f64,
    pub mark: f64,
    pub mark_term: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PerCycle {
    pub assist: f64,
    pub background: f64,
    pub idle: f64,
    pub gc_cpu: f64,
    pub compulsory_cpu: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MinMax {
    pub min: u64,
    pub max: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScanSummary {
    /// `green_tea` when the span counters are present, `legacy` when only objects are.
    pub collector: &'static str,
    pub cycles_with_scan: usize,
    pub objects: u64,
    /// Green Tea: objects scanned per span (page) visit, (A+B+C)/(A+S+D), over the run.
    pub objects_per_span_visit: Option<f64>,
    pub span_visits: Option<u64>,
    /// Share of objects scanned by the dense (SIMD) kernel.
    pub dense_share: Option<f64>,
    /// Per size class (bytes; 0 = large objects): objects and objects per span visit.
    pub classes: Vec<ClassScan>,
}

/// Sums over the cycles of a run that carry lab fields (`Cycle::lab`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabSummary {
    pub cycles_with_lab: usize,
    pub objects_scanned: u64,
    pub bytes_scanned: u64,
    pub page_visits: u64,
    /// Objects scanned per page visit over the run (the lab's page scan density); None
    /// without page visits.
    pub objects_per_page_visit: Option<f64>,
    pub objects_freed: u64,
    /// True thread CPU of all GC work, ms.
    pub thread_cpu_ms: f64,
    /// The same per cycle (`thread_cpu_ms / cycles_with_lab`): the CPU the lab's GC threads
    /// really used in mark segments and in the STW phases (where `gc_cpu_ms` counts a pause
    /// as pause x P, as Go does).
    pub thread_cpu_ms_per_cycle: f64,
    /// Wall time of mark segments whose thread was off the CPU (the OS ran something else),
    /// ms, and that as a share of those segments' wall time (booked assist + background +
    /// idle CPU, plus this): above `LOADED_SHARE` the machine was loaded, so wall-clock
    /// figures (mark wall, pauses, cycles/s) moved with the load. 0 and null for lab traces
    /// written before it was measured.
    pub offcpu_ms: f64,
    pub offcpu_share: Option<f64>,
    /// Page visits by objects scanned per visit, bucket i = [2^i, 2^(i+1)), summed.
    pub density_hist: Vec<u64>,
}

/// Off-CPU share of the mark segments' wall time above which a lab run is reported as run on
/// a loaded machine. Heuristic, measured on the 2-core VM (tree, scale 0.5, 3 s): quiet 13-14 %, with
/// two busy loops 46-58 %.
pub const LOADED_SHARE: f64 = 0.25;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassScan {
    pub class: u32,
    pub objects: u64,
    pub objects_per_span_visit: Option<f64>,
}

impl RunSummary {
    /// Mean compulsory GC CPU per cycle, ms.
    #[must_use]
    pub fn compulsory_ms_per_cycle(&self) -> f64 {
        self.compulsory_cpu_ms / self.cycles as f64
    }

    /// Mean GC CPU (all of it, idle marking included) per cycle, ms.
    #[must_use]
    pub fn gc_cpu_ms_per_cycle(&self) -> f64 {
        self.gc_cpu_ms / self.cycles as f64
    }

    /// Objects scanned per page (span) visit over the run: the lab's figure when the run has
    /// lab lines, otherwise Green Tea's from gctrace=2 `scan:` lines (as `Cycle::page_density`
    /// chooses per cycle). None when neither is there, or the run's lab lines count no visits.
    #[must_use]
    pub fn page_density(&self) -> Option<f64> {
        match &self.lab {
            Some(lab) => lab.objects_per_page_visit,
            None => self.scan.as_ref()?.objects_per_span_visit,
        }
    }
}
