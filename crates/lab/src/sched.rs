//! P tokens: GOMAXPROCS modelled as N tokens a thread must hold to run mutator code or mark
//! work. Without them the OS would decide who runs, and "25% of P" or "idle worker" would mean
//! nothing comparable to Go. Stopping the world is holding every token.

use parking_lot::{Condvar, Mutex, MutexGuard};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

pub struct Sched {
    /// The P tokens there are (GOMAXPROCS): a stopped world holds every one of them.
    procs: usize,
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
    #[must_use]
    pub fn new(procs: usize) -> Sched {
        Sched {
            procs,
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

    /// Stops the world: waits for every P (each holder gives its own back at its next
    /// safepoint or at the end of its segment) and holds them all until the returned
    /// `StoppedWorld` is started or dropped. The guard is the only proof of a stopped world
    /// the stop-the-world operations accept.
    pub fn stop_world(&self) -> StoppedWorld<'_> {
        self.stw.store(true, Relaxed);
        StoppedWorld {
            sched: self,
            ps: (0..self.procs).map(|_| self.acquire_prio()).collect(),
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

/// The world stopped: every P of a `Sched` held, in order of arrival, so no mutator, mark
/// worker or sweeper of its run executes (they run lab code only while holding a P), and
/// everything they wrote before giving their P back is visible to the holder (each P came
/// back through the scheduler's mutex).
///
/// It is the proof a stop-the-world operation asks for: those that are only sound while
/// nothing else runs take a `&StoppedWorld` (`Heap::start_sweep` and `Heap::set_live`,
/// `Marking::set_roots` and `Marking::queues_empty`, `checkmark::check`, and the collector's
/// sweep termination, ragged barrier and mark termination steps), so calling one while the
/// world runs does not compile. Only `Sched::stop_world` makes one (the fields are private),
/// and `start` consumes it, so no borrow of it outlives the stop. Dropping it starts the world
/// too, so a panic with the world stopped does not leave the other threads waiting for a P
/// forever.
///
/// With the guard, a stop-the-world operation compiles:
///
/// ```
/// use gcscope_lab::{heap::Heap, sched::Sched, workload};
///
/// let heap = Heap::new(1 << 20, workload::types(), false);
/// let sched = Sched::new(2);
/// let world = sched.stop_world();
/// heap.start_sweep(&world);
/// world.start();
/// ```
///
/// Without it (the same code, the world never stopped) it does not:
///
/// ```compile_fail,E0061
/// use gcscope_lab::{heap::Heap, sched::Sched, workload};
///
/// let heap = Heap::new(1 << 20, workload::types(), false);
/// let sched = Sched::new(2);
/// heap.start_sweep();
/// ```
///
/// Nor once the world has started again (the guard was consumed):
///
/// ```compile_fail,E0382
/// use gcscope_lab::{heap::Heap, sched::Sched, workload};
///
/// let heap = Heap::new(1 << 20, workload::types(), false);
/// let sched = Sched::new(2);
/// let world = sched.stop_world();
/// world.start();
/// heap.start_sweep(&world);
/// ```
///
/// Nor can a guard be made without stopping the world:
///
/// ```compile_fail,E0451
/// use gcscope_lab::{heap::Heap, sched::{Sched, StoppedWorld}, workload};
///
/// let heap = Heap::new(1 << 20, workload::types(), false);
/// let sched = Sched::new(2);
/// let world = StoppedWorld { sched: &sched, ps: vec![0, 1] };
/// heap.start_sweep(&world);
/// ```
pub struct StoppedWorld<'a> {
    sched: &'a Sched,
    ps: Vec<usize>,
}

impl StoppedWorld<'_> {
    /// Starts the world: every P goes back.
    pub fn start(self) {}

    /// Is this `sched`'s world the one stopped? (A guard proves a stop of its own scheduler
    /// only: the collector checks it was handed its own.)
    pub fn stops(&self, sched: &Sched) -> bool {
        std::ptr::eq(self.sched, sched)
    }
}

impl Drop for StoppedWorld<'_> {
    fn drop(&mut self) {
        self.sched.start_world(std::mem::take(&mut self.ps));
    }
}

/// This thread's CPU time (CLOCK_THREAD_CPUTIME_ID), ns.
#[must_use]
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
