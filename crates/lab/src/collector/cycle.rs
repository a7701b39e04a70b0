//! One GC cycle's choreography, run by the coordinator thread: wait for the trigger, stop the
//! world for sweep termination, concurrent mark until a ragged barrier finds no work, stop the
//! world for mark termination, then sweep.

use super::account::{CumCpu, Segments};
use super::{Checks, CycleResult, Gc, PLocal, PHASE_MARK, PHASE_OFF};
use crate::mark::{MarkStats, RootJob, ROOT_JOB_SLOTS};
use crate::pacer::Pacer;
use crate::sched::{thread_cpu_ns, StoppedWorld};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// What sweep termination hands on to the rest of the cycle.
pub(super) struct SweepTerm {
    /// When the cycle started (run clock).
    pub at: u64,
    /// heapLive at the trigger (Go's heap0).
    pub heap0: u64,
    pub pause_ns: u64,
    /// The coordinator's thread CPU during the pause.
    pub cpu_ns: u64,
    pub mark_start: Instant,
}

/// The end of concurrent mark: the world is stopped for mark termination.
struct MarkEnd<'a> {
    world: StoppedWorld<'a>,
    stopped_at: Instant,
    wall_ns: u64,
}

/// What mark termination found and decided.
pub(super) struct MarkTerm {
    pub stats: MarkStats,
    pub checks: Checks,
    /// heapLive at mark termination (Go's heap1) and the bytes marked (heap2).
    pub heap1: u64,
    pub heap2: u64,
    /// The goal this cycle ran against, set when the cycle before it ended: what gctrace
    /// prints as `N MB goal` (Go's `work.heapGoal`, taken at the cycle's start), not the next
    /// cycle's goal that this cycle's marked heap commits.
    pub goal: u64,
    pub segs: Segments,
    pub mark_wall_ns: u64,
    pub pause_ns: u64,
    pub cpu_ns: u64,
    pub freed_before: u64,
}

impl Gc {
    /// Background sweeper: sweeps in chunks while holding a P, as Go's bgsweep goroutine.
    pub(super) fn background_sweep(&self) {
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
    pub(super) fn wait_trigger(&self) -> bool {
        let mut g = self.wake.0.lock();
        loop {
            if self.stop.load(Relaxed) {
                return false;
            }
            if self.heap.live() >= self.trigger.load(Relaxed) {
                return true;
            }
            self.wake.1.wait_for(&mut g, Duration::from_millis(1));
        }
    }

    /// Runs one GC cycle, from the trigger to the end of its sweep.
    pub fn cycle(&self, pacer: &mut Pacer, num: u32, cum: &mut CumCpu) -> Option<CycleResult> {
        if !self.wait_trigger() {
            return None;
        }
        let sweep_term = self.sweep_termination(pacer);
        let mark = self.concurrent_mark(pacer, sweep_term.mark_start)?;
        let mark_term = self.mark_termination(pacer, &sweep_term, mark);
        let freed = self.sweep(mark_term.freed_before);
        Some(self.record(num, cum, &sweep_term, mark_term, freed))
    }

    /// STW 1, sweep termination: finish the last cycle's sweep, then mark start (worker
    /// counts, assist ratio, root jobs, barrier on). The pause clock starts before the stop,
    /// as Go's tSweepTerm does, so the time to reach every safepoint is part of the pause.
    fn sweep_termination(&self, pacer: &Pacer) -> SweepTerm {
        let at = self.now_ns();
        let t_stw1 = Instant::now();
        let world = self.sched.stop_world();
        let c0 = thread_cpu_ns();
        while self.heap.sweep_next().is_some() {}
        let heap0 = self.heap.live();
        self.triggered.store(heap0, Relaxed);
        self.start_mark(&world, pacer);
        let pause_ns = t_stw1.elapsed().as_nanos() as u64;
        let cpu_ns = thread_cpu_ns().saturating_sub(c0);
        world.start();
        SweepTerm {
            at,
            heap0,
            pause_ns,
            cpu_ns,
            mark_start: Instant::now(),
        }
    }

    /// Concurrent mark: workers and assists drain while the coordinator revises the assist
    /// ratio, until a ragged barrier (every P's write-barrier buffer and local work flushed
    /// with the world stopped) finds no work anywhere. Returns with the world stopped; `None`
    /// if a lab thread panicked: the cycle is abandoned (mark and barrier off, with the world
    /// stopped, so every P must have come back) and the world started again.
    fn concurrent_mark(&self, pacer: &Pacer, mark_start: Instant) -> Option<MarkEnd<'_>> {
        let mut last_revise = Instant::now();
        let (world, stopped_at) = loop {
            std::thread::sleep(Duration::from_micros(100));
            if last_revise.elapsed() > Duration::from_micros(500) {
                self.revise(pacer);
                last_revise = Instant::now();
            }
            // Go tries mark termination when the last worker runs out of work (`nwait ==
            // nproc`); stopping while a worker still drains local work would make the stop
            // wait for it and usually find work left.
            if (self.mark.global_work() || self.mark.draining()) && !self.panicked() {
                continue;
            }
            let t_stop = Instant::now();
            let world = self.sched.stop_world();
            if self.panicked() {
                self.set_marking(&world, false);
                world.start();
                return None;
            }
            let found = self.ragged_barrier(&world);
            if !found && !self.mark.global_work() {
                break (world, t_stop);
            }
            world.start();
        };
        // Mark ends where the successful stop began; the rest is the mark termination pause.
        Some(MarkEnd {
            world,
            stopped_at,
            wall_ns: stopped_at.duration_since(mark_start).as_nanos() as u64,
        })
    }

