//! What one run of a trace says about the program, independent of its GOGC: the work it does
//! (bytes allocated between cycles), its live heap and roots, how far each cycle's heap ended
//! from its goal, and what a cycle's marking costs.
//!
//! The fit reads pairs of consecutive cycles (cycle N−1 set cycle N's goal from its marked
//! heap): a pair with a gap in the cycle numbers (sampled or lost lines) or a forced cycle N
//! (the program, not the pacer, started it) is left out of the fit, and its allocation still
//! counts in the work.

use gcscope_model::{Cycle, CycleSlice};
use serde::Serialize;

/// MiB, the unit gctrace prints as "MB" (the runtime divides by 1<<20).
pub const MIB: f64 = 1_048_576.0;

/// One pair of consecutive cycles, in MiB and ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    /// Cycle N−1's marked heap (the live heap the goal is built on).
    pub live: f64,
    /// Cycle N−1's stacks + globals (0 before Go 1.18).
    pub roots: f64,
    /// Cycle N's goal, MiB.
    pub goal: f64,
    /// How much of its runway (goal − previous marked heap) cycle N used by its end:
    /// (h1 − h2_{N−1}) / (goal − h2_{N−1}), the pacer's under- (< 1) or overshoot (> 1) as a
    /// share of the runway, which is what another GOGC scales.
    pub runway_used: f64,
    /// Cycle N's heap at its end (`->h1->`).
    pub end: f64,
    /// Allocated between cycle N−1's end and cycle N's: h1_N − h2_{N−1}.
    pub alloc: f64,
    /// Cycle N's compulsory GC P time (all but idle marking), ms.
    pub cost_ms: f64,
    /// Cycle N's idle marking, ms.
    pub idle_ms: f64,
    /// What cycle N marked: its live heap + stacks + globals.
    pub scan: f64,
    /// Cycle N's start, s since process start.
    pub at_s: f64,
    /// Cycle N−1's marked heap without what it allocated during its own mark (h1 − h0 of
    /// that cycle): the runtime marks objects allocated during marking, so h2 holds them, and
    /// that part grows with the runway another GOGC gives.
    pub true_live: f64,
    /// Allocated during cycle N's mark (h1 − h0), MiB.
    pub mark_alloc: f64,
    /// Cycle N's concurrent mark, wall s.
    pub mark_s: f64,
    /// Cycle N's assist and background mark P time, ms.
    pub assist_ms: f64,
    pub background_ms: f64,
}

/// The mark cost per cycle, and how it goes with the scan work: cost = intercept + slope x
/// scan by least squares. Another GOGC leaves what each cycle marks (the live heap and roots)
/// as it is, so a prediction uses the mean; the line says whether the cost follows the scan
/// work at all (r2) and how much a cycle's cost scatters around it (rms).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CostFit {
    pub mean_ms: f64,
    pub intercept_ms: f64,
    pub ms_per_mib: f64,
    /// Share of the cost's variance the line explains (0 when scan work does not vary).
    pub r2: f64,
    /// Root mean square of the residuals around the line, ms.
    pub rms_ms: f64,
    /// The scan work's relative spread (max - min) / mean over the pairs.
    pub scan_spread: f64,
}

/// A value printed in whole MiB, truncated: its expected true value is half a MiB more.
fn mib(bytes: u64) -> f64 {
    let v = bytes as f64 / MIB;
    if bytes.is_multiple_of(1 << 20) {
        v + 0.5
    } else {
        v
    }
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// The pairs of a run, and the allocation of every cycle (pairs left out included), MiB.
#[must_use]
pub fn pairs(cycles: &CycleSlice<'_>) -> (Vec<Pair>, f64) {
    let mut out = Vec::with_capacity(cycles.len());
    let mut work = 0.0;
    for (p, c) in cycles.pairs() {
        if c.num != p.num + 1 {
            continue;
        }
        let alloc = (c.heap_end as f64 - p.heap_live as f64).max(0.0) / MIB;
        work += alloc;
        let Some(goal) = c.goal.filter(|&g| g > 0) else {
            continue;
        };
        if c.forced || c.leak_check {
            continue;
        }
        let roots = |x: &Cycle| x.stacks.map_or(0.0, mib) + x.globals.map_or(0.0, mib);
        let cpu = &c.cpu;
        out.push(Pair {
            live: mib(p.heap_live),
            roots: if p.stacks.is_some() { roots(&p) } else { 0.0 },
            goal: goal as f64 / MIB,
            runway_used: {
                let runway = (goal as f64 - p.heap_live as f64).max(MIB);
                ((c.heap_end as f64 - p.heap_live as f64) / runway).clamp(0.0, 3.0)
            },
            end: c.heap_end as f64 / MIB,
            alloc,
            cost_ms: ms(c.compulsory_cpu()),
            idle_ms: ms(cpu.idle),
            scan: mib(c.heap_live) + roots(&c),
            at_s: c.at as f64 / 1e9,
            true_live: (mib(p.heap_live) - p.heap_end.saturating_sub(p.heap_start) as f64 / MIB)
                .max(0.0),
            mark_alloc: c.heap_end.saturating_sub(c.heap_start) as f64 / MIB,
            mark_s: c.clock.mark as f64 / 1e9,
            assist_ms: ms(cpu.assist),
            background_ms: ms(cpu.background),
        });
    }
    (out, work)
}

/// The allocation that forced cycles collected (each from the cycle before it), MiB: work the
/// program's own runtime.GC() calls, not the pacer, ended.
#[must_use]
pub fn forced_work(cycles: &CycleSlice<'_>) -> f64 {
    cycles
        .pairs()
        .filter(|(p, c)| c.num == p.num + 1 && (c.forced || c.leak_check))
        .map(|(p, c)| (c.heap_end as f64 - p.heap_live as f64).max(0.0) / MIB)
        .sum()
}

/// Least squares of cost on scan work.
#[must_use]
pub fn cost_fit(pairs: &[Pair]) -> CostFit {
    let n = pairs.len().max(1) as f64;
    let mx = pairs.iter().map(|p| p.scan).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.cost_ms).sum::<f64>() / n;
    let sxx: f64 = pairs.iter().map(|p| (p.scan - mx).powi(2)).sum();
    let sxy: f64 = pairs.iter().map(|p| (p.scan - mx) * (p.cost_ms - my)).sum();
    let syy: f64 = pairs.iter().map(|p| (p.cost_ms - my).powi(2)).sum();
    let (lo, hi) = pairs.iter().fold((f64::MAX, f64::MIN), |(a, b), p| {
        (a.min(p.scan), b.max(p.scan))
    });
    let spread = if mx > 0.0 { (hi - lo) / mx } else { 0.0 };
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let intercept = my - slope * mx;
    let ss_res: f64 = pairs
        .iter()
        .map(|p| (p.cost_ms - (intercept + slope * p.scan)).powi(2))
        .sum();
    let r2 = if syy > 0.0 && sxx > 0.0 {
        1.0 - ss_res / syy
    } else {
        0.0
    };
    CostFit {
        mean_ms: my,
        intercept_ms: intercept,
        ms_per_mib: slope,
        r2,
        rms_ms: (ss_res / n).sqrt(),
        scan_spread: spread,
    }
}
