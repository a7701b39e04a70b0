//! What each cycle's goal implies of GOGC (`Implied`, an interval, since gctrace truncates
//! every MB figure) and where those intervals agree: the value the most cycles share, and the
//! runs of consecutive cycles that share one (a setting that changed).

use super::{Point, SLACK};

/// Cycles in a row that agree on a new GOGC before it counts as a change of setting.
pub(super) const CHANGE_RUN: usize = 3;
/// Cycles that must agree on a GOGC before it is named: one or two cycles' goals could be
/// anything's (a forced cycle, a limit's edge).
pub(super) const MIN_SUPPORT: i32 = 3;

/// The GOGC a cycle's goal implies, as an interval: every MB figure of the line is truncated,
/// so the true values lie in `[x, x + 1)` MiB.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Implied {
    pub(super) lo: f64,
    pub(super) hi: f64,
}

impl Implied {
    pub(super) fn of(p: &Point) -> Implied {
        let (g, h) = (f64::from(p.goal), f64::from(p.h2));
        // Pre-1.18: the base is the marked heap alone; 1.18+: plus stacks and globals (two
        // truncated figures, so up to 2 MiB more).
        let (r, r_err) = p.roots.map_or((0.0, 0.0), |r| (f64::from(r), 2.0));
        let lo = 100.0 * (g - (h + 1.0)) / (h + 1.0 + r + r_err);
        let hi = if h + r > 0.0 {
            100.0 * (g + 1.0 - h) / (h + r)
        } else {
            f64::INFINITY
        };
        Implied {
            lo: lo.max(0.0) * (1.0 - SLACK),
            hi: hi * (1.0 + SLACK),
        }
    }

    pub(super) fn meets(&self, lo: f64, hi: f64) -> bool {
        self.lo <= hi && lo <= self.hi
    }
}

/// The value the most intervals share: `(lo, mid, hi)` of the region covered by the most,
/// or `None` with no interval. The region is where the intervals of every cycle GOGC set
/// overlap; cycles a limit or a floor set fall outside it.
pub(super) fn best_agreement(intervals: impl Iterator<Item = Implied>) -> Option<Estimate> {
    let (mut best, mut region) = (0, None);
    for r in depths(intervals).up() {
        if r.opens && r.depth > best {
            best = r.depth;
            region = Some((r.lo, r.hi));
        }
    }
    region
        .filter(|_| best >= MIN_SUPPORT)
        .map(|(lo, hi)| (lo, (lo + hi) / 2.0, hi))
}

/// A stretch between two interval edges and how many intervals cover it.
struct Depth {
    lo: f64,
    hi: f64,
    depth: i32,
    /// The stretch begins where an interval opens.
    opens: bool,
}

/// The stretches the intervals' edges cut the line into, in order, with their depth: the one
/// sweep both agreements read, made as it is read (a million cycles' stretches held at once
/// were 64 MB of fresh memory in every summary).
struct Depths {
    edges: Vec<(f64, i32)>,
}

fn depths(intervals: impl Iterator<Item = Implied>) -> Depths {
    let mut edges = edges(intervals);
    edges.sort_unstable_by(edge_order);
    Depths { edges }
}

/// Each interval's two edges: where it opens (+1) and closes (-1).
fn edges(intervals: impl Iterator<Item = Implied>) -> Vec<(f64, i32)> {
    let mut edges: Vec<(f64, i32)> = Vec::new();
    for imp in intervals {
        if imp.hi.is_finite() && imp.hi >= imp.lo {
            edges.push((imp.lo, 1));
            edges.push((imp.hi, -1));
        }
    }
    edges
}

/// Openings before closings at the same value: touching intervals agree there. (Equal edges
/// are alike, so an unstable sort or selection gives the same order.)
fn edge_order(a: &(f64, i32), b: &(f64, i32)) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(b.1.cmp(&a.1))
}

/// The stretch that begins at edge `k` of sorted `edges`, `depth` intervals deep: it runs to
/// the next edge.
fn stretch(edges: &[(f64, i32)], k: usize, depth: i32) -> Depth {
    let (x, d) = edges[k];
    Depth {
        lo: x,
        hi: edges.get(k + 1).map_or(x, |e| e.0),
        depth,
        opens: d > 0,
    }
}

/// `depths(intervals).down().find(|r| r.depth >= MIN_SUPPORT)`, from the highest edges alone
/// while they hold it: selected from the rest, not all sorted (a sort of a million cycles'
/// edges was a fifth of the read-back). The stretch that begins at one of the highest `k`
/// edges ends at the next of them, and its depth is that of the edges above it.
fn highest_deep(intervals: impl Iterator<Item = Implied>) -> Option<Depth> {
    let mut edges = edges(intervals);
    // Every interval opens and closes: the depth above the last edge.
    let total: i32 = edges.iter().map(|e| e.1).sum();
    let n = edges.len();
    let mut k = 256;
    while k < n {
        edges.select_nth_unstable_by(n - k, edge_order);
        let top = &mut edges[n - k..];
        top.sort_unstable_by(edge_order);
        let mut depth = total;
        for j in (0..k).rev() {
            let here = depth;
            depth -= top[j].1;
            if here >= MIN_SUPPORT {
                return Some(stretch(top, j, here));
            }
        }
        k *= 8;
    }
    edges.sort_unstable_by(edge_order);
    Depths { edges }.down().find(|r| r.depth >= MIN_SUPPORT)
}

impl Depths {
    /// The stretch that begins at edge `k`, `depth` intervals deep.
    fn at(&self, k: usize, depth: i32) -> Depth {
        stretch(&self.edges, k, depth)
    }

