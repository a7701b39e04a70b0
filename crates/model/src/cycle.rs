//! The `Cycle` record: the one data model every source produces and every view reads.
//!
//! Durations are integer nanoseconds and sizes integer bytes, so values are exact to the text
//! ("0.29 ms" is 290 000 ns) and sums never drift. Fields a format lacks are `Option`.

/// Nanoseconds.
pub type Ns = u64;

/// One garbage-collection cycle as printed by `GODEBUG=gctrace=1` (or produced by the lab).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cycle {
    /// The runtime's cycle counter (`gc 6`).
    pub num: u32,
    /// Start of the cycle (sweep termination) since process start, ns (`@0.458s`, ms resolution).
    pub at: Ns,
    /// Cumulative GC CPU share since process start, whole percent (`7%`). Not a per-cycle figure.
    pub cum_pct: u16,
    /// `(forced)`: `runtime.GC()` or a forced periodic cycle started it.
    pub forced: bool,
    /// `(checking for goroutine leaks)` (Go 1.26+ with goroutine leak detection).
    pub leak_check: bool,
    /// Wall-clock phases.
    pub clock: Clock,
    /// CPU time by class (the runtime's own accounting).
    pub cpu: Cpu,
    /// Go 1.5 printed five phases; the two it later dropped are kept here.
    pub go15: Option<Box<Go15Phases>>,
    /// Heap at GC start (`98->`), bytes (the text is MiB, truncated).
    pub heap_start: u64,
    /// Heap at GC end (`->105->`), bytes.
    pub heap_end: u64,
    /// Marked (live) heap (`->103 MB`), bytes.
    pub heap_live: u64,
    /// Heap goal, bytes. Absent in early Go 1.5.
    pub goal: Option<u64>,
    /// `MB stacks` (Go 1.18+), bytes.
    pub stacks: Option<u64>,
    /// `MB globals` (Go 1.18+), bytes.
    pub globals: Option<u64>,
    /// GOMAXPROCS (`4 P`).
    pub procs: u32,
    /// Physical line number (1-based) the cycle was read from; 0 when not read from text.
    pub line: u64,
    /// `GODEBUG=gctrace=2` per-size-class scan statistics (Go 1.25+), when present.
    pub scan: Option<Box<ScanStats>>,
    /// Fields only the lab collector produces.
    pub lab: Option<Box<LabStats>>,
}

/// Wall-clock phases, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Clock {
    /// Stop-the-world sweep termination.
    pub sweep_term: Ns,
    /// Concurrent mark and scan (in Go 1.5: the mark phase only; see `Go15Phases`).
    pub mark: Ns,
    /// Stop-the-world mark termination.
    pub mark_term: Ns,
}

/// CPU time by class, ns. The two STW terms are `stwprocs × wall` (overestimates by design).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cpu {
    pub sweep_term: Ns,
    /// Mark assists paid by allocating goroutines.
    pub assist: Ns,
    /// Dedicated + fractional background mark workers.
    pub background: Ns,
    /// Idle mark workers: CPU the scheduler had no other use for.
    pub idle: Ns,
    pub mark_term: Ns,
}

/// The two extra phases of Go 1.5's five-phase line (`a+b+c+d+e ms clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Go15Phases {
    pub clock_scan: Ns,
    pub clock_install_wb: Ns,
    pub cpu_scan: Ns,
    pub cpu_install_wb: Ns,
}

/// Scan counters printed by `GODEBUG=gctrace=2` after the cycle's line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScanStats {
    pub total: ScanCounts,
    /// Per size class, in printed order. `class` is the object size in bytes, 0 for `L` (large).
    pub classes: Vec<(u32, ScanCounts)>,
}

/// One `scan:` line's counters. Legacy builds print only `objs` (the other fields stay `None`).
///
/// Green Tea (Go 1.26 meaning): `sparse_objs` objects scanned one at a time (including the
/// single-object span fast path), `span_objs_sparse` objects in span scans done per object,
/// `span_objs_dense` objects in span scans done by the SIMD kernel; `spans_sparse` and
/// `spans_dense` count those span scans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScanCounts {
    pub objs: u64,
    pub green_tea: Option<GreenTeaCounts>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GreenTeaCounts {
    pub sparse_objs: u64,
    pub span_objs_sparse: u64,
    pub span_objs_dense: u64,
    pub spans_sparse: u64,
    pub spans_dense: u64,
}

impl GreenTeaCounts {
    /// Page (span) visits: every single-object scan is one visit, every span scan one more.
    #[must_use]
    pub fn visits(&self) -> u64 {
        self.sparse_objs + self.spans_sparse + self.spans_dense
    }

    /// Objects scanned per span visit = (A+B+C)/(A+S+D).
    #[must_use]
    pub fn density(&self) -> Option<f64> {
        let visits = self.visits();
        (visits > 0).then(|| {
            (self.sparse_objs + self.span_objs_sparse + self.span_objs_dense) as f64 / visits as f64
        })
    }
}