    /// STW 2, mark termination, with the world `concurrent_mark` stopped (in `mark`), started
    /// again at the end: mark off, the Ps' counters summed and their caches emptied, the
    /// end-of-mark checks (and the oracle), the pacer's next goal, sweep start.
    fn mark_termination(
        &self,
        pacer: &mut Pacer,
        sweep_term: &SweepTerm,
        mark: MarkEnd,
    ) -> MarkTerm {
        let MarkEnd {
            world,
            stopped_at,
            wall_ns,
        } = mark;
        let c2 = thread_cpu_ns();
        self.set_marking(&world, false);
        let stats = self.flush_p_caches(&world);
        let checks = self.end_of_mark_checks(&world, &stats);
        let heap1 = self.heap.live();
        let heap2 = stats.bytes_marked;
        let roots =
            ((self.globals.len() + self.stacks.iter().map(|s| s.len()).sum::<usize>()) * 8) as u64;
        let segs = self.acct.segments(&world);
        pacer.end_cycle(&crate::pacer::MarkPhase {
            heap_live: heap1,
            triggered: sweep_term.heap0,
            scan_work: stats.scan_work,
            mark_ns: wall_ns,
            assist_ns: segs.assist,
            idle_ns: segs.idle,
            procs: self.opts.procs as u64,
        });
        let goal = pacer.goal;
        pacer.commit(heap2, roots);
        let freed_before = self.heap.objects_freed();
        self.heap.start_sweep(&world);
        self.heap.set_live(&world, heap2);
        self.trigger.store(pacer.trigger, Relaxed);
        let pause_ns = stopped_at.elapsed().as_nanos() as u64;
        let cpu_ns = thread_cpu_ns().saturating_sub(c2);
        world.start();
        MarkTerm {
            stats,
            checks,
            heap1,
            heap2,
            goal,
            segs,
            mark_wall_ns: wall_ns,
            pause_ns,
            cpu_ns,
            freed_before,
        }
    }

