//! P tokens: GOMAXPROCS modelled as N tokens a thread must hold to run mutator code or mark
//! work. Without them the OS would decide who runs, and "25% of P" or "idle worker" would mean
//! nothing comparable to Go. Stopping the world is holding every token.

use parking_lot::{Condvar, Mutex, MutexGuard};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

pub struct Sched {
    st: Mutex<St>,
    cv: Condvar,
    /// Mirrors of the waiter counts, for lock-free "should I yield?" checks (Relaxed hints:
    /// the tokens themselves change hands under `st`).
    waiting_mut: AtomicUsize,
    waiting_prio: AtomicUsize,
    /// A stop-the-world is under way: everyone yields at the next check. Shared with the
    /// markers, whose drain loops poll it between objects (`stw_flag`).
    stw: Arc<AtomicBool>,
}

struct St {
    free: Vec<usize>,
    wait_mut: usize,
    wait_prio: usize,
    /// Mutator-kind waiters in arrival order: a thread that releases a P and asks again
    /// queues behind those already waiting, so the background sweeper or a third mutator is
    /// never starved by two busy ones.
    queue: std::collections::VecDeque<u64>,
    next_ticket: u64,
}

impl Sched {
    pub fn new(procs: usize) -> Sched {
        Sched {
            st: Mutex::new(St {
                free: (0..procs).rev().collect(),
                wait_mut: 0,
                wait_prio: 0,
                queue: std::collections::VecDeque::new(),
                next_ticket: 0,
            }),
            cv: Condvar::new(),
            waiting_mut: AtomicUsize::new(0),
            waiting_prio: AtomicUsize::new(0),
            stw: Arc::new(AtomicBool::new(false)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, St> {
        self.st.lock()
    }

    /// A P for the GC (stop-the-world, dedicated and fractional workers): before mutators.
    pub fn acquire_prio(&self) -> usize {
        let mut st = self.lock();
        st.wait_prio += 1;
        self.waiting_prio.store(st.wait_prio, Relaxed);
        while st.free.is_empty() {
            self.cv.wait(&mut st);
        }
        st.wait_prio -= 1;
        self.waiting_prio.store(st.wait_prio, Relaxed);
        st.free.pop().unwrap_or(0)
    }

    /// A P for a mutator quantum; waits while the GC wants Ps.
    pub fn acquire_mut(&self) -> usize {
        let mut st = self.lock();
        st.wait_mut += 1;
        self.waiting_mut.store(st.wait_mut, Relaxed);
        let ticket = st.next_ticket;
        st.next_ticket += 1;
        st.queue.push_back(ticket);
        while st.free.is_empty()
            || st.wait_prio > 0
            || self.stw.load(Relaxed)
            || st.queue.front() != Some(&ticket)
        {
            self.cv.wait(&mut st);
        }
        st.queue.pop_front();
        st.wait_mut -= 1;
        self.waiting_mut.store(st.wait_mut, Relaxed);
        let p = st.free.pop().unwrap_or(0);
        if !st.free.is_empty() && !st.queue.is_empty() {
            // The next in line may take the P that is still free.
            self.cv.notify_all();
        }
        p
    }

    /// A P nobody else wants, for an idle mark worker; `None` if there is none.
    pub fn try_acquire_idle(&self) -> Option<usize> {
        let mut st = self.lock();
        if st.wait_mut > 0 || st.wait_prio > 0 || self.stw.load(Relaxed) {
            return None;
        }
        st.free.pop()
    }

    pub fn release(&self, p: usize) {
        let mut st = self.lock();
        st.free.push(p);
        drop(st);
        self.cv.notify_all();
    }

    /// Someone else wants a P: idle workers and fractional slices yield, and a mutator gives
    /// up the P it would otherwise keep across quanta.
    pub fn contended(&self) -> bool {
        self.waiting_mut.load(Relaxed) > 0 || self.should_yield_to_gc()
    }

    /// The stop-the-world flag, for threads that poll it without the scheduler at hand (a
    /// mark worker's drain loop, as Go's gcDrain polls `gp.preempt` after every object).
    pub fn stw_flag(&self) -> Arc<AtomicBool> {
        self.stw.clone()
    }

    /// A stop-the-world is under way.
    pub fn stopping_world(&self) -> bool {
        self.stw.load(Relaxed)
    }

    pub fn should_yield_to_gc(&self) -> bool {
        self.stw.load(Relaxed) || self.waiting_prio.load(Relaxed) > 0
    }

    /// Stops the world: holds every P until the returned `StoppedWorld` is started or
    /// dropped.
    pub fn stop_world(&self, procs: usize) -> StoppedWorld<'_> {
        self.stw.store(true, Relaxed);
        StoppedWorld {
            sched: self,
            ps: (0..procs).map(|_| self.acquire_prio()).collect(),
        }
    }

    fn start_world(&self, ps: Vec<usize>) {
        self.stw.store(false, Relaxed);
        let mut st = self.lock();
        st.free.extend(ps);
        drop(st);
        self.cv.notify_all();
    }
}

/// The world stopped: every P held, in order of arrival. Dropping it starts the world, so a
/// panic with the world stopped does not leave the other threads waiting for a P forever.
pub struct StoppedWorld<'a> {
    sched: &'a Sched,
    ps: Vec<usize>,
}

impl StoppedWorld<'_> {
    /// Starts the world: every P goes back.
    pub fn start(self) {}
}

impl Drop for StoppedWorld<'_> {
    fn drop(&mut self) {
        self.sched.start_world(std::mem::take(&mut self.ps));
    }
}

/// This thread's CPU time (CLOCK_THREAD_CPUTIME_ID), ns.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec we own.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
