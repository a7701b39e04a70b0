//! The two markers over one heap: legacy (object by object, LIFO work buffers) and Green Tea
//! (span by span, FIFO span queues), sharing roots, write barrier and the large-object path.
//!
//! Constants and policies follow Go 1.26 (`mgcwork.go`, `mgcmark.go`,
//! `mgcmark_greenteagc.go`): 253-entry work buffers, a 256-entry local span ring spilling
//! `min(n/2, 16)` every 64 puts and half when full, stealing half (at most 128), and the same
//! drain priority for both markers. Simplified: the stealable span chain is a mutex-guarded
//! deque per P instead of Go's lock-free SPMC ring chain.

/// Sets `o`'s mark bit and counts its bytes; true when this call set it (the caller greys
/// it), false when it was already marked.
#[inline]
fn set_mark(heap: &Heap, gcw: &mut GcWork, o: &ObjLoc) -> bool {
    let (w, bit) = heap.mark_word(o);
    // SeqCst: the mark store must be visible before this thread reads the ownership byte
    // (try_acquire), as the scanner's release must be before it reads the marks; Go's
    // Or8/Xchg8/Load8 give that order, Relaxed would not on ARM64. The winner of the
    // fetch_or alone greys the object (one RMW order per word, whatever the ordering);
    // legacy would need only that, one ordering keeps shade one path. The Relaxed
    // pre-check only skips: a set mark is never cleared during mark.
    if w.load(Relaxed) & bit != 0 || w.fetch_or(bit, SeqCst) & bit != 0 {
        return false;
    }
    gcw.stats.bytes_marked += o.elem_words as u64 * 8;
    true
}

#[cfg(test)]
mod cost;
mod greentea;
mod legacy;

use super::heap::sizeclass::NUM_CLASSES;
use super::heap::{AtomicObjRef, Heap, ObjLoc, ObjRef, PageId, SpanId};
use super::rand::next_rand;
use super::sched::StoppedWorld;
use greentea::{try_acquire, SpanQEntry};
pub use legacy::WORKBUF;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::atomic::{
    fence, AtomicBool, AtomicU64, AtomicUsize,
    Ordering::{Acquire, Relaxed, SeqCst},
};
use std::sync::Arc;

pub const ROOT_JOB_SLOTS: usize = 256;
/// Density histogram buckets: [2^i, 2^(i+1)) objects per visit, up to 512+.
pub const HIST: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Marker {
    Legacy,
    Greentea,
}

impl Marker {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Marker::Legacy => "legacy",
            Marker::Greentea => "greentea",
        }
    }
}

/// One size class's scan counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassScan {
    /// Objects scanned, however reached.
    pub objs: u64,
    /// Of those, objects scanned by span scans (Green Tea).
    pub span_objs: u64,
    /// Span scans that found objects to scan.
    pub spans: u64,
}

/// Per-cycle counters a worker keeps locally and the collector sums at mark termination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkStats {
    pub objs_scanned: u64,
    pub bytes_scanned: u64,
    pub scan_work: u64,
    pub bytes_marked: u64,
    pub visits: u64,
    pub hist: [u64; HIST],
    /// Go's gctrace=2 span counters, Go 1.26 meaning (no dense kernel in the lab); objects
    /// scanned one at a time are `objs_scanned - span_objs_sparse`.
    pub spans_sparse: u64,
    pub span_objs_sparse: u64,
    pub bad_pointers: u64,
    /// Per size class (0: large).
    pub by_class: [ClassScan; NUM_CLASSES],
}

impl Default for MarkStats {
    fn default() -> MarkStats {
        MarkStats {
            objs_scanned: 0,
            bytes_scanned: 0,
            scan_work: 0,
            bytes_marked: 0,
            visits: 0,
            hist: [0; HIST],
            spans_sparse: 0,
            span_objs_sparse: 0,
            bad_pointers: 0,
            by_class: [ClassScan::default(); NUM_CLASSES],
        }
    }
}

impl MarkStats {
    pub fn add(&mut self, o: &MarkStats) {
        self.objs_scanned += o.objs_scanned;
        self.bytes_scanned += o.bytes_scanned;
        self.scan_work += o.scan_work;
        self.bytes_marked += o.bytes_marked;
        self.visits += o.visits;
        for (a, b) in self.hist.iter_mut().zip(o.hist) {
            *a += b;
        }
        self.spans_sparse += o.spans_sparse;
        self.span_objs_sparse += o.span_objs_sparse;
        self.bad_pointers += o.bad_pointers;
        for (a, b) in self.by_class.iter_mut().zip(&o.by_class) {
            a.objs += b.objs;
            a.span_objs += b.span_objs;
            a.spans += b.spans;
        }
    }
}

