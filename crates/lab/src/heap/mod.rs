//! The lab's heap: an arena of 8 KiB pages carved into spans of Go's size classes.
//!
//! A reference (`ObjRef`) is a `u32` word index into the arena (0 is nil: page 0 is never
//! used), so the pointers objects hold really live in arena memory and marking really loads
//! them, as Go's does. References, pages and spans are newtypes (`ids`); every conversion
//! between them, or from them to word indexes, is in `heap`. Every word is an `AtomicU64`:
//! mutators and markers race on heap words as in Go, without undefined behaviour. Orderings are argued for weakly ordered CPUs (ARM), not from
//! x86's: an object is initialised with Relaxed stores and published by a Release fence at
//! the end of allocation (Go's publicationBarrier); pointer stores by mutators are Release and
//! their pointer loads Acquire; markers load slots Relaxed and put one Acquire fence before
//! each batch of targets they shade (and Acquire loads of root slots). Span metadata and
//! mark, scan and allocation bits written with the world stopped or under a lock need no
//! more: phase changes (mark on/off, sweep generation) happen with the world stopped (the
//! functions that make them take the `sched::StoppedWorld` guard), and the P-token mutex
//! orders them for every thread that takes a P afterwards.
//!
//! Spans with 16-512 B objects keep Go 1.26's 256-byte tail: a pointer bitmap (one bit per
//! word of the page) and `spanInlineMarkBits` (63 bytes of scan bits, the ownership byte, 63
//! bytes of mark bits, the class byte). Both markers use these mark bits (one geometry for
//! both, so an A/B changes only the marking strategy); only Green Tea uses the scan bits and
//! the ownership byte. Bigger objects carry a one-word header naming their type and use side
//! mark bits, like Go's malloc-header objects.
//!
//! Finding an object from a pointer goes the way Go's does, through memory: the arena's
//! metadata (`arena`: one `ArenaMeta` per 64 MiB, as Go's `heapArena`), its page-to-span
//! table, then the span's metadata (`find`, Go's `findObject`). Green Tea first tests the
//! arena's bitmap of pages with inline mark bits and, when the bit is set, finds the object
//! from the class byte in the page's tail without touching the span's metadata
//! (`inline_span_of` and `find_inline`, Go's `tryDeferToSpanScan`).

mod arena;
mod ids;
pub mod sizeclass;
mod span;
mod sweep;

use crate::sched::StoppedWorld;
use arena::{zeroed, zeroed_one, ArenaMeta, PageAlloc, ARENA_PAGES};
pub use ids::{AtomicObjRef, ObjRef, PageId, SpanId};
use parking_lot::Mutex;
use sizeclass::SpanClass;
pub use span::ObjLoc;
use span::Span;
use std::collections::BTreeMap;
use std::sync::atomic::{
    AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};

const PAGE_WORDS: u32 = 1024;
/// What sweeping writes over freed objects when poisoning is on (tests): a load of it as a
/// pointer is out of range and is counted as a bad reference.
pub const POISON: u64 = 0xDEAD_BEEF_DEAD_BEEF;

/// Word offsets of the inline area inside a page.
const PTR_BITS: u32 = 992;
const SCANS: u32 = 1008;
const MARKS: u32 = 1016;
pub(super) const TOP_BYTE: u64 = 0xFF << 56;
/// Ownership states (`spanScanUnowned`, `spanScanOneMark`, `spanScanManyMark`).
pub(super) const ONE_MARK: u64 = 1 << 56;
pub(super) const MANY_MARK: u64 = 2 << 56;

/// The byte an inline span keeps in its tail (`spanInlineMarkBits.class`), in the top byte of
/// its last mark-bits word: Go's `spanClass`, the size class and the noscan bit.
fn class_byte(class: u8, noscan: bool) -> u64 {
    ((class as u64) << 1 | noscan as u64) << 56
}

/// A heap type: its size and where its pointers are (word offsets from the object start the
/// program sees; header objects have one hidden word before that).
#[derive(Debug, Clone)]
pub struct Type {
    pub name: &'static str,
    pub bytes: u32,
    pub ptrs: Vec<u32>,
}

