//! The arena: one zeroed allocation of words, handed out in whole pages. Pages come back to
//! per-length free lists when their span is freed; nothing is returned to the OS.
//!
//! Per-page metadata lives in one `ArenaMeta` per 64 MiB of the arena, found by address as
//! Go finds a `heapArena` (`heapArenaOf`: the arena index, then a pointer to the arena's
//! metadata): the page-to-span table (`heapArena.spans`) and the bitmap of pages whose span
//! keeps inline mark bits (`heapArena.pageUseSpanInlineMarkBits`).

use super::{Heap, PageId};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8};

/// Pages per arena: Go's `pagesPerArena` on 64-bit Linux (64 MiB arenas of 8 KiB pages).
pub(super) const ARENA_PAGES: u32 = 8192;

pub(super) struct PageAlloc {
    /// The first page never handed out (pages below it are in spans or free lists).
    pub(super) next: u32,
    /// Pages in the arena.
    pub(super) limit: u32,
    /// Freed runs of pages by length: their first pages.
    pub(super) free: BTreeMap<u32, Vec<PageId>>,
}

/// One arena's per-page metadata (the part of Go's `heapArena` the lab uses). All atomics,
/// all zero for an arena nobody allocated from.
pub(super) struct ArenaMeta {
    /// The span each page belongs to (`SpanId::to_table`; 0: none).
    pub(super) spans: [AtomicU32; ARENA_PAGES as usize],
    /// One bit per page: set while the page belongs to a span with inline mark bits (a span
    /// of 16-512 B objects), set when such a span is made, cleared when it is freed. Green
    /// Tea tests it for every pointer it shades (`tryDeferToSpanScan`).
    pub(super) inline_pages: [AtomicU8; ARENA_PAGES as usize / 8],
}

/// Types for which all-zero bytes are a valid value: atomics and structs of them.
///
/// # Safety
/// Implement only for types every field of which is valid as all zero bytes.
pub(super) unsafe trait Zeroable {}

// SAFETY: atomics of integers are valid as zero bytes.
unsafe impl Zeroable for AtomicU64 {}
// SAFETY: as above.
unsafe impl Zeroable for AtomicU32 {}
// SAFETY: arrays of atomics of integers.
unsafe impl Zeroable for ArenaMeta {}

/// A zeroed boxed slice. `alloc_zeroed` maps fresh pages lazily, so a large arena costs
/// memory only where the heap grows.
pub(super) fn zeroed<T: Zeroable>(n: usize) -> Option<Box<[T]>> {
    let n = n.max(1);
    let layout = std::alloc::Layout::array::<T>(n).ok()?;
    // SAFETY: T is valid as all zero bytes (`Zeroable`); the pointer comes from the global
    // allocator with the layout `Box<[T]>` frees with.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        // The reservation can fail (an address-space limit, `ulimit -v`): said by the caller,
        // not an abort.
        if p.is_null() {
            return None;
        }
        Some(Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n)))
    }
}

/// One zeroed `T` on the heap (a boxed `ArenaMeta`: 33 KiB, never built on the stack).
pub(super) fn zeroed_one<T: Zeroable>() -> Box<T> {
    let layout = std::alloc::Layout::new::<T>();
    // SAFETY: as `zeroed`; `ArenaMeta` has a non-zero size.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(p)
    }
}

impl Heap {
    /// Pages ever handed out: the lab's "mapped" memory.
    pub fn mapped_bytes(&self) -> u64 {
        self.pages.lock().next as u64 * 8192
    }

    /// The arena's size: the most the heap can map.
    pub fn arena_bytes(&self) -> u64 {
        self.pages.lock().limit as u64 * 8192
    }

    /// `n` contiguous pages: the first of them.
    pub(super) fn alloc_pages(&self, n: u32) -> Option<PageId> {
        let mut p = self.pages.lock();
        if let Some(start) = p.free.get_mut(&n).and_then(|v| v.pop()) {
            return Some(start);
        }
        if p.next + n > p.limit {
            return None;
        }
        let start = p.next;
        p.next += n;
        Some(PageId::new(start))
    }

    /// The metadata of the arena page `page` is in (Go's `heapArenaOf`).
    #[inline]
    pub(super) fn arena_of(&self, page: PageId) -> Option<&ArenaMeta> {
        self.arenas.get(page.arena()).map(|a| &**a)
    }

    /// Records which span page `page` belongs to (0: none).
    pub(super) fn set_page_span(&self, page: PageId, v: u32) {
        if let Some(a) = self.arena_of(page) {
            a.spans[page.in_arena()].store(v, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Sets or clears page `page`'s bit in its arena's inline-mark-bits bitmap.
    pub(super) fn set_page_inline(&self, page: PageId, on: bool) {
        use std::sync::atomic::Ordering::Relaxed;
        if let Some(a) = self.arena_of(page) {
            let i = page.in_arena();
            let bit = 1u8 << (i % 8);
            if on {
                a.inline_pages[i / 8].fetch_or(bit, Relaxed);
            } else {
                a.inline_pages[i / 8].fetch_and(!bit, Relaxed);
            }
        }
    }
}
