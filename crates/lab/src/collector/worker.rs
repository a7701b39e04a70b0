//! Mark workers: one thread per P, dedicated or idle (Go's `gcBgMarkWorker`), and the
//! fractional slice a mutator's P owes; each runs the shared drain as a booked segment.

use super::account::Seg;
use super::{Gc, HeldP, PLocal};
use crate::sched::thread_cpu_ns;
use crate::Fault;
use parking_lot::MutexGuard;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

impl Gc {
    /// Runs a mark segment on P `p` and books its wall and thread CPU time.
    pub(super) fn work_segment(
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

    /// Releases a worker's P, publishing its local mark work so no work hides in an idle P.
    pub(super) fn put_p(&self, mut local: MutexGuard<'_, PLocal>, held: &mut HeldP<'_>) {
        if let Some(p) = held.p {
            if self.marking() {
                self.flush_wb(&mut local, p);
                let PLocal { gcw, .. } = &mut *local;
                self.mark.dispose(gcw, p);
            }
        }
        drop(local);
        self.release_p(&mut held.p);
    }

    /// A mark segment is about to run on P `p`: the place `Fault::MarkWorkerPanics` strikes.
    fn inject_worker_fault(&self, p: usize) {
        if self.opts.fault == Some(Fault::MarkWorkerPanics) {
            panic!("injected fault: the mark worker on P {p} panics");
        }
    }

    pub(super) fn fractional(&self, local: &mut PLocal, p: usize) {
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

    // ---- mark workers ----

    /// A mark worker thread (one per P, like gcBgMarkWorker): dedicated if its index is below
    /// this cycle's dedicated count, otherwise an idle worker on Ps nobody wants. The P it
    /// takes is held by a `HeldP`, so a panic gives it back and stops the run.
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
                let mut held = HeldP::holding(self, p);
                let mut local = self.local(p);
                if self.marking() {
                    self.inject_worker_fault(p);
                    self.work_segment(&mut local, p, Seg::Background, |_| {
                        self.sched.stopping_world() || !self.marking()
                    });
                }
                self.put_p(local, &mut held);
            } else if let Some(p) = self.sched.try_acquire_idle() {
                let mut held = HeldP::holding(self, p);
                let mut local = self.local(p);
                if self.marking() {
                    self.inject_worker_fault(p);
                    self.work_segment(&mut local, p, Seg::Idle, |_| self.sched.contended());
                }
                self.put_p(local, &mut held);
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }
}
