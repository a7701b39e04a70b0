//! The checkmark oracle (Go's `GODEBUG=gccheckmark=1`): with the world stopped at mark
//! termination, re-trace the heap from the roots on one thread into a separate set, and
//! require every object reached to carry the real mark bit. Also Go's "marking free object"
//! check (no mark on an unallocated slot) and, for Green Tea, marks == scans on every
//! pointerful inline span (`doubleCheckGreenTea`).

use super::heap::{AtomicObjRef, Heap, ObjRef};
use super::mark::Marker;
use super::sched::StoppedWorld;
use std::collections::HashSet;
use std::sync::atomic::Ordering::Relaxed;

/// Correctness findings of a cycle (all zero for a correct collector).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Checks {
    /// Checkmark oracle: objects reachable from the roots at mark termination but not marked.
    pub reachable_unmarked: u64,
    /// Marked slots that are not allocated ("marking free object").
    pub marked_free: u64,
    /// Work left in a queue at mark termination.
    pub queues_not_empty: u64,
    /// Green Tea spans whose mark bits differ from their scan bits at mark termination.
    pub marks_ne_scans: u64,
    /// Bytes counted as marked differ from the sizes of the objects with a mark bit.
    pub bytes_marked_mismatch: u64,
    /// Pointers the marker found that lead nowhere (poison, freed span).
    pub bad_pointers: u64,
    /// Loads by the workload that found a freed or poisoned object.
    pub bad_derefs: u64,
}

impl Checks {
    pub fn add(&mut self, o: &Checks) {
        self.reachable_unmarked += o.reachable_unmarked;
        self.marked_free += o.marked_free;
        self.queues_not_empty += o.queues_not_empty;
        self.marks_ne_scans += o.marks_ne_scans;
        self.bytes_marked_mismatch += o.bytes_marked_mismatch;
        self.bad_pointers += o.bad_pointers;
        self.bad_derefs += o.bad_derefs;
    }
    #[must_use]
    pub fn clean(&self) -> bool {
        *self == Checks::default()
    }
}

/// Runs the oracle over `heap` from the root slots `roots` and adds its findings to `out`.
/// `bytes_marked` is what the markers and allocate-black counted. Only with the world stopped
/// (`_world`): a mutator moving a pointer, or a marker setting a mark, while the oracle walks
/// would make it report objects that are not lost (or miss some that are).
pub fn check<'a>(
    _world: &StoppedWorld<'_>,
    heap: &Heap,
    roots: impl Iterator<Item = &'a AtomicObjRef>,
    marker: Marker,
    bytes_marked: u64,
    out: &mut Checks,
) {
    let mut seen: HashSet<ObjRef> = HashSet::new();
    let mut stack: Vec<ObjRef> = Vec::new();
    // Relaxed throughout: the world is stopped (`_world`); every P token came back through
    // the scheduler's mutex.
    stack.extend(roots.map(|s| s.load(Relaxed)).filter(|r| !r.is_nil()));
    while let Some(r) = stack.pop() {
        let Some(o) = heap.find(r) else {
            out.reachable_unmarked += 1;
            continue;
        };
        if !seen.insert(o.base) {
            continue;
        }
        if !heap.is_marked(&o) || !heap.is_allocated(&o) {
            out.reachable_unmarked += 1;
        }
        heap.for_each_ptr_slot(&o, |slot| match ObjRef::from_word(heap.load(slot)) {
            None => out.reachable_unmarked += 1,
            Some(v) if !v.is_nil() => stack.push(v),
            Some(_) => {}
        });
    }
    let mut marked_bytes = 0u64;
    for span in heap.spans_in_use() {
        // The span's first object says its geometry (every span in use has one).
        let Some(first) = heap.find(span.base()) else {
            continue;
        };
        for i in 0..8u32 {
            let marks = heap.marks(span, i);
            let alloc = heap.alloc_bits(span, i);
            out.marked_free += (marks & !alloc).count_ones() as u64;
            marked_bytes += marks.count_ones() as u64 * first.elem_words as u64 * 8;
            let pointerful_inline = first.inline && !first.noscan;
            if pointerful_inline && marker == Marker::Greentea && heap.scans(span, i) != marks {
                out.marks_ne_scans += 1;
            }
        }
    }
    // Every mark was counted once: by the shade that set it or by allocate-black.
    if marked_bytes != bytes_marked {
        out.bytes_marked_mismatch += 1;
    }
}
