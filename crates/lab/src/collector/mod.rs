//! The collector: mutator threads on P tokens, mark workers (dedicated, fractional, idle),
//! assists, write barrier, the two stop-the-world points, the pacer, and sweeping. One
//! coordinator thread drives cycles and reports each one when its sweep is done.

mod account;
mod cycle;
mod mutator;
mod worker;

pub use super::checkmark::Checks;
use super::error::LabError;
use super::heap::sizeclass::SpanClass;
use super::heap::{AtomicObjRef, Heap, ObjRef, SpanId};
use super::mark::{GcWork, Marker, Marking};
use super::sched::Sched;
pub use account::{CumCpu, CycleAcct, Seg};
pub use mutator::Ctx;
use mutator::WB_BUF;
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

pub const PHASE_OFF: u8 = 0;
pub const PHASE_MARK: u8 = 1;

/// Per-P state: the mcache, the marking state and the write-barrier buffer.
pub struct PLocal {
    gcw: GcWork,
    wb: Vec<ObjRef>,
    /// The span each span class allocates from.
    mcache: Vec<Option<SpanId>>,
    /// Allocation credit in bytes; negative is debt an assist must pay.
    assist_bytes: i64,
    seed: u64,
}

pub struct GcOptions {
    pub marker: Marker,
    pub gogc: u64,
    pub procs: usize,
    pub write_barrier: bool,
    pub checkmark: bool,
    /// Fault injection (tests of the failure paths; `None` in normal use).
    pub fault: Option<super::Fault>,
}

pub struct Gc {
    opts: GcOptions,
    heap: Heap,
    mark: Marking,
    sched: Sched,
    locals: Vec<Mutex<PLocal>>,
    phase: AtomicU8,
    barrier: AtomicBool,
    stop: AtomicBool,
    /// A lab thread panicked: the cycle in progress is abandoned.
    panicked: AtomicBool,
    /// The coordinator has finished its last cycle: workers may exit.
    finished: AtomicBool,
    trigger: AtomicU64,
    /// heapLive when this cycle was triggered.
    triggered: AtomicU64,
    acct: CycleAcct,
    t0: Instant,
    paused_ns: AtomicU64,
    mark_start_ns: AtomicU64,
    frac_goal_bits: AtomicU64,
    frac_ns: Vec<AtomicU64>,
    dedicated: AtomicU32,
    // Values and counters (Relaxed): no data is published through them.
    assist_ratio_bits: AtomicU64,
    bg_credit: AtomicI64,
    bad_derefs: AtomicU64,
    /// Root arrays: the globals, then one "stack" per mutator.
    globals: Arc<[AtomicObjRef]>,
    stacks: Vec<Arc<[AtomicObjRef]>>,
    wake: (Mutex<()>, Condvar),
    /// Why the run failed, if it did (the first failure).
    error: Mutex<Option<LabError>>,
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
        let sched = Sched::new(procs);
        let zero_slots =
            |n: usize| -> Arc<[AtomicObjRef]> { (0..n).map(|_| AtomicObjRef::default()).collect() };
        Gc {
            mark: Marking::new(opts.marker, procs, sched.stw_flag()),
            sched,
            locals: (0..procs)
                .map(|p| {
                    Mutex::new(PLocal {
                        gcw: GcWork::default(),
                        wb: Vec::with_capacity(WB_BUF),
                        mcache: vec![None; SpanClass::COUNT],
                        assist_bytes: 0,
                        seed: seed ^ ((p as u64 + 1) * 0x9E37_79B9),
                    })
                })
                .collect(),
            phase: AtomicU8::new(PHASE_OFF),
            barrier: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
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
            wake: (Mutex::new(()), Condvar::new()),
            error: Mutex::new(None),
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
        let world = self.sched.stop_world();
        let t = Instant::now();
        if hand_over {
            turns.pass(side);
        }
        turns.wait(side);
        self.paused_ns
            .fetch_add(t.elapsed().as_nanos() as u64, Relaxed);
        world.start();
    }

    fn local(&self, p: usize) -> MutexGuard<'_, PLocal> {
        self.locals[p].lock()
    }

    /// Asks the run to stop: mutators leave at their next quantum, the coordinator after
    /// its current cycle.
    pub fn stop(&self) {
        // Relaxed: control flow only; no data is published through the stop flags.
        self.stop.store(true, Relaxed);
    }

    /// A lab thread is unwinding from a panic (its `HeldP` calls this before giving its P
    /// back): the run stops, and the coordinator abandons the cycle in progress instead of
    /// finishing it, over what the panicking thread left half done and perhaps without the
    /// threads it needs (if the only mark worker died, nobody would finish the marking).
    pub fn thread_panicked(&self) {
        // Relaxed: control flow only, as `stop`.
        self.panicked.store(true, Relaxed);
        self.stop();
    }

    /// Has a lab thread panicked in this run?
    pub fn panicked(&self) -> bool {
        self.panicked.load(Relaxed)
    }

    /// The run fails: the first error is kept, and every thread is asked to stop.
    pub fn fail(&self, e: LabError) {
        self.error.lock().get_or_insert(e);
        self.stop();
    }

    /// Why the run failed, if it did.
    pub fn take_error(&self) -> Option<LabError> {
        self.error.lock().take()
    }

    pub fn stopping(&self) -> bool {
        self.stop.load(Relaxed)
    }

    /// The coordinator has finished its last cycle: the mark workers may leave.
    pub fn finish(&self) {
        self.finished.store(true, Relaxed);
    }

    /// Wakes the coordinator if it waits for the trigger (it then sees a stop).
    pub fn wake(&self) {
        self.wake.1.notify_all();
    }

    pub fn set_trigger(&self, trigger: u64) {
        self.trigger.store(trigger, Relaxed);
    }

    /// Every root slot: the globals, then each mutator's stack.
    pub fn roots(&self) -> impl Iterator<Item = &AtomicObjRef> {
        self.globals
            .iter()
            .chain(self.stacks.iter().flat_map(|s| s.iter()))
    }

    pub fn marking(&self) -> bool {
        self.phase.load(Relaxed) == PHASE_MARK
    }
}

/// The P a lab thread (a mutator or a mark worker) holds, if any. Dropped, it gives the P
/// back, whether the thread returns or unwinds; a panic also stops the run and abandons the
/// cycle (`Gc::thread_panicked`), so the coordinator ends instead of waiting forever for a P
/// nobody will return at its next stop-the-world, or for work nobody will do.
pub struct HeldP<'a> {
    gc: &'a Gc,
    pub p: Option<usize>,
}

impl<'a> HeldP<'a> {
    /// No P held yet.
    pub fn none(gc: &'a Gc) -> HeldP<'a> {
        HeldP { gc, p: None }
    }

    /// Holding P `p`, just acquired.
    pub fn holding(gc: &'a Gc, p: usize) -> HeldP<'a> {
        HeldP { gc, p: Some(p) }
    }
}

impl Drop for HeldP<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.gc.thread_panicked();
        }
        self.gc.release_p(&mut self.p);
    }
}

pub struct CycleResult {
    pub cycle: gcscope_model::Cycle,
    pub checks: Checks,
}
