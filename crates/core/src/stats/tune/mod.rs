//! `gcscope tune`: what another GOGC or memory limit would cost, predicted from one run of a
//! trace. A model, never a measurement: everything here says what it assumed, and
//! `tune --verify` checks it by running the program (docs/TUNE.md).
//!
//! The model, per pair of consecutive cycles of the trace (`fit.rs`):
//! - **the goal** under GOGC=g is the runtime's: h2 + (h2 + stacks + globals) × g/100 (Go
//!   1.18+; before, h2 × (1 + g/100)), never below the heap floor 4 MiB × g/100
//!   (mgcpacer.go), and under a memory limit the smaller of that and the limit's goal, never
//!   below the marked heap (mgcpacer.go: the limit goal is floored at heapMarked);
//! - **the heap** at the end of the cycle uses the same share of its runway (goal − marked
//!   heap) as the trace's cycle did (the pacer's over- or undershoot, which scales with the
//!   runway, not with the goal), or more when the mark's allocation overruns what the earliest
//!   trigger leaves (`Floating::used`);
//! - **the marked heap** is the trace's live heap plus what a mark takes in: the runtime marks
//!   what is allocated during marking, and a longer runway lets the mark start later and run
//!   longer (`Floating`);
//! - **the work** stays the trace's: the same MiB allocated, so each pair's allocation is
//!   spread over as many cycles as it takes at what one cycle would allocate (end heap −
//!   marked heap): a warm-up or a moving live heap is followed pair by pair;
//! - **a cycle's cost** (compulsory GC P time: assists, background workers and the two pauses,
//!   not idle marking, which takes Ps nobody wanted and does not depend on GOGC) is the pair's
//!   own, scaled by the marked heap and roots the setting gives over the ones it had (the fit
//!   against the scan work is reported, to show how closely cost follows what is marked);
//! - **forced cycles** (runtime.GC()) are the program's: carried over as they are (number and
//!   cost), the pacer's cycles dividing the work they did not collect;
//! - **calibration**: the model at the trace's own setting against the trace gives a ratio per
//!   figure that every prediction carries (`Calibration`), so the model's absolute error (MiB
//!   truncation, "0 MB" roots) cancels;
//! - **the peak** is the end heap a run of the predicted number of cycles is expected to reach
//!   (`expected_peak`);
//! - **wall time**: a CPU-bound program on P Ps; GC P time added or saved moves the wall time
//!   by that over P (a program waiting on I/O would keep its wall time: the share then
//!   overstates the change);
//! - **the CPU limiter** (mgclimit.go): under a limit GC gets at most ~50 % of the Ps; past
//!   it the heap overruns the limit instead.

pub mod fit;
pub mod verify;

use fit::{CostFit, Pair};
use gcscope_model::CycleSlice;
use serde::Serialize;

/// A memory limit's heap goal: the limit less the memory the runtime maps beside the heap
/// (spans not in use, metadata, stacks, free space in spans) and its 3 % headroom, which
/// gctrace does not print. Fitted by least squares on the goals the binding limits of every
/// recorded part show (traces/go/pacer, tune, tune-holdout 1-3: 17 limits of 8-160 MiB, 3-25
/// MiB beside the heap): 5 MiB + 11 % of the limit.
#[must_use]
pub fn limit_goal(limit_mib: f64) -> f64 {
    limit_mib * (1.0 - LIMIT_OVERHEAD_SHARE) - LIMIT_OVERHEAD_MIB
}

pub const LIMIT_OVERHEAD_SHARE: f64 = 0.11;
pub const LIMIT_OVERHEAD_MIB: f64 = 5.0;

/// A setting to predict: GOGC (`None`: off) and a memory limit in MiB.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Setting {
    pub gogc: Option<u32>,
    pub limit_mib: Option<f64>,
}

impl Setting {
    #[must_use]
    pub fn label(&self) -> String {
        let g = self.gogc.map_or("off".to_string(), |g| g.to_string());
        match self.limit_mib {
            Some(l) => format!("GOGC={g} GOMEMLIMIT={l:.0}MiB"),
            None => format!("GOGC={g}"),
        }
    }
}

