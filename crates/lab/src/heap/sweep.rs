//! Sweeping: marks become allocation bits, dead slots are counted (and poisoned in tests),
//! empty spans give their pages back. Background and lazy sweepers claim a span by its sweep
//! generation, as Go's do.

use super::sizeclass::{self, SpanClass};
use super::{class_byte, Heap, SpanId, POISON, TOP_BYTE};
use crate::sched::StoppedWorld;
use std::sync::atomic::Ordering::Relaxed;

impl Heap {
    /// Starts a sweep generation: every span in use must be swept before it is allocated from
    /// again. Only with the world stopped (`world`), in the stop that also empties the
    /// mcaches: an allocator still running could go on filling a span this generation will
    /// sweep (its new objects carry no mark, so the sweep would free them), and a sweeper
    /// still running would take its spans from a list and a cursor being replaced.
    pub fn start_sweep(&self, world: &StoppedWorld<'_>) {
        self.sweepgen.fetch_add(2, Relaxed);
        self.clear_partials(world);
        let spans = std::mem::take(&mut *self.in_use.lock());
        *self.to_sweep.lock() = spans;
        self.sweep_cursor.store(0, Relaxed);
    }

    /// Sweeps the next unswept span; `None` when none is left. Returns the span and whether it
    /// survived (has objects left).
    pub fn sweep_next(&self) -> Option<(SpanId, bool)> {
        loop {
            let i = self.sweep_cursor.fetch_add(1, Relaxed) as usize;
            let span = *self.to_sweep.lock().get(i)?;
            if let Some(alive) = self.sweep_span(span) {
                return Some((span, alive));
            }
        }
    }

    pub fn sweep_done(&self) -> bool {
        let n = self.to_sweep.lock().len();
        self.sweep_cursor.load(Relaxed) as usize >= n
    }

    /// Sweeps one span if it still needs it (claiming it by its sweep generation). Returns
    /// whether it still holds objects, or `None` if someone else swept it.
    pub fn sweep_span(&self, span: SpanId) -> Option<bool> {
        let sg = self.sweepgen.load(Relaxed);
        let s = self.span(span);
        // Relaxed: the CAS only claims the span (one winner per RMW order); what the sweeper
        // writes reaches allocators through the partial and in-use lists (mutexes).
        if s.sweepgen
            .compare_exchange(sg - 2, sg - 1, Relaxed, Relaxed)
            .is_err()
        {
            return None;
        }
        let class = s.class.load(Relaxed);
        let inline = class != 0 && sizeclass::inline_bits(class);
        let nelems = s.nelems.load(Relaxed);
        let elem_words = s.elem_words.load(Relaxed);
        let mut live = 0u32;
        let mut freed = 0u64;
        for i in 0..8u32 {
            let marks = if inline {
                let w = self.marks_word(span, i).load(Relaxed);
                if i == 7 {
                    w & !TOP_BYTE
                } else {
                    w
                }
            } else {
                s.side_marks[i as usize].load(Relaxed)
            };
            let alloc = s.alloc[i as usize].load(Relaxed);
            let dead = alloc & !marks;
            freed += dead.count_ones() as u64;
            if self.poison && dead != 0 {
                let mut d = dead;
                while d != 0 {
                    let idx = i * 64 + d.trailing_zeros();
                    d &= d - 1;
                    if idx < nelems {
                        let base = span.base().word(idx * elem_words);
                        for w in 0..elem_words {
                            self.store(base.word(w), POISON);
                        }
                    }
                }
            }
            // Marks become the allocation bits (Go's `s.allocBits = s.gcmarkBits`).
            s.alloc[i as usize].store(marks & alloc, Relaxed);
            live += (marks & alloc).count_ones();
            s.side_marks[i as usize].store(0, Relaxed);
        }
        if inline {
            for i in 0..8 {
                self.scans_word(span, i).store(0, Relaxed);
                self.marks_word(span, i).store(0, Relaxed);
            }
            let noscan = s.noscan.load(Relaxed) != 0;
            self.marks_word(span, 7)
                .store(class_byte(class, noscan), Relaxed);
        }
        self.objects_freed.fetch_add(freed, Relaxed);
        s.alloc_count.store(live, Relaxed);
        s.free_index.store(0, Relaxed);
        if live == 0 {
            self.free_span(span);
            s.sweepgen.store(sg, Relaxed);
            return Some(false);
        }
        if live < nelems {
            let spc = SpanClass::new(class, s.noscan.load(Relaxed) != 0);
            self.partial[spc.index()].lock().push(span);
        }
        self.in_use.lock().push(span);
        s.sweepgen.store(sg, Relaxed);
        Some(true)
    }

    pub(super) fn free_span(&self, span: SpanId) {
        let s = self.span(span);
        let npages = s.npages.load(Relaxed);
        for p in span.first_page().run(npages) {
            self.set_page_span(p, 0);
        }
        // Go's freeSpanLocked: the page leaves pageUseSpanInlineMarkBits.
        self.set_page_inline(span.first_page(), false);
        s.in_use.store(0, Relaxed);
        s.elem_words.store(0, Relaxed);
        self.pages
            .lock()
            .free
            .entry(npages)
            .or_default()
            .push(span.first_page());
    }
}
