//! Spans: the per-page metadata, where an object lives, and taking a fresh span or a free
//! slot of one.

use super::sizeclass::{self, SpanClass, CLASS_PAGES, CLASS_SIZE};
use super::{class_byte, Heap, ObjRef, PageId, SpanId, MARKS, PAGE_WORDS, PTR_BITS, TOP_BYTE};
use crate::sched::StoppedWorld;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

/// Span metadata, one entry per page (meaningful at a span's first page). All atomics, all
/// zero when free.
#[derive(Default)]
pub(super) struct Span {
    pub(super) in_use: AtomicU8,
    pub(super) class: AtomicU8,
    pub(super) noscan: AtomicU8,
    pub(super) npages: AtomicU32,
    pub(super) nelems: AtomicU32,
    pub(super) elem_words: AtomicU32,
    pub(super) sweepgen: AtomicU32,
    pub(super) alloc_count: AtomicU32,
    pub(super) free_index: AtomicU32,
    pub(super) alloc: [AtomicU64; 8],
    pub(super) side_marks: [AtomicU64; 8],
}

// SAFETY: every field is an atomic integer or an array of them.
unsafe impl super::arena::Zeroable for Span {}

/// Where an object lives.
#[derive(Debug, Clone, Copy)]
pub struct ObjLoc {
    pub span: SpanId,
    /// The object's index in its span.
    pub idx: u32,
    /// First word of the object (its header, if any).
    pub base: ObjRef,
    pub elem_words: u32,
    pub inline: bool,
    pub noscan: bool,
    /// Size class (0: large).
    pub class: u8,
}

impl ObjLoc {
    /// Object `idx` of the same span (same geometry).
    #[inline]
    #[must_use]
    pub fn sibling(&self, idx: u32) -> ObjLoc {
        ObjLoc {
            idx,
            base: self.span.base().word(idx * self.elem_words),
            ..*self
        }
    }

    /// One past the object's last word.
    #[inline]
    #[must_use]
    pub fn end(&self) -> ObjRef {
        self.base.word(self.elem_words)
    }

    /// The page the object starts on.
    #[inline]
    #[must_use]
    pub fn page(&self) -> PageId {
        self.base.page()
    }
}

impl Heap {
    /// A fresh span for a class (0: one large object of `large_bytes`).
    pub fn new_span(&self, class: u8, noscan: bool, large_bytes: u32) -> Option<SpanId> {
        let (npages, elem_bytes, nelems) = if class == 0 {
            let np = large_bytes.div_ceil(8192);
            (np, np * 8192, 1)
        } else {
            (
                CLASS_PAGES[class as usize] as u32,
                CLASS_SIZE[class as usize],
                sizeclass::nelems(class),
            )
        };
        let first = self.alloc_pages(npages)?;
        let span = SpanId::starting_at(first);
        let s = self.span(span);
        s.class.store(class, Relaxed);
        s.noscan.store(noscan as u8, Relaxed);
        s.npages.store(npages, Relaxed);
        s.nelems.store(nelems, Relaxed);
        s.elem_words.store(elem_bytes / 8, Relaxed);
        s.sweepgen.store(self.sweepgen.load(Relaxed), Relaxed);
        s.alloc_count.store(0, Relaxed);
        s.free_index.store(0, Relaxed);
        for w in s.alloc.iter().chain(s.side_marks.iter()) {
            w.store(0, Relaxed);
        }
        let inline = class != 0 && sizeclass::inline_bits(class);
        if inline {
            for w in PTR_BITS..PAGE_WORDS {
                self.span_word(span, w).store(0, Relaxed);
            }
            self.span_word(span, MARKS + 7)
                .store(class_byte(class, noscan), Relaxed);
        }
        for p in first.run(npages) {
            self.set_page_span(p, span.to_table());
        }
        // Go's allocSpan: the page joins the arena's pageUseSpanInlineMarkBits (inline spans
        // are one page: see `sizeclass::inline_bits`).
        if inline {
            self.set_page_inline(first, true);
        }
        // Relaxed: the span is the allocating thread's until its first object is published by
        // `alloc`'s Release fence; other threads find it only through such a pointer or a mutex.
        s.in_use.store(1, Relaxed);
        self.in_use.lock().push(span);
        Some(span)
    }