/// One P's marking state (Go's `gcWork`).
#[derive(Default)]
pub struct GcWork {
    wbuf1: Vec<ObjRef>,
    wbuf2: Vec<ObjRef>,
    ring: VecDeque<SpanQEntry>,
    puts: u32,
    stats: MarkStats,
    /// Page of the current visit and its run length (page scan density, one definition for
    /// both markers: a visit is a maximal run of consecutive object scans on one page).
    last_page: PageId,
    run: u64,
}

impl GcWork {
    /// This P's counters since the last call (mark termination sums them).
    pub fn take_stats(&mut self) -> MarkStats {
        std::mem::take(&mut self.stats)
    }

    /// Counts an object allocated black (marked at allocation) into the bytes marked.
    pub fn count_black(&mut self, bytes: u64) {
        self.stats.bytes_marked += bytes;
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.wbuf1.is_empty() && self.wbuf2.is_empty() && self.ring.is_empty()
    }

    fn note_scan(&mut self, page: PageId) {
        if page == self.last_page && self.run > 0 {
            self.run += 1;
        } else {
            self.end_visit();
            self.last_page = page;
            self.run = 1;
            self.stats.visits += 1;
        }
    }

    /// Closes the current visit into the histogram.
    pub fn end_visit(&mut self) {
        if self.run > 0 {
            let b = (63 - self.run.leading_zeros() as usize).min(HIST - 1);
            self.stats.hist[b] += 1;
        }
        self.run = 0;
    }
}

/// A root job: a range of slots in one root array.
#[derive(Clone)]
pub struct RootJob {
    pub slots: Arc<[AtomicObjRef]>,
    pub start: usize,
    pub end: usize,
}

/// Mark state shared by all Ps.
pub struct Marking {
    marker: Marker,
    full: Mutex<Vec<Vec<ObjRef>>>,
    full_len: AtomicUsize,
    chains: Vec<Mutex<VecDeque<SpanQEntry>>>,
    spanq_mask: AtomicU64,
    roots: Mutex<Vec<RootJob>>,
    next_root: AtomicUsize,
    n_roots: AtomicUsize,
    /// Drains in progress (a hint for the coordinator, as Go's `work.nwait`).
    drainers: AtomicUsize,
    /// The world is being stopped: drains end at the next object (Go's `gp.preempt` check).
    preempt: Arc<AtomicBool>,
}

impl Marking {
    pub fn new(marker: Marker, procs: usize, preempt: Arc<AtomicBool>) -> Marking {
        Marking {
            marker,
            full: Mutex::new(Vec::new()),
            full_len: AtomicUsize::new(0),
            chains: (0..procs).map(|_| Mutex::new(VecDeque::new())).collect(),
            spanq_mask: AtomicU64::new(0),
            roots: Mutex::new(Vec::new()),
            next_root: AtomicUsize::new(0),
            n_roots: AtomicUsize::new(0),
            drainers: AtomicUsize::new(0),
            preempt,
        }
    }

    /// Is a drain in progress on some P? Relaxed: a hint, as `global_work`.
    pub fn draining(&self) -> bool {
        self.drainers.load(Relaxed) > 0
    }

    /// Is there work any P could pick up without looking inside another P's local state?
    /// Relaxed: a hint. The work itself is taken under the list and chain mutexes (which
    /// order its contents); a stale answer only delays a worker, and the end of mark is
    /// decided with the world stopped, after every P flushed under those mutexes.
    pub fn global_work(&self) -> bool {
        self.full_len.load(Relaxed) > 0
            || self.spanq_mask.load(Relaxed) != 0
            || self.next_root.load(Relaxed) < self.n_roots.load(Relaxed)
    }

    /// This cycle's root jobs, set at mark start with the world stopped (`_world`): no drain
    /// may be taking jobs from the list being replaced.
    pub fn set_roots(&self, _world: &StoppedWorld<'_>, jobs: Vec<RootJob>) {
        // Relaxed: set with the world stopped (`_world`); workers see it after taking a P (a
        // mutex).
        self.n_roots.store(jobs.len(), Relaxed);
        self.next_root.store(0, Relaxed);
        *self.roots.lock() = jobs;
    }

