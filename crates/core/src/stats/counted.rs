//! A column's exact values, each with how many times it came, while they are few.
//!
//! gctrace prints two or three significant digits, so a long run's column of a figure (a
//! cycle's assist time, its pause) holds a few hundred distinct values at most, however many
//! cycles: counted, they give the exact median and percentiles in constant memory, and a push
//! is one hash probe on the value itself. (Binning every value instead, `dist::Distribution`,
//! was a fifth of a long summary's time: a float conversion, a key, a probe that reads the
//! bin's key, and four fields of the bin updated.) Past `distinct_cap()` distinct values (the
//! lab's ns-exact figures, sums of many fields) the caller bins them.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Distinct values a column counts before it is binned: a table of at most 2,048 slots, 32 KiB.
pub const DISTINCT_CAP: usize = 1024;

static CAP: AtomicUsize = AtomicUsize::new(DISTINCT_CAP);

/// The cap in force (`DISTINCT_CAP`).
#[must_use]
pub fn distinct_cap() -> usize {
    CAP.load(Relaxed)
}

/// Sets the cap for the whole process: for a test that compares binned figures with exact ones
/// (tests/binned_figures.rs, a test binary of its own), never the program itself.
#[doc(hidden)]
pub fn set_distinct_cap(cap: usize) {
    CAP.store(cap, Relaxed);
}

/// A slot with no value. Never a value itself: a cycle's figures are below 2^56 ns (each phase
/// below 2^53); `push` refuses it all the same.
const EMPTY: u64 = u64::MAX;

/// Values and their counts (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    /// Open addressing on the value: (value, count), `EMPTY` where none; at least twice as many
    /// slots as values, so a push finds its value in a probe or two.
    slots: Vec<(u64, u64)>,
    distinct: usize,
    n: usize,
    /// Distinct values it counts at most.
    cap: usize,
}

impl Default for Counted {
    fn default() -> Self {
        Counted::with_cap(distinct_cap())
    }
}

