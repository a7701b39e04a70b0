//! The mutator's side of the collector: a quantum on a P, allocation (mcache, refill, lazy
//! sweep, allocate-black), assists, and `Ctx`, the only door a workload has to the heap, with
//! the write barrier on every pointer store.

use super::account::Seg;
use super::{Gc, PLocal};
use crate::error::LabError;
use crate::heap::sizeclass::SpanClass;
use crate::heap::{AllocClass, AtomicObjRef, ObjLoc, ObjRef, SpanId, TypeId};
use crate::mark::Marker;
use parking_lot::MutexGuard;
use std::sync::atomic::{
    fence,
    Ordering::{Acquire, Relaxed, Release},
};

pub(super) const WB_BUF: usize = 512;
/// Go's gcOverAssistWork: an assist does at least this much scan work, to amortise its cost.
const OVER_ASSIST: i64 = 64 << 10;

impl Gc {
    pub(super) fn flush_wb(&self, local: &mut PLocal, p: usize) {
        let PLocal { gcw, wb, .. } = local;
        // Acquire: the buffered pointers were loaded Relaxed (the barrier's old values);
        // their objects' initialisation must be visible before `shade` reads them. One
        // fence per buffer of up to 512.
        fence(Acquire);
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
        // Held from here on: if the quantum unwinds, the thread's exit gives the P back.
        *held = Some(p);
        let mut local = self.local(p);
        if self.marking() {
            self.fractional(&mut local, p);
        }
        let mut ctx = Ctx {
            gc: self,
            p,
            held,
            local: Some(local),
            stack,
        };
        let r = f(&mut ctx);
        // A safepoint in the quantum may have moved the mutator to another P.
        let Ctx { local, p, .. } = ctx;
        if let Some(mut local) = local {
            if self.marking() {
                // Publish this quantum's mark work so workers on other Ps can take it.
                self.flush_wb(&mut local, p);
                let PLocal { gcw, .. } = &mut *local;
                self.mark.dispose(gcw, p);
            }
        }
        r
    }

    /// The mutator blocks or leaves: it gives its P back.
    pub fn release_p(&self, held: &mut Option<usize>) {
        if let Some(p) = held.take() {
            self.sched.release(p);
        }
    }

