//! Statistics over cycles: per-run summaries, percentiles, A/B comparisons.

pub mod compare;
pub mod counted;
pub mod dist;
pub mod findings;
pub mod mannwhitney;
pub mod pacer;
pub mod per_cycle;
pub mod percentile;
pub mod run_stats;
pub mod summary;
pub mod tune;
pub mod turns;

use serde::Serialize;

/// Median with the observed range: how multi-run figures are reported (seed 001's convention).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
}

impl Spread {
    /// `None` for an empty sample. NaNs are ignored.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
        Some(Spread {
            median: median_f64(&mut v)?,
            min: v.iter().copied().min_by(f64::total_cmp)?,
            max: v.iter().copied().max_by(f64::total_cmp)?,
            n: v.len(),
        })
    }

    /// The same figures of a distribution (`dist`): exact while it holds its values.
    #[must_use]
    pub fn of_distribution(d: &dist::Distribution) -> Option<Spread> {
        Some(Spread {
            median: d.median()?,
            min: d.min()?,
            max: d.max()?,
            n: d.len(),
        })
    }

    #[must_use]
    pub fn overlaps(&self, other: &Spread) -> bool {
        self.min <= other.max && other.min <= self.max
    }
}

/// The median, the program's one definition of it (docs/SUMMARY.md): the middle value, or for
/// an even count the mean of the two middle values; `None` for no values. In O(n) (selection,
/// not a sort: summaries run over a million cycles); the order of `values` changes.
fn median_by<T: Copy>(
    values: &mut [T],
    cmp: impl Fn(&T, &T) -> std::cmp::Ordering + Copy,
    value: impl Fn(T) -> f64,
) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let (below, mid, _) = values.select_nth_unstable_by(n / 2, cmp);
    let mid = value(*mid);
    if n % 2 == 1 {
        return Some(mid);
    }
    // The largest of the lower half is the other middle value.
    let lower = below.iter().copied().max_by(cmp).map(value)?;
    Some((lower + mid) / 2.0)
}

/// The item holding each 1-based rank (nearest rank) of `n` values held as `counted`, items in
/// the values' order each standing for `count` of them; `None` for a rank outside 1..=n.
/// (Binned values, `dist`, and counted ones, `counted`, are read so.)
fn at_counted_ranks<'a, T>(
    counted: &'a [T],
    count: impl Fn(&T) -> u64,
    n: usize,
    ranks: &[usize],
) -> Vec<Option<&'a T>> {
    ranks
        .iter()
        .map(|&rank| {
            if rank == 0 || rank > n {
                return None;
            }
            let mut below = 0u64;
            counted.iter().find(|item| {
                below += count(item);
                below >= rank as u64
            })
        })
        .collect()
}

/// `median_by` of `n` values, from `at`, which gives the values at two 1-based ranks.
fn median_at_ranks(n: usize, at: impl FnOnce([usize; 2]) -> [Option<f64>; 2]) -> Option<f64> {
    let [lower, mid] = at([n / 2, n / 2 + 1]);
    if n % 2 == 1 {
        return mid;
    }
    Some((lower? + mid?) / 2.0)
}

/// `median_by` of integers (ns, bytes): a cycle's figures.
pub fn median_u64(values: &mut [u64]) -> Option<f64> {
    median_by(values, u64::cmp, |v| v as f64)
}

/// `median_by` of reals, ordered by `f64::total_cmp` (callers leave NaNs out): runs' figures.
pub fn median_f64(values: &mut [f64]) -> Option<f64> {
    median_by(values, f64::total_cmp, |v| v)
}

/// ns -> ms, for display and JSON.
#[must_use]
pub fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_and_overlap() {
        let a = Spread::of(&[3.0, 1.0, 2.0, f64::NAN]).unwrap();
        assert_eq!((a.median, a.min, a.max, a.n), (2.0, 1.0, 3.0, 3));
        let b = Spread::of(&[4.0, 6.0]).unwrap();
        assert_eq!(b.median, 5.0);
        assert!(!a.overlaps(&b));
        assert!(a.overlaps(&Spread::of(&[3.0, 9.0]).unwrap()));
        assert!(Spread::of(&[]).is_none());
    }

    #[test]
    fn median_selection() {
        assert_eq!(median_u64(&mut [5, 1, 3]), Some(3.0));
        assert_eq!(median_u64(&mut [4, 1, 3, 2]), Some(2.5));
        assert_eq!(median_u64(&mut [7]), Some(7.0));
        assert_eq!(median_u64(&mut [9, 1]), Some(5.0));
        assert_eq!(median_u64(&mut [u64::MAX, u64::MAX]), Some(u64::MAX as f64));
        assert_eq!(median_u64(&mut []), None);
        assert_eq!(
            median_f64(&mut [0.9, 0.1, 0.4, 0.2]),
            Some(0.30000000000000004)
        );
        assert_eq!(median_f64(&mut [-1.0, 3.0, 2.0]), Some(2.0));
        assert_eq!(median_f64(&mut []), None);
    }

    /// The selection agrees with sorting and taking the middle (or the mean of the two middle
    /// values), on many sizes and with repeats.
    #[test]
    fn median_is_the_sorted_middle() {
        let mut x: u64 = 99;
        for n in 1..60usize {
            let mut v: Vec<u64> = (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    (x >> 40) % 50
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            let want = if n % 2 == 1 {
                sorted[n / 2] as f64
            } else {
                (sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0
            };
            let reals: Vec<f64> = v.iter().map(|&u| u as f64).collect();
            assert_eq!(median_u64(&mut v), Some(want), "n={n}");
            assert_eq!(Spread::of(&reals).map(|s| s.median), Some(want), "n={n}");
        }
    }
}
