//! The collector: mutator threads on P tokens, mark workers (dedicated, fractional, idle),
//! assists, write barrier, the two stop-the-world points, the pacer, and sweeping. One
//! coordinator thread drives cycles and reports each one when its sweep is done.

use super::heap::sizeclass;
use super::heap::{Heap, ObjLoc, Ref, TypeId, PAGE_WORDS, SCANS};
use super::mark::{GcWork, MarkStats, Marker, Marking, RootJob, ROOT_JOB_SLOTS};
use super::pacer::Pacer;
use super::sched::{thread_cpu_ns, Sched};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const WB_BUF: usize = 512;
/// Go's gcOverAssistWork: an assist does at least this much scan work, to amortise its cost.
const OVER_ASSIST: i64 = 64 << 10;

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

/// Accounting of one cycle, filled by workers and assists.
#[derive(Default)]
pub struct CycleAcct {
    pub assist_ns: AtomicU64,
    pub bg_ns: AtomicU64,
    pub idle_ns: AtomicU64,
    pub thread_cpu_ns: AtomicU64,
    pub scan_done: AtomicU64,
}

impl CycleAcct {
    fn reset(&self) {
        for a in [
            &self.assist_ns,
            &self.bg_ns,
            &self.idle_ns,
            &self.thread_cpu_ns,
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

    fn book(&self, seg: Seg, wall: u64, cpu: u64) {
        let a = match seg {
            Seg::Assist => &self.acct.assist_ns,
            Seg::Background => &self.acct.bg_ns,
            Seg::Idle => &self.acct.idle_ns,
        };
        a.fetch_add(wall, Relaxed);
        self.acct.thread_cpu_ns.fetch_add(cpu, Relaxed);
    }

    /// Runs a mark segment on P `p` and books its wall and thread CPU time.
    fn work_segment(
        &self,
        local: &mut PLocal,
        p: usize,
        seg: Seg,
        stop: impl FnMut(u64) -> bool,
    ) -> u64 {
        let (w0, c0) = (Instant::now(), thread_cpu_ns());
        let PLocal { gcw, seed, .. } = local;
        let done = self.mark.drain(&self.heap, gcw, p, seed, stop);
        gcw.end_visit();
        self.book(
            seg,
            w0.elapsed().as_nanos() as u64,
            thread_cpu_ns().saturating_sub(c0),
        );
        self.acct.scan_done.fetch_add(done, Relaxed);
        if seg != Seg::Assist {
            // Background work pays for allocation too: assists steal this credit first
            // (Go flushes it every gcCreditSlack units; the lab at the end of a segment).
            self.bg_credit
                .fetch_add(done.min(i64::MAX as u64) as i64, Relaxed);
        }
        done
    }

    /// Releases a P, publishing its local mark work so no work hides in an idle P.
    fn put_p(&self, mut local: MutexGuard<'_, PLocal>, p: usize) {
        if self.marking() {
            self.flush_wb(&mut local, p);
            let PLocal { gcw, .. } = &mut *local;
            self.mark.dispose(gcw, p);
        }
        drop(local);
        self.sched.release(p);
    }

    fn flush_wb(&self, local: &mut PLocal, p: usize) {
        let PLocal { gcw, wb, .. } = local;
        for r in wb.drain(..) {
            self.mark.shade(&self.heap, gcw, p, r);
        }
    }

    // ---- mutator side ----

    /// A mutator's quantum: hold a P, run a fractional mark slice if this P owes one, then
    /// the workload. The mutator keeps its P (`held`) from one quantum to the next unless
    /// someone waits for one: Go keeps running a preempted goroutine when nothing else is
    /// runnable, so an idle mark worker never gets the P of a busy mutator. (Releasing and
    /// re-acquiring at every quantum let idle workers slip into the gap and inflated the idle
    /// share 2-5x over real Go's.)
    pub fn quantum<R>(
        &self,
        held: &mut Option<usize>,
        stack: usize,
        f: impl FnOnce(&mut Ctx<'_>) -> R,
    ) -> R {
        let p = match held.take() {
            Some(p) if !self.sched.contended() => p,
            Some(p) => {
                self.sched.release(p);
                self.sched.acquire_mut()
            }
            None => self.sched.acquire_mut(),
        };
        let mut local = self.local(p);
        if self.marking() {
            self.fractional(&mut local, p);
        }
        let mut ctx = Ctx {
            gc: self,
            p,
            local,
            stack,
        };
        let r = f(&mut ctx);
        let Ctx { mut local, .. } = ctx;
        if self.marking() {
            // Publish this quantum's mark work so workers on other Ps can take it.
            self.flush_wb(&mut local, p);
            let PLocal { gcw, .. } = &mut *local;
            self.mark.dispose(gcw, p);
        }
        *held = Some(p);
        r
    }

    /// The mutator blocks or leaves: it gives its P back.
    pub fn release_p(&self, held: &mut Option<usize>) {
        if let Some(p) = held.take() {
            self.sched.release(p);
        }
    }

    fn fractional(&self, local: &mut PLocal, p: usize) {
        let goal = f64::from_bits(self.frac_goal_bits.load(Relaxed));
        if goal <= 0.0 {
            return;
        }
        let start = self.mark_start_ns.load(Relaxed);
        let elapsed = self.now_ns().saturating_sub(start) as f64;
        let mine = self.frac_ns[p].load(Relaxed) as f64;
        if mine >= goal * elapsed || !self.mark.global_work() {
            return;
        }
        let t0 = Instant::now();
        self.work_segment(local, p, Seg::Background, |_| {
            let now = self.now_ns().saturating_sub(start) as f64;
            self.sched.should_yield_to_gc()
                || mine + t0.elapsed().as_nanos() as f64 > 1.2 * goal * now
        });
        self.frac_ns[p].fetch_add(t0.elapsed().as_nanos() as u64, Relaxed);
    }

    fn assist(&self, local: &mut PLocal, p: usize) {
        let ratio = f64::from_bits(self.assist_ratio_bits.load(Relaxed)).max(1e-9);
        let debt_work = ((-local.assist_bytes) as f64 * ratio) as i64;
        let want = debt_work.max(OVER_ASSIST);
        // Steal background credit first.
        let credit = self.bg_credit.load(Relaxed);
        if credit > 0 {
            let take = credit.min(want);
            if self.bg_credit.fetch_sub(take, Relaxed) >= take {
                local.assist_bytes += (take as f64 / ratio) as i64;
                if local.assist_bytes >= 0 {
                    return;
                }
            } else {
                self.bg_credit.fetch_add(take, Relaxed);
            }
        }
        let want = ((-local.assist_bytes) as f64 * ratio) as u64;
        let want = want.max(OVER_ASSIST as u64);
        let done = self.work_segment(local, p, Seg::Assist, |done| {
            done >= want || self.sched.stw.load(Relaxed)
        });
        local.assist_bytes += (done as f64 / ratio) as i64;
        if local.assist_bytes < 0 && done == 0 {
            // Go parks the goroutine until background credit appears; the lab lets it go on
            // (no work is left to help with), which at worst lets the heap pass its goal.
            local.assist_bytes = 0;
        }
    }

    fn alloc(&self, local: &mut PLocal, p: usize, tid: TypeId) -> Ref {
        let (class, noscan, bytes) = self.heap.class_of(tid);
        let o = match class {
            Some(class) => self.alloc_small(local, class, noscan),
            None => self.alloc_large(bytes, noscan),
        };
        let size = o.elem_words as i64 * 8;
        if self.marking() {
            local.assist_bytes -= size;
            if local.assist_bytes < 0 {
                self.assist(local, p);
            }
        }
        let r = self.heap.init_object(&o, tid);
        if self.marking() {
            // Allocate black: marked, and for Green Tea also scanned (gcmarknewobject).
            let (w, bit) = self.heap.mark_word(&o);
            w.fetch_or(bit, Relaxed);
            if self.opts.marker == Marker::Greentea && o.inline && !o.noscan {
                self.heap
                    .word(o.span * PAGE_WORDS + SCANS + o.idx / 64)
                    .fetch_or(1 << (o.idx % 64), Relaxed);
            }
            local.gcw.stats.bytes_marked += size as u64;
        }
        r
    }

    fn alloc_small(&self, local: &mut PLocal, class: u8, noscan: bool) -> ObjLoc {
        let spc = class as usize * 2 + noscan as usize;
        loop {
            let span = local.mcache[spc];
            if span != 0 {
                if let Some(idx) = self.heap.next_free(span) {
                    let s = &self.heap.spans[span as usize];
                    let ew = s.elem_words.load(Relaxed);
                    return ObjLoc {
                        span,
                        idx,
                        base: span * PAGE_WORDS + idx * ew,
                        elem_words: ew,
                        inline: sizeclass::inline_bits(class),
                        noscan,
                        class,
                    };
                }
            }
            local.mcache[spc] = self.refill(spc, class, noscan);
        }
    }

    /// A span with free slots: a swept partial span, one found by sweeping (Go's lazy
    /// sweep), or a fresh one. Charges its free bytes to heapLive like Go's mcache refill.
    fn refill(&self, spc: usize, class: u8, noscan: bool) -> u32 {
        let mut span = self.heap.pop_partial(spc);
        let mut budget = 100;
        while span.is_none() && budget > 0 {
            budget -= 1;
            match self.heap.sweep_next() {
                Some((s, true)) if self.heap.span_class(s) == spc => {
                    span = self.heap.pop_partial(spc);
                }
                Some(_) => {}
                None => break,
            }
        }
        let span = match span {
            Some(s) => s,
            None => match self.heap.new_span(class, noscan, 0) {
                Some(s) => s,
                None => self.out_of_memory(),
            },
        };
        let s = &self.heap.spans[span as usize];
        let free = s.nelems.load(Relaxed) - s.alloc_count.load(Relaxed);
        let bytes = free as u64 * s.elem_words.load(Relaxed) as u64 * 8;
        self.charge(bytes);
        span
    }

    fn alloc_large(&self, bytes: u32, noscan: bool) -> ObjLoc {
        let span = match self.heap.new_span(0, noscan, bytes) {
            Some(s) => s,
            None => self.out_of_memory(),
        };
        let s = &self.heap.spans[span as usize];
        let ew = s.elem_words.load(Relaxed);
        s.alloc[0].store(1, Relaxed);
        s.alloc_count.store(1, Relaxed);
        s.free_index.store(1, Relaxed);
        self.charge(ew as u64 * 8);
        ObjLoc {
            span,
            idx: 0,
            base: span * PAGE_WORDS,
            elem_words: ew,
            inline: false,
            noscan,
            class: 0,
        }
    }

    fn out_of_memory(&self) -> ! {
        eprintln!(
            "gcscope lab: the arena is full ({} MB mapped); raise --arena-mb or lower --scale",
            self.heap.mapped_bytes() >> 20
        );
        std::process::exit(2);
    }

    fn charge(&self, bytes: u64) {
        let live = self.heap.heap_live.fetch_add(bytes, Relaxed) + bytes;
        if !self.marking() && live >= self.trigger.load(Relaxed) {
            self.wake.1.notify_one();
        }
    }

    // ---- mark workers ----

    /// A mark worker thread (one per P, like gcBgMarkWorker): dedicated if its index is below
    /// this cycle's dedicated count, otherwise an idle worker on Ps nobody wants.
    pub fn worker(&self, id: usize) {
        // A cycle in progress when the run stops still needs its workers to finish marking,
        // so workers leave only when the coordinator is done.
        while !self.finished.load(Relaxed) {
            if !self.marking() || !self.mark.global_work() {
                std::thread::sleep(Duration::from_micros(50));
                continue;
            }
            if (id as u32) < self.dedicated.load(Relaxed) {
                let p = self.sched.acquire_prio();
                let mut local = self.local(p);
                if self.marking() {
                    self.work_segment(&mut local, p, Seg::Background, |_| {
                        self.sched.stw.load(Relaxed) || !self.marking()
                    });
                }
                self.put_p(local, p);
            } else if let Some(p) = self.sched.try_acquire_idle() {
                let mut local = self.local(p);
                if self.marking() {
                    self.work_segment(&mut local, p, Seg::Idle, |_| self.sched.contended());
                }
                self.put_p(local, p);
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    /// Background sweeper: sweeps in chunks while holding a P, as Go's bgsweep goroutine.
    fn background_sweep(&self) {
        while !self.heap.sweep_done() {
            let p = self.sched.acquire_mut();
            for _ in 0..64 {
                if self.heap.sweep_next().is_none() {
                    break;
                }
            }
            self.sched.release(p);
        }
    }

    // ---- the cycle ----

    /// Waits for the trigger; false when the run is stopping.
    fn wait_trigger(&self) -> bool {
        let mut g = self.wake.0.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if self.stop.load(Relaxed) {
                return false;
            }
            if self.heap.heap_live.load(Relaxed) >= self.trigger.load(Relaxed) {
                return true;
            }
            g = self
                .wake
                .1
                .wait_timeout(g, Duration::from_millis(1))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Runs one GC cycle, from the trigger to the end of its sweep.
    pub fn cycle(&self, pacer: &mut Pacer, num: u32, cum: &mut CumCpu) -> Option<CycleResult> {
        if !self.wait_trigger() {
            return None;
        }
        let procs = self.opts.procs;
        let at = self.now_ns();
        // STW 1: sweep termination. The pause clock starts before the stop, as Go's
        // tSweepTerm does, so the time to reach every safepoint is part of the pause.
        let t_stw1 = Instant::now();
        let ps = self.sched.stop_world(procs);
        let c0 = thread_cpu_ns();
        while self.heap.sweep_next().is_some() {}
        let heap0 = self.heap.heap_live.load(Relaxed);
        self.triggered.store(heap0, Relaxed);
        self.start_mark(pacer);
        let sweep_term = t_stw1.elapsed().as_nanos() as u64;
        let stw1_cpu = thread_cpu_ns().saturating_sub(c0);
        self.sched.start_world(ps);
        let t_mark = Instant::now();

        // Concurrent mark until a ragged barrier finds no work anywhere.
        let mut last_revise = Instant::now();
        let (ps, t_stw2) = loop {
            std::thread::sleep(Duration::from_micros(100));
            if last_revise.elapsed() > Duration::from_micros(500) {
                self.revise(pacer);
                last_revise = Instant::now();
            }
            if self.mark.global_work() {
                continue;
            }
            let t_stop = Instant::now();
            let ps = self.sched.stop_world(procs);
            let mut found = false;
            for p in 0..procs {
                let mut l = self.local(p);
                self.flush_wb(&mut l, p);
                found |= !l.gcw.is_empty();
                let PLocal { gcw, .. } = &mut *l;
                self.mark.dispose(gcw, p);
            }
            if !found && !self.mark.global_work() {
                break (ps, t_stop);
            }
            self.sched.start_world(ps);
        };
        // Mark ends where the successful stop began; the rest is the mark termination pause.
        let mark_wall = t_stw2.duration_since(t_mark).as_nanos() as u64;

        // STW 2: mark termination (the world is stopped).
        let c2 = thread_cpu_ns();
        self.phase.store(PHASE_OFF, Relaxed);
        self.barrier.store(false, Relaxed);
        let mut stats = MarkStats::default();
        for p in 0..procs {
            let mut l = self.local(p);
            l.gcw.end_visit();
            stats.add(&l.gcw.stats);
            l.gcw.stats = MarkStats::default();
            l.assist_bytes = 0;
            l.mcache.iter_mut().for_each(|s| *s = 0);
        }
        let mut checks = Checks {
            bad_pointers: stats.bad_pointers,
            bad_derefs: self.bad_derefs.swap(0, Relaxed),
            ..Checks::default()
        };
        if !self.mark.queues_empty() {
            checks.queues_not_empty += 1;
        }
        if self.opts.checkmark {
            super::checkmark::check(self, stats.bytes_marked, &mut checks);
        }
        let heap1 = self.heap.heap_live.load(Relaxed);
        let heap2 = stats.bytes_marked;
        let roots =
            ((self.globals.len() + self.stacks.iter().map(|s| s.len()).sum::<usize>()) * 8) as u64;
        let acct = (
            self.acct.assist_ns.load(Relaxed),
            self.acct.bg_ns.load(Relaxed),
            self.acct.idle_ns.load(Relaxed),
        );
        pacer.end_cycle(&super::pacer::MarkPhase {
            heap_live: heap1,
            triggered: heap0,
            scan_work: stats.scan_work,
            mark_ns: mark_wall,
            assist_ns: acct.0,
            idle_ns: acct.2,
            procs: procs as u64,
        });
        pacer.commit(heap2, roots);
        let freed_before = self.heap.objects_freed.load(Relaxed);
        self.heap.start_sweep();
        self.heap.heap_live.store(heap2, Relaxed);
        self.trigger.store(pacer.trigger, Relaxed);
        let mark_term = t_stw2.elapsed().as_nanos() as u64;
        let stw_cpu = thread_cpu_ns().saturating_sub(c2) + stw1_cpu;
        self.sched.start_world(ps);

        self.background_sweep();
        let freed = self.heap.objects_freed.load(Relaxed) - freed_before;

        let cpu = crate::model::Cpu {
            sweep_term: sweep_term * procs as u64,
            assist: acct.0,
            background: acct.1,
            idle: acct.2,
            mark_term: mark_term * procs as u64,
        };
        cum.gc += cpu.sweep_term + cpu.assist + cpu.background + cpu.mark_term;
        let wall = self.now_ns();
        let cum_pct = (cum.gc * 100 / (wall * procs as u64).max(1)) as u16;
        let stacks_bytes = (self.stacks.iter().map(|s| s.len()).sum::<usize>() * 8) as u64;
        let cycle = crate::model::Cycle {
            num,
            at,
            cum_pct,
            clock: crate::model::Clock {
                sweep_term,
                mark: mark_wall,
                mark_term,
            },
            cpu,
            heap_start: heap0,
            heap_end: heap1,
            heap_live: heap2,
            goal: Some(pacer.goal),
            stacks: Some(stacks_bytes),
            globals: Some((self.globals.len() * 8) as u64),
            procs: procs as u32,
            scan: Some(Box::new(scan_stats(self.opts.marker, &stats))),
            lab: Some(Box::new(crate::model::LabStats {
                objects_scanned: stats.objs_scanned,
                bytes_scanned: stats.bytes_scanned,
                page_visits: stats.visits,
                objects_freed: freed,
                density_hist: stats.hist.to_vec(),
                thread_cpu: self.acct.thread_cpu_ns.load(Relaxed) + stw_cpu,
            })),
            ..Default::default()
        };
        Some(CycleResult { cycle, checks })
    }

    /// Sweep termination work (world stopped): worker counts, assist ratio, roots, mark on.
    fn start_mark(&self, pacer: &Pacer) {
        let procs = self.opts.procs as f64;
        let total = procs * 0.25;
        let mut dedicated = (total + 0.5) as u32;
        let err = dedicated as f64 / total - 1.0;
        let frac = if !(-0.3..=0.3).contains(&err) {
            if dedicated as f64 > total {
                dedicated -= 1;
            }
            (total - dedicated as f64) / procs
        } else {
            0.0
        };
        self.dedicated.store(dedicated, Relaxed);
        self.frac_goal_bits.store(frac.to_bits(), Relaxed);
        for f in &self.frac_ns {
            f.store(0, Relaxed);
        }
        self.acct.reset();
        self.bg_credit.store(0, Relaxed);
        let mut jobs = Vec::new();
        for slots in std::iter::once(&self.globals).chain(self.stacks.iter()) {
            let mut s = 0;
            while s < slots.len() {
                let e = (s + ROOT_JOB_SLOTS).min(slots.len());
                jobs.push(RootJob {
                    slots: slots.clone(),
                    start: s,
                    end: e,
                });
                s = e;
            }
        }
        self.mark.set_roots(jobs);
        self.mark_start_ns.store(self.now_ns(), Relaxed);
        self.barrier.store(self.opts.write_barrier, Relaxed);
        self.phase.store(PHASE_MARK, Relaxed);
        self.revise(pacer);
    }

    fn revise(&self, pacer: &Pacer) {
        let live = self.heap.heap_live.load(Relaxed);
        let triggered = self.triggered.load(Relaxed);
        let r = pacer.assist_ratio(live, triggered, self.acct.scan_done.load(Relaxed), live);
        self.assist_ratio_bits.store(r.to_bits(), Relaxed);
    }
}

/// Cumulative GC CPU for gctrace's `%` (idle excluded, as the runtime does).
#[derive(Default)]
pub struct CumCpu {
    pub gc: u64,
}

pub struct CycleResult {
    pub cycle: crate::model::Cycle,
    pub checks: Checks,
}

/// Go's gctrace=2 `scan:` lines for this cycle (total and per size class, classes in Go's
/// order with large objects last as `L`), Go 1.26 meaning.
fn scan_stats(marker: Marker, s: &MarkStats) -> crate::model::ScanStats {
    use crate::model::{GreenTeaCounts, ScanCounts, ScanStats};
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
        .filter(|&c| s.by_class[c][0] > 0)
        .map(|c| {
            let [objs, span_objs, spans] = s.by_class[c];
            (sizeclass::CLASS_SIZE[c], counts(objs, span_objs, spans))
        })
        .collect();
    classes.shrink_to_fit();
    ScanStats { total, classes }
}

/// A mutator holding a P for one quantum. Every heap access of a workload goes through it, so
/// the write barrier and allocation are the collector's, not the workload's.
pub struct Ctx<'a> {
    pub gc: &'a Gc,
    p: usize,
    local: MutexGuard<'a, PLocal>,
    stack: usize,
}

impl Ctx<'_> {
    pub fn alloc(&mut self, tid: TypeId) -> Ref {
        self.gc.alloc(&mut self.local, self.p, tid)
    }

    /// Loads a pointer field; a poisoned or freed target is counted as a bad dereference.
    #[inline]
    pub fn load_ptr(&self, slot: Ref) -> Ref {
        let v = self.gc.heap.load(slot);
        if v > u32::MAX as u64 {
            self.gc.bad_derefs.fetch_add(1, Relaxed);
            return 0;
        }
        v as Ref
    }

    #[inline]
    pub fn load_word(&self, slot: Ref) -> u64 {
        self.gc.heap.load(slot)
    }

    /// Stores a scalar (the caller knows the slot is not a pointer).
    #[inline]
    pub fn store_word(&self, slot: Ref, v: u64) {
        self.gc.heap.store(slot, v)
    }

    /// Stores a pointer with the write barrier: during mark, both the overwritten and the new
    /// pointer are shaded (Yuasa + Dijkstra; Go's hybrid barrier shades the new one only while
    /// the stack is grey, the lab always does: conservative and correct).
    #[inline]
    pub fn store_ptr(&mut self, slot: Ref, v: Ref) {
        if self.gc.barrier.load(Relaxed) {
            let old = self.gc.heap.load(slot);
            self.wb(old as Ref, v);
        }
        self.gc.heap.store(slot, v as u64);
    }

    fn wb(&mut self, old: Ref, new: Ref) {
        let l = &mut *self.local;
        if old != 0 {
            l.wb.push(old);
        }
        if new != 0 {
            l.wb.push(new);
        }
        if l.wb.len() >= WB_BUF - 2 {
            self.gc.flush_wb(l, self.p);
        }
    }

    pub fn root(&self, global: bool, i: usize) -> Ref {
        self.slots(global)[i].load(Relaxed)
    }

    /// Stores into a root slot (a global or this mutator's stack), with the barrier: roots are
    /// scanned concurrently, so they need it as much as heap slots.
    pub fn set_root(&mut self, global: bool, i: usize, v: Ref) {
        if self.gc.barrier.load(Relaxed) {
            let old = self.slots(global)[i].load(Relaxed);
            self.wb(old, v);
        }
        self.slots(global)[i].store(v, Relaxed);
    }

    fn slots(&self, global: bool) -> &[AtomicU32] {
        if global {
            &self.gc.globals
        } else {
            &self.gc.stacks[self.stack]
        }
    }

    pub fn bad_deref(&self) {
        self.gc.bad_derefs.fetch_add(1, Relaxed);
    }
}
