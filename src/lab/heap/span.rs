//! Spans: the per-page metadata, where an object lives, and taking a fresh span or a free
//! slot of one.

use super::sizeclass::{self, CLASS_PAGES, CLASS_SIZE};
use super::{Heap, Ref, MARKS, PAGE_WORDS, PTR_BITS};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

/// Span metadata, one entry per page (meaningful at a span's first page). All atomics, all
/// zero when free.
#[derive(Default)]
pub struct Span {
    pub in_use: AtomicU8,
    pub class: AtomicU8,
    pub noscan: AtomicU8,
    pub npages: AtomicU32,
    pub nelems: AtomicU32,
    pub elem_words: AtomicU32,
    pub sweepgen: AtomicU32,
    pub alloc_count: AtomicU32,
    pub free_index: AtomicU32,
    pub alloc: [AtomicU64; 8],
    pub side_marks: [AtomicU64; 8],
}

/// Where an object lives.
#[derive(Debug, Clone, Copy)]
pub struct ObjLoc {
    /// First page of the span.
    pub span: u32,
    pub idx: u32,
    /// First word of the object (its header, if any).
    pub base: Ref,
    pub elem_words: u32,
    pub inline: bool,
    pub noscan: bool,
    /// Size class (0: large).
    pub class: u8,
}

impl Heap {
    /// A fresh span for a class (0: one large object of `large_bytes`).
    pub fn new_span(&self, class: u8, noscan: bool, large_bytes: u32) -> Option<u32> {
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
        let start = self.alloc_pages(npages)?;
        let s = &self.spans[start as usize];
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
        if class != 0 && sizeclass::inline_bits(class) {
            let page = start * PAGE_WORDS;
            for w in PTR_BITS..PAGE_WORDS {
                self.store(page + w, 0);
            }
            self.store(page + MARKS + 7, (class as u64) << 56);
        }
        for p in start..start + npages {
            self.page_span[p as usize].store(start, Relaxed);
        }
        s.in_use.store(1, Relaxed);
        if let Ok(mut v) = self.in_use.lock() {
            v.push(start);
        }
        Some(start)
    }

    /// Takes a free slot of span `span`, owned by the caller's mcache.
    pub fn next_free(&self, span: u32) -> Option<u32> {
        let s = &self.spans[span as usize];
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

    pub fn pop_partial(&self, spc: usize) -> Option<u32> {
        self.partial[spc].lock().ok()?.pop()
    }

    pub fn clear_partials(&self) {
        for p in &self.partial {
            if let Ok(mut v) = p.lock() {
                v.clear();
            }
        }
    }

    pub fn span_class(&self, span: u32) -> usize {
        let s = &self.spans[span as usize];
        s.class.load(Relaxed) as usize * 2 + s.noscan.load(Relaxed) as usize
    }
}