    pub(super) fn assist(&self, local: &mut PLocal, p: usize) {
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
            done >= want || self.sched.stopping_world()
        });
        local.assist_bytes += (done as f64 / ratio) as i64;
        // A drain stopped at once by a stop-the-world keeps its debt for the next assist.
        if local.assist_bytes < 0 && done == 0 && !self.sched.stopping_world() {
            // Go parks the goroutine until background credit appears; the lab lets it go on
            // (no work is left to help with), which at worst lets the heap pass its goal.
            local.assist_bytes = 0;
        }
    }

    /// Allocates an object of type `tid`; `None` when the arena is full (the run is then
    /// failing: the error is recorded and every thread is asked to stop).
    pub(super) fn alloc(&self, local: &mut PLocal, p: usize, tid: TypeId) -> Option<ObjRef> {
        let AllocClass {
            class,
            noscan,
            bytes,
        } = self.heap.class_of(tid);
        let o = match class {
            Some(class) => self.alloc_small(local, class, noscan)?,
            None => self.alloc_large(bytes, noscan)?,
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
            // Allocate black: for Green Tea scanned, then marked (gcmarknewobject). The scan
            // bit goes first and the mark is a Release: a span scan that sees the mark (its
            // marks load is SeqCst, an acquire) sees the scan bit too and leaves the new
            // object alone, instead of scanning it half made.
            if self.opts.marker == Marker::Greentea && o.inline && !o.noscan {
                self.heap
                    .scans_word(o.span, o.idx / 64)
                    .fetch_or(1 << (o.idx % 64), Relaxed);
            }
            let (w, bit) = self.heap.mark_word(&o);
            w.fetch_or(bit, Release);
            local.gcw.count_black(size as u64);
        }
        // Go's publicationBarrier: the object's initialisation (span metadata, zeroed words,
        // header or pointer bits, allocate-black bits) happens before any store of `r` that
        // another thread can load; markers pair it with an Acquire fence or load.
        fence(Release);
        Some(r)
    }

    pub(super) fn alloc_small(
        &self,
        local: &mut PLocal,
        class: u8,
        noscan: bool,
    ) -> Option<ObjLoc> {
        let spc = SpanClass::new(class, noscan);
        loop {
            if let Some(span) = local.mcache[spc.index()] {
                if let Some(o) = self.heap.next_free(span) {
                    return Some(o);
                }
            }
            local.mcache[spc.index()] = Some(self.refill(spc, class, noscan)?);
        }
    }

    /// A span with free slots: a swept partial span, one found by sweeping (Go's lazy
    /// sweep), or a fresh one. Charges its free bytes to heapLive like Go's mcache refill.
    pub(super) fn refill(&self, spc: SpanClass, class: u8, noscan: bool) -> Option<SpanId> {
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
        let span = match span.or_else(|| self.heap.new_span(class, noscan, 0)) {
            Some(s) => s,
            None => return self.arena_full(),
        };
        self.charge(self.heap.free_bytes(span));
        Some(span)
    }

    pub(super) fn alloc_large(&self, bytes: u32, noscan: bool) -> Option<ObjLoc> {
        let Some(o) = self.heap.alloc_large(bytes, noscan) else {
            return self.arena_full();
        };
        self.charge(o.elem_words as u64 * 8);
        Some(o)
    }

    /// The arena is full: the run fails with `LabError::ArenaFull` and stops; the caller
    /// unwinds its allocation with `None`.
    fn arena_full<T>(&self) -> Option<T> {
        self.fail(LabError::ArenaFull {
            mapped_mb: self.heap.mapped_bytes() >> 20,
            arena_mb: self.heap.arena_bytes() >> 20,
        });
        None
    }

    pub(super) fn charge(&self, bytes: u64) {
        let live = self.heap.add_live(bytes);
        if !self.marking() && live >= self.trigger.load(Relaxed) {
            self.wake.1.notify_one();
        }
    }
}

/// A mutator holding a P for one quantum. Every heap access of a workload goes through it, so
/// the write barrier and allocation are the collector's, not the workload's.
pub struct Ctx<'a> {
    gc: &'a Gc,
    p: usize,
    /// The mutator's held P, kept current when a safepoint moves it to another one (the
    /// thread gives it back if it unwinds).
    held: &'a mut Option<usize>,
    /// P `p`'s state; `None` only inside `yield_p`, between giving a P back and taking one.
    local: Option<MutexGuard<'a, PLocal>>,
    stack: usize,
}

