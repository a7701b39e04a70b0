//! `CycleStore`: a run's cycles, held in the units gctrace prints (76 bytes a cycle instead of
//! `Cycle`'s 192), so that the dashboard holds 1M cycles in about 73 MiB.
//!
//! A cycle read from gctrace text is integers in fixed units: `@0.458s` is whole ms, the clock
//! and cpu fields are whole µs (the runtime prints them with at most three decimals of a ms),
//! the heap fields are whole MiB. Such a cycle is packed into 32-bit fields; any cycle that
//! does not fit (a value off those units or past 32 bits, Go 1.5's extra phases, gctrace=2's
//! scan counters, the lab's fields) is kept whole beside the packed ones. Reading a cycle gives
//! back exactly the `Cycle` that was stored, either way (`every_cycle_reads_back_as_stored`).

use crate::cycle::{Clock, Cpu, Cycle};
use std::borrow::Cow;
use std::ops::Range;

const US: u64 = 1_000;
const MS: u64 = 1_000_000;
const MIB: u64 = 1 << 20;
/// `goal`, `stacks`, `globals` absent.
const NONE: u32 = u32::MAX;

const FORCED: u8 = 1;
const LEAK_CHECK: u8 = 2;
/// The cycle is `whole[num]`; the other fields mean nothing.
const WHOLE: u8 = 4;

/// One cycle in gctrace's units. Field order keeps it at 76 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Packed {
    /// The cycle number, or with `WHOLE` the index in `CycleStore::whole`.
    num: u32,
    line: u32,
    at_ms: u32,
    clock_us: [u32; 3],
    cpu_us: [u32; 5],
    heap_mib: [u32; 3],
    /// goal, stacks, globals in MiB; `NONE` when absent.
    sizes_mib: [u32; 3],
    procs: u16,
    cum_pct: u16,
    flags: u8,
}

const _: () = assert!(std::mem::size_of::<Packed>() == 76);

/// `value / unit` when it is exact and fits 32 bits (below `NONE`, which means absent).
fn units(value: u64, unit: u64) -> Option<u32> {
    value
        .is_multiple_of(unit)
        .then(|| u32::try_from(value / unit).ok())
        .flatten()
        .filter(|&v| v != NONE)
}

fn size(value: Option<u64>) -> Option<u32> {
    value.map_or(Some(NONE), |v| units(v, MIB))
}

impl Packed {
    /// `None` when the cycle must be kept whole.
    fn pack(c: &Cycle) -> Option<Packed> {
        if c.go15.is_some() || c.scan.is_some() || c.lab.is_some() {
            return None;
        }
        let us = |v| units(v, US);
        let mib = |v| units(v, MIB);
        Some(Packed {
            num: c.num,
            line: u32::try_from(c.line).ok()?,
            at_ms: units(c.at, MS)?,
            clock_us: [
                us(c.clock.sweep_term)?,
                us(c.clock.mark)?,
                us(c.clock.mark_term)?,
            ],
            cpu_us: [
                us(c.cpu.sweep_term)?,
                us(c.cpu.assist)?,
                us(c.cpu.background)?,
                us(c.cpu.idle)?,
                us(c.cpu.mark_term)?,
            ],
            heap_mib: [mib(c.heap_start)?, mib(c.heap_end)?, mib(c.heap_live)?],
            sizes_mib: [size(c.goal)?, size(c.stacks)?, size(c.globals)?],
            procs: u16::try_from(c.procs).ok()?,
            cum_pct: c.cum_pct,
            flags: if c.forced { FORCED } else { 0 } | if c.leak_check { LEAK_CHECK } else { 0 },
        })
    }