    /// The ragged barrier that decides the end of mark (with the world stopped, `world`):
    /// every P's write-barrier buffer shaded and its local work published. True if some P
    /// still had local work (mark goes on). False, with no global work either, means mark is
    /// done, which holds only because nothing can shade or drain while the world is stopped.
    fn ragged_barrier(&self, world: &StoppedWorld<'_>) -> bool {
        self.check_world(world);
        let mut found = false;
        for p in 0..self.opts.procs {
            let mut l = self.local(p);
            self.flush_wb(&mut l, p);
            found |= !l.gcw.is_empty();
            let PLocal { gcw, .. } = &mut *l;
            self.mark.dispose(gcw, p);
        }
        found
    }

    /// Each P's end of mark (with the world stopped, `world`): its last visit closed and its
    /// counters taken (summed into the cycle's), its assist credit zeroed and its mcache
    /// emptied, so the sweep about to start finds no span still being allocated from.
    fn flush_p_caches(&self, world: &StoppedWorld<'_>) -> MarkStats {
        self.check_world(world);
        let mut stats = MarkStats::default();
        for p in 0..self.opts.procs {
            let mut l = self.local(p);
            l.gcw.end_visit();
            stats.add(&l.gcw.take_stats());
            l.assist_bytes = 0;
            l.mcache.iter_mut().for_each(|s| *s = None);
        }
        stats
    }

    /// The end-of-mark checks (with the world stopped, `world`): the markers' bad pointers,
    /// the workload's bad dereferences, work left in a queue, and the checkmark oracle if it
    /// is on.
    fn end_of_mark_checks(&self, world: &StoppedWorld<'_>, stats: &MarkStats) -> Checks {
        self.check_world(world);
        let mut checks = Checks {
            bad_pointers: stats.bad_pointers,
            bad_derefs: self.bad_derefs.swap(0, Relaxed),
            ..Checks::default()
        };
        if !self.mark.queues_empty(world) {
            checks.queues_not_empty += 1;
        }
        if self.opts.checkmark {
            crate::checkmark::check(
                world,
                &self.heap,
                self.roots(),
                self.opts.marker,
                stats.bytes_marked,
                &mut checks,
            );
        }
        checks
    }

    /// Sweep: the coordinator sweeps in the background (mutators sweep lazily as they
    /// refill) until no span is left. Returns the objects this cycle freed.
    fn sweep(&self, freed_before: u64) -> u64 {
        self.background_sweep();
        self.heap.objects_freed() - freed_before
    }

    /// Sweep termination work (with the world stopped, `world`): worker counts, assist
    /// ratio, roots, mark on.
    pub(super) fn start_mark(&self, world: &StoppedWorld<'_>, pacer: &Pacer) {
        self.check_world(world);
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
        self.acct.reset(world);
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
        self.mark.set_roots(world, jobs);
        self.mark_start_ns.store(self.now_ns(), Relaxed);
        self.set_marking(world, true);
        self.revise(pacer);
    }

    /// Turns mark on (the phase, and the write barrier unless the negative control turned it
    /// off) or off. Only with the world stopped (`world`): mutators and workers read both
    /// flags Relaxed (`Ctx::store_ptr`, `Gc::marking`), which is enough only because each
    /// of them takes a P (through the scheduler's mutex) after the change.
    fn set_marking(&self, world: &StoppedWorld<'_>, on: bool) {
        self.check_world(world);
        if on {
            self.barrier.store(self.opts.write_barrier, Relaxed);
            self.phase.store(PHASE_MARK, Relaxed);
        } else {
            self.phase.store(PHASE_OFF, Relaxed);
            self.barrier.store(false, Relaxed);
        }
    }

    /// A stop-the-world step was handed this collector's stopped world, not another's.
    fn check_world(&self, world: &StoppedWorld<'_>) {
        assert!(
            world.stops(&self.sched),
            "a stop-the-world step of this collector needs its own world stopped"
        );
    }

    pub(super) fn revise(&self, pacer: &Pacer) {
        let live = self.heap.live();
        let triggered = self.triggered.load(Relaxed);
        let r = pacer.assist_ratio(live, triggered, self.acct.scan_done.load(Relaxed), live);
        self.assist_ratio_bits.store(r.to_bits(), Relaxed);
    }
}