    /// From the lowest stretch up.
    fn up(&self) -> impl Iterator<Item = Depth> + '_ {
        let mut depth = 0;
        (0..self.edges.len()).map(move |k| {
            depth += self.edges[k].1;
            self.at(k, depth)
        })
    }

    /// From the highest stretch down: the depth after the last edge, less each edge's step.
    fn down(&self) -> impl Iterator<Item = Depth> + '_ {
        let mut depth: i32 = self.edges.iter().map(|e| e.1).sum();
        (0..self.edges.len()).rev().map(move |k| {
            let here = depth;
            depth -= self.edges[k].1;
            self.at(k, here)
        })
    }
}

/// With a limit binding, GOGC's own goals are the highest the run had: the agreement among the
/// intervals that reach within 10 % of the highest value `MIN_SUPPORT` of them share (the
/// highest alone would sit on the upper edge of the truncation's spread).
pub(super) fn highest_agreement(
    intervals: impl Iterator<Item = Implied> + Clone,
) -> Option<Estimate> {
    // Read twice rather than collected: a million cycles' intervals were 16 MB of fresh
    // memory in every summary.
    let top = highest_deep(intervals.clone())?;
    let band = (0.9 * top.lo, top.hi);
    best_agreement(intervals.filter(|i| i.lo <= band.1 && band.0 <= i.hi))
}

/// A GOGC estimate: the range the evidence allows and its middle, `(lo, mid, hi)`.
pub(super) type Estimate = (f64, f64, f64);

/// A stretch of cycles (indices into the points) that agree on one GOGC.
pub(super) struct Segment {
    pub(super) start: usize,
    pub(super) members: Vec<usize>,
}

/// Splits the free cycles where GOGC changed: a new segment starts where `CHANGE_RUN` cycles
/// in a row agree with each other and not with the segment so far. A lone cycle that agrees
/// with neither stays in the current segment (it is judged later, as unexplained).
pub(super) fn segment(free: &[usize], implied: &[Implied]) -> Vec<Segment> {
    let mut segments: Vec<Segment> = Vec::new();
    let mut cur = Segment {
        start: free.first().copied().unwrap_or(0),
        members: Vec::new(),
    };
    let mut common: Option<Implied> = None;
    let mut k = 0;
    while k < free.len() {
        let i = free[k];
        let imp = implied[i];
        match common {
            None => common = Some(imp),
            Some(c) if imp.meets(c.lo, c.hi) => {
                common = Some(Implied {
                    lo: c.lo.max(imp.lo),
                    hi: c.hi.min(imp.hi),
                });
            }
            Some(c) => {
                let run: Vec<Implied> = free[k..]
                    .iter()
                    .take(CHANGE_RUN)
                    .map(|&j| implied[j])
                    .collect();
                let agree = run.len() == CHANGE_RUN
                    && intersect(&run).is_some_and(|r| r.hi < c.lo || r.lo > c.hi);
                if agree {
                    segments.push(std::mem::replace(
                        &mut cur,
                        Segment {
                            start: i,
                            members: Vec::new(),
                        },
                    ));
                    common = Some(imp);
                }
            }
        }
        cur.members.push(i);
        k += 1;
    }
    segments.push(cur);
    segments.retain(|s| !s.members.is_empty());
    segments
}

fn intersect(run: &[Implied]) -> Option<Implied> {
    let lo = run.iter().map(|r| r.lo).fold(f64::MIN, f64::max);
    let hi = run.iter().map(|r| r.hi).fold(f64::MAX, f64::min);
    (lo <= hi).then_some(Implied { lo, hi })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The highest stretch deep enough, from the highest edges alone, is the one the sweep
    /// over every edge finds: over intervals with many alike (a run's repeated goals), edges
    /// that touch, few or many, found among the first 256 edges or only past them.
    #[test]
    fn the_highest_deep_stretch_from_the_highest_edges_is_the_full_sweeps() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for case in 0..300 {
            let n = [0, 1, 2, 3, 50, 200, 700, 3000][case % 8];
            let spread = [4, 40, 4000][case % 3];
            let intervals: Vec<Implied> = (0..n)
                .map(|_| {
                    let lo = next(spread) as f64;
                    // A few reach far above the rest: found only past the first edges.
                    let tall = if next(50) == 0 {
                        10.0 * spread as f64
                    } else {
                        0.0
                    };
                    Implied {
                        lo,
                        hi: lo + next(spread / 4 + 1) as f64 + tall,
                    }
                })
                .collect();
            let full = depths(intervals.iter().copied())
                .down()
                .find(|r| r.depth >= MIN_SUPPORT)
                .map(|r| (r.lo, r.hi, r.depth, r.opens));
            let top =
                highest_deep(intervals.iter().copied()).map(|r| (r.lo, r.hi, r.depth, r.opens));
            assert_eq!(top, full, "case {case}: {n} intervals over {spread}");
        }
        // Above a deep cluster, more lone intervals than the first edges looked at hold.
        for lone in [100, 127, 128, 129, 1000, 5000] {
            let mut intervals: Vec<Implied> = (0..lone)
                .map(|i| Implied {
                    lo: 1000.0 + 10.0 * f64::from(i),
                    hi: 1001.0 + 10.0 * f64::from(i),
                })
                .collect();
            intervals.extend((0..5).map(|i| Implied {
                lo: 90.0 + f64::from(i),
                hi: 110.0,
            }));
            let full = depths(intervals.iter().copied())
                .down()
                .find(|r| r.depth >= MIN_SUPPORT)
                .map(|r| (r.lo, r.hi, r.depth));
            let top = highest_deep(intervals.iter().copied()).map(|r| (r.lo, r.hi, r.depth));
            assert_eq!(top, full, "{lone} lone intervals");
            assert_eq!(top.map(|t| t.1), Some(110.0));
        }
    }
}
