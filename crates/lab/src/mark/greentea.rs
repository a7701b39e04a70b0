//! Green Tea's span queues and span scan (`mgcmark_greenteagc.go`): a FIFO local ring of 256
//! spans per P spilling into a stealable per-P chain, the ownership byte that keeps a span in
//! at most one queue, and `scanSpan` with its single-object fast path.

use super::{GcWork, Marking};
use crate::heap::{Heap, SpanId, MANY_MARK, ONE_MARK, TOP_BYTE};
use std::sync::atomic::Ordering::{Relaxed, SeqCst};

/// A span queue entry (Go's `objptr`): the span and the index of the object whose mark queued
/// it, its "representative", which the single-object fast path scans. Go packs both into one
/// pointer-sized word; two `u32`s are the same 8 bytes without the packing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanQEntry {
    span: SpanId,
    rep: u32,
}

const _: () = assert!(std::mem::size_of::<SpanQEntry>() == 8);

impl SpanQEntry {
    pub fn new(span: SpanId, idx: u32) -> SpanQEntry {
        SpanQEntry { span, rep: idx }
    }

    pub fn span(self) -> SpanId {
        self.span
    }

    /// The representative object's index in the span.
    pub fn rep(self) -> u32 {
        self.rep
    }
}

pub(super) const RING: usize = 256;
const SPILL_PERIOD: u32 = 64;
const SPILL_MAX: usize = 16;
const STEAL_MAX: usize = 128;

impl Marking {
    pub(super) fn span_put(&self, gcw: &mut GcWork, p: usize, entry: SpanQEntry) {
        gcw.puts += 1;
        if gcw.ring.len() >= RING {
            let n = RING / 2;
            self.spill(gcw, p, n);
        } else if gcw.puts.is_multiple_of(SPILL_PERIOD) && gcw.ring.len() > 4 {
            let empty = self.chains[p].lock().is_empty();
            if empty {
                let n = (gcw.ring.len() / 2).min(SPILL_MAX);
                self.spill(gcw, p, n);
            }
        }
        gcw.ring.push_back(entry);
    }

    pub(super) fn spill(&self, gcw: &mut GcWork, p: usize, n: usize) {
        self.chains[p]
            .lock()
            .extend(gcw.ring.drain(..n.min(gcw.ring.len())));
        // Relaxed: the mask is a hint; the spans move under the chain's mutex.
        self.spanq_mask.fetch_or(1 << p, Relaxed);
    }

    /// Takes `n - n/2` (at most 128) spans from P `victim`'s chain into our ring.
    pub(super) fn take_from_chain(&self, gcw: &mut GcWork, victim: usize) -> bool {
        let mut c = self.chains[victim].lock();
        let n = c.len();
        let take = (n - n / 2).min(STEAL_MAX);
        gcw.ring.extend(c.drain(..take));
        if c.is_empty() {
            // Relaxed: as in `spill`; cleared under the chain's mutex, when it is empty.
            self.spanq_mask.fetch_and(!(1 << victim), Relaxed);
        }
        take > 0
    }

    /// Green Tea's `scanSpan`: release ownership, take the single-object fast path or scan
    /// every marked-but-unscanned object of the span.
    pub(super) fn scan_span(&self, heap: &Heap, gcw: &mut GcWork, p: usize, entry: SpanQEntry) {
        let span = entry.span();
        let rep = entry.rep();
        let owned = heap.owner_word(span).fetch_and(!TOP_BYTE, SeqCst) & TOP_BYTE;
        // The span's geometry from the class byte in its tail, as Go's scanSpan reads it.
        let Some(first) = heap.find_inline(span, span.base()) else {
            gcw.stats.bad_pointers += 1;
            return;
        };
        if owned == ONE_MARK {
            let w = heap.scans_word(span, rep / 64);
            let bit = 1u64 << (rep % 64);
            if w.fetch_or(bit, Relaxed) & bit == 0 {
                self.scan_object(heap, gcw, p, &first.sibling(rep));
            }
            return;
        }
        let mut grey = [0u64; 8];
        let mut objs = 0;
        for (i, g) in grey.iter_mut().enumerate() {
            let marks =
                heap.marks_word(span, i as u32).load(SeqCst) & if i == 7 { !TOP_BYTE } else { !0 };
            let scans = heap.scans_word(span, i as u32).load(Relaxed);
            let to_grey = marks & !scans;
            if to_grey != 0 {
                // Relaxed: only the span's owner and allocate-black (before its Release mark)
                // set scan bits; the RMW keeps both.
                heap.scans_word(span, i as u32).fetch_or(to_grey, Relaxed);
                *g = to_grey;
                objs += to_grey.count_ones() as u64;
            }
        }
        if objs == 0 {
            return;
        }
        gcw.stats.spans_sparse += 1;
        gcw.stats.span_objs_sparse += objs;
        let c = &mut gcw.stats.by_class[first.class as usize];
        c.span_objs += objs;
        c.spans += 1;
        for (i, mut g) in grey.into_iter().enumerate() {
            while g != 0 {
                let idx = i as u32 * 64 + g.trailing_zeros();
                g &= g - 1;
                self.scan_object(heap, gcw, p, &first.sibling(idx));
            }
        }
    }
}

/// `tryAcquire` on the span's ownership byte: true for the one thread that saw it unowned.
#[inline]
pub(super) fn try_acquire(heap: &Heap, span: SpanId) -> bool {
    let w = heap.owner_word(span);
    let cur = w.load(SeqCst) & TOP_BYTE;
    if cur == 0 {
        if w.fetch_or(ONE_MARK, SeqCst) & TOP_BYTE == 0 {
            return true;
        }
    } else if cur != ONE_MARK {
        return false;
    }
    w.fetch_or(MANY_MARK, SeqCst) & TOP_BYTE == 0
}