    // ---- shading ----

    /// Marks the object `r` points into and queues it for scanning if it has pointers. Every
    /// pointer a marker handles comes here: from an object scan, a root job or a write-barrier
    /// buffer flush.
    #[inline]
    pub fn shade(&self, heap: &Heap, gcw: &mut GcWork, p: usize, r: ObjRef) {
        if r.is_nil() {
            return;
        }
        // Green Tea sends every pointer first through `tryDeferToSpanScan` (scanobject,
        // scanblock and wbBufFlush1 all do): the arena's bitmap says whether the page keeps
        // inline mark bits; only then does the pointer take the span path. Objects over
        // 512 B always fail the test and pay it in front of `findObject`. Legacy goes
        // straight to `findObject`.
        if self.marker == Marker::Greentea {
            if let Some(span) = heap.inline_span_of(r) {
                self.defer_to_span_scan(heap, gcw, p, span, r);
                return;
            }
        }
        let Some(o) = heap.find(r) else {
            gcw.stats.bad_pointers += 1;
            return;
        };
        if !set_mark(heap, gcw, &o) || o.noscan {
            return;
        }
        if self.marker == Marker::Greentea && o.inline {
            // Not reached while the bitmap agrees with the span table (it always does for a
            // pointer to a live object); an inline object still goes to its span.
            if try_acquire(heap, o.span) {
                self.span_put(gcw, p, SpanQEntry::new(o.span, o.idx));
            }
            return;
        }
        self.put_obj(gcw, o.base);
    }

    /// `tryDeferToSpanScan` past its test: the object is found from the page's class byte,
    /// marked in the inline mark bits; a pointerful object's span (not the object) is queued,
    /// once per ownership.
    #[inline]
    fn defer_to_span_scan(&self, heap: &Heap, gcw: &mut GcWork, p: usize, span: SpanId, r: ObjRef) {
        let Some(o) = heap.find_inline(span, r) else {
            gcw.stats.bad_pointers += 1;
            return;
        };
        if !set_mark(heap, gcw, &o) || o.noscan {
            return;
        }
        if try_acquire(heap, span) {
            self.span_put(gcw, p, SpanQEntry::new(span, o.idx));
        }
    }

    /// Publishes all local work (Go's `dispose`): buffers to the global list, spans to our
    /// chain. Called when a P is released, so no work hides in an idle P.
    pub fn dispose(&self, gcw: &mut GcWork, p: usize) {
        if !gcw.wbuf1.is_empty() {
            let b = std::mem::take(&mut gcw.wbuf1);
            self.put_full(b);
        }
        if !gcw.wbuf2.is_empty() {
            let b = std::mem::take(&mut gcw.wbuf2);
            self.put_full(b);
        }
        if !gcw.ring.is_empty() {
            let n = gcw.ring.len();
            self.spill(gcw, p, n);
        }
        gcw.end_visit();
    }

    // ---- scanning ----

    /// Scans one object: loads each pointer slot and shades what it points to.
    #[inline]
    fn scan_object(&self, heap: &Heap, gcw: &mut GcWork, p: usize, o: &ObjLoc) {
        gcw.note_scan(o.page());
        gcw.stats.objs_scanned += 1;
        gcw.stats.by_class[o.class as usize].objs += 1;
        gcw.stats.bytes_scanned += o.elem_words as u64 * 8;
        gcw.stats.scan_work += heap.scan_bytes(o);
        let (lo, hi) = (o.base, o.end());
        let mut found = [ObjRef::NIL; 8];
        let mut n = 0;
        let mut bad = 0;
        heap.for_each_ptr_slot(o, |slot| {
            let Some(v) = ObjRef::from_word(heap.load(slot)) else {
                bad += 1;
                return;
            };
            if !v.is_nil() && !(lo..hi).contains(&v) {
                // Gather a few pointers before marking, as scanObjectsSmall does, so the
                // loads are issued together.
                if n == found.len() {
                    // Acquire, paired with the allocator's publication fence: the targets'
                    // initialisation (header, pointer bits, zeroed words) is visible before
                    // `shade` reads them. One fence per batch, not one per load.
                    fence(Acquire);
                    for &f in &found {
                        self.shade(heap, gcw, p, f);
                    }
                    n = 0;
                }
                found[n] = v;
                n += 1;
            }
        });
        gcw.stats.bad_pointers += bad;
        fence(Acquire);
        for &f in &found[..n] {
            self.shade(heap, gcw, p, f);
        }
    }

