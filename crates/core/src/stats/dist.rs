//! A distribution that streams: every value kept while there are few, log bins past that, so
//! its memory is bounded by the range of the values and never by how many were pushed.
//!
//! A bin spans at most 2^-10 (0.098 %) of its values: it keeps its count, least and greatest
//! value and sum, and stands for its one value when all of its values were equal, else for
//! their mean. gctrace's figures have two significant digits (whole ms past 10 ms), so two of
//! its distinct values never share a bin below 1 s: a median or a percentile of a column of
//! the text is the exact one either way. Sums of several fields (a cycle's GC P time, a run's
//! figure) can share a bin, and are then off by at most the bin's width.

use super::mannwhitney::{mann_whitney_u, normal_p, MannWhitney};

/// Values kept one by one before a distribution bins them: below it every figure (the
/// median, the range, the rank test's exact path) is the one the values themselves give.
pub const EXACT_CAP: usize = 16_384;

/// Mantissa bits a bin's key keeps.
const BIN_BITS: u32 = 10;

/// An index slot with no bin.
const EMPTY: u32 = u32::MAX;

/// Values, exact up to a cap, binned past it (module docs). NaN is never pushed (callers
/// leave it out), and -0.0 counts as 0.0.
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    /// The values while there are at most `cap`; empty once binned.
    exact: Vec<f64>,
    /// In the order first met; empty until the values pass `cap`. Sorted when read.
    bins: Vec<Bin>,
    /// Open addressing from a key to its bin's index (`EMPTY` where none), twice as many
    /// slots as bins at least: a push finds its bin in a probe or two. (A binary search over
    /// sorted bins was a sixth of a long summary's time.)
    index: Vec<u32>,
    /// Every value pushed.
    n: usize,
    cap: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Bin {
    key: u64,
    count: u64,
    min: f64,
    max: f64,
    sum: f64,
}

impl Bin {
    /// `count` more values, of this least, greatest and sum. (Compared as plain numbers:
    /// no NaN is ever pushed, and `f64::min`'s NaN handling was a tenth of a push.)
    #[inline(always)]
    fn add(&mut self, count: u64, min: f64, max: f64, sum: f64) {
        self.count += count;
        if min < self.min {
            self.min = min;
        }
        if max > self.max {
            self.max = max;
        }
        self.sum += sum;
    }

    /// What the bin stands for: its value when every value in it was equal, else their mean.
    fn value(&self) -> f64 {
        if self.min == self.max {
            self.min
        } else {
            (self.sum / self.count as f64).clamp(self.min, self.max)
        }
    }
}

/// Bins in the values' order: the f64 bits made monotone (negatives flipped), cut to the sign,
/// exponent and `BIN_BITS` of mantissa.
#[inline(always)]
fn key(v: f64) -> u64 {
    let bits = v.to_bits();
    let monotone = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    monotone >> (52 - BIN_BITS)
}

impl Default for Distribution {
    fn default() -> Self {
        Distribution::with_cap(EXACT_CAP)
    }
}

