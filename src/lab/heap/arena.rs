//! The arena: one zeroed allocation of words, handed out in whole pages. Pages come back to
//! per-length free lists when their span is freed; nothing is returned to the OS.

use super::{Heap, PageId};
use std::collections::BTreeMap;

pub(super) struct PageAlloc {
    /// The first page never handed out (pages below it are in spans or free lists).
    pub(super) next: u32,
    /// Pages in the arena.
    pub(super) limit: u32,
    /// Freed runs of pages by length: their first pages.
    pub(super) free: BTreeMap<u32, Vec<PageId>>,
}

/// A zeroed boxed slice of a type for which all-zero bytes are a valid value (atomics and
/// structs of atomics). `alloc_zeroed` maps fresh pages lazily, so a large arena costs memory
/// only where the heap grows.
pub(super) fn zeroed<T: Default>(n: usize) -> Box<[T]> {
    let n = n.max(1);
    let layout = std::alloc::Layout::array::<T>(n).expect("arena layout");
    // SAFETY: every T used here (atomics and Span) is valid as all zero bytes; the pointer
    // comes from the global allocator with the layout `Box<[T]>` frees with.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n))
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
}
