//! Two-sample Mann-Whitney U test, in the style of Go's benchstat
//! (golang.org/x/perf/internal/stats/mannwhitney.go).

use std::f64::consts::{FRAC_2_SQRT_PI, SQRT_2};

/// Largest `n1 * n2` for which the exact distribution of U is used. The dynamic program costs
/// O(n1 * n2 * n1 * n2) additions, and at this size every count is at most C(40, 20) ~ 1.4e11,
/// far below 2^53, so the counts are held exactly in `f64`.
const EXACT_MAX_PAIRS: usize = 400;

/// Result of a two-sided Mann-Whitney U test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    pub u: f64,
    pub p: f64,
}

/// Two-sided Mann-Whitney U test of samples `a` and `b` (NaN-free f64).
///
/// Returns `None` when either sample is empty. `u` is the U of `a`: the number of pairs with
/// `a_i > b_j` plus half the number of tied pairs, so `U(a, b) + U(b, a) == a.len() * b.len()`.
///
/// Method (chosen to agree with SciPy's `mannwhitneyu(..., alternative='two-sided')`):
/// - all values identical: `p = 1`;
/// - no ties and `a.len() * b.len() <= 400`: exact null distribution of U,
///   `p = min(1, 2 * min(P(U <= u), P(U >= u)))` (SciPy `method='exact'`);
/// - otherwise: normal approximation with tie-corrected variance and a 0.5 continuity
///   correction (SciPy `method='asymptotic', use_continuity=True`). Unlike benchstat, ties in
///   small samples also take this path instead of an exact tie-aware distribution.
///
/// Never panics: sorting uses `total_cmp`, so even NaN inputs are safe (but the result is meaningless).
#[must_use]
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let pairs = n1 * n2;

    // Pool both samples, remembering which one each value came from.
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));

    // Average ranks over tie groups; `tie_sum` accumulates t^3 - t for the variance correction.
    // Groups use `==` so that -0.0 and 0.0 (adjacent under total_cmp) count as tied.
    let (mut rank_sum_a, mut tie_sum, mut start) = (0.0, 0.0, 0);
    while start < pooled.len() {
        let mut end = start + 1;
        while end < pooled.len() && pooled[end].0 == pooled[start].0 {
            end += 1;
        }
        let t = (end - start) as f64;
        let avg_rank = (start + end + 1) as f64 / 2.0; // mean of 1-based ranks start+1..=end
        let in_a = pooled[start..end].iter().filter(|v| v.1).count() as f64;
        rank_sum_a += avg_rank * in_a;
        tie_sum += t * t * t - t;
        start = end;
    }
    let (n1f, n2f) = (n1 as f64, n2 as f64);
    let u = rank_sum_a - n1f * (n1f + 1.0) / 2.0;

    if pooled[0].0 == pooled[pooled.len() - 1].0 {
        // Every value is tied: no evidence of a difference, and the variance below would be 0.
        return Some(MannWhitney { u, p: 1.0 });
    }

    let p = if tie_sum == 0.0 && pairs <= EXACT_MAX_PAIRS {
        let counts = exact_counts(n1, n2);
        let total: f64 = counts.iter().sum();
        // Without ties u is an integer in 0..=n1*n2; clamp guards the index against rounding.
        // A float-to-int `as` saturates (NaN to 0): the index stays in 0..=pairs.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let k = (u.round().max(0.0) as usize).min(pairs);
        let lower: f64 = counts[..=k].iter().sum();
        let upper: f64 = counts[k..].iter().sum();
        2.0 * lower.min(upper) / total
    } else {
        normal_p(u, n1f, n2f, tie_sum)
    };
    Some(MannWhitney { u, p: p.min(1.0) })
}

/// The two-sided p-value of `u` by the normal approximation, with the tie-corrected variance
/// (`tie_sum`: the sum of t^3 - t over the tie groups) and a 0.5 continuity correction.
#[must_use]
pub fn normal_p(u: f64, n1: f64, n2: f64, tie_sum: f64) -> f64 {
    let n = n1 + n2;
    let mean = n1 * n2 / 2.0;
    let var = n1 * n2 / 12.0 * ((n + 1.0) - tie_sum / (n * (n - 1.0)));
    // Continuity correction shrinks |U - mean| by 0.5; if that crosses zero the p is 1.
    let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
    // Two-sided normal tail: 2 * (1 - Phi(z)) = erfc(z / sqrt(2)).
    erfc(z / SQRT_2).min(1.0)
}