/// What the fit read from the trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Basis {
    pub cycles: u32,
    /// Pairs of consecutive cycles the fit used.
    pub pairs_used: u32,
    /// `"go1.18+"` (stacks and globals count in the goal) or `"pre-1.18"` (heap only).
    pub formula: &'static str,
    pub procs: u32,
    /// The trace's own GOGC as the pacer model read it (`null`: it cannot tell).
    pub trace_gogc: Option<u32>,
    /// Cycles whose goal a memory limit set, by the pacer model.
    pub trace_limit_cycles: u32,
    /// MiB allocated over the run (every cycle, pairs left out included).
    pub work_mib: f64,
    pub span_s: f64,
    pub alloc_mib_per_s: f64,
    pub live_mib: Spread3,
    pub roots_mib: f64,
    /// Median share of its runway a cycle used by its end (`fit::Pair::runway_used`).
    pub runway_used: f64,
    pub cost: CostFit,
    pub floating: Floating,
    /// Compulsory GC P time over the trace, s.
    pub compulsory_gc_cpu_s: f64,
    /// Idle marking per cycle, ms: not predicted (it fills idle Ps, whatever GOGC).
    pub idle_ms_per_cycle: f64,
    pub peak_heap_mib: f64,
    /// The median relative error of the runtime's goal rule at the GOGC read back against the
    /// trace's own goals (null without a GOGC).
    pub goal_check: Option<f64>,
    /// Observed / modelled at the trace's own setting, per figure: what every prediction is
    /// multiplied by (null when the trace's setting is not known).
    pub calibration: Option<Calibration>,
    pub assumptions: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread3 {
    pub min: f64,
    pub mean: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Calibration {
    pub cycles: f64,
    pub compulsory_gc_cpu: f64,
    pub peak_heap: f64,
}

/// One setting's predicted cost, for the same work as the trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    pub gogc: Option<u32>,
    pub limit_mib: Option<f64>,
    /// The trace's own setting (its GOGC as read back, no limit given).
    pub own: bool,
    pub cycles: f64,
    pub compulsory_gc_cpu_s: f64,
    /// Compulsory GC P time over GOMAXPROCS × the predicted wall time.
    pub gc_share_of_ps: f64,
    /// The largest end-of-cycle heap (gctrace's middle number), MiB.
    pub peak_heap_mb: f64,
    /// Mean over cycles of (marked heap + end heap) / 2, MiB.
    pub mean_heap_mb: f64,
    pub wall_s: f64,
    pub cycles_per_s: f64,
    /// Share of cycles whose goal the limit would set.
    pub limit_binds_share: f64,
    /// The limiter's ~50 % cap would engage: the heap would overrun the limit instead.
    pub cpu_limiter: bool,
    /// Why this setting is not predicted (outside what the trace shows); the figures are then
    /// absent from the text and null in JSON.
    pub refused: Option<String>,
}

/// A whole `tune` answer for one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tune {
    pub basis: Basis,
    pub predictions: Vec<Prediction>,
}

/// The default grid.
pub const GRID: [u32; 7] = [25, 50, 100, 150, 200, 300, 400];

/// Why a run cannot be tuned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    #[error("too few cycles to fit: {0} usable pairs of consecutive cycles (20 needed)")]
    TooFew(usize),
    #[error(
        "the live heap is still growing ({0:.0} -> {1:.0} MiB from the first third of the run \
         to the last): a steady state is what the model predicts, and this run has none yet"
    )]
    Growing(f64, f64),
    #[error(
        "GOGC changed mid-run (at gc {0}, SetGCPercent or debug.SetMemoryLimit): fit one phase"
    )]
    Changed(u32),
    #[error(
        "the allocation rate changes between the run's halves ({0:.0} vs {1:.0} MiB/s): phases \
         that change are not one program to predict"
    )]
    Phases(f64, f64),
    #[error("{0} of {1} cycles were forced: the program, not the pacer, started them")]
    Forced(usize, usize),
}

/// The goal the runtime would set after a cycle with marked heap `live` and roots `roots`.
fn gogc_goal(live: f64, roots: f64, gogc: f64, pre118: bool) -> f64 {
    let g = gogc / 100.0;
    let goal = if pre118 {
        live * (1.0 + g)
    } else {
        live + (live + roots) * g
    };
    goal.max(4.0 * g)
}

