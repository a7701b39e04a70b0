//! Percentiles: hdrhistogram's definition, computed by selection or by a histogram walk.

use super::ms;
use hdrhistogram::Histogram;
use serde::Serialize;

/// Significant digits kept by the pause and mark histograms. The runtime prints two
/// (`fmtNSAsMS`), so two lose nothing of Go's text and keep the buckets few.
pub const SIGFIG: u8 = 2;

/// hdrhistogram percentiles (`SIGFIG` significant digits) with the exact maximum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Percentiles {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

/// An hdrhistogram of ns values, recorded in µs (the text's resolution) with `SIGFIG` digits.
#[must_use]
pub fn histogram(values_ns: &[u64]) -> Histogram<u64> {
    // `new` fails only for sigfig > 5.
    let mut h = Histogram::<u64>::new(SIGFIG).unwrap_or_else(|_| unreachable!("valid sigfig"));
    for v in values_ns {
        let _ = h.record(v / 1000);
    }
    h
}

/// The same figures as `percentiles(&histogram(values))`, without building and walking a
/// histogram: the value at each rank is selected in O(n) and reported as hdrhistogram's
/// bucket edge for it. A log of thousands of short runs spent most of its summary time
/// walking thousands of histograms.
#[must_use]
pub fn percentiles_of(values_ns: &[u64], max_ns: u64) -> Percentiles {
    percentiles_in_place(&mut values_ns.to_vec(), max_ns)
}

/// `percentiles_of`, selecting in `values_ns` itself (its order changes).
pub fn percentiles_in_place(values_ns: &mut [u64], max_ns: u64) -> Percentiles {
    let n = values_ns.len();
    percentiles_ranked(
        n,
        |ranks| ranks.map(|rank| *values_ns.select_nth_unstable(rank - 1).1),
        max_ns,
    )
}

/// The percentiles of `n` values given the values (ns) at the three 1-based ranks asked for,
/// p50's, p90's and p99's: the value at rank ceil(q * n), truncated to whole µs, reported as
/// hdrhistogram's bucket edge for it, never above the exact maximum. Shared by the selection
/// over a run's rows and the walk over its binned columns (`per_cycle`), which answers all
/// three in one pass.
pub fn percentiles_ranked(
    n: usize,
    at: impl FnOnce([usize; 3]) -> [u64; 3],
    max_ns: u64,
) -> Percentiles {
    if n == 0 {
        return Percentiles::default();
    }
    // Only the bucket edges are used: one empty histogram serves every call.
    static BUCKETS: std::sync::OnceLock<Histogram<u64>> = std::sync::OnceLock::new();
    let buckets = BUCKETS.get_or_init(|| histogram(&[]));
    // q is in 0..=1, so the rank is in 0..=n; `as` saturates, the clamp keeps 1..=n.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let ranks = [0.5, 0.9, 0.99].map(|q: f64| ((q * n as f64).ceil() as usize).clamp(1, n));
    let [p50, p90, p99] = at(ranks).map(|ns| {
        ms(buckets
            .highest_equivalent(ns / 1000)
            .saturating_mul(1000)
            .min(max_ns))
    });
    Percentiles {
        p50,
        p90,
        p99,
        max: ms(max_ns),
    }
}

/// p50/p90/p99 of a histogram of µs values, in one walk over its buckets, and the exact
/// maximum (ns).
#[must_use]
pub fn percentiles(h: &Histogram<u64>, max_ns: u64) -> Percentiles {
    const QS: [f64; 3] = [0.5, 0.9, 0.99];
    let mut out = [0u64; 3];
    let total = h.len();
    if total == 0 {
        return Percentiles::default();
    }
    // The same rank rule as `value_at_quantile`: the first value whose cumulative count
    // reaches ceil(q * n).
    // q is in 0..=1, so each rank is in 1..=total (`as` saturates).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let ranks = QS.map(|q| ((q * total as f64).ceil() as u64).max(1));
    let (mut next, mut seen) = (0, 0u64);
    for v in h.iter_recorded() {
        seen += v.count_at_value();
        while next < 3 && seen >= ranks[next] {
            out[next] = h.highest_equivalent(v.value_iterated_to());
            next += 1;
        }
        if next == 3 {
            break;
        }
    }
    // The histogram's bucket edge is never reported above the exact maximum.
    let q = |us: u64| ms(us.saturating_mul(1000).min(max_ns));
    Percentiles {
        p50: q(out[0]),
        p90: q(out[1]),
        p99: q(out[2]),
        max: ms(max_ns),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selected_percentiles_equal_the_histogram_walk() {
        // A spread of values from 0 to seconds, with repeats, as pauses and marks have.
        let mut x: u64 = 12345;
        for n in [1usize, 2, 3, 10, 99, 100, 101, 1000, 5000] {
            let values: Vec<u64> = (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((x >> 33) % 2_000_000_000) >> ((x >> 20) % 24)
                })
                .collect();
            let max = values.iter().copied().max().unwrap();
            let walked = percentiles(&histogram(&values), max);
            let h = histogram(&values);
            assert_eq!(percentiles_of(&values, max), walked, "n={n}");
            // And both are hdrhistogram's own answer.
            let q = |p| ms((h.value_at_quantile(p) * 1000).min(max));
            assert_eq!(
                (walked.p50, walked.p90, walked.p99),
                (q(0.5), q(0.9), q(0.99)),
                "n={n}"
            );
        }
    }

    /// What docs/SUMMARY.md says of a printed percentile: the value at rank ceil(q * n),
    /// truncated to whole µs, reported as the upper edge of its bucket (exact below 256 µs,
    /// then 2, 4, 8 ... µs wide), never above the exact maximum.
    #[test]
    fn percentiles_are_bucket_edges_as_documented() {
        let us = |v: &[u64]| v.iter().map(|u| u * 1000).collect::<Vec<u64>>();
        // Rank ceil(0.5 * 2) = 1: the lower of two values (a median would be their mean).
        let p = percentiles_of(&us(&[300, 1000]), 1_000_000);
        assert_eq!((p.p50, p.p90, p.max), (0.301, 1.0, 1.0));
        // Below 256 µs every µs is its own bucket; sub-µs parts are dropped.
        let p = percentiles_of(&[255_000, 1_500, 1_999], 255_000);
        assert_eq!((p.p50, p.p99), (0.001, 0.255));
        // 512..1023 µs: 4 µs buckets; 10 ms: 64 µs buckets (10 000 is in [9984, 10047]).
        let p = percentiles_of(&us(&[513, 10_000, 20_000]), 20_000_000);
        assert_eq!((p.p50, p.p90), (10.047, 20.0));
        assert_eq!(percentiles_of(&us(&[513]), 2_000_000).p50, 0.515);
        // Never above the maximum: one value is its own p50, p90, p99.
        let p = percentiles_of(&[10_000_000], 10_000_000);
        assert_eq!((p.p50, p.p99, p.max), (10.0, 10.0, 10.0));
    }
}