    fn scan_roots(&self, heap: &Heap, gcw: &mut GcWork, p: usize, job: &RootJob) {
        for s in &job.slots[job.start..job.end] {
            // Acquire: pairs with the mutator's Release store of the root (a pointer to an
            // object published after its initialisation).
            let v = s.load(Acquire);
            self.shade(heap, gcw, p, v);
        }
    }

    /// Go's `gcDrain`: roots, local objects, local spans, global objects, our own span chain,
    /// then stealing spans. Stops when nothing is left, when the world is being stopped
    /// (checked at every turn: an object, a span or a root job, as Go checks preemption after
    /// every object), or when `stop` says so (checked every few objects). Returns scan work
    /// done (bytes).
    pub fn drain(
        &self,
        heap: &Heap,
        gcw: &mut GcWork,
        p: usize,
        seed: &mut u64,
        stop: impl FnMut(u64) -> bool,
    ) -> u64 {
        self.drainers.fetch_add(1, Relaxed);
        let done = self.drain_loop(heap, gcw, p, seed, stop);
        self.drainers.fetch_sub(1, Relaxed);
        done
    }

    fn drain_loop(
        &self,
        heap: &Heap,
        gcw: &mut GcWork,
        p: usize,
        seed: &mut u64,
        mut stop: impl FnMut(u64) -> bool,
    ) -> u64 {
        let start = gcw.stats.scan_work;
        // Check `stop` every 64 objects scanned, not every 64 loop turns: a Green Tea turn
        // scans a whole span (up to 496 objects), and counting turns let its assists overshoot
        // and its idle workers keep a wanted P 30x longer than legacy's.
        let mut next_check = gcw.stats.objs_scanned + 64;
        let mut turns = 0u32;
        loop {
            turns += 1;
            // Relaxed: a request to stop; the stop itself is ordered by the P tokens' mutex.
            if self.preempt.load(Relaxed) {
                break;
            }
            if (gcw.stats.objs_scanned >= next_check || turns.is_multiple_of(64))
                && stop(gcw.stats.scan_work - start)
            {
                break;
            }
            if gcw.stats.objs_scanned >= next_check {
                next_check = gcw.stats.objs_scanned + 64;
            }
            if self.next_root.load(Relaxed) < self.n_roots.load(Relaxed) {
                let i = self.next_root.fetch_add(1, Relaxed);
                let job = self.roots.lock().get(i).cloned();
                if let Some(job) = job {
                    self.scan_roots(heap, gcw, p, &job);
                    continue;
                }
            }
            if self.full_len.load(Relaxed) == 0 {
                self.balance(gcw);
            }
            if let Some(r) = self.get_obj(gcw) {
                match heap.find(r) {
                    Some(o) => self.scan_object(heap, gcw, p, &o),
                    None => gcw.stats.bad_pointers += 1,
                }
                continue;
            }
            if let Some(e) = gcw.ring.pop_front() {
                self.scan_span(heap, gcw, p, e);
                continue;
            }
            if let Some(b) = self.get_full() {
                gcw.wbuf1 = b;
                continue;
            }
            if self.marker == Marker::Greentea {
                let mask = self.spanq_mask.load(Relaxed);
                if mask & (1 << p) != 0 && self.take_from_chain(gcw, p) {
                    continue;
                }
                if mask != 0 {
                    let procs = self.chains.len();
                    let off = (next_rand(seed) % procs as u64) as usize;
                    let mut stole = false;
                    for k in 0..procs {
                        let v = (off + k) % procs;
                        if v != p && mask & (1 << v) != 0 && self.take_from_chain(gcw, v) {
                            stole = true;
                            break;
                        }
                    }
                    if stole {
                        continue;
                    }
                }
            }
            break;
        }
        gcw.stats.scan_work - start
    }

    /// Are every span chain and the global buffer list empty (the end-of-mark invariant)? Asked
    /// with the world stopped (`_world`): the Relaxed hints are exact only when every P has
    /// come back through the scheduler's mutex and no drain can change them.
    pub fn queues_empty(&self, _world: &StoppedWorld<'_>) -> bool {
        self.full_len.load(Relaxed) == 0
            && self.spanq_mask.load(Relaxed) == 0
            && self.chains.iter().all(|c| c.lock().is_empty())
    }
}