impl Type {
    #[must_use]
    pub fn noscan(&self) -> bool {
        self.ptrs.is_empty()
    }
    /// Pointerful objects over 512 B carry a type header word (Go's malloc header).
    #[must_use]
    pub fn has_header(&self) -> bool {
        !self.noscan() && self.bytes > sizeclass::MAX_HEAP_BITS_IN_SPAN
    }
    fn alloc_bytes(&self) -> u32 {
        self.bytes + if self.has_header() { 8 } else { 0 }
    }
}

pub type TypeId = u32;

/// How a type is allocated: its size class (`None`: a large object in a span of its own),
/// whether it is pointer-free, and its bytes with the header, if it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocClass {
    pub class: Option<u8>,
    pub noscan: bool,
    pub bytes: u32,
}

pub struct Heap {
    words: Box<[AtomicU64]>,
    /// Span metadata, indexed by page (meaningful at a span's first page).
    spans: Box<[Span]>,
    /// Per-arena page metadata (page-to-span table, inline-mark-bits bitmap), each arena's
    /// boxed apart, as Go's `mheap_.arenas` holds pointers to `heapArena`s.
    arenas: Box<[Box<ArenaMeta>]>,
    pages: Mutex<PageAlloc>,
    /// Swept spans with free slots, per span class.
    partial: Vec<Mutex<Vec<SpanId>>>,
    /// Spans in use that are swept (or being allocated from) in this sweep generation.
    in_use: Mutex<Vec<SpanId>>,
    /// Spans left to sweep this generation and the next one to take.
    to_sweep: Mutex<Vec<SpanId>>,
    sweep_cursor: AtomicU32,
    sweepgen: AtomicU32,
    /// Bytes in spans handed to mcaches plus large objects (Go's heapLive).
    heap_live: AtomicU64,
    objects_freed: AtomicU64,
    types: Vec<Type>,
    poison: bool,
}

impl Heap {
    /// A heap of `arena_bytes`; panics when the arena cannot be reserved (`try_new` says so).
    #[must_use]
    pub fn new(arena_bytes: u64, types: Vec<Type>, poison: bool) -> Heap {
        Heap::try_new(arena_bytes, types, poison)
            .unwrap_or_else(|| panic!("cannot reserve a {arena_bytes}-byte arena"))
    }

    /// A heap of `arena_bytes`, or `None` when the address space for it cannot be reserved.
    #[must_use]
    pub fn try_new(arena_bytes: u64, types: Vec<Type>, poison: bool) -> Option<Heap> {
        let pages = (arena_bytes / 8192).clamp(16, (u32::MAX / PAGE_WORDS) as u64) as u32;
        Some(Heap {
            words: zeroed(pages as usize * PAGE_WORDS as usize)?,
            spans: zeroed(pages as usize)?,
            arenas: (0..pages.div_ceil(ARENA_PAGES))
                .map(|_| zeroed_one::<ArenaMeta>())
                .collect(),
            pages: Mutex::new(PageAlloc {
                next: 1,
                limit: pages,
                free: BTreeMap::new(),
            }),
            partial: (0..SpanClass::COUNT)
                .map(|_| Mutex::new(Vec::new()))
                .collect(),
            in_use: Mutex::new(Vec::new()),
            to_sweep: Mutex::new(Vec::new()),
            sweep_cursor: AtomicU32::new(0),
            sweepgen: AtomicU32::new(2),
            heap_live: AtomicU64::new(0),
            objects_freed: AtomicU64::new(0),
            types,
            poison,
        })
    }

    /// Go's heapLive: bytes in spans handed to mcaches plus large objects.
    pub fn live(&self) -> u64 {
        self.heap_live.load(Relaxed)
    }

    /// Adds to heapLive; returns the new value.
    pub fn add_live(&self, bytes: u64) -> u64 {
        self.heap_live.fetch_add(bytes, Relaxed) + bytes
    }