impl Ctx<'_> {
    /// P `p`'s state.
    #[inline]
    fn l(&mut self) -> &mut PLocal {
        match self.local.as_deref_mut() {
            Some(l) => l,
            None => unreachable!("a Ctx holds its P's state outside yield_p"),
        }
    }

    /// A safepoint: if the collector wants Ps (a stop-the-world, or a dedicated mark worker),
    /// the mutator gives its P back here and waits for one, instead of at the end of its
    /// quantum. Go preempts a goroutine anywhere; the lab's mutators poll (two Relaxed loads)
    /// every few node visits or allocations. The caller must hold no reference that only a
    /// Rust local keeps alive: every object it will use after the safepoint must be reachable
    /// from a root slot or from the heap, and stay so (a cycle may start or end here).
    #[inline]
    pub fn safepoint(&mut self) {
        if self.gc.sched.should_yield_to_gc() {
            self.yield_p();
        }
    }

    /// Gives the P back and takes one again (perhaps another). The P's write-barrier buffer
    /// and mark work stay with it, as Go's do with a P: whoever holds it next (the stopped
    /// world's ragged barrier, a worker, a mutator) flushes them; not flushing here keeps
    /// the stop quick.
    #[cold]
    fn yield_p(&mut self) {
        let gc = self.gc;
        drop(self.local.take());
        gc.release_p(self.held);
        let p = gc.sched.acquire_mut();
        *self.held = Some(p);
        self.p = p;
        let mut local = gc.local(p);
        if gc.marking() {
            gc.fractional(&mut local, p);
        }
        self.local = Some(local);
    }

    /// A new object of type `tid`, zeroed; `None` when the run is failing (the arena is
    /// full): the workload's step then returns at once.
    #[must_use]
    pub fn alloc(&mut self, tid: TypeId) -> Option<ObjRef> {
        let (gc, p) = (self.gc, self.p);
        gc.alloc(self.l(), p, tid)
    }

    /// Loads a pointer field; a poisoned or freed target is counted as a bad dereference.
    #[inline]
    #[must_use]
    pub fn load_ptr(&self, slot: ObjRef) -> ObjRef {
        // Acquire, paired with `store_ptr`'s Release: a pointer copied from slot to slot
        // carries its object's initialisation along (the chain stays transitive on ARM).
        match ObjRef::from_word(self.gc.heap.load_acquire(slot)) {
            Some(r) => r,
            None => {
                self.gc.bad_derefs.fetch_add(1, Relaxed);
                ObjRef::NIL
            }
        }
    }

    #[inline]
    #[must_use]
    pub fn load_word(&self, slot: ObjRef) -> u64 {
        self.gc.heap.load(slot)
    }

    /// Stores a scalar (the caller knows the slot is not a pointer).
    #[inline]
    pub fn store_word(&self, slot: ObjRef, v: u64) {
        self.gc.heap.store(slot, v)
    }

    /// Stores a pointer with the write barrier: during mark, both the overwritten and the new
    /// pointer are shaded (Yuasa + Dijkstra; Go's hybrid barrier shades the new one only while
    /// the stack is grey, the lab always does: conservative and correct).
    #[inline]
    pub fn store_ptr(&mut self, slot: ObjRef, v: ObjRef) {
        // Relaxed flag: set and cleared with the world stopped (`Gc::set_marking` takes the
        // `StoppedWorld`); this mutator took its P (a mutex) after the change. The old value is
        // shaded after flush_wb's Acquire fence.
        if self.gc.barrier.load(Relaxed) {
            let old = self.gc.heap.load(slot);
            self.wb(ObjRef::from_word_truncating(old), v);
        }
        // Release: publishes `v`'s object (initialised before it, see `alloc`) to a marker
        // or mutator that loads the slot.
        self.gc.heap.store_release(slot, v.to_word());
    }

    pub(super) fn wb(&mut self, old: ObjRef, new: ObjRef) {
        let (gc, p) = (self.gc, self.p);
        let l = self.l();
        if !old.is_nil() {
            l.wb.push(old);
        }
        if !new.is_nil() {
            l.wb.push(new);
        }
        if l.wb.len() >= WB_BUF - 2 {
            gc.flush_wb(l, p);
        }
    }

    #[must_use]
    pub fn root(&self, global: bool, i: usize) -> ObjRef {
        // Acquire: as `load_ptr`.
        self.slots(global)[i].load(Acquire)
    }

    /// Stores into a root slot (a global or this mutator's stack), with the barrier: roots are
    /// scanned concurrently, so they need it as much as heap slots.
    pub fn set_root(&mut self, global: bool, i: usize, v: ObjRef) {
        if self.gc.barrier.load(Relaxed) {
            let old = self.slots(global)[i].load(Relaxed);
            self.wb(old, v);
        }
        // Release: as `store_ptr`; root jobs load it with Acquire.
        self.slots(global)[i].store(v, Release);
    }

    pub(super) fn slots(&self, global: bool) -> &[AtomicObjRef] {
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