    /// Takes a free slot of small-object span `span`, owned by the caller's mcache.
    pub fn next_free(&self, span: SpanId) -> Option<ObjLoc> {
        let idx = self.next_free_index(span)?;
        let s = self.span(span);
        let ew = s.elem_words.load(Relaxed);
        let class = s.class.load(Relaxed);
        Some(ObjLoc {
            span,
            idx,
            base: span.base().word(idx * ew),
            elem_words: ew,
            inline: sizeclass::inline_bits(class),
            noscan: s.noscan.load(Relaxed) != 0,
            class,
        })
    }

    /// A large object in a span of its own; `None` when the arena is full.
    pub fn alloc_large(&self, bytes: u32, noscan: bool) -> Option<ObjLoc> {
        let span = self.new_span(0, noscan, bytes)?;
        let s = self.span(span);
        let ew = s.elem_words.load(Relaxed);
        s.alloc[0].store(1, Relaxed);
        s.alloc_count.store(1, Relaxed);
        s.free_index.store(1, Relaxed);
        Some(ObjLoc {
            span,
            idx: 0,
            base: span.base(),
            elem_words: ew,
            inline: false,
            noscan,
            class: 0,
        })
    }

    /// Bytes of the free slots of a span (what an mcache refill charges to heapLive).
    pub fn free_bytes(&self, span: SpanId) -> u64 {
        let s = self.span(span);
        let free = s.nelems.load(Relaxed) - s.alloc_count.load(Relaxed);
        free as u64 * s.elem_words.load(Relaxed) as u64 * 8
    }

    /// Mark bits `i` (of 8 words) of a span: inline or side bits, without the class byte.
    pub fn marks(&self, span: SpanId, i: u32) -> u64 {
        let s = self.span(span);
        let class = s.class.load(Relaxed);
        if class != 0 && sizeclass::inline_bits(class) {
            self.marks_word(span, i).load(Relaxed) & if i == 7 { !TOP_BYTE } else { !0 }
        } else {
            s.side_marks[i as usize].load(Relaxed)
        }
    }

    /// Green Tea's scan bits `i` of an inline span, without the ownership byte.
    pub fn scans(&self, span: SpanId, i: u32) -> u64 {
        self.scans_word(span, i).load(Relaxed) & if i == 7 { !TOP_BYTE } else { !0 }
    }

    /// Allocation bits `i` of a span.
    pub fn alloc_bits(&self, span: SpanId, i: u32) -> u64 {
        self.span(span).alloc[i as usize].load(Relaxed)
    }

    /// The spans in use, swept or not.
    pub fn spans_in_use(&self) -> Vec<SpanId> {
        self.in_use.lock().clone()
    }

    fn next_free_index(&self, span: SpanId) -> Option<u32> {
        let s = self.span(span);
        let nelems = s.nelems.load(Relaxed);
        let mut i = s.free_index.load(Relaxed);
        while i < nelems {
            let word = s.alloc[(i / 64) as usize].load(Relaxed) >> (i % 64);
            if word == u64::MAX >> (i % 64) {
                i = (i / 64 + 1) * 64;
                continue;
            }
            let free = i + (!word).trailing_zeros();
            if free >= nelems {
                break;
            }
            s.alloc[(free / 64) as usize].fetch_or(1 << (free % 64), Relaxed);
            s.alloc_count.fetch_add(1, Relaxed);
            s.free_index.store(free + 1, Relaxed);
            return Some(free);
        }
        s.free_index.store(nelems, Relaxed);
        None
    }

    pub fn pop_partial(&self, spc: SpanClass) -> Option<SpanId> {
        self.partial[spc.index()].lock().pop()
    }

    /// Empties the partial lists at the start of a sweep generation (`start_sweep`, with the
    /// world stopped: no allocator may pop a span of the old generation afterwards).
    pub(super) fn clear_partials(&self, _world: &StoppedWorld<'_>) {
        for p in &self.partial {
            p.lock().clear();
        }
    }

    pub fn span_class(&self, span: SpanId) -> SpanClass {
        let s = self.span(span);
        SpanClass::new(s.class.load(Relaxed), s.noscan.load(Relaxed) != 0)
    }
}