/// What a mark takes in: the runtime marks what is allocated while it marks, so that
/// allocation is in the marked heap, and it decides how far past its goal the heap goes.
///
/// The pacer starts the mark no earlier than 70 % of the runway (mgcpacer.go's trigger
/// bounds, 45/64 to 61/64 of it) and has allocating goroutines assist so that the mark ends by
/// the goal: a mark takes in at most about 30 % of the runway. Where one mark would take in
/// less (a mark short for the allocation rate) the pacer starts it later, and it takes in what
/// the program allocates during one mark, whatever the runway.
/// - **A longer runway** than the trace's: the mark takes in the same share of it as the
///   trace's marks did, up to what one unassisted mark takes in. A trace whose marks took in
///   under 25 % of the runway (85 % of the bound) was not at the bound: its median mark is
///   what one takes in. A trace at the bound had assists speeding its marks: one unassisted
///   mark lasts its P time at the background workers' 25 % of the Ps (mgcpacer.go's
///   gcBackgroundUtilization), at the rate the trace allocated while it marked.
/// - **A shorter runway**: marks that cannot end within 30 % of it overrun; recorded runs
///   (traces/go/pacer/, tune-holdout3/) show the mark's allocation falling about as the square
///   root of the runway.
///
/// Past 30 % of the runway (a mark that overruns) the heap goes over its goal (0.7 x runway
/// + the mark's allocation).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Floating {
    /// The trace's median allocation during a mark (h1 − h0), MiB.
    pub mark_mib: f64,
    /// The trace's median runway (goal − previous marked heap), MiB.
    pub runway_mib: f64,
    /// The most one mark takes in, MiB: the trace's median mark when it was not at the
    /// bound, else the allocation during one unassisted mark.
    pub max_mib: f64,
}

/// The share of its runway a mark can take in: the trigger is at 45/64 of it at the earliest.
const MARK_SHARE_MAX: f64 = 1.0 - 45.0 / 64.0;

/// The background mark workers' share of the Ps (mgcpacer.go: gcBackgroundUtilization).
const BACKGROUND_UTILIZATION: f64 = 0.25;

impl Floating {
    fn of(pairs: &[Pair], procs: f64) -> Floating {
        let med = |v: &mut Vec<f64>| crate::stats::median_f64(v).unwrap_or(0.0);
        let mark_mib = med(&mut pairs.iter().map(|p| p.mark_alloc).collect());
        let runway_mib = med(&mut pairs.iter().map(|p| (p.goal - p.live).max(0.0)).collect());
        let mark_s = med(&mut pairs.iter().map(|p| p.mark_s).collect());
        let work_s = med(&mut pairs
            .iter()
            .map(|p| (p.assist_ms + p.background_ms) / 1e3)
            .collect());
        let at_bound = runway_mib > 0.0 && mark_mib >= 0.85 * MARK_SHARE_MAX * runway_mib;
        let max_mib = if at_bound && mark_s > 0.0 {
            let unassisted_s = mark_s.max(work_s / (BACKGROUND_UTILIZATION * procs.max(1.0)));
            (mark_mib / mark_s * unassisted_s).max(mark_mib)
        } else {
            mark_mib
        };
        Floating {
            mark_mib,
            runway_mib,
            max_mib,
        }
    }

    /// What one mark takes in under a runway of `runway` MiB.
    fn mark(&self, runway: f64) -> f64 {
        if self.runway_mib <= 0.0 {
            return self.mark_mib;
        }
        let r = runway.max(0.0) / self.runway_mib;
        if r <= 1.0 {
            self.mark_mib * r.sqrt()
        } else {
            (self.mark_mib * r).min(self.max_mib)
        }
    }

    /// The marked heap under a goal rule: true live plus what a mark takes in, solved for the
    /// runway the rule gives that marked heap (a square root of a line: it converges).
    fn marked(&self, true_live: f64, runway: impl Fn(f64) -> f64) -> f64 {
        let mut h2 = true_live;
        for _ in 0..60 {
            let next = true_live + self.mark(runway(h2));
            if (next - h2).abs() < 1e-6 {
                break;
            }
            h2 = next;
        }
        h2
    }

