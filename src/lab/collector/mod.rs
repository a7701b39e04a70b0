//! The collector: mutator threads on P tokens, mark workers (dedicated, fractional, idle),
//! assists, write barrier, the two stop-the-world points, the pacer, and sweeping. One
//! coordinator thread drives cycles and reports each one when its sweep is done.

mod account;
mod cycle;
mod mutator;
mod worker;

use super::heap::{Heap, Ref};
use super::mark::{GcWork, Marker, Marking};
use super::sched::Sched;
pub use account::{CumCpu, CycleAcct, Seg};
pub use mutator::Ctx;
use mutator::WB_BUF;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

pub const PHASE_OFF: u8 = 0;
pub const PHASE_MARK: u8 = 1;

/// Per-P state: the mcache, the marking state and the write-barrier buffer.
pub struct PLocal {
    pub gcw: GcWork,
    wb: Vec<Ref>,
    mcache: Vec<u32>,
    /// Allocation credit in bytes; negative is debt an assist must pay.
    assist_bytes: i64,
    seed: u64,
}

/// Correctness findings of a cycle (all zero for a correct collector).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Checks {
    /// Checkmark oracle: objects reachable from the roots at mark termination but not marked.
    pub reachable_unmarked: u64,
    /// Marked slots that are not allocated ("marking free object").
    pub marked_free: u64,
    /// Work left in a queue at mark termination.
    pub queues_not_empty: u64,
    /// Green Tea spans whose mark bits differ from their scan bits at mark termination.
    pub marks_ne_scans: u64,
    /// Bytes counted as marked differ from the sizes of the objects with a mark bit.
    pub bytes_marked_mismatch: u64,
    /// Pointers the marker found that lead nowhere (poison, freed span).
    pub bad_pointers: u64,
    /// Loads by the workload that found a freed or poisoned object.
    pub bad_derefs: u64,
}

impl Checks {
    pub fn add(&mut self, o: &Checks) {
        self.reachable_unmarked += o.reachable_unmarked;
        self.marked_free += o.marked_free;
        self.queues_not_empty += o.queues_not_empty;
        self.marks_ne_scans += o.marks_ne_scans;
        self.bytes_marked_mismatch += o.bytes_marked_mismatch;
        self.bad_pointers += o.bad_pointers;
        self.bad_derefs += o.bad_derefs;
    }
    pub fn clean(&self) -> bool {
        *self == Checks::default()
    }
}

pub struct GcOptions {
    pub marker: Marker,
    pub gogc: u64,
    pub procs: usize,
    pub write_barrier: bool,
    pub checkmark: bool,
}

pub struct Gc {
    pub opts: GcOptions,
    pub heap: Heap,
    pub mark: Marking,
    pub sched: Sched,
    locals: Vec<Mutex<PLocal>>,
    pub phase: AtomicU8,
    pub barrier: AtomicBool,
    pub stop: AtomicBool,
    /// The coordinator has finished its last cycle: workers may exit.
    pub finished: AtomicBool,
    pub trigger: AtomicU64,
    /// heapLive when this cycle was triggered.
    triggered: AtomicU64,
    pub acct: CycleAcct,
    pub t0: Instant,
    paused_ns: AtomicU64,
    mark_start_ns: AtomicU64,
    frac_goal_bits: AtomicU64,
    frac_ns: Vec<AtomicU64>,
    pub dedicated: AtomicU32,
    assist_ratio_bits: AtomicU64,
    bg_credit: AtomicI64,
    pub bad_derefs: AtomicU64,
    /// Root arrays: the globals, then one "stack" per mutator.
    pub globals: Arc<[AtomicU32]>,
    pub stacks: Vec<Arc<[AtomicU32]>>,
    pub wake: (Mutex<()>, std::sync::Condvar),
}

impl Gc {
    pub fn new(
        opts: GcOptions,
        heap: Heap,
        globals: usize,
        stacks: usize,
        stack_slots: usize,
        seed: u64,
    ) -> Gc {
        let procs = opts.procs;
        let zero_slots =
            |n: usize| -> Arc<[AtomicU32]> { (0..n).map(|_| AtomicU32::new(0)).collect() };
        Gc {
            mark: Marking::new(opts.marker, procs),
            sched: Sched::new(procs),
            locals: (0..procs)
                .map(|p| {
                    Mutex::new(PLocal {
                        gcw: GcWork::default(),
                        wb: Vec::with_capacity(WB_BUF),
                        mcache: vec![0; 68 * 2],
                        assist_bytes: 0,
                        seed: seed ^ ((p as u64 + 1) * 0x9E37_79B9),
                    })
                })
                .collect(),
            phase: AtomicU8::new(PHASE_OFF),
            barrier: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            finished: AtomicBool::new(false),
            trigger: AtomicU64::new(u64::MAX),
            triggered: AtomicU64::new(0),
            acct: CycleAcct::default(),
            t0: Instant::now(),
            paused_ns: AtomicU64::new(0),
            mark_start_ns: AtomicU64::new(0),
            frac_goal_bits: AtomicU64::new(0),
            frac_ns: (0..procs).map(|_| AtomicU64::new(0)).collect(),
            dedicated: AtomicU32::new(0),
            assist_ratio_bits: AtomicU64::new(0),
            bg_credit: AtomicI64::new(0),
            bad_derefs: AtomicU64::new(0),
            globals: zero_slots(globals),
            stacks: (0..stacks).map(|_| zero_slots(stack_slots)).collect(),
            wake: (Mutex::new(()), std::sync::Condvar::new()),
            heap,
            opts,
        }
    }

    /// Time since the run started, minus turns spent waiting for another A/B side.
    pub fn now_ns(&self) -> u64 {
        (self.t0.elapsed().as_nanos() as u64).saturating_sub(self.paused_ns.load(Relaxed))
    }

    /// Holds every P (the world is stopped, nothing of this run executes) until it is this
    /// side's turn; the wait is left out of the run's clock.
    /// With `hand_over`, the turn is passed on once the world is stopped, so the two sides
    /// never overlap.
    pub fn wait_turn(&self, turns: &super::turns::Turns, side: usize, hand_over: bool) {
        let ps = self.sched.stop_world(self.opts.procs);
        let t = Instant::now();
        if hand_over {
            turns.pass(side);
        }
        turns.wait(side);
        self.paused_ns
            .fetch_add(t.elapsed().as_nanos() as u64, Relaxed);
        self.sched.start_world(ps);
    }

    fn local(&self, p: usize) -> MutexGuard<'_, PLocal> {
        self.locals[p].lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn marking(&self) -> bool {
        self.phase.load(Relaxed) == PHASE_MARK
    }
}

pub struct CycleResult {
    pub cycle: crate::model::Cycle,
    pub checks: Checks,
}
