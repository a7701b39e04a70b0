//! The checkmark oracle (Go's `GODEBUG=gccheckmark=1`): with the world stopped at mark
//! termination, re-trace the heap from the roots on one thread into a separate set, and
//! require every object reached to carry the real mark bit. Also Go's "marking free object"
//! check (no mark on an unallocated slot) and, for Green Tea, marks == scans on every
//! pointerful inline span (`doubleCheckGreenTea`).

use super::collector::{Checks, Gc};
use super::heap::{Ref, MARKS, PAGE_WORDS, SCANS, TOP_BYTE};
use super::mark::Marker;
use std::collections::HashSet;
use std::sync::atomic::Ordering::Relaxed;

pub fn check(gc: &Gc, bytes_marked: u64, out: &mut Checks) {
    let heap = &gc.heap;
    let mut seen: HashSet<Ref> = HashSet::new();
    let mut stack: Vec<Ref> = Vec::new();
    let roots = gc
        .globals
        .iter()
        .chain(gc.stacks.iter().flat_map(|s| s.iter()));
    stack.extend(roots.map(|s| s.load(Relaxed)).filter(|&r| r != 0));
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
        heap.for_each_ptr_slot(&o, |slot| {
            let v = heap.load(slot);
            if v > u32::MAX as u64 {
                out.reachable_unmarked += 1;
            } else if v != 0 {
                stack.push(v as Ref);
            }
        });
    }
    let spans = heap.in_use.lock().map(|v| v.clone()).unwrap_or_default();
    let mut marked_bytes = 0u64;
    for span in spans {
        let s = &heap.spans[span as usize];
        let class = s.class.load(Relaxed);
        let inline = class != 0 && super::heap::sizeclass::inline_bits(class);
        let page = span * PAGE_WORDS;
        for i in 0..8u32 {
            let marks = if inline {
                heap.load(page + MARKS + i) & if i == 7 { !TOP_BYTE } else { !0 }
            } else {
                s.side_marks[i as usize].load(Relaxed)
            };
            let alloc = s.alloc[i as usize].load(Relaxed);
            out.marked_free += (marks & !alloc).count_ones() as u64;
            marked_bytes += marks.count_ones() as u64 * s.elem_words.load(Relaxed) as u64 * 8;
            if inline && gc.opts.marker == Marker::Greentea && s.noscan.load(Relaxed) == 0 {
                let scans = heap.load(page + SCANS + i) & if i == 7 { !TOP_BYTE } else { !0 };
                if scans != marks {
                    out.marks_ne_scans += 1;
                }
            }
        }
    }
    // Every mark was counted once: by the shade that set it or by allocate-black.
    if marked_bytes != bytes_marked {
        out.bytes_marked_mismatch += 1;
    }
}