    /// The share of its runway a cycle uses by its end: the trace's own, or more when the
    /// mark's allocation overruns the 30 % after the earliest trigger.
    fn used(&self, runway: f64, observed: f64) -> f64 {
        if runway <= 0.0 {
            return observed;
        }
        observed.max(0.7 + self.mark(runway) / runway)
    }
}

/// The figures of one setting over a set of pairs.
struct Sum {
    cycles: f64,
    cpu_ms: f64,
    peak: f64,
    mean: f64,
    binds: f64,
}

/// The largest end-of-cycle heap a run of `cycles` cycles is expected to reach: the end heaps
/// the pairs give, each weighted by the cycles it stands for, at the quantile that the largest
/// of that many draws is expected at, 1 - 1/(cycles + 1). A live heap that spikes for a
/// moment is caught by a run of many short cycles and missed by one of few long ones, as
/// recorded runs show (gofmt at GOGC=400: 15 cycles, a peak far below GOGC x its spike).
fn expected_peak(ends: &mut [(f64, f64)], cycles: f64) -> f64 {
    ends.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = ends.iter().map(|e| e.1).sum();
    if total <= 0.0 {
        return ends.last().map_or(0.0, |e| e.0);
    }
    let q = 1.0 - 1.0 / (cycles.max(1.0) + 1.0);
    let mut acc = 0.0;
    for &(end, w) in ends.iter() {
        acc += w;
        if acc / total >= q {
            return end;
        }
    }
    ends.last().map_or(0.0, |e| e.0)
}

/// Each pair's allocation under setting `s` needs alloc / (what one cycle would allocate
/// under `s`) cycles, each marking what that pair's cycle marked and costing what it cost:
/// a warm-up or a live heap that moves is followed cycle by cycle, not averaged.
/// `heap_scale`: the peak heap's calibration, applied to the end heaps whose goal GOGC set
/// (a limit's goal is the limit's, not the GOGC rule's).
fn run_model(
    pairs: &[Pair],
    work: f64,
    s: Setting,
    pre118: bool,
    fl: &Floating,
    heap_scale: f64,
) -> Sum {
    let (mut cycles, mut cpu_ms, mut mean, mut weight, mut binds) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let mut ends: Vec<(f64, f64)> = Vec::with_capacity(pairs.len());
    for p in pairs {
        let goal_of = |live: f64| {
            let by_gogc = s
                .gogc
                .map(|g| gogc_goal(live, p.roots, f64::from(g), pre118));
            let by_limit = s.limit_mib.map(|l| limit_goal(l).max(live));
            match (by_gogc, by_limit) {
                (Some(g), Some(l)) => (g.min(l), l < g),
                (Some(g), None) => (g, false),
                (None, Some(l)) => (l, true),
                // GOGC=off without a limit is refused before this.
                (None, None) => (live, false),
            }
        };
        // The marked heap this setting leads to: the trace's true live heap plus what marks
        // take in under this runway.
        let live = fl.marked(p.true_live, |h2| goal_of(h2).0 - h2);
        let (goal, bound) = goal_of(live);
        binds += f64::from(u8::from(bound));
        let runway = (goal - live).max(0.0);
        let end = live + runway * fl.used(runway, p.runway_used);
        // The heap as the peak reads it: calibrated where GOGC set the goal.
        let shown = if bound { end } else { end * heap_scale };
        // A cycle allocates at least a little: a goal pinned at the live heap still runs.
        let per_cycle = (end - live).max(0.05 * live.max(1.0));
        let n = p.alloc / per_cycle;
        cycles += n;
        // Marking costs with what is marked: the pair's own cost, scaled by the marked heap
        // and roots this setting gives over the ones the cycle had.
        let scale = if p.scan > 0.0 {
            (live + p.roots) / (p.live + p.roots).max(1e-9)
        } else {
            1.0
        };
        cpu_ms += n * p.cost_ms * scale;
        ends.push((shown, n));
        // Time goes with allocation: each pair weighs by what it allocated.
        mean += p.alloc * (live * heap_scale + shown) / 2.0;
        weight += p.alloc;
    }
    // The work of cycles left out of the fit (gaps, forced cycles) at the fitted pairs' pace.
    let scale = if weight > 0.0 { work / weight } else { 1.0 };
    Sum {
        cycles: cycles * scale,
        cpu_ms: cpu_ms * scale,
        peak: expected_peak(&mut ends, cycles * scale),
        mean: if weight > 0.0 { mean / weight } else { 0.0 },
        binds: binds / pairs.len().max(1) as f64,
    }
}