    /// Resets heapLive at mark termination (to the bytes marked, as Go does), with the world
    /// stopped (`_world`): an allocation charged concurrently would be lost by the store.
    pub fn set_live(&self, _world: &StoppedWorld<'_>, bytes: u64) {
        self.heap_live.store(bytes, Relaxed)
    }

    /// Objects freed by sweeping since the heap was made.
    pub fn objects_freed(&self) -> u64 {
        self.objects_freed.load(Relaxed)
    }

    #[inline]
    pub fn load(&self, w: ObjRef) -> u64 {
        self.word(w).load(Relaxed)
    }
    /// Loads a pointer slot with Acquire (see `store_release`).
    #[inline]
    pub fn load_acquire(&self, w: ObjRef) -> u64 {
        self.word(w).load(Acquire)
    }

    /// Stores a pointer with Release: the object it points to, initialised before, is
    /// visible to whoever loads the pointer with Acquire (or Relaxed and an Acquire fence).
    #[inline]
    pub fn store_release(&self, w: ObjRef, v: u64) {
        self.word(w).store(v, Release)
    }

    #[inline]
    pub fn store(&self, w: ObjRef, v: u64) {
        self.word(w).store(v, Relaxed)
    }
    #[inline]
    fn word(&self, w: ObjRef) -> &AtomicU64 {
        &self.words[w.index()]
    }

    /// Word `off` of a span's first page: its pointer bitmap and inline mark bits.
    #[inline]
    fn span_word(&self, span: SpanId, off: u32) -> &AtomicU64 {
        &self.words[span.word_index(off)]
    }

    /// Green Tea's scan bits `i` (of 8 words) of an inline span; word 7's top byte is the
    /// ownership byte.
    #[inline]
    pub fn scans_word(&self, span: SpanId, i: u32) -> &AtomicU64 {
        self.span_word(span, SCANS + i)
    }

    /// Mark bits `i` (of 8 words) of an inline span; word 7's top byte is the class byte.
    #[inline]
    pub fn marks_word(&self, span: SpanId, i: u32) -> &AtomicU64 {
        self.span_word(span, MARKS + i)
    }

    /// The word holding an inline span's ownership byte (`spanScanOwnership`) in its top byte.
    #[inline]
    pub fn owner_word(&self, span: SpanId) -> &AtomicU64 {
        self.scans_word(span, 7)
    }

    /// The metadata of a span.
    #[inline]
    fn span(&self, span: SpanId) -> &Span {
        &self.spans[span.index()]
    }

    /// The span page `page` belongs to, if it is in a live span (Go's `spanOf`).
    #[inline]
    pub fn span_of_page(&self, page: PageId) -> Option<SpanId> {
        let a = self.arena_of(page)?;
        SpanId::from_table(a.spans[page.in_arena()].load(Relaxed))
    }

    /// Green Tea's eligibility test (`tryDeferToSpanScan`'s first half): is the page `r` is
    /// on part of a span with inline mark bits? One load of the arena's metadata pointer and
    /// one of its bitmap, by address, as Go's `heapArenaOf` and `pageUseSpanInlineMarkBits`.
    /// The span is then the page (inline spans are one page).
    #[inline]
    pub fn inline_span_of(&self, r: ObjRef) -> Option<SpanId> {
        let page = r.page();
        let a = self.arena_of(page)?;
        let i = page.in_arena();
        if a.inline_pages[i / 8].load(Relaxed) & (1 << (i % 8)) == 0 {
            return None;
        }
        Some(SpanId::starting_at(page))
    }

