//! Findings: what a run's numbers say, with the cycles that show it, and no more than the
//! sources support (docs/FINDINGS.md has each rule, its threshold and its source).
//!
//! Two halves. `Facts` is a bounded accumulator fed cycle by cycle with the run's other
//! statistics (`RunStats`), mergeable exactly as they are (a large file is read in pieces):
//! sums, counts, the first or largest few cycles of each kind, and live-heap means over
//! fixed time buckets. `evaluate` is a pure function of the run's summary and its facts. No
//! rule reads text.

use super::summary::RunSummary;
use gcscope_model::units::go_ms;
use gcscope_model::Cycle;
use serde::Serialize;

const MIB: u64 = 1 << 20;
/// `MIB` for signed sizes (a heap's overshoot of its goal).
const MIB_I64: i64 = 1 << 20;
/// Evidence cycles kept per kind.
const K: usize = 3;
/// Pause candidates kept (the largest).
const PAUSES: usize = 8;
/// Live-heap time buckets: bucket b holds cycles starting in [2^(b-1), 2^b) s, bucket 0 the
/// first second.
const BUCKETS: usize = 24;

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

/// One cycle kept as evidence, ranked by `key`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Ev {
    num: u32,
    /// The ranking figure (an f32 ranks as well and keeps thousands of runs' facts small).
    key: f32,
    /// Context some rules judge by (pause candidates: the live heap and roots, MiB).
    live_mb: u32,
    roots_mb: u32,
}

/// The `K` (or `cap`) largest by key; the earlier wins a tie. The largest of a union is
/// the largest of the parts' largest, so merging is exact.
fn offer_top(v: &mut Vec<Ev>, e: Ev, cap: usize) {
    let at = v.iter().position(|x| e.key > x.key).unwrap_or(v.len());
    if at < cap {
        v.insert(at, e);
        v.truncate(cap);
    }
}