    fn unpack(&self) -> Cycle {
        let us = |v: u32| u64::from(v) * US;
        let mib = |v: u32| u64::from(v) * MIB;
        let size = |v: u32| (v != NONE).then(|| mib(v));
        Cycle {
            num: self.num,
            at: u64::from(self.at_ms) * MS,
            cum_pct: self.cum_pct,
            forced: self.flags & FORCED != 0,
            leak_check: self.flags & LEAK_CHECK != 0,
            clock: Clock {
                sweep_term: us(self.clock_us[0]),
                mark: us(self.clock_us[1]),
                mark_term: us(self.clock_us[2]),
            },
            cpu: Cpu {
                sweep_term: us(self.cpu_us[0]),
                assist: us(self.cpu_us[1]),
                background: us(self.cpu_us[2]),
                idle: us(self.cpu_us[3]),
                mark_term: us(self.cpu_us[4]),
            },
            go15: None,
            heap_start: mib(self.heap_mib[0]),
            heap_end: mib(self.heap_mib[1]),
            heap_live: mib(self.heap_mib[2]),
            goal: size(self.sizes_mib[0]),
            stacks: size(self.sizes_mib[1]),
            globals: size(self.sizes_mib[2]),
            procs: u32::from(self.procs),
            line: u64::from(self.line),
            scan: None,
            lab: None,
        }
    }

    fn whole(index: usize) -> Packed {
        Packed {
            num: u32::try_from(index).unwrap_or(u32::MAX),
            line: 0,
            at_ms: 0,
            clock_us: [0; 3],
            cpu_us: [0; 5],
            heap_mib: [0; 3],
            sizes_mib: [0; 3],
            procs: 0,
            cum_pct: 0,
            flags: WHOLE,
        }
    }
}

/// A run's cycles in order. Reads give a `Cow<Cycle>`: borrowed for a cycle kept whole, built
/// for a packed one; either derefs to `&Cycle`.
#[derive(Clone, Default)]
pub struct CycleStore {
    packed: Vec<Packed>,
    /// The cycles that do not pack, in order (`Packed::num` of a `WHOLE` entry indexes here).
    whole: Vec<Cycle>,
}

impl CycleStore {
    #[must_use]
    pub const fn new() -> CycleStore {
        CycleStore {
            packed: Vec::new(),
            whole: Vec::new(),
        }
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.packed.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    #[must_use]
    pub fn capacity(&self) -> usize {
        self.packed.capacity()
    }

    /// Room for `additional` more cycles at once (see `Timeline::cycles_hint`).
    ///
    /// # Errors
    /// When the allocator refuses; the store is unchanged.
    pub fn try_reserve_exact(
        &mut self,
        additional: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        self.packed.try_reserve_exact(additional)
    }

    pub fn push(&mut self, cycle: Cycle) {
        match Packed::pack(&cycle) {
            Some(p) => self.packed.push(p),
            None => {
                self.packed.push(Packed::whole(self.whole.len()));
                self.whole.push(cycle);
            }
        }
    }

    /// The last cycle, kept whole from now on so that it can change (gctrace=2's scan lines
    /// attach to the cycle before them).
    pub fn last_mut(&mut self) -> Option<&mut Cycle> {
        let last = self.packed.last_mut()?;
        if last.flags & WHOLE == 0 {
            let cycle = last.unpack();
            *last = Packed::whole(self.whole.len());
            self.whole.push(cycle);
        }
        self.whole.last_mut()
    }

    /// The last cycle when it is kept whole (only such a cycle has scan counters or lab
    /// fields to change); unlike `last_mut`, a packed cycle stays packed.
    pub fn last_whole_mut(&mut self) -> Option<&mut Cycle> {
        let last = self.packed.last()?;
        if last.flags & WHOLE == 0 {
            return None;
        }
        self.whole.last_mut()
    }

    /// Moves `other`'s cycles to the end of this store, as they are held (a piece of a file
    /// read on its own joins the reading before it).
    pub fn append(&mut self, other: &mut CycleStore) {
        let CycleStore { packed, whole } = std::mem::take(other);
        let mut whole: Vec<Option<Cycle>> = whole.into_iter().map(Some).collect();
        self.packed.reserve(packed.len());
        for p in packed {
            if p.flags & WHOLE == 0 {
                self.packed.push(p);
            } else if let Some(c) = whole.get_mut(p.num as usize).and_then(Option::take) {
                self.packed.push(Packed::whole(self.whole.len()));
                self.whole.push(c);
            }
        }
    }

    /// Adds `delta` to every cycle's line number (a piece of a file read on its own numbers
    /// its lines from 1). A packed cycle whose line passes 32 bits is kept whole from then on.
    pub fn shift_lines(&mut self, delta: u64) {
        for c in &mut self.whole {
            c.line += delta;
        }
        for p in &mut self.packed {
            if p.flags & WHOLE != 0 {
                continue;
            }
            match u32::try_from(u64::from(p.line) + delta) {
                Ok(line) => p.line = line,
                Err(_) => {
                    let mut c = p.unpack();
                    c.line += delta;
                    *p = Packed::whole(self.whole.len());
                    self.whole.push(c);
                }
            }
        }
    }

    #[must_use]
    pub fn get(&self, i: usize) -> Option<Cow<'_, Cycle>> {
        let p = self.packed.get(i)?;
        Some(if p.flags & WHOLE == 0 {
            Cow::Owned(p.unpack())
        } else {
            Cow::Borrowed(self.whole.get(p.num as usize)?)
        })
    }

