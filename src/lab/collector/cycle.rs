//! One GC cycle's choreography, run by the coordinator thread: wait for the trigger, stop the
//! world for sweep termination, concurrent mark until a ragged barrier finds no work, stop the
//! world for mark termination, then sweep.

use super::account::{scan_stats, CumCpu};
use super::{Checks, CycleResult, Gc, PLocal, PHASE_MARK, PHASE_OFF};
use crate::lab::mark::{MarkStats, RootJob, ROOT_JOB_SLOTS};
use crate::lab::pacer::Pacer;
use crate::lab::sched::thread_cpu_ns;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

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
            crate::lab::checkmark::check(
                &self.heap,
                self.roots(),
                self.opts.marker,
                stats.bytes_marked,
                &mut checks,
            );
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
        pacer.end_cycle(&crate::lab::pacer::MarkPhase {
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
    pub(super) fn start_mark(&self, pacer: &Pacer) {
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

    pub(super) fn revise(&self, pacer: &Pacer) {
        let live = self.heap.heap_live.load(Relaxed);
        let triggered = self.triggered.load(Relaxed);
        let r = pacer.assist_ratio(live, triggered, self.acct.scan_done.load(Relaxed), live);
        self.assist_ratio_bits.store(r.to_bits(), Relaxed);
    }
}