fn offer_first(v: &mut Vec<Ev>, e: Ev) {
    if v.len() < K {
        v.push(e);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Bucket {
    n: u32,
    /// The cycle that opened the bucket.
    first: u32,
    /// Live heap summed in MiB (gctrace prints whole MB: exact). Saturating, as any u64 may
    /// come: a saturating sum of non-negative terms is the same in any grouping, so merged
    /// pieces still equal the whole.
    live_mb: u64,
}

/// What the rules need of a run's cycles, in bounded memory.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Facts {
    n: usize,
    first: Option<Ev>,
    first_at: u64,
    last_live: u64,
    last_at: u64,
    /// The last cycle's own wall time (its phases), so the run's span covers it too.
    last_wall: u64,
    live_sum: u128,
    roots_sum: u128,
    /// Cycles that print stacks and globals (Go 1.18+), and their sums.
    roots_n: usize,
    roots_live_sum: u128,
    idle_top: Vec<Ev>,
    assist_top: Vec<Ev>,
    forced_n: usize,
    forced_cpu: u64,
    gc_cpu: u64,
    leak_checks: usize,
    forced_first: Vec<Ev>,
    /// Gaps of 110 s or more between cycle starts (sysmon's 2-minute forced GC).
    gap_n: usize,
    gap_first: Vec<Ev>,
    pauses: Vec<Ev>,
    overshoot_n: usize,
    overshoot_top: Vec<Ev>,
    roots_top: Vec<Ev>,
    buckets: Vec<Bucket>,
}

fn roots(c: &Cycle) -> Option<u64> {
    Some(c.stacks?.saturating_add(c.globals?))
}

impl Facts {
    pub fn push(&mut self, c: &Cycle) {
        let mb = |b: u64| u32::try_from(b >> 20).unwrap_or(u32::MAX);
        // The key only ranks cycles (the figures are printed from the cycle): f32 is enough.
        #[allow(clippy::cast_possible_truncation)]
        let ev = |key: f64| Ev {
            num: c.num,
            key: key as f32,
            live_mb: mb(c.heap_live),
            roots_mb: mb(roots(c).unwrap_or(0)),
        };
        // Saturating: values come from text and may be anything a u64 holds.
        let gc = [
            c.cpu.sweep_term,
            c.cpu.assist,
            c.cpu.background,
            c.cpu.idle,
            c.cpu.mark_term,
        ]
        .iter()
        .fold(0u64, |a, &x| a.saturating_add(x));
        let pause = c.clock.sweep_term.saturating_add(c.clock.mark_term);
        if self.n == 0 {
            self.first = Some(ev(0.0));
            self.first_at = c.at;
        } else {
            self.gap(c.at, ev(0.0));
        }
        self.n += 1;
        self.last_live = c.heap_live;
        self.last_at = c.at;
        self.last_wall = c
            .clock
            .sweep_term
            .saturating_add(c.clock.mark)
            .saturating_add(c.clock.mark_term);
        self.live_sum += u128::from(c.heap_live);
        self.gc_cpu = self.gc_cpu.saturating_add(gc);
        if gc > 0 {
            offer_top(&mut self.idle_top, ev(c.cpu.idle as f64 / gc as f64), K);
        }
        offer_top(&mut self.assist_top, ev(c.cpu.assist as f64), K);
        if c.forced || c.leak_check {
            self.forced_n += 1;
            self.forced_cpu = self.forced_cpu.saturating_add(gc);
            self.leak_checks += usize::from(c.leak_check);
            offer_first(&mut self.forced_first, ev(0.0));
        }
        offer_top(&mut self.pauses, ev(pause as f64), PAUSES);
        if let Some(over) = c.overshoot() {
            let goal = c.goal.unwrap_or(0);
            if over >= 2 * MIB_I64 && over as f64 >= 0.05 * goal as f64 {
                self.overshoot_n += 1;
                offer_top(&mut self.overshoot_top, ev(over as f64), K);
            }
        }
        if let Some(r) = roots(c) {
            self.roots_n += 1;
            self.roots_sum += u128::from(r);
            self.roots_live_sum += u128::from(c.heap_live);
            let all = c.heap_live as f64 + r as f64;
            if all > 0.0 {
                offer_top(&mut self.roots_top, ev(r as f64 / all), K);
            }
        }
        let b = bucket(c.at);
        if self.buckets.len() <= b {
            self.buckets.resize(b + 1, Bucket::default());
        }
        let bk = &mut self.buckets[b];
        if bk.n == 0 {
            bk.first = c.num;
        }
        bk.n += 1;
        bk.live_mb = bk.live_mb.saturating_add(c.heap_live >> 20);
    }

    fn gap(&mut self, at: u64, e: Ev) {
        if at.saturating_sub(self.last_at) >= 110_000_000_000 {
            self.gap_n += 1;
            offer_first(&mut self.gap_first, e);
        }
    }

    /// `other`'s cycles after these, as if pushed here.
    pub fn append(&mut self, other: &Facts) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = other.clone();
            return;
        }
        // The reckoning that needs the cycle before `other`'s first.
        if let Some(first) = other.first {
            self.gap(other.first_at, first);
        }
        self.n += other.n;
        self.last_live = other.last_live;
        self.last_at = other.last_at;
        self.last_wall = other.last_wall;
        self.live_sum += other.live_sum;
        self.roots_sum += other.roots_sum;
        self.roots_n += other.roots_n;
        self.roots_live_sum += other.roots_live_sum;
        self.gc_cpu = self.gc_cpu.saturating_add(other.gc_cpu);
        for e in &other.idle_top {
            offer_top(&mut self.idle_top, *e, K);
        }
        for e in &other.assist_top {
            offer_top(&mut self.assist_top, *e, K);
        }
        self.forced_n += other.forced_n;
        self.forced_cpu = self.forced_cpu.saturating_add(other.forced_cpu);
        self.leak_checks += other.leak_checks;
        for e in &other.forced_first {
            offer_first(&mut self.forced_first, *e);
        }
        self.gap_n += other.gap_n;
        for e in &other.gap_first {
            offer_first(&mut self.gap_first, *e);
        }
        for e in &other.pauses {
            offer_top(&mut self.pauses, *e, PAUSES);
        }
        self.overshoot_n += other.overshoot_n;
        for e in &other.overshoot_top {
            offer_top(&mut self.overshoot_top, *e, K);
        }
        for e in &other.roots_top {
            offer_top(&mut self.roots_top, *e, K);
        }
        if self.buckets.len() < other.buckets.len() {
            self.buckets.resize(other.buckets.len(), Bucket::default());
        }
        for (mine, theirs) in self.buckets.iter_mut().zip(&other.buckets) {
            if theirs.n > 0 {
                if mine.n == 0 {
                    mine.first = theirs.first;
                }
                mine.n += theirs.n;
                mine.live_mb = mine.live_mb.saturating_add(theirs.live_mb);
            }
        }
    }
}

fn bucket(at: u64) -> usize {
    let s = at / 1_000_000_000;
    ((u64::BITS - s.leading_zeros()) as usize).min(BUCKETS - 1)
}