impl Distribution {
    /// One that bins past `cap` values (tests bin from the first value with 0).
    #[must_use]
    pub fn with_cap(cap: usize) -> Self {
        Distribution {
            exact: Vec::new(),
            bins: Vec::new(),
            index: Vec::new(),
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

    /// Whether every figure is of the values themselves (no bin yet).
    #[must_use]
    pub fn is_exact(&self) -> bool {
        self.bins.is_empty()
    }

    #[inline]
    pub fn push(&mut self, v: f64) {
        if !self.exact.is_empty() || self.bins.is_empty() {
            if self.bins.is_empty() && self.exact.len() < self.cap {
                debug_assert!(!v.is_nan(), "callers leave NaN out");
                self.n += 1;
                self.exact.push(if v == 0.0 { 0.0 } else { v });
                return;
            }
            self.spill();
        }
        self.push_binned(v);
    }

    /// `push` for one whose values are binned already, or from the first (`with_cap(0)`):
    /// straight to the bin, inlined where it is called (a run's per-cycle columns past their
    /// cap: seven a cycle, where `push`'s call and checks for exact values were a fifth of its
    /// instructions).
    #[inline(always)]
    pub fn push_binned(&mut self, v: f64) {
        debug_assert!(!v.is_nan(), "callers leave NaN out");
        debug_assert!(self.exact.is_empty() && (self.cap == 0 || !self.bins.is_empty()));
        let v = if v == 0.0 { 0.0 } else { v };
        self.n += 1;
        self.bin(v, 1, v, v, v);
    }

    /// `count` values `v` at once, into one that bins from the first value (`with_cap(0)`):
    /// the same bins as `count` pushes of `v` while the sum stays below 2^53.
    pub fn push_many(&mut self, v: f64, count: u64) {
        debug_assert!(!v.is_nan(), "callers leave NaN out");
        debug_assert!(self.cap == 0 && self.exact.is_empty());
        let v = if v == 0.0 { 0.0 } else { v };
        self.n += usize::try_from(count).unwrap_or(usize::MAX);
        self.bin(v, count, v, v, v * count as f64);
    }

    /// Another distribution's values with these (order does not matter to any figure).
    pub fn append(&mut self, other: &Distribution) {
        if other.bins.is_empty() && self.bins.is_empty() && self.n + other.n <= self.cap {
            self.exact.extend_from_slice(&other.exact);
            self.n += other.n;
            return;
        }
        self.spill();
        self.n += other.n;
        for &v in &other.exact {
            self.bin(v, 1, v, v, v);
        }
        for b in &other.bins {
            self.bin_key(b.key, b.count, b.min, b.max, b.sum);
        }
    }

    /// Moves the exact values into bins.
    #[cold]
    fn spill(&mut self) {
        for v in std::mem::take(&mut self.exact) {
            self.bin(v, 1, v, v, v);
        }
        self.exact = Vec::new();
    }

    #[inline(always)]
    fn bin(&mut self, v: f64, count: u64, min: f64, max: f64, sum: f64) {
        self.bin_key(key(v), count, min, max, sum);
    }

    #[inline(always)]
    fn bin_key(&mut self, key: u64, count: u64, min: f64, max: f64, sum: f64) {
        let at = self.slot(key);
        match self.index[at] {
            EMPTY => {
                // Fewer than u32::MAX bins: the keys are 22 bits.
                #[allow(clippy::cast_possible_truncation)]
                let i = self.bins.len() as u32;
                self.index[at] = i;
                self.bins.push(Bin {
                    key,
                    count,
                    min,
                    max,
                    sum,
                });
                if 2 * self.bins.len() > self.index.len() {
                    self.grow();
                }
            }
            i => self.bins[i as usize].add(count, min, max, sum),
        }
    }

    /// The slot of `key` in the index: where it is, or the empty one where it would go.
    #[inline(always)]
    fn slot(&mut self, key: u64) -> usize {
        if self.index.is_empty() {
            self.index = vec![EMPTY; 64];
        }
        let mask = self.index.len() - 1;
        // Fibonacci hashing: the keys of one column are near each other.
        #[allow(clippy::cast_possible_truncation)]
        let mut at = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask;
        loop {
            match self.index[at] {
                EMPTY => return at,
                i if self.bins[i as usize].key == key => return at,
                _ => at = (at + 1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        self.index = vec![EMPTY; 2 * self.index.len()];
        for i in 0..self.bins.len() {
            let at = self.slot(self.bins[i].key);
            // Fewer than u32::MAX bins (above).
            #[allow(clippy::cast_possible_truncation)]
            let i = i as u32;
            self.index[at] = i;
        }
    }

    /// The bins in the values' order.
    fn sorted(&self) -> Vec<Bin> {
        let mut bins = self.bins.clone();
        bins.sort_unstable_by_key(|b| b.key);
        bins
    }

    #[must_use]
    pub fn min(&self) -> Option<f64> {
        // Binned: the least of the bins' least values (not kept per push: a tenth of a
        // push's time, for a figure read once).
        let binned = self.bins.iter().map(|b| b.min);
        self.exact
            .iter()
            .copied()
            .chain(binned)
            .min_by(f64::total_cmp)
    }

    #[must_use]
    pub fn max(&self) -> Option<f64> {
        let binned = self.bins.iter().map(|b| b.max);
        self.exact
            .iter()
            .copied()
            .chain(binned)
            .max_by(f64::total_cmp)
    }

    /// The value at 1-based rank `rank` of the sorted values (nearest rank), `None` outside
    /// 1..=len. Binned: the value of the rank's bin.
    #[must_use]
    pub fn at_rank(&self, rank: usize) -> Option<f64> {
        self.at_ranks(&[rank]).pop().flatten()
    }

    /// `at_rank` of each rank, in one pass over the bins (one sort of them).
    #[must_use]
    pub fn at_ranks(&self, ranks: &[usize]) -> Vec<Option<f64>> {
        if self.bins.is_empty() {
            let mut v = self.exact.clone();
            return ranks
                .iter()
                .map(|&rank| {
                    (1..=self.n)
                        .contains(&rank)
                        .then(|| *v.select_nth_unstable_by(rank - 1, f64::total_cmp).1)
                })
                .collect();
        }
        let bins = self.sorted();
        super::at_counted_ranks(&bins, |b| b.count, self.n, ranks)
            .into_iter()
            .map(|b| b.map(Bin::value))
            .collect()
    }

    /// The median by the program's one definition (`stats::median_f64`): the middle value, or
    /// the mean of the two middle ones.
    #[must_use]
    pub fn median(&self) -> Option<f64> {
        if self.bins.is_empty() {
            return super::median_f64(&mut self.exact.clone());
        }
        super::median_at_ranks(self.n, |ranks| {
            let at = self.at_ranks(&ranks);
            [at[0], at[1]]
        })
    }

    /// The values themselves while exact.
    #[must_use]
    pub fn values(&self) -> Option<&[f64]> {
        self.bins.is_empty().then_some(&self.exact[..])
    }

    /// Its bins, made from the values when it has none yet: (key, count), in order.
    fn binned(&self) -> Vec<(u64, u64)> {
        if self.bins.is_empty() {
            let mut keys: Vec<u64> = self.exact.iter().map(|&v| key(v)).collect();
            keys.sort_unstable();
            let mut out: Vec<(u64, u64)> = Vec::new();
            for k in keys {
                match out.last_mut() {
                    Some((last, c)) if *last == k => *c += 1,
                    _ => out.push((k, 1)),
                }
            }
            out
        } else {
            self.sorted().iter().map(|b| (b.key, b.count)).collect()
        }
    }
}

/// The two-sided Mann-Whitney U test of two distributions: `mann_whitney_u` of the values while
/// both are exact; past that, over the bins, each bin a group of ties, by the normal
/// approximation with the tie-corrected variance (the path `mann_whitney_u` takes for samples
/// this large). `None` when either is empty.
#[must_use]
pub fn mann_whitney(a: &Distribution, b: &Distribution) -> Option<MannWhitney> {
    if let (Some(va), Some(vb)) = (a.values(), b.values()) {
        return mann_whitney_u(va, vb);
    }
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let (ba, bb) = (a.binned(), b.binned());
    let (mut i, mut j) = (0, 0);
    let (mut below, mut rank_sum_a, mut tie_sum, mut groups) = (0u64, 0.0, 0.0, 0usize);
    while i < ba.len() || j < bb.len() {
        let k = match (ba.get(i), bb.get(j)) {
            (Some(x), Some(y)) => x.0.min(y.0),
            (Some(x), None) => x.0,
            (None, Some(y)) => y.0,
            (None, None) => break,
        };
        let take = |bins: &[(u64, u64)], at: &mut usize| match bins.get(*at) {
            Some(&(key, count)) if key == k => {
                *at += 1;
                count
            }
            _ => 0,
        };
        let (in_a, in_b) = (take(&ba, &mut i), take(&bb, &mut j));
        let t = (in_a + in_b) as f64;
        // The mean of the 1-based ranks below+1..=below+t.
        let avg_rank = below as f64 + (t + 1.0) / 2.0;
        rank_sum_a += avg_rank * in_a as f64;
        tie_sum += t * t * t - t;
        below += in_a + in_b;
        groups += 1;
    }
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    let u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    if groups == 1 {
        return Some(MannWhitney { u, p: 1.0 });
    }
    Some(MannWhitney {
        u,
        p: normal_p(u, n1, n2, tie_sum),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gctrace's values as Go prints them (two significant digits, whole ms from 10 ms), in ms.
    fn text_values(n: usize) -> Vec<f64> {
        text_values_from(0..n)
    }

    fn text_values_from(indices: impl Iterator<Item = usize>) -> Vec<f64> {
        indices
            .map(|i| {
                let x = (i * 7919 % 9973) as f64;
                match i % 4 {
                    0 => (x % 90.0 + 10.0) / 1000.0, // 0.010-0.099
                    1 => (x % 90.0 + 10.0) / 100.0,  // 0.10-0.99
                    2 => (x % 90.0 + 10.0) / 10.0,   // 1.0-9.9
                    _ => (x % 990.0 + 10.0).round(), // 10-999
                }
            })
            .collect()
    }

    fn exact_median(v: &[f64]) -> f64 {
        super::super::median_f64(&mut v.to_vec()).unwrap()
    }

    #[test]
    fn below_the_cap_every_figure_is_the_values_own() {
        let v = text_values(1001);
        let mut d = Distribution::with_cap(2000);
        v.iter().for_each(|&x| d.push(x));
        assert!(d.is_exact());
        assert_eq!(d.median(), Some(exact_median(&v)));
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(d.min(), sorted.first().copied());
        assert_eq!(d.max(), sorted.last().copied());
        assert_eq!(d.at_rank(900), Some(sorted[899]));
    }

    /// Binned from the first value, a column of gctrace's text still gives the exact median,
    /// every rank and the range: no two of its distinct values share a bin.
    #[test]
    fn binned_text_values_give_the_exact_median_and_ranks() {
        for n in [1, 2, 3, 10, 999, 1000, 40_000] {
            let v = text_values(n);
            let mut d = Distribution::with_cap(0);
            v.iter().for_each(|&x| d.push(x));
            assert!(!d.is_exact() && d.len() == n);
            assert_eq!(d.median(), Some(exact_median(&v)), "n={n}");
            let mut sorted = v.clone();
            sorted.sort_by(f64::total_cmp);
            for rank in [1, n / 3 + 1, n / 2 + 1, n] {
                assert_eq!(d.at_rank(rank), Some(sorted[rank - 1]), "n={n} rank={rank}");
            }
            assert_eq!(
                (d.min(), d.max()),
                (sorted.first().copied(), sorted.last().copied())
            );
        }
    }

    /// Values that do share bins (sums of fields, any real) are off by at most a bin's width,
    /// 2^-10 of the value, at every rank; negatives and zero sort where they belong.
    #[test]
    fn binned_reals_are_within_a_bin_of_the_exact_rank() {
        let v: Vec<f64> = (0..20_000)
            .map(|i| ((i * 104_729) % 65_521) as f64 * 0.0137 - 100.0)
            .chain([0.0, -0.0, 0.0])
            .collect();
        let mut d = Distribution::with_cap(1000);
        v.iter().for_each(|&x| d.push(x));
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        for rank in (1..=v.len()).step_by(97) {
            let (got, want) = (d.at_rank(rank).unwrap(), sorted[rank - 1]);
            assert!(
                (got - want).abs() <= want.abs() / 1024.0,
                "rank {rank}: {got} v {want}"
            );
        }
        let (m, want) = (d.median().unwrap(), exact_median(&v));
        assert!((m - want).abs() <= want.abs() / 1024.0, "{m} v {want}");
        assert_eq!(
            (d.min(), d.max()),
            (sorted.first().copied(), sorted.last().copied())
        );
    }

    /// Appending is pushing: exact while both fit the cap, the same bins past it.
    #[test]
    fn appended_parts_are_the_whole() {
        let v = text_values(5000);
        let mut whole = Distribution::with_cap(3000);
        v.iter().for_each(|&x| whole.push(x));
        let mut first = Distribution::with_cap(3000);
        let mut second = Distribution::with_cap(3000);
        v[..2000].iter().for_each(|&x| first.push(x));
        v[2000..].iter().for_each(|&x| second.push(x));
        first.append(&second);
        assert_eq!(first.len(), whole.len());
        assert_eq!(first.median(), whole.median());
        assert_eq!(first.at_rank(4321), whole.at_rank(4321));
        let mut small = Distribution::with_cap(3000);
        v[..10].iter().for_each(|&x| small.push(x));
        let mut more = Distribution::with_cap(3000);
        v[10..20].iter().for_each(|&x| more.push(x));
        small.append(&more);
        assert!(small.is_exact());
        assert_eq!(small.median(), Some(exact_median(&v[..20])));
    }

    /// The binned rank test is the exact one's normal path whenever each bin holds one value
    /// (ties and all), and still tells two shifted samples apart.
    #[test]
    fn the_binned_rank_test_agrees_with_the_exact_one() {
        let a = text_values(300);
        // Larger values: only the 1.0-9.9 and 10-999 kinds.
        let b: Vec<f64> = text_values_from((0..800).filter(|i| i % 4 >= 2));
        let exact = mann_whitney_u(&a, &b).unwrap();
        let (mut da, mut db) = (Distribution::with_cap(0), Distribution::with_cap(0));
        a.iter().for_each(|&x| da.push(x));
        b.iter().for_each(|&x| db.push(x));
        let binned = mann_whitney(&da, &db).unwrap();
        assert_eq!(exact.u, binned.u);
        assert!((exact.p - binned.p).abs() < 1e-12, "{exact:?} {binned:?}");
        assert!(binned.p < 0.01);
        // One exact side and one binned side.
        let mut ea = Distribution::default();
        a.iter().for_each(|&x| ea.push(x));
        let mixed = mann_whitney(&ea, &db).unwrap();
        assert_eq!(mixed.u, exact.u);
        // Every value tied.
        let (mut x, mut y) = (Distribution::with_cap(0), Distribution::with_cap(0));
        (0..50).for_each(|_| {
            x.push(2.0);
            y.push(2.0)
        });
        assert_eq!(mann_whitney(&x, &y).map(|r| r.p), Some(1.0));
        assert_eq!(mann_whitney(&x, &Distribution::default()), None);
    }

    /// The point of it: a million values of gctrace's kind take a few hundred bins.
    #[test]
    fn a_million_values_take_bins_not_values() {
        let mut d = Distribution::with_cap(1000);
        for x in text_values(1_000_000) {
            d.push(x);
        }
        assert_eq!(d.len(), 1_000_000);
        assert!(d.bins.len() < 4000, "{} bins", d.bins.len());
        assert!(d.index.len() <= 4 * d.bins.len().max(32));
        assert!(d.exact.capacity() == 0);
    }
}