/// Fit a run's cycles and predict `settings` (the default grid and the trace's own GOGC when
/// empty).
///
/// # Errors
/// A [`Refusal`] when the model does not apply to the run.
pub fn tune(
    cycles: &CycleSlice<'_>,
    pacer: Option<&crate::stats::pacer::PacerSummary>,
    settings: &[Setting],
) -> Result<Tune, Refusal> {
    let forced = cycles.iter().filter(|c| c.forced || c.leak_check).count();
    if cycles.len() >= 4 && 2 * forced >= cycles.len() {
        return Err(Refusal::Forced(forced, cycles.len()));
    }
    if let Some(ch) = pacer.and_then(|p| p.changes.first()) {
        return Err(Refusal::Changed(ch.cycle));
    }
    let (pairs, work) = fit::pairs(cycles);
    // The pacer's cycles divide the work the forced ones did not collect.
    let pacer_work = (work - fit::forced_work(cycles)).max(0.0);
    if pairs.len() < 20 {
        return Err(Refusal::TooFew(pairs.len()));
    }
    let third = pairs.len() / 3;
    let mean_live = |ps: &[Pair]| ps.iter().map(|p| p.live).sum::<f64>() / ps.len().max(1) as f64;
    let (early, late) = (
        mean_live(&pairs[..third]),
        mean_live(&pairs[pairs.len() - third..]),
    );
    if late >= 1.5 * early && late - early >= 4.0 {
        return Err(Refusal::Growing(early, late));
    }
    let half = pairs.len() / 2;
    let rate = |ps: &[Pair]| {
        let span = ps.last().map_or(0.0, |l| l.at_s) - ps.first().map_or(0.0, |f| f.at_s);
        ps.iter().map(|p| p.alloc).sum::<f64>() / span.max(1e-3)
    };
    let (r1, r2) = (rate(&pairs[..half]), rate(&pairs[half..]));
    if r1.max(r2) >= 2.0 * r1.min(r2) {
        return Err(Refusal::Phases(r1, r2));
    }
    let pre118 = cycles.iter().all(|c| c.stacks.is_none());
    let procs = cycles.last().map_or(1, |c| c.procs.max(1));
    let first = cycles.first().map_or(0.0, |c| c.at as f64 / 1e9);
    let last = cycles.last().map_or(0.0, |c| {
        (c.at + c.clock.sweep_term + c.clock.mark + c.clock.mark_term) as f64 / 1e9
    });
    let span = (last - first).max(1e-3);
    let cost = fit::cost_fit(&pairs);
    let floating = Floating::of(&pairs, f64::from(procs));
    let compulsory_ms: f64 = cycles.iter().map(|c| c.compulsory_cpu() as f64 / 1e6).sum();
    // Cycles the program started (runtime.GC, a benchmark's rounds): as many at any setting,
    // each marking the same live heap, so their number and cost are carried over as they are
    // and only the pacer's cycles are modelled.
    let program = Program {
        cycles: forced as f64,
        cost_ms: cycles
            .iter()
            .filter(|c| c.forced || c.leak_check)
            .map(|c| c.compulsory_cpu() as f64 / 1e6)
            .sum(),
    };
    let peak_obs = cycles
        .iter()
        .map(|c| c.heap_end as f64 / fit::MIB)
        .fold(0.0, f64::max);
    let mut ends: Vec<f64> = pairs.iter().map(|p| p.runway_used).collect();
    let trace_gogc = pacer.and_then(|p| p.gogc);
    let limit_cycles = pacer.map_or(0, |p| p.limit_cycles);
    let live = Spread3 {
        min: pairs.iter().map(|p| p.live).fold(f64::MAX, f64::min),
        mean: mean_live(&pairs),
        max: pairs.iter().map(|p| p.live).fold(0.0, f64::max),
    };
    // How well the runtime's rule at the GOGC read back gives the trace's own goals.
    let goal_check = trace_gogc.and_then(|g| {
        let mut errs: Vec<f64> = pairs
            .iter()
            .map(|p| {
                let model = gogc_goal(p.live, p.roots, f64::from(g), pre118);
                let observed = p.goal;
                (model / observed - 1.0).abs()
            })
            .collect();
        crate::stats::median_f64(&mut errs)
    });
    let mut assumptions = vec![
        "the same work: the MiB the trace allocated, at the trace's live heap".to_string(),
        "a CPU-bound program: GC P time added or saved moves wall time by that over P".into(),
        "each cycle's heap ends at the share of its runway the trace's cycle used".into(),
        "what a mark takes in (allocated during marking, so marked) grows with the runway, up \
         to what the program allocates in one unassisted mark"
            .into(),
        format!(
            "a limit's heap goal is the limit less {LIMIT_OVERHEAD_MIB} MiB and {:.1} % of it \
             (memory beside the heap, which gctrace does not print; fitted on recorded limits)",
            LIMIT_OVERHEAD_SHARE * 100.0
        ),
        "idle marking is left out: it fills idle Ps whatever GOGC is".into(),
    ];
    if forced > 0 {
        assumptions.push(format!(
            "{forced} forced cycles (runtime.GC) carried over as they are: as many, at the same \
             cost, at every setting"
        ));
    }
    if pre118 {
        assumptions.push("pre-1.18 lines: goal = heap x (1 + GOGC/100), roots unknown".into());
    }
    if limit_cycles > 0 {
        assumptions.push(format!(
            "a limit set {limit_cycles} of the trace's goals: predictions without --limit \
             show the run without it"
        ));
    }
    // The settings asked for, in their order; the default grid with the trace's own GOGC
    // in its place among them.
    let mut settings = settings.to_vec();
    if settings.is_empty() {
        let mut grid: Vec<u32> = GRID.to_vec();
        if let Some(g) = trace_gogc.filter(|g| !GRID.contains(g)) {
            grid.push(g);
            grid.sort_unstable();
        }
        settings.extend(grid.into_iter().map(|g| Setting {
            gogc: Some(g),
            limit_mib: None,
        }));
    }
    // The model at the trace's own setting against what the trace shows: the ratios that
    // carry its absolute error (MiB truncation on small heaps, roots the runtime counts
    // differently) are taken out of every prediction, which then moves from the trace's own
    // figures. Only when the trace's setting is known: its GOGC read back, no limit binding.
    let calibration = trace_gogc.filter(|_| limit_cycles == 0).map(|g| {
        let m0 = run_model(
            &pairs,
            pacer_work,
            Setting {
                gogc: Some(g),
                limit_mib: None,
            },
            pre118,
            &floating,
            1.0,
        );
        let ratio = |obs: f64, model: f64| {
            if model > 0.0 && obs > 0.0 {
                obs / model
            } else {
                1.0
            }
        };
        Calibration {
            cycles: ratio(cycles.len() as f64 - program.cycles, m0.cycles),
            compulsory_gc_cpu: ratio(compulsory_ms - program.cost_ms, m0.cpu_ms),
            peak_heap: ratio(peak_obs, m0.peak),
        }
    });
    let model = Model {
        pairs: &pairs,
        work: pacer_work,
        floating,
        pre118,
        procs: f64::from(procs),
        span,
        compulsory_ms,
        program,
        peak_obs,
        trace_gogc,
        calibration,
    };
    let predictions = settings.iter().map(|&s| model.predict(s)).collect();
    Ok(Tune {
        basis: Basis {
            cycles: u32::try_from(cycles.len()).unwrap_or(u32::MAX),
            pairs_used: u32::try_from(pairs.len()).unwrap_or(u32::MAX),
            formula: if pre118 { "pre-1.18" } else { "go1.18+" },
            procs,
            trace_gogc,
            trace_limit_cycles: limit_cycles,
            work_mib: work,
            span_s: span,
            alloc_mib_per_s: work / span,
            live_mib: live,
            roots_mib: pairs.iter().map(|p| p.roots).sum::<f64>() / pairs.len() as f64,
            runway_used: crate::stats::median_f64(&mut ends).unwrap_or(1.0),
            cost,
            floating,
            compulsory_gc_cpu_s: compulsory_ms / 1e3,
            idle_ms_per_cycle: pairs.iter().map(|p| p.idle_ms).sum::<f64>() / pairs.len() as f64,
            peak_heap_mib: peak_obs,
            goal_check,
            calibration,
            assumptions,
        },
        predictions,
    })
}