    /// The object of inline span `span` containing word `r`, found from the span class byte
    /// in the page's tail (next to the mark bits) and Go's division magic, without the span's
    /// metadata (`tryDeferToSpanScan`'s second half). `None` if `r` is not in an object slot.
    #[inline]
    pub fn find_inline(&self, span: SpanId, r: ObjRef) -> Option<ObjLoc> {
        let spc = (self.marks_word(span, 7).load(Relaxed) >> 56) as u8;
        let (class, noscan) = (spc >> 1, spc & 1 != 0);
        if !sizeclass::inline_bits(class) {
            return None;
        }
        let off = span.offset_of(r) as u64 * 8;
        let idx = ((off * sizeclass::DIV_MAGIC[class as usize] as u64) >> 32) as u32;
        if idx >= sizeclass::NELEMS[class as usize] {
            return None;
        }
        let elem_words = sizeclass::CLASS_SIZE[class as usize] / 8;
        Some(ObjLoc {
            span,
            idx,
            base: span.base().word(idx * elem_words),
            elem_words,
            inline: true,
            noscan,
            class,
        })
    }

    /// The span word `r` is in, if it is in a live span.
    #[inline]
    pub fn span_of(&self, r: ObjRef) -> Option<SpanId> {
        self.span_of_page(r.page())
    }

    /// The object containing word `r` (interior pointers allowed), if `r` is in a live span.
    #[inline]
    pub fn find(&self, r: ObjRef) -> Option<ObjLoc> {
        let span = self.span_of(r)?;
        let s = self.span(span);
        let elem_words = s.elem_words.load(Relaxed);
        let nelems = s.nelems.load(Relaxed);
        if elem_words == 0 {
            return None;
        }
        let idx = span.offset_of(r) / elem_words;
        if idx >= nelems {
            return None;
        }
        let class = s.class.load(Relaxed);
        Some(ObjLoc {
            span,
            idx,
            base: span.base().word(idx * elem_words),
            elem_words,
            inline: class != 0 && sizeclass::inline_bits(class),
            noscan: s.noscan.load(Relaxed) != 0,
            class,
        })
    }

    /// The mark bit word and bit of an object.
    #[inline]
    pub fn mark_word(&self, o: &ObjLoc) -> (&AtomicU64, u64) {
        let bit = 1u64 << (o.idx % 64);
        if o.inline {
            (self.marks_word(o.span, o.idx / 64), bit)
        } else {
            (&self.span(o.span).side_marks[(o.idx / 64) as usize], bit)
        }
    }

    #[inline]
    pub fn is_marked(&self, o: &ObjLoc) -> bool {
        let (w, bit) = self.mark_word(o);
        w.load(Relaxed) & bit != 0
    }

    #[inline]
    pub fn is_allocated(&self, o: &ObjLoc) -> bool {
        let s = self.span(o.span);
        s.alloc[(o.idx / 64) as usize].load(Relaxed) & (1 << (o.idx % 64)) != 0
    }

    /// Calls `f(word)` for each pointer slot of the object at `o`.
    #[inline]
    pub fn for_each_ptr_slot(&self, o: &ObjLoc, mut f: impl FnMut(ObjRef)) {
        if o.noscan {
            return;
        }
        if o.inline {
            let page = o.span.base();
            let first = o.idx * o.elem_words;
            let mut w = first;
            let end = first + o.elem_words;
            while w < end {
                let bits = self.span_word(o.span, PTR_BITS + w / 64).load(Relaxed) >> (w % 64);
                let n = (64 - w % 64).min(end - w);
                let mut bits = if n == 64 { bits } else { bits & ((1 << n) - 1) };
                while bits != 0 {
                    let b = bits.trailing_zeros();
                    f(page.word(w + b));
                    bits &= bits - 1;
                }
                w += n;
            }
        } else {
            let tid = self.load(o.base) as usize;
            if let Some(t) = self.types.get(tid) {
                for &p in &t.ptrs {
                    f(o.base.word(1 + p));
                }
            }
        }
    }

    /// Bytes a scan of the object reads: up to its last pointer (Go's heapScanWork).
    pub fn scan_bytes(&self, o: &ObjLoc) -> u64 {
        if o.inline {
            o.elem_words as u64 * 8
        } else {
            let tid = self.load(o.base) as usize;
            self.types
                .get(tid)
                .and_then(|t| t.ptrs.last())
                .map_or(8, |&p| (p as u64 + 2) * 8)
        }
    }