/// `[2^(b-1), 2^b)` s as people read it.
fn bucket_span(b: usize) -> String {
    match b {
        0 => "0-1 s".to_string(),
        b if b == BUCKETS - 1 => format!("{} s and later", 1u64 << (b - 1)),
        b => format!("{}-{} s", 1u64 << (b - 1), 1u64 << b),
    }
}

fn mb(bytes: f64) -> String {
    format!("{:.0}", bytes / MIB as f64)
}

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

fn gogc_words(p: &super::pacer::PacerSummary) -> String {
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

/// `min_heap`, `memory_limit` and `gogc_off`, from the pacer model.
fn pacer_findings(s: &RunSummary, p: &super::pacer::PacerSummary, out: &mut Vec<Finding>) {
    let judged = p.cycles_judged;
    // min_heap: the floor, not GOGC, set most goals, and GC runs often.
    if p.floor_cycles >= 3 && 2 * p.floor_cycles >= judged {
        if let Some(rate) = cycle_rate(s).filter(|&r| r >= 10.0) {
            let floor = p
                .floor_mb
                .map_or_else(|| "the floor".to_string(), |f| format!("the {f} MB floor"));
            out.push(finding(
                "min_heap",
                Severity::Warn,
                &cycles_of(&p.floor_first),
                format!(
                    "The heap goal is {floor} (4 MB x GOGC/100, at {}) in {} of {judged} \
                     cycles, and GC runs {rate:.0} times a second (by cycle numbers): the live \
                     heap ({}-{} MB) is too small for GOGC's own goal, so the runtime's floor \
                     sets it (heapMinimum, mgcpacer.go). A larger GOGC raises the floor by 4 MB \
                     per 100 and spaces the cycles out. Not claimed: that the cycles cost much \
                     (a tiny heap marks fast).",
                    gogc_words(p),
                    p.floor_cycles,
                    s.heap_live_mb.min,
                    s.heap_live_mb.max
                ),
            ));
        }
    }
    // memory_limit: goals below GOGC's, graded by how pinned they are and what GC takes.
    if p.limit_cycles >= 3 && 10 * p.limit_cycles >= judged {
        let pinned = f64::from(p.pinned_cycles) / f64::from(judged.max(1));
        let gc_pct = s.final_gc_pct;
        let (severity, grade) = if pinned >= 0.5 && gc_pct >= 25 {
            (
                Severity::Warn,
                format!(
                    "The goal is pinned to the live heap in {} cycles and GC took {gc_pct}% \
                     (cumulative, the runtime's figure): the death spiral the CPU limiter \
                     guards against (at most ~50% of the Ps, mgclimit.go). ",
                    p.pinned_cycles
                ),
            )
        } else if pinned >= 0.2 || gc_pct >= 25 {
            (
                Severity::Warn,
                format!(
                    "Little room is left: the goal sits at the live heap in {} cycles and \
                     GC took {gc_pct}% (cumulative): a risk of thrashing as the live heap \
                     grows. ",
                    p.pinned_cycles
                ),
            )
        } else {
            (Severity::Info, String::new())
        };
        let evidence = if p.pinned_first.is_empty() {
            &p.limit_first
        } else {
            &p.pinned_first
        };
        out.push(finding(
            "memory_limit",
            severity,
            &cycles_of(evidence),
            format!(
                "A memory limit (GOMEMLIMIT) set the goal in {} of {judged} cycles: below what \
                 {} would give from the live heap and roots (goals held at a ceiling while the \
                 live heap moved, or at the live heap itself). {grade}The runtime never sets \
                 the goal below the live heap (mgcpacer.go). Not claimed: the limit's value \
                 (the trace does not print it).",
                p.limit_cycles,
                gogc_words(p),
            ),
        ));
    }
    // gogc_off: only when the pacer model can prove it.
    if p.off == Some(true) {
        let with = if p.limit_cycles > 0 {
            format!(
                "a memory limit set the goals ({} of {judged} cycles)",
                p.limit_cycles
            )
        } else {
            "no limit either: the goal printed is the runtime's no-goal maximum".to_string()
        };
        out.push(finding(
            "gogc_off",
            Severity::Info,
            &cycles_of(&[s.first_cycle]),
            format!(
                "GC is off (GOGC=off): no cycle's goal was GOGC's, from the process's first \
                 cycle on, and {with}. Not claimed: that it was set by the environment rather \
                 than debug.SetGCPercent(-1)."
            ),
        ));
    }
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

    // idle_marking: idle marking is CPU no goroutine wanted (runtime/metrics: not a cost).
    if s.gc_cpu_ms > 0.0 {
        let idle = s.cpu_ms.idle / s.gc_cpu_ms;
        let material = gc_share.is_some_and(|g| g >= 0.01);
        if idle >= 0.2 && material {
            let severity = if idle >= 1.0 / 3.0 {
                Severity::Warn
            } else {
                Severity::Info
            };
            let total_pct = gc_share.unwrap_or(0.0) * 100.0;
            out.push(finding(
                "idle_marking",
                severity,
                &f.idle_top,
                format!(
                    "{} of GC CPU is idle marking ({} of {} ms): of GC's {:.1}% of the \
                     {} Ps' time, {:.1} points are idle Ps marking with CPU no goroutine \
                     wanted. runtime/metrics counts it apart (/cpu/classes/gc/mark/idle); \
                     compulsory GC CPU ({} ms) is the cost. Not claimed: that the program \
                     would run faster without it.",
                    pct(idle),
                    go_ms(s.cpu_ms.idle),
                    go_ms(s.gc_cpu_ms),
                    total_pct,
                    s.procs,
                    total_pct * idle,
                    go_ms(s.compulsory_cpu_ms)
                ),
            ));
        }
    }

    // assist_bound: mutators marking because they allocate faster than the background
    // workers (25 % of the Ps) keep up.
    if capacity_ms > 0.0 {
        let assist = (s.cpu_ms.assist / capacity_ms).min(1.0);
        if assist >= 0.05 {
            let dominant = s.cpu_ms.assist > s.cpu_ms.background;
            out.push(finding(
                "assist_bound",
                Severity::Warn,
                &f.assist_top,
                format!(
                    "Mark assists took {} of the Ps' time ({} ms){}: goroutines that \
                     allocate during marking pay for it in latency. The runtime aims \
                     background marking at 25% of the Ps (gcBackgroundUtilization, \
                     mgcpacer.go) and has allocating goroutines assist when they outrun it; \
                     5% is gcscope's threshold, not the runtime's. More headroom (a larger \
                     GOGC or memory limit) or less allocation reduce them. Not claimed: \
                     which goroutines paid.",
                    pct(assist),
                    go_ms(s.cpu_ms.assist),
                    if dominant {
                        format!(
                            ", more than the background workers ({} ms): assists dominate",
                            go_ms(s.cpu_ms.background)
                        )
                    } else {
                        String::new()
                    }
                ),
            ));
        }
    }

    // The pacer's rules read the pacer model (stats/pacer.rs: GOGC, the floor and a limit
    // read back from the goals), never a threshold on the goals' ratios.
    if let Some(p) = &s.pacer {
        pacer_findings(s, p, &mut out);
    }

    // forced: runtime.GC, debug.FreeOSMemory, goroutine-leak checks.
    if f.forced_n > 0 {
        let cpu = if f.gc_cpu > 0 {
            f.forced_cpu as f64 / f.gc_cpu as f64
        } else {
            0.0
        };
        out.push(finding(
            "forced",
            if cpu >= 0.5 {
                Severity::Warn
            } else {
                Severity::Info
            },
            &f.forced_first,
            format!(
                "{} of {} cycles were forced{} ({} of GC CPU): the program, not the pacer, \
                 started them (runtime.GC, debug.FreeOSMemory{}). Not claimed: which call.",
                f.forced_n,
                f.n,
                if f.leak_checks > 0 {
                    format!(", {} of them goroutine-leak checks", f.leak_checks)
                } else {
                    String::new()
                },
                pct(cpu),
                if f.leak_checks > 0 {
                    ", the goroutineleak profile"
                } else {
                    ""
                }
            ),
        ));
    }

    // periodic: sysmon forces a GC when none ran for 2 minutes (forcegcperiod).
    if f.gap_n > 0 {
        out.push(finding(
            "periodic",
            Severity::Info,
            &f.gap_first,
            format!(
                "{} cycle{} came 2 minutes or more after the one before: sysmon's periodic \
                 GC of a program that allocates little (forcegcperiod; gctrace=1 prints `GC \
                 forced` before it). Benign: it returns memory to the OS.",
                f.gap_n,
                if f.gap_n == 1 { "" } else { "s" }
            ),
        ));
    }

    // pause_outlier: a long stop-the-world pause on a heap like the others.
    let p50_ms = s.pause_ms.p50;
    let live_mean = f.live_sum as f64 / n;
    let roots_mean = if f.roots_n > 0 {
        f.roots_sum as f64 / f.roots_n as f64
    } else {
        0.0
    };
    // A median of a handful of pauses says little: from 5 cycles.
    let outliers: Vec<Ev> = f
        .pauses
        .iter()
        .filter(|_| f.n >= 5)
        .filter(|e| {
            let ms = f64::from(e.key) / 1e6;
            let mib = MIB as f64;
            ms >= 1.0
                && ms >= 10.0 * p50_ms
                && f64::from(e.live_mb) * mib <= 2.0 * live_mean + mib
                && f64::from(e.roots_mb) * mib <= 2.0 * roots_mean + mib
        })
        .copied()
        .collect();
    if let Some(worst) = outliers.first() {
        // One or two short ones on a shared machine are common (quiet real runs have them);
        // several, or one of 10 ms and more, is worth a warning.
        let severity = if outliers.len() >= 3 || worst.key >= 10e6 {
            Severity::Warn
        } else {
            Severity::Info
        };
        out.push(finding(
            "pause_outlier",
            severity,
            &outliers[..outliers.len().min(K)],
            format!(
                "A stop-the-world pause of {} ms (gc {}) against a median of {} ms, on a heap, \
                 stacks and globals like the other cycles': the pause is not explained by GC \
                 work. Stopping the world waits for every P to stop; causes outside the GC are \
                 OS scheduling (more runnable threads than CPUs: is GOMAXPROCS, {} here, above \
                 the CPUs the process may use?), a CPU quota, or swapping (seed 003: a 40 ms \
                 pause). Not claimed: which of these.",
                go_ms(f64::from(worst.key) / 1e6),
                worst.num,
                go_ms(p50_ms),
                s.procs
            ),
        ));
    }

    // live_growth: the live heap still rising over the last doublings of run time.
    let full: Vec<(usize, &Bucket)> = f
        .buckets
        .iter()
        .enumerate()
        .filter(|(_, b)| b.n >= 3)
        .collect();
    if s.end_s >= 10.0 && full.len() >= 3 {
        let last3 = &full[full.len() - 3..];
        let mean = |b: &Bucket| b.live_mb as f64 * MIB as f64 / f64::from(b.n);
        let (a, b, c) = (mean(last3[0].1), mean(last3[1].1), mean(last3[2].1));
        if b >= 1.1 * a && c >= 1.25 * b && c >= a + 4.0 * MIB as f64 {
            out.push(finding(
                "live_growth",
                Severity::Warn,
                &[last3[1].1.first, last3[2].1.first].map(|num| Ev {
                    num,
                    ..Ev::default()
                }),
                format!(
                    "The live heap keeps rising: on average {} MB in {}, {} MB in {}, {} MB in \
                     {}. A heap that is still growing long after start-up can be a leak, or a \
                     cache or queue filling up. Not claimed: a leak (only a heap profile shows \
                     what is retained).",
                    mb(a),
                    bucket_span(last3[0].0),
                    mb(b),
                    bucket_span(last3[1].0),
                    mb(c),
                    bucket_span(last3[2].0)
                ),
            ));
        }
    }

    // page_density: Green Tea's batching on this heap (gctrace=2, Go 1.25+).
    if let Some(scan) = &s.scan {
        if let Some(d) = scan.objects_per_span_visit {
            let (band, severity) = if d < 2.0 {
                (
                    "little batching: most page visits scan one object",
                    Severity::Warn,
                )
            } else if d < 8.0 {
                ("some batching", Severity::Info)
            } else {
                (
                    "strong batching: Green Tea is doing what it is for",
                    Severity::Info,
                )
            };
            let large: u64 = scan
                .classes
                .iter()
                .filter(|c| c.class == 0 || c.class > 512)
                .map(|c| c.objects)
                .sum();
            let large_share = if scan.objects > 0 {
                large as f64 / scan.objects as f64
            } else {
                0.0
            };
            out.push(finding(
                "page_density",
                severity,
                &[],
                format!(
                    "Green Tea scanned {:.1} objects per page visit: {band}. {} of scanned \
                     objects are over 512 B, which Green Tea never batches \
                     (mgcmark_greenteagc.go). Dense pages of small objects are where it \
                     saves (seed 000: -60% GC CPU on a scattered map); one object per visit \
                     is where it can cost more (seed 001: +39% on 768 B pointer-free \
                     objects). Bands are gcscope's heuristic.",
                    d,
                    pct(large_share)
                ),
            ));
        }
    }

    // overshoot: the heap ends above its goal.
    let over = f.overshoot_n as f64 / n;
    if over >= 0.2 {
        out.push(finding(
            "overshoot",
            Severity::Info,
            &f.overshoot_top,
            format!(
                "In {} of cycles the heap ended 2 MB and 5% or more above its goal: the \
                 program allocated faster during marking than the pacer planned for. Peak \
                 memory is above the goal by that much. Not claimed: that the pacer is wrong \
                 (it adapts over the next cycles).",
                pct(over)
            ),
        ));
    }

    // roots_dominate: stacks and globals a large part of what is scanned (Go 1.18+).
    if f.roots_n >= 2 {
        let share = f.roots_sum as f64 / ((f.roots_sum + f.roots_live_sum) as f64).max(1.0);
        if share >= 0.2 {
            out.push(finding(
                "roots_dominate",
                Severity::Info,
                &f.roots_top,
                format!(
                    "Stacks and globals are {} of the heap, stacks and globals together \
                     (means {} MB of roots, {} MB live): since Go 1.18 they count in the GOGC \
                     goal, and every cycle scans them. Fewer or shallower goroutines, or \
                     smaller pointerful globals, shrink them. Not claimed: scan time (Go \
                     1.19 prints allocated, not scanned, stack space).",
                    pct(share),
                    mb(f.roots_sum as f64 / f.roots_n as f64),
                    mb(f.roots_live_sum as f64 / f.roots_n as f64)
                ),
            ));
        }
    }

    out.sort_by_key(|f| std::cmp::Reverse(f.severity == Severity::Warn));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_model::Cycle;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    fn cyc(seed: &mut u64, num: u32, at: &mut u64) -> Cycle {
        *at += [0, 1_000_000, 120_000_000_000, 3_000_000_000][(rng(seed) % 4) as usize];
        let mut c = Cycle {
            num,
            at: *at,
            ..Cycle::default()
        };
        c.heap_live = [1, 16, 20, 100][(rng(seed) % 4) as usize] * MIB;
        c.heap_end = c.heap_live + [0, 3, 10][(rng(seed) % 3) as usize] * MIB;
        c.goal = Some([4, 21, 24, 40, 200][(rng(seed) % 5) as usize] * MIB);
        c.forced = rng(seed).is_multiple_of(5);
        c.cpu.idle = [0, 5, 5][(rng(seed) % 3) as usize];
        c.cpu.assist = [0, 5, 7][(rng(seed) % 3) as usize];
        c.cpu.background = 5;
        c.clock.sweep_term = [1, 2, 2][(rng(seed) % 3) as usize];
        if rng(seed).is_multiple_of(2) {
            c.stacks = Some((rng(seed) % 3) * MIB);
            c.globals = Some(MIB);
        }
        c
    }

    /// Pieces appended (up to 4, split anywhere) equal the cycles pushed one by one: 120 s
    /// gaps, goal/live ratios and ties across the cuts. (helper-10's review.)
    #[test]
    fn append_is_exact() {
        for s in 1..3000u64 {
            let mut seed = s.wrapping_mul(0x9E3779B97F4A7C15) | 1;
            let n = (rng(&mut seed) % 30) as usize + 1;
            let mut at = 0;
            let cs: Vec<Cycle> = (0..n)
                .map(|i| cyc(&mut seed, u32::try_from(i).unwrap() + 1, &mut at))
                .collect();
            let mut whole = Facts::default();
            cs.iter().for_each(|c| whole.push(c));
            // split in up to 4 pieces
            let mut cuts: Vec<usize> = (0..3)
                .map(|_| usize::try_from(rng(&mut seed) % (n as u64 + 1)).unwrap())
                .collect();
            cuts.push(0);
            cuts.push(n);
            cuts.sort();
            let mut merged = Facts::default();
            for w in cuts.windows(2) {
                let mut p = Facts::default();
                cs[w[0]..w[1]].iter().for_each(|c| p.push(c));
                merged.append(&p);
            }
            assert_eq!(whole, merged, "seed {s}");
        }
    }

    /// A million cycles of the largest live heap the parser takes: the sums do not overflow
    /// (a u64 bucket sum did, and panicked in release builds).
    #[test]
    fn huge_live_heaps_do_not_overflow_the_sums() {
        let mut c = Cycle {
            heap_live: ((1u64 << 44) - 1) << 20,
            ..Cycle::default()
        };
        let mut f = Facts::default();
        for i in 0..(1u32 << 20) + 2 {
            c.num = i;
            f.push(&c);
        }
    }

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
}
