//! The heap's addresses as types: an object reference (a word of the arena), a page, a span.
//! Every conversion between them, and between them and the arena's word indexes, is here or
//! in the rest of `heap`; the other modules only name them.
//!
//! All are `Copy` newtypes over `u32` (`#[repr(transparent)]`): the same size and code as the
//! bare integers they replace. Their arithmetic keeps the release build's overflow checks.

use super::arena::ARENA_PAGES;
use super::PAGE_WORDS;
use std::sync::atomic::{AtomicU32, Ordering};

/// A reference into the heap: the index of a word of the arena. Object references are the
/// word an object starts at (after its header, if it has one); a field's slot is
/// `obj.word(i)`. Page 0 is never allocated, so word 0 is free to be nil.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(transparent)]
pub struct ObjRef(u32);

impl ObjRef {
    /// The nil reference.
    pub const NIL: ObjRef = ObjRef(0);

    #[inline]
    #[must_use]
    pub fn is_nil(self) -> bool {
        self.0 == 0
    }

    /// The slot of word `i` of the object (or the word `i` words past this one).
    #[inline]
    #[must_use]
    pub fn word(self, i: u32) -> ObjRef {
        ObjRef(self.0 + i)
    }

    /// The page this word is on.
    #[inline]
    #[must_use]
    pub fn page(self) -> PageId {
        PageId(self.0 / PAGE_WORDS)
    }

    /// A heap word read as a pointer: `None` if it cannot be one (poison, or a scalar stored
    /// in a pointer slot).
    #[inline]
    pub fn from_word(v: u64) -> Option<ObjRef> {
        u32::try_from(v).ok().map(ObjRef)
    }

    /// A heap word read as a pointer keeping only its low 32 bits, as the write barrier
    /// reads the value it overwrites (a non-pointer there becomes a reference the marker
    /// does not find in the heap, usually, and counts as a bad pointer).
    #[inline]
    #[must_use]
    pub fn from_word_truncating(v: u64) -> ObjRef {
        ObjRef(v as u32)
    }

    /// The reference as a heap word (what a pointer slot holds).
    #[inline]
    #[must_use]
    pub fn to_word(self) -> u64 {
        self.0 as u64
    }

    /// Its index in the arena's words.
    #[inline]
    pub(super) fn index(self) -> usize {
        self.0 as usize
    }
}

/// A root slot holding an `ObjRef` (a global or a mutator's stack slot).
#[derive(Debug, Default)]
#[repr(transparent)]
pub struct AtomicObjRef(AtomicU32);

impl AtomicObjRef {
    #[inline]
    pub fn load(&self, order: Ordering) -> ObjRef {
        ObjRef(self.0.load(order))
    }

    #[inline]
    pub fn store(&self, r: ObjRef, order: Ordering) {
        self.0.store(r.0, order)
    }
}

/// An 8 KiB page of the arena, by number. Page 0 is never allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[repr(transparent)]
pub struct PageId(u32);

impl PageId {
    /// Page `n` of the arena (the page allocator's numbering).
    #[inline]
    pub(super) fn new(n: u32) -> PageId {
        PageId(n)
    }

    /// The index of the arena this page is in (`arenaIndex`).
    #[inline]
    pub(super) fn arena(self) -> usize {
        (self.0 / ARENA_PAGES) as usize
    }

    /// Its index in its arena's per-page tables.
    #[inline]
    pub(super) fn in_arena(self) -> usize {
        (self.0 % ARENA_PAGES) as usize
    }

    /// The `n` pages starting at this one.
    #[inline]
    pub(super) fn run(self, n: u32) -> impl Iterator<Item = PageId> {
        (self.0..self.0 + n).map(PageId)
    }
}

/// A span, named by its first page (span metadata is kept at that page's entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct SpanId(u32);

impl SpanId {
    /// The span that starts at `page`.
    #[inline]
    pub(super) fn starting_at(page: PageId) -> SpanId {
        SpanId(page.0)
    }

    /// A span id as the page-to-span table stores it (0: no span).
    #[inline]
    pub(super) fn from_table(v: u32) -> Option<SpanId> {
        (v != 0).then_some(SpanId(v))
    }

    /// The span id as the page-to-span table stores it.
    #[inline]
    pub(super) fn to_table(self) -> u32 {
        self.0
    }

    #[inline]
    #[must_use]
    pub fn first_page(self) -> PageId {
        PageId(self.0)
    }

    /// The span's first word: where its object 0 starts.
    #[inline]
    #[must_use]
    pub fn base(self) -> ObjRef {
        ObjRef(self.0 * PAGE_WORDS)
    }

    /// The word index of word `off` of the span, for its metadata (pointer bits, inline
    /// mark bits) inside its first page.
    #[inline]
    pub(super) fn word_index(self, off: u32) -> usize {
        (self.0 * PAGE_WORDS + off) as usize
    }

    /// How many words `r` lies past the span's first word (`r` is in the span).
    #[inline]
    pub(super) fn offset_of(self, r: ObjRef) -> u32 {
        r.0 - self.0 * PAGE_WORDS
    }

    /// Its index in per-span tables (indexed by first page).
    #[inline]
    pub(super) fn index(self) -> usize {
        self.0 as usize
    }
}

// The newtypes cost nothing: the size of the integers they wrap.
const _: () = assert!(std::mem::size_of::<ObjRef>() == 4);
const _: () = assert!(std::mem::size_of::<AtomicObjRef>() == 4);
const _: () = assert!(std::mem::size_of::<PageId>() == 4);
const _: () = assert!(std::mem::size_of::<SpanId>() == 4);