    #[must_use]
    pub fn first(&self) -> Option<Cow<'_, Cycle>> {
        self.get(0)
    }

    #[must_use]
    pub fn last(&self) -> Option<Cow<'_, Cycle>> {
        self.get(self.len().checked_sub(1)?)
    }

    /// Every cycle.
    #[must_use]
    pub fn all(&self) -> CycleSlice<'_> {
        CycleSlice {
            store: self,
            range: 0..self.len(),
        }
    }

    /// The cycles in `range`, clamped to the store.
    #[must_use]
    pub fn slice(&self, range: Range<usize>) -> CycleSlice<'_> {
        self.all().slice(range)
    }

    #[must_use]
    pub fn iter(&self) -> Iter<'_> {
        self.all().iter()
    }

    /// As `slice::partition_point` (see `CycleSlice::partition_point`).
    pub fn partition_point(&self, pred: impl FnMut(&Cycle) -> bool) -> usize {
        self.all().partition_point(pred)
    }

    /// Bytes the store holds on the heap (what the dashboard's memory figure counts).
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.packed.capacity() * std::mem::size_of::<Packed>()
            + self.whole.capacity() * std::mem::size_of::<Cycle>()
    }

    /// Cycles kept whole (they did not pack).
    #[must_use]
    pub fn whole_count(&self) -> usize {
        self.whole.len()
    }
}

impl std::fmt::Debug for CycleStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Equal when they hold the same cycles, however each is held.
impl PartialEq for CycleStore {
    fn eq(&self, other: &CycleStore) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl FromIterator<Cycle> for CycleStore {
    fn from_iter<I: IntoIterator<Item = Cycle>>(iter: I) -> CycleStore {
        let mut store = CycleStore::new();
        for c in iter {
            store.push(c);
        }
        store
    }
}

impl From<Vec<Cycle>> for CycleStore {
    fn from(cycles: Vec<Cycle>) -> CycleStore {
        cycles.into_iter().collect()
    }
}

impl IntoIterator for CycleStore {
    type Item = Cycle;
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        IntoIter {
            packed: self.packed.into_iter(),
            whole: self.whole.into_iter().map(Some).collect(),
        }
    }
}

impl<'a> IntoIterator for &'a CycleStore {
    type Item = Cow<'a, Cycle>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The cycles of a store, by value and in order.
pub struct IntoIter {
    packed: std::vec::IntoIter<Packed>,
    whole: Vec<Option<Cycle>>,
}

impl Iterator for IntoIter {
    type Item = Cycle;

    fn next(&mut self) -> Option<Cycle> {
        loop {
            let p = self.packed.next()?;
            if p.flags & WHOLE == 0 {
                return Some(p.unpack());
            }
            if let Some(c) = self.whole.get_mut(p.num as usize).and_then(Option::take) {
                return Some(c);
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.packed.len()))
    }
}

/// A range of a store's cycles: what `&cycles[a..b]` was for a `Vec<Cycle>`.
#[derive(Clone, Debug)]
pub struct CycleSlice<'a> {
    store: &'a CycleStore,
    range: Range<usize>,
}

static EMPTY: CycleStore = CycleStore::new();