#[inline(always)]
fn hash(v: u64, mask: usize) -> usize {
    // Fibonacci hashing: a column's values are near each other, and multiples of 1,000 (µs).
    #[allow(clippy::cast_possible_truncation)]
    let h = (v.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize;
    h & mask
}

impl Counted {
    /// One that counts at most `cap` distinct values.
    #[must_use]
    pub fn with_cap(cap: usize) -> Self {
        Counted {
            slots: vec![(EMPTY, 0); 64],
            distinct: 0,
            n: 0,
            cap,
        }
    }

    /// How many values were pushed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.n
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Counts `v`; `false`, counting nothing, when it would be a distinct value past the cap.
    #[inline(always)]
    #[must_use]
    pub fn push(&mut self, v: u64) -> bool {
        self.add(v, 1)
    }

    #[inline(always)]
    fn add(&mut self, v: u64, count: u64) -> bool {
        let mask = self.slots.len() - 1;
        let mut at = hash(v, mask);
        loop {
            let slot = &mut self.slots[at];
            // `EMPTY` first: `v` is never found in an empty slot, even if it were `EMPTY`.
            if slot.0 == EMPTY {
                break;
            }
            if slot.0 == v {
                slot.1 += count;
                self.n += usize::try_from(count).unwrap_or(usize::MAX);
                return true;
            }
            at = (at + 1) & mask;
        }
        self.insert(at, v, count)
    }

    /// A new value into the empty slot `at`, when the cap allows. Out of line: a long run
    /// meets a new value rarely, and the eight columns' pushes stay small where inlined.
    #[cold]
    #[inline(never)]
    fn insert(&mut self, at: usize, v: u64, count: u64) -> bool {
        if v == EMPTY || self.distinct >= self.cap {
            return false;
        }
        self.slots[at] = (v, count);
        self.distinct += 1;
        self.n += usize::try_from(count).unwrap_or(usize::MAX);
        if 2 * self.distinct > self.slots.len() {
            self.grow();
        }
        true
    }

    fn contains(&self, v: u64) -> bool {
        let mask = self.slots.len() - 1;
        let mut at = hash(v, mask);
        loop {
            match self.slots[at].0 {
                EMPTY => return false,
                x if x == v => return true,
                _ => at = (at + 1) & mask,
            }
        }
    }

    #[cold]
    fn grow(&mut self) {
        let wider = vec![(EMPTY, 0); 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, wider);
        let mask = self.slots.len() - 1;
        for (v, count) in old.into_iter().filter(|&(v, _)| v != EMPTY) {
            let mut at = hash(v, mask);
            while self.slots[at].0 != EMPTY {
                at = (at + 1) & mask;
            }
            self.slots[at] = (v, count);
        }
    }

    /// `other`'s values with these, when together they have at most the cap of distinct
    /// values; `false`, changing nothing, when not (the caller bins both).
    #[must_use]
    pub fn append(&mut self, other: &Counted) -> bool {
        let new = other.values().filter(|&(v, _)| !self.contains(v)).count();
        if self.distinct + new > self.cap {
            return false;
        }
        for (v, count) in other.values() {
            let added = self.add(v, count);
            debug_assert!(added, "room checked above");
        }
        true
    }

    /// Each distinct value and its count, in no order.
    pub fn values(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.slots.iter().copied().filter(|&(v, _)| v != EMPTY)
    }

    /// The values at 1-based ranks `ranks` of the sorted values (`None` outside 1..=len), in
    /// one pass over the distinct values in order.
    #[must_use]
    pub fn at_ranks(&self, ranks: &[usize]) -> Vec<Option<u64>> {
        let mut sorted: Vec<(u64, u64)> = self.values().collect();
        sorted.sort_unstable_by_key(|&(v, _)| v);
        super::at_counted_ranks(&sorted, |&(_, count)| count, self.n, ranks)
            .into_iter()
            .map(|item| item.map(|&(v, _)| v))
            .collect()
    }

    /// The median as `stats::median_u64` takes it of the values themselves: the middle one, or
    /// the mean of the two middle ones.
    #[must_use]
    pub fn median(&self) -> Option<f64> {
        super::median_at_ranks(self.n, |ranks| {
            let at = self.at_ranks(&ranks);
            [at[0], at[1]].map(|v| v.map(|v| v as f64))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Counted values give the median and ranks of the values themselves, however they were
    /// split and appended.
    #[test]
    fn counted_values_give_the_exact_median_and_ranks() {
        let mut seed = 7;
        for n in [1usize, 2, 3, 10, 999, 5000] {
            let values: Vec<u64> = (0..n)
                .map(|_| (rng(&mut seed) % 300) * 1000 + if n > 100 { 0 } else { 7 })
                .collect();
            let mut whole = Counted::default();
            values.iter().for_each(|&v| assert!(whole.push(v)));
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let mut exact = values.clone();
            assert_eq!(
                whole.median(),
                crate::stats::median_u64(&mut exact),
                "n {n}"
            );
            let ranks = [1, n / 3 + 1, n];
            assert_eq!(
                whole.at_ranks(&ranks),
                ranks.map(|r| Some(sorted[r - 1])).to_vec(),
                "n {n}"
            );
            assert_eq!(whole.at_ranks(&[0, n + 1]), vec![None, None]);
            let cut = n / 2;
            let (mut a, mut b) = (Counted::default(), Counted::default());
            values[..cut].iter().for_each(|&v| assert!(a.push(v)));
            values[cut..].iter().for_each(|&v| assert!(b.push(v)));
            assert!(a.append(&b));
            assert_eq!(
                (a.len(), a.median()),
                (whole.len(), whole.median()),
                "n {n}"
            );
            assert_eq!(a.at_ranks(&ranks), whole.at_ranks(&ranks), "n {n}");
        }
    }

    /// A new value past the cap is refused, alone or appended, and nothing changes; values
    /// already counted still count.
    #[test]
    fn the_cap_refuses_new_values_and_changes_nothing() {
        let mut c = Counted::default();
        for v in 0..DISTINCT_CAP as u64 {
            assert!(c.push(v * 1000));
        }
        let before = c.clone();
        assert!(!c.push(u64::MAX), "EMPTY is never a value");
        assert!(!c.push(7), "one distinct value too many");
        assert_eq!(c, before);
        assert!(c.push(0), "a value already counted");
        assert_eq!(c.len(), DISTINCT_CAP + 1);
        let mut other = Counted::default();
        assert!(other.push(5) && other.push(1000));
        let before = c.clone();
        assert!(!c.append(&other), "5 is new");
        assert_eq!(c, before);
        assert!(c.slots.len() <= 2 * DISTINCT_CAP.next_power_of_two());
    }
}