/// Everything a prediction needs from the fit.
struct Model<'a> {
    pairs: &'a [Pair],
    /// The work the pacer's cycles divide (the forced cycles' left out), MiB.
    work: f64,
    floating: Floating,
    pre118: bool,
    procs: f64,
    span: f64,
    compulsory_ms: f64,
    program: Program,
    peak_obs: f64,
    trace_gogc: Option<u32>,
    calibration: Option<Calibration>,
}

/// The cycles the program started itself (forced), and their compulsory GC P time, ms.
#[derive(Clone, Copy)]
struct Program {
    cycles: f64,
    cost_ms: f64,
}

impl Model<'_> {
    fn predict(&self, s: Setting) -> Prediction {
        let mut p = Prediction {
            gogc: s.gogc,
            limit_mib: s.limit_mib,
            own: s.limit_mib.is_none() && s.gogc.is_some() && s.gogc == self.trace_gogc,
            cycles: 0.0,
            compulsory_gc_cpu_s: 0.0,
            gc_share_of_ps: 0.0,
            peak_heap_mb: 0.0,
            mean_heap_mb: 0.0,
            wall_s: 0.0,
            cycles_per_s: 0.0,
            limit_binds_share: 0.0,
            cpu_limiter: false,
            refused: None,
        };
        if s.gogc.is_none() && s.limit_mib.is_none() {
            p.refused =
                Some("GOGC=off with no limit: no goal at all, the heap grows with the work".into());
            return p;
        }
        let heap_scale = self.calibration.map_or(1.0, |c| c.peak_heap);
        let mut m = run_model(
            self.pairs,
            self.work,
            s,
            self.pre118,
            &self.floating,
            heap_scale,
        );
        if let Some(c) = &self.calibration {
            m.cycles *= c.cycles;
            m.cpu_ms *= c.compulsory_gc_cpu;
        }
        m.cycles += self.program.cycles;
        m.cpu_ms += self.program.cost_ms;
        if m.peak > 4.0 * self.peak_obs || m.peak < self.peak_obs / 4.0 {
            p.refused = Some(format!(
                "a peak heap of {:.0} MiB is over 4x from the trace's {:.0} MiB: outside what \
                 it shows",
                m.peak, self.peak_obs
            ));
            return p;
        }
        let (procs, span, c0) = (self.procs, self.span, self.compulsory_ms);
        let mut cpu_ms = m.cpu_ms;
        let mut wall = (span + (cpu_ms - c0) / 1e3 / procs).max(span / 2.0);
        // The limiter caps GC at about half the Ps under a limit (mgclimit.go).
        if s.limit_mib.is_some() && m.binds > 0.0 && cpu_ms / 1e3 > 0.5 * procs * wall {
            p.cpu_limiter = true;
            // The GC P time whose share of P x its own wall time is one half.
            cpu_ms = (procs * span * 1e3 - c0).max(0.0);
            wall = span + (cpu_ms - c0) / 1e3 / procs;
        }
        p.cycles = m.cycles;
        p.compulsory_gc_cpu_s = cpu_ms / 1e3;
        p.gc_share_of_ps = cpu_ms / 1e3 / (procs * wall);
        p.peak_heap_mb = m.peak;
        p.mean_heap_mb = m.mean;
        p.wall_s = wall;
        p.cycles_per_s = m.cycles / wall;
        p.limit_binds_share = m.binds;
        p
    }
}

#[cfg(test)]
mod tests;