impl<'a> CycleSlice<'a> {
    /// No cycles.
    #[must_use]
    pub fn empty() -> CycleSlice<'static> {
        EMPTY.all()
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.range.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.range.is_empty()
    }

    /// The `i`th cycle of the slice.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<Cow<'a, Cycle>> {
        if i < self.len() {
            self.store.get(self.range.start + i)
        } else {
            None
        }
    }

    #[must_use]
    pub fn first(&self) -> Option<Cow<'a, Cycle>> {
        self.get(0)
    }

    #[must_use]
    pub fn last(&self) -> Option<Cow<'a, Cycle>> {
        self.get(self.len().checked_sub(1)?)
    }

    /// The part of this slice in `range` (relative to it), clamped to it.
    #[must_use]
    pub fn slice(&self, range: Range<usize>) -> CycleSlice<'a> {
        let end = self.range.start + range.end.min(self.len());
        let start = (self.range.start + range.start).min(end);
        CycleSlice {
            store: self.store,
            range: start..end,
        }
    }

    #[must_use]
    pub fn iter(&self) -> Iter<'a> {
        Iter {
            store: self.store,
            range: self.range.clone(),
        }
    }

    /// The first index at which `pred` is false, for a slice in which it is true and then
    /// false (as `slice::partition_point`).
    pub fn partition_point(&self, mut pred: impl FnMut(&Cycle) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.get(mid) {
                Some(c) if pred(&c) => lo = mid + 1,
                _ => hi = mid,
            }
        }
        lo
    }

    /// Each cycle with the one after it (as `slice::windows(2)`).
    pub fn pairs(&self) -> impl Iterator<Item = (Cow<'a, Cycle>, Cow<'a, Cycle>)> + 'a {
        self.iter().zip(self.iter().skip(1))
    }
}