/// Number of orderings of `n1` a's and `n2` b's (out of C(n1 + n2, n1)) with each U value
/// `0..=n1*n2`, via the recurrence f(i, j, u) = f(i-1, j, u-j) + f(i, j-1, u): the largest
/// element is either an `a` (beating all `j` b's) or a `b` (adding nothing to U).
fn exact_counts(n1: usize, n2: usize) -> Vec<f64> {
    let len = n1 * n2 + 1;
    let mut unit = vec![0.0; len];
    unit[0] = 1.0; // f(0, j, .) and f(i, 0, .): U is always 0.
                   // `row[j]` holds f(i, j, .) for the current i; only the previous i is needed.
    let mut row = vec![unit.clone(); n2 + 1];
    for i in 1..=n1 {
        let mut next = Vec::with_capacity(n2 + 1);
        next.push(unit.clone());
        for j in 1..=n2 {
            let mut counts: Vec<f64> = next[j - 1].clone();
            for u in j..=i * j {
                counts[u] += row[j][u - j];
            }
            next.push(counts);
        }
        row = next;
    }
    row.pop().unwrap_or(unit)
}

/// Complementary error function for `x >= 0` (negative inputs are treated as 0), to ~1e-13
/// relative; std's `f64::erfc` is still unstable.
fn erfc(x: f64) -> f64 {
    let x = x.max(0.0);
    let x2 = x * x;
    if x < 2.5 {
        // erf(x) = 2/sqrt(pi) * e^(-x^2) * sum_k x (2x^2)^k / (1*3*...*(2k+1)). All terms are
        // positive, so there is no cancellation; 1 - erf loses < 4 digits for x < 2.5.
        let (mut term, mut sum, mut k) = (x, x, 0.0);
        while term > sum * 1e-17 {
            k += 1.0;
            term *= 2.0 * x2 / (2.0 * k + 1.0);
            sum += term;
        }
        1.0 - FRAC_2_SQRT_PI * (-x2).exp() * sum
    } else {
        // Continued fraction erfc(x) = e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + (2/2)/(x + ...))),
        // evaluated bottom-up; 120 levels is converged to double precision for x >= 2.5.
        let mut frac = x;
        for k in (1..=120).rev() {
            frac = x + f64::from(k) / 2.0 / frac;
        }
        FRAC_2_SQRT_PI / 2.0 * (-x2).exp() / frac
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(a: &[f64], b: &[f64], u: f64, p: f64) {
        let r = mann_whitney_u(a, b).expect("non-empty samples");
        assert_eq!(r.u, u, "U for {a:?} vs {b:?}");
        assert!(
            ((r.p - p) / p).abs() < 1e-6,
            "p = {} want {p} for {a:?} vs {b:?}",
            r.p
        );
    }

    /// Deterministic tie-free-within-sample data: (i * mul % modulus) + offset for i in 0..n.
    fn gen(n: usize, mul: usize, modulus: usize, offset: f64) -> Vec<f64> {
        (0..n)
            .map(|i| (i * mul % modulus) as f64 + offset)
            .collect()
    }

    // Reference values from SciPy 1.17.1, `from scipy.stats import mannwhitneyu as mw`;
    // each call also passes alternative='two-sided'.

    #[test]
    fn exact_small_samples() {
        // mw([1,2,3,4,5], [6,7,8,9,10], method='exact') -> U=0, p=0.007936507936507936
        check(
            &[1.0, 2.0, 3.0, 4.0, 5.0],
            &[6.0, 7.0, 8.0, 9.0, 10.0],
            0.0,
            0.007936507936507936,
        );
        // mw([10,11,12], [1,2,3], method='exact') -> U=9, p=0.1
        check(&[10.0, 11.0, 12.0], &[1.0, 2.0, 3.0], 9.0, 0.1);
        // mw([1.1,2.3,3.7,4.2,5.9,6.4], [2.0,3.1,4.8,5.0,7.2,8.3], method='exact')
        //   -> U=13, p=0.48484848484848486
        let a = [1.1, 2.3, 3.7, 4.2, 5.9, 6.4];
        check(
            &a,
            &[2.0, 3.1, 4.8, 5.0, 7.2, 8.3],
            13.0,
            0.48484848484848486,
        );
        // mw([0.8,1.9,3.3,4.1], [1.2,2.5,2.9,3.8,5.6,6.0,7.4], method='exact')
        //   -> U=8, p=0.3151515151515151
        let b = [1.2, 2.5, 2.9, 3.8, 5.6, 6.0, 7.4];
        check(&[0.8, 1.9, 3.3, 4.1], &b, 8.0, 0.3151515151515151);
    }

    #[test]
    fn exact_at_limit_20_vs_20() {
        // a=[i*37%101+0.5 for i in range(20)]; b=[float(i*53%97) for i in range(20)]
        // mw(a, b, method='exact') -> U=226, p=0.4945234964967034
        check(
            &gen(20, 37, 101, 0.5),
            &gen(20, 53, 97, 0.0),
            226.0,
            0.4945234964967034,
        );
    }

    #[test]
    fn asymptotic_with_ties() {
        // mw([1,2,2,3,4,4,5], [2,3,3,4,6,6,7], method='asymptotic', use_continuity=True)
        //   -> U=14, p=0.19483514774305022
        let a = [1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0];
        check(
            &a,
            &[2.0, 3.0, 3.0, 4.0, 6.0, 6.0, 7.0],
            14.0,
            0.19483514774305022,
        );
        // a=[float(i*37%101) for i in range(20)]; b=[float(i*53%97+3) for i in range(20)]
        // (ties across samples) mw(a, b, method='asymptotic', use_continuity=True)
        //   -> U=211.5, p=0.765971283805097
        check(
            &gen(20, 37, 101, 0.0),
            &gen(20, 53, 97, 3.0),
            211.5,
            0.765971283805097,
        );
    }

    #[test]
    fn asymptotic_large_tie_free() {
        // a=[i*37%101+30.5 for i in range(25)]; b=[float(i*53%97) for i in range(20)]
        // (500 pairs > limit) mw(a, b, method='asymptotic', use_continuity=True)
        //   -> U=397, p=0.000818989738466859
        check(
            &gen(25, 37, 101, 30.5),
            &gen(20, 53, 97, 0.0),
            397.0,
            0.000818989738466859,
        );
    }

    #[test]
    fn u_complements_and_p_is_symmetric() {
        let cases = [
            (gen(4, 3, 7, 0.0), gen(7, 5, 11, 0.5)),
            (gen(20, 37, 101, 0.0), gen(20, 53, 97, 3.0)),
            (vec![1.0, 2.0, 2.0, 3.0], vec![2.0, 2.0, 5.0]),
        ];
        for (a, b) in &cases {
            let (ab, ba) = (mann_whitney_u(a, b).unwrap(), mann_whitney_u(b, a).unwrap());
            assert_eq!(ab.u + ba.u, (a.len() * b.len()) as f64);
            assert!((ab.p - ba.p).abs() < 1e-12, "{} vs {}", ab.p, ba.p);
        }
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(mann_whitney_u(&[], &[1.0]), None);
        assert_eq!(mann_whitney_u(&[1.0], &[]), None);
        let r = mann_whitney_u(&[3.0, 3.0], &[3.0, 3.0, 3.0]).unwrap();
        assert_eq!(r, MannWhitney { u: 3.0, p: 1.0 });
        // Single observations and infinities must not panic, and p stays in [0, 1].
        let r = mann_whitney_u(&[f64::NEG_INFINITY], &[f64::INFINITY, 0.0, -0.0]).unwrap();
        assert!(r.u == 0.0 && (0.0..=1.0).contains(&r.p));
    }

    #[test]
    fn erfc_matches_python_math() {
        // math.erfc(x) for each x.
        let cases = [
            (0.0, 1.0),
            (0.3, 0.6713732405408726),
            (1.0, 0.15729920705028513),
            (2.4, 0.0006885138966450789),
            (2.6, 0.00023603441652934908),
            (3.0, 2.2090496998585438e-05),
            (5.0, 1.5374597944280351e-12),
            (10.0, 2.088487583762545e-45),
        ];
        for (x, want) in cases {
            assert!(
                ((erfc(x) - want) / want).abs() < 1e-12,
                "erfc({x}) = {}",
                erfc(x)
            );
        }
    }
}
