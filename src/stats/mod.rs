//! Statistics over cycles: per-run summaries, percentiles, A/B comparisons.

pub mod compare;
pub mod mannwhitney;
pub mod percentile;
pub mod run_stats;
pub mod summary;

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
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        Some(Spread {
            median: median_sorted(&v),
            min: v[0],
            max: v[v.len() - 1],
            n: v.len(),
        })
    }

    pub fn overlaps(&self, other: &Spread) -> bool {
        self.min <= other.max && other.min <= self.max
    }
}

fn median_sorted(v: &[f64]) -> f64 {
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Median of integers in O(n) (selection, not a sort: summaries run over a million cycles).
pub fn median_u64(values: &mut [u64]) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let (lo, mid, _) = values.select_nth_unstable(n / 2);
    let mid = *mid as f64;
    if n % 2 == 1 {
        Some(mid)
    } else {
        let below = lo.iter().copied().max().unwrap_or(0) as f64;
        Some((below + mid) / 2.0)
    }
}

/// ns -> ms, for display and JSON.
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
        assert_eq!(median_u64(&mut []), None);
    }
}
