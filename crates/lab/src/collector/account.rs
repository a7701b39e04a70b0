//! CPU accounting: each mark segment (assist, background, idle) is booked at the CPU time its
//! thread ran. Go's gctrace books a P's wall time instead; the two agree while the thread has
//! a CPU to itself, and the rest of the wall time (run-queue wait on a loaded machine) is
//! booked apart as off-CPU time, so a busy laptop reports its load instead of bending the
//! markers' CPU figures (a wall-time booking inflated Green Tea's by up to +39 % on tree).

use super::cycle::{MarkTerm, SweepTerm};
use super::{CycleResult, Gc};
use crate::heap::sizeclass;
use crate::mark::{MarkStats, Marker};
use crate::sched::StoppedWorld;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Accounting of one cycle, filled by workers and assists. Relaxed counters: the coordinator
/// reads them with the world stopped, after every booking thread gave its P back (a mutex).
#[derive(Default)]
pub struct CycleAcct {
    assist_ns: AtomicU64,
    bg_ns: AtomicU64,
    idle_ns: AtomicU64,
    pub(super) thread_cpu_ns: AtomicU64,
    /// Wall time of mark segments their thread spent off the CPU (descheduled by the OS:
    /// a loaded machine), which Go's wall-time accounting would book as GC CPU.
    offcpu_ns: AtomicU64,
    pub(super) scan_done: AtomicU64,
}

/// The CPU time booked to each kind of mark segment this cycle.
#[derive(Debug, Clone, Copy)]
pub struct Segments {
    pub assist: u64,
    pub background: u64,
    pub idle: u64,
}

impl CycleAcct {
    /// The cycle's bookings, read at mark termination with the world stopped (`_world`): every
    /// booking thread gave its P back (a mutex) after its last booking, so the Relaxed counters
    /// are complete.
    pub(super) fn segments(&self, _world: &StoppedWorld<'_>) -> Segments {
        Segments {
            assist: self.assist_ns.load(Relaxed),
            background: self.bg_ns.load(Relaxed),
            idle: self.idle_ns.load(Relaxed),
        }
    }

    /// Zeroes the counters at mark start, with the world stopped (`_world`): no segment of
    /// the last cycle is still booking.
    pub(super) fn reset(&self, _world: &StoppedWorld<'_>) {
        for a in [
            &self.assist_ns,
            &self.bg_ns,
            &self.idle_ns,
            &self.thread_cpu_ns,
            &self.offcpu_ns,
            &self.scan_done,
        ] {
            a.store(0, Relaxed);
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    Assist,
    Background,
    Idle,
}

impl Gc {
    pub(super) fn book(&self, seg: Seg, wall: u64, cpu: u64) {
        let a = match seg {
            Seg::Assist => &self.acct.assist_ns,
            Seg::Background => &self.acct.bg_ns,
            Seg::Idle => &self.acct.idle_ns,
        };
        // A thread's CPU clock never runs ahead of the wall clock; `min` keeps a clock
        // granularity quirk from booking more than the segment lasted.
        a.fetch_add(cpu.min(wall), Relaxed);
        self.acct.thread_cpu_ns.fetch_add(cpu, Relaxed);
        // A segment runs on one thread without blocking (it drains; it never waits on a
        // lock for long), so what its wall time has beyond its CPU time is run-queue wait.
        self.acct
            .offcpu_ns
            .fetch_add(wall.saturating_sub(cpu), Relaxed);
    }

    /// The cycle's record, as every gcscope source produces it: gctrace's fields (STW
    /// phases counted as P x pause, as Go does) plus the lab's own.
    pub(super) fn record(
        &self,
        num: u32,
        cum: &mut CumCpu,
        sweep_term: &SweepTerm,
        mark_term: MarkTerm,
        freed: u64,
    ) -> CycleResult {
        let procs = self.opts.procs;
        let MarkTerm {
            stats,
            checks,
            heap1,
            heap2,
            goal,
            segs,
            mark_wall_ns,
            pause_ns: mark_term_ns,
            cpu_ns: stw2_cpu,
            ..
        } = mark_term;
        let cpu = gcscope_model::Cpu {
            sweep_term: sweep_term.pause_ns * procs as u64,
            assist: segs.assist,
            background: segs.background,
            idle: segs.idle,
            mark_term: mark_term_ns * procs as u64,
        };
        cum.gc += cpu.sweep_term + cpu.assist + cpu.background + cpu.mark_term;
        let wall = self.now_ns();
        let cum_pct = (cum.gc * 100 / (wall * procs as u64).max(1)) as u16;
        let stacks_bytes = (self.stacks.iter().map(|s| s.len()).sum::<usize>() * 8) as u64;
        let stw_cpu = stw2_cpu + sweep_term.cpu_ns;
        let cycle = gcscope_model::Cycle {
            num,
            at: sweep_term.at,
            cum_pct,
            clock: gcscope_model::Clock {
                sweep_term: sweep_term.pause_ns,
                mark: mark_wall_ns,
                mark_term: mark_term_ns,
            },
            cpu,
            heap_start: sweep_term.heap0,
            heap_end: heap1,
            heap_live: heap2,
            goal: Some(goal),
            stacks: Some(stacks_bytes),
            globals: Some((self.globals.len() * 8) as u64),
            procs: procs as u32,
            scan: Some(Box::new(scan_stats(self.opts.marker, &stats))),
            lab: Some(Box::new(gcscope_model::LabStats {
                objects_scanned: stats.objs_scanned,
                bytes_scanned: stats.bytes_scanned,
                page_visits: stats.visits,
                objects_freed: freed,
                density_hist: stats.hist.to_vec(),
                thread_cpu: self.acct.thread_cpu_ns.load(Relaxed) + stw_cpu,
                offcpu: self.acct.offcpu_ns.load(Relaxed),
                // Set by `lab::run`, which knows whether the workload was still building.
                setup: false,
                turn: None,
            })),
            ..Default::default()
        };
        CycleResult { cycle, checks }
    }
}

/// Cumulative GC CPU for gctrace's `%` (idle excluded, as the runtime does).
#[derive(Default)]
pub struct CumCpu {
    pub gc: u64,
}

/// Go's gctrace=2 `scan:` lines for this cycle (total and per size class, classes in Go's
/// order with large objects last as `L`), Go 1.26 meaning.
fn scan_stats(marker: Marker, s: &MarkStats) -> gcscope_model::ScanStats {
    use gcscope_model::{GreenTeaCounts, ScanCounts, ScanStats};
    let counts = |objs: u64, span_objs: u64, spans: u64| match marker {
        Marker::Legacy => ScanCounts {
            objs,
            green_tea: None,
        },
        Marker::Greentea => ScanCounts {
            objs,
            green_tea: Some(GreenTeaCounts {
                // Objects scanned outside span scans: the fast path and the >512 B path.
                sparse_objs: objs - span_objs,
                span_objs_sparse: span_objs,
                span_objs_dense: 0,
                spans_sparse: spans,
                spans_dense: 0,
            }),
        },
    };
    let total = counts(s.objs_scanned, s.span_objs_sparse, s.spans_sparse);
    let mut classes: Vec<(u32, ScanCounts)> = (1..s.by_class.len())
        .chain(std::iter::once(0))
        .filter(|&c| s.by_class[c].objs > 0)
        .map(|c| {
            let k = s.by_class[c];
            (
                sizeclass::CLASS_SIZE[c],
                counts(k.objs, k.span_objs, k.spans),
            )
        })
        .collect();
    classes.shrink_to_fit();
    ScanStats { total, classes }
}