    /// Zeroes a new object and writes its header or pointer bits. Returns the reference the
    /// program uses (after the header).
    pub fn init_object(&self, o: &ObjLoc, tid: TypeId) -> ObjRef {
        for i in 0..o.elem_words {
            self.store(o.base.word(i), 0);
        }
        let t = &self.types[tid as usize];
        if o.inline && !o.noscan {
            let first = o.idx * o.elem_words;
            // Clear this slot's bits, then set the type's.
            let mut w = first;
            let end = first + o.elem_words;
            while w < end {
                let n = (64 - w % 64).min(end - w);
                let mask = if n == 64 {
                    u64::MAX
                } else {
                    ((1u64 << n) - 1) << (w % 64)
                };
                self.span_word(o.span, PTR_BITS + w / 64)
                    .fetch_and(!mask, Relaxed);
                w += n;
            }
            for &p in &t.ptrs {
                let w = first + p;
                self.span_word(o.span, PTR_BITS + w / 64)
                    .fetch_or(1 << (w % 64), Relaxed);
            }
            o.base
        } else if t.has_header() {
            self.store(o.base, tid as u64);
            o.base.word(1)
        } else {
            o.base
        }
    }

    /// How objects of a type are allocated.
    pub fn class_of(&self, tid: TypeId) -> AllocClass {
        let t = &self.types[tid as usize];
        let bytes = t.alloc_bytes();
        AllocClass {
            class: sizeclass::class_of(bytes),
            noscan: t.noscan(),
            bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sizeclass::CLASS_SIZE;
    use super::*;

    fn types() -> Vec<Type> {
        vec![
            Type {
                name: "node",
                bytes: 16,
                ptrs: vec![0, 1],
            },
            Type {
                name: "big",
                bytes: 768,
                ptrs: (0..96).collect(),
            },
        ]
    }

    #[test]
    fn allocate_find_and_sweep() {
        let h = Heap::new(64 << 20, types(), true);
        let AllocClass { class, noscan, .. } = h.class_of(0);
        let span = h.new_span(class.unwrap(), noscan, 0).unwrap();
        let i = h.next_free(span).unwrap().idx;
        let o = h.find(span.base().word(i * 2 + 1)).unwrap();
        assert_eq!(o.base, span.base());
        assert_eq!(h.span_of(o.base), Some(span));
        assert!(o.inline);
        let r = h.init_object(&o, 0);
        let mut slots = vec![];
        h.for_each_ptr_slot(&o, |w| slots.push(w));
        assert_eq!(slots, vec![r, r.word(1)]);
        // A second object stays unmarked and is freed (and poisoned) by the sweep.
        let j = h.next_free(span).unwrap().idx;
        let (w, bit) = h.mark_word(&o);
        w.fetch_or(bit, Relaxed);
        let sched = crate::sched::Sched::new(1);
        let world = sched.stop_world();
        h.start_sweep(&world);
        world.start();
        assert_eq!(h.sweep_next(), Some((span, true)));
        assert_eq!(h.objects_freed.load(Relaxed), 1);
        assert_eq!(h.load(span.base().word(j * 2)), POISON);
        assert!(!h.is_marked(&o));
        assert!(h.is_allocated(&o));

        // Header objects: 768 B + 8 B header lands in the 896 B class, 9 a page.
        let AllocClass { class, bytes, .. } = h.class_of(1);
        assert_eq!((CLASS_SIZE[class.unwrap() as usize], bytes), (896, 776));
        let big = h.new_span(class.unwrap(), false, 0).unwrap();
        let k = h.next_free(big).unwrap().idx;
        let o = h.find(big.base().word(k * 112)).unwrap();
        let r = h.init_object(&o, 1);
        assert_eq!(r, o.base.word(1));
        let mut n = 0;
        h.for_each_ptr_slot(&o, |w| {
            assert!(w > o.base && w < o.base.word(112));
            n += 1
        });
        assert_eq!(n, 96);
    }
}