/// Lab-only per-cycle fields (the lab's trace extension carries them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabStats {
    pub objects_scanned: u64,
    pub bytes_scanned: u64,
    pub page_visits: u64,
    pub objects_freed: u64,
    /// Histogram of objects scanned per page visit, bucket i = [2^i, 2^(i+1)).
    pub density_hist: Vec<u64>,
    /// True thread CPU of all GC work (CLOCK_THREAD_CPUTIME_ID), beside the Go-style accounting.
    pub thread_cpu: Ns,
    /// Wall time of the cycle's mark segments (assist, background, idle) during which their
    /// thread was not on a CPU: the OS ran something else. The lab books segments at their
    /// CPU time and this apart; Go's wall-time accounting would count it as GC CPU. (Absent
    /// from lab traces written before it: 0.)
    pub offcpu: Ns,
    /// The workload was still building its long-lived heap: a warm-up cycle, counted but left
    /// out of a run's figures (like a benchmark's warm-up), unless the run has nothing else.
    pub setup: bool,
    /// In a live lab A/B, which of its side's turns on the machine the cycle ran in (0, 1,
    /// ...): a turn is one sample of the side (`stats::turns`). `None` outside an A/B.
    pub turn: Option<u32>,
}

impl LabStats {
    #[must_use]
    pub fn density(&self) -> Option<f64> {
        (self.page_visits > 0).then(|| self.objects_scanned as f64 / self.page_visits as f64)
    }
}

impl Cycle {
    /// Stop-the-world pause: sweep termination + mark termination, never the concurrent mark.
    #[must_use]
    pub fn pause(&self) -> Ns {
        self.clock.sweep_term + self.clock.mark_term
    }

    /// Wall time of the concurrent mark (in Go 1.5 including scan and write-barrier install).
    #[must_use]
    pub fn mark_wall(&self) -> Ns {
        self.clock.mark
            + self
                .go15
                .as_deref()
                .map_or(0, |g| g.clock_scan + g.clock_install_wb)
    }

    /// All GC CPU of the cycle, as `/cpu/classes/gc/total` counts it.
    #[must_use]
    pub fn gc_cpu(&self) -> Ns {
        let c = &self.cpu;
        c.sweep_term
            + c.assist
            + c.background
            + c.idle
            + c.mark_term
            + self
                .go15
                .as_deref()
                .map_or(0, |g| g.cpu_scan + g.cpu_install_wb)
    }

    /// GC CPU minus idle marking: runtime/metrics' "compulsory GC CPU".
    #[must_use]
    pub fn compulsory_cpu(&self) -> Ns {
        self.gc_cpu() - self.cpu.idle
    }

    /// Mark CPU: assist + background + idle.
    #[must_use]
    pub fn mark_cpu(&self) -> Ns {
        self.cpu.assist + self.cpu.background + self.cpu.idle
    }

    /// Share of mark CPU done by idle workers, `None` when no mark CPU was recorded.
    #[must_use]
    pub fn idle_share(&self) -> Option<f64> {
        let m = self.mark_cpu();
        (m > 0).then(|| self.cpu.idle as f64 / m as f64)
    }

    /// Heap at end minus goal (positive: the cycle overshot its goal).
    #[must_use]
    pub fn overshoot(&self) -> Option<i64> {
        // In i128: sizes are u64 bytes read from text and may be anything.
        let diff = |g: u64| i128::from(self.heap_end) - i128::from(g);
        // Saturated into i64: a difference beyond 8 EiB is no heap.
        self.goal.map(|g| {
            i64::try_from(diff(g)).unwrap_or(if diff(g) < 0 { i64::MIN } else { i64::MAX })
        })
    }

    /// Objects per page visit, from the lab or from `gctrace=2` Green Tea counters.
    #[must_use]
    pub fn page_density(&self) -> Option<f64> {
        if let Some(lab) = &self.lab {
            return lab.density();
        }
        self.scan.as_ref()?.total.green_tea?.density()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_values() {
        let c = Cycle {
            clock: Clock {
                sweep_term: 80_000,
                mark: 54_000_000,
                mark_term: 94_000,
            },
            cpu: Cpu {
                sweep_term: 320_000,
                assist: 98_000,
                background: 53_000_000,
                idle: 103_000_000,
                mark_term: 370_000,
            },
            heap_end: 105 << 20,
            goal: Some(114 << 20),
            ..Default::default()
        };
        assert_eq!(c.pause(), 174_000);
        assert_eq!(c.mark_wall(), 54_000_000);
        assert_eq!(c.gc_cpu(), 156_788_000);
        assert_eq!(c.compulsory_cpu(), 53_788_000);
        let share = c.idle_share().unwrap();
        assert!((share - 103.0 / 156.098).abs() < 1e-9);
        assert_eq!(c.overshoot(), Some(-(9 << 20)));
    }

    #[test]
    fn green_tea_density() {
        // scan: total 893+27590+186390=214873 objs, 2205+1298=3503 spans
        let g = GreenTeaCounts {
            sparse_objs: 893,
            span_objs_sparse: 27590,
            span_objs_dense: 186390,
            spans_sparse: 2205,
            spans_dense: 1298,
        };
        assert_eq!(g.visits(), 893 + 3503);
        assert!((g.density().unwrap() - 214873.0 / 4396.0).abs() < 1e-9);
        assert_eq!(GreenTeaCounts::default().density(), None);
    }
}