impl<'a> IntoIterator for CycleSlice<'a> {
    type Item = Cow<'a, Cycle>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &CycleSlice<'a> {
    type Item = Cow<'a, Cycle>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// A store's cycles in order, each a `Cow<Cycle>`.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    store: &'a CycleStore,
    range: Range<usize>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Cow<'a, Cycle>;

    fn next(&mut self) -> Option<Cow<'a, Cycle>> {
        let i = self.range.next()?;
        self.store.get(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }

    fn nth(&mut self, n: usize) -> Option<Cow<'a, Cycle>> {
        let i = self.range.nth(n)?;
        self.store.get(i)
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let i = self.range.next_back()?;
        self.store.get(i)
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::{Go15Phases, ScanStats};

    fn gctrace_shaped(num: u32) -> Cycle {
        Cycle {
            num,
            at: u64::from(num) * 458 * MS,
            cum_pct: 7,
            forced: num.is_multiple_of(3),
            leak_check: num.is_multiple_of(5),
            clock: Clock {
                sweep_term: 80 * US,
                mark: 54 * MS,
                mark_term: 94 * US,
            },
            cpu: Cpu {
                sweep_term: 320 * US,
                assist: 98 * US,
                background: 53 * MS,
                idle: 103 * MS,
                mark_term: 370 * US,
            },
            go15: None,
            heap_start: 98 * MIB,
            heap_end: 105 * MIB,
            heap_live: 103 * MIB,
            goal: Some(114 * MIB),
            stacks: Some(0),
            globals: num.is_multiple_of(2).then_some(MIB),
            procs: 4,
            line: u64::from(num) * 2,
            scan: None,
            lab: None,
        }
    }

    #[test]
    fn a_packed_cycle_takes_76_bytes_where_a_cycle_takes_more_than_twice_that() {
        assert_eq!(std::mem::size_of::<Packed>(), 76);
        assert!(std::mem::size_of::<Cycle>() > 2 * 76);
    }

    #[test]
    fn every_cycle_reads_back_as_stored() {
        let mut odd = Vec::new();
        // One of each kind that must be kept whole, among ones that pack.
        let mut c = gctrace_shaped(10);
        c.clock.mark += 1; // off the µs
        odd.push(c);
        let mut c = gctrace_shaped(11);
        c.heap_live = (5 << 40) + 7; // off the MiB
        odd.push(c);
        let mut c = gctrace_shaped(12);
        c.go15 = Some(Box::new(Go15Phases::default()));
        odd.push(c);
        let mut c = gctrace_shaped(13);
        c.line = 1 << 40;
        odd.push(c);
        let mut c = gctrace_shaped(14);
        c.goal = Some(u64::from(u32::MAX) * MIB); // the value meaning "absent" must not alias
        odd.push(c);
        let mut c = gctrace_shaped(15);
        c.procs = 70_000;
        odd.push(c);
        let mut c = gctrace_shaped(16);
        c.at = 50 * 24 * 3600 * 1_000 * MS; // 50 days: past 32 bits of ms
        odd.push(c);
        let cycles: Vec<Cycle> = (1..10)
            .map(gctrace_shaped)
            .chain(odd)
            .chain((17..30).map(gctrace_shaped))
            .collect();
        let store: CycleStore = cycles.clone().into();
        assert_eq!(
            store.whole_count(),
            7,
            "exactly the odd ones are kept whole"
        );
        assert_eq!(store.len(), cycles.len());
        for (i, c) in cycles.iter().enumerate() {
            assert_eq!(store.get(i).as_deref(), Some(c), "cycle {i}");
        }
        assert_eq!(store.iter().rev().count(), cycles.len());
        assert_eq!(store.clone().into_iter().collect::<Vec<_>>(), cycles);
        assert_eq!(store.last().as_deref(), cycles.last());
    }

    #[test]
    fn the_last_cycle_changes_in_place_and_lines_shift() {
        let mut store: CycleStore = (1..5).map(gctrace_shaped).collect();
        assert!(
            store.last_whole_mut().is_none(),
            "a packed cycle stays packed"
        );
        assert_eq!(store.whole_count(), 0);
        if let Some(c) = store.last_mut() {
            c.scan
                .get_or_insert_with(Box::<ScanStats>::default)
                .total
                .objs = 9;
        }
        assert!(store.last_whole_mut().is_some());
        assert_eq!(store.whole_count(), 1);
        assert_eq!(
            store
                .get(3)
                .and_then(|c| c.scan.as_ref().map(|s| s.total.objs)),
            Some(9)
        );
        assert_eq!(store.get(2).map(|c| c.scan.is_none()), Some(true));
        let before: Vec<u64> = store.iter().map(|c| c.line).collect();
        store.shift_lines(100);
        let after: Vec<u64> = store.iter().map(|c| c.line).collect();
        assert_eq!(after, before.iter().map(|l| l + 100).collect::<Vec<_>>());
        // A whole cycle between packed ones.
        let odd = Cycle {
            go15: Some(Box::default()),
            ..gctrace_shaped(6)
        };
        let mut more: CycleStore = [gctrace_shaped(5), odd, gctrace_shaped(7)]
            .into_iter()
            .collect();
        let joined: Vec<Cycle> = store
            .iter()
            .chain(more.iter())
            .map(Cow::into_owned)
            .collect();
        store.append(&mut more);
        assert!(more.is_empty());
        assert_eq!(
            store.iter().map(Cow::into_owned).collect::<Vec<_>>(),
            joined
        );
        assert_eq!(
            store.whole_count(),
            2,
            "whole ones stay whole, packed ones packed"
        );
        // Lines past 32 bits: those cycles are kept whole, every line exact.
        let before: Vec<u64> = store.iter().map(|c| c.line).collect();
        let delta = u64::from(u32::MAX) - 8;
        store.shift_lines(delta);
        let after: Vec<u64> = store.iter().map(|c| c.line).collect();
        assert_eq!(after, before.iter().map(|l| l + delta).collect::<Vec<_>>());
        assert!(store.whole_count() > 2);
        assert_eq!(
            store.iter().map(|c| c.num).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5, 6, 7]
        );
    }

    #[test]
    fn a_slice_reads_its_own_range() {
        let store: CycleStore = (1..=20).map(gctrace_shaped).collect();
        let s = store.slice(5..15);
        assert_eq!(s.len(), 10);
        assert_eq!(s.first().map(|c| c.num), Some(6));
        assert_eq!(s.last().map(|c| c.num), Some(15));
        assert_eq!(
            s.slice(2..4).iter().map(|c| c.num).collect::<Vec<_>>(),
            [8, 9]
        );
        assert_eq!(s.slice(8..50).len(), 2, "clamped");
        assert_eq!(s.partition_point(|c| c.num < 11), 5);
        assert_eq!(s.pairs().count(), 9);
        assert!(store.slice(30..40).is_empty());
    }
}
