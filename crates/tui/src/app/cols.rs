//! The charts' series over the zoom window, downsampled to at most `COLS` values, and the
//! pause distribution and outliers of the shown cycles: recomputed by `App::refresh` when
//! what a pane shows changes, never per frame.

use super::pane::Pane;
use gcscope_model::{Cycle, RunId};

/// Per-cycle series over the visible window, at most `COLS` values each (the largest of each
/// bucket of cycles, so spikes survive), plus the pause distribution and outliers. A frame
/// then costs the same with a hundred cycles or a million.
#[derive(Default)]
pub struct Cols {
    /// What the series were computed from: (run, shown, window start, window end).
    key: (RunId, usize, usize, usize),
    /// The charts' cycles: places in the shown cycles of the selected run (a range of
    /// `CycleIndex`, kept as `usize` to slice with).
    pub window: std::ops::Range<usize>,
    /// STW pause (sweep termination + mark termination), ns.
    pub pause: Vec<u64>,
    /// Wall time of the concurrent mark, ns.
    pub mark: Vec<u64>,
    /// Heap marked live, bytes.
    pub heap_live: Vec<u64>,
    /// Heap when the cycle ended, bytes.
    pub heap_end: Vec<u64>,
    /// Heap goal, bytes; 0 where the trace prints none.
    pub heap_goal: Vec<u64>,
    /// Mark CPU by kind of worker, ns.
    pub cpu: CpuSeries,
    /// Page scan density (objects per span visit) x10; 0 where the cycle has none.
    pub density_x10: Vec<u64>,
    /// Pause counts by bucket (see `PAUSE_EDGES_US`), over the shown cycles.
    pub pause_hist: [u64; 7],
    /// Shown cycles with a pause over 10x the median (and over 1 ms), largest first: (Go's
    /// number of the cycle, `gc N`; its pause, ns).
    pub outliers: Vec<(u32, u64)>,
    /// How many pauses are outliers, listed or not.
    pub outliers_total: usize,
    /// The outlier threshold: `max(10 x p50, 1 ms)`, ns.
    pub outlier_limit: u64,
    pub has_density: bool,
    pub has_scan: bool,
}

/// Mark CPU per cycle by kind of worker, ns (see `model::Cpu`).
#[derive(Default)]
pub struct CpuSeries {
    pub assist: Vec<u64>,
    pub background: Vec<u64>,
    pub idle: Vec<u64>,
}

pub const COLS: usize = 512;
pub const PAUSE_EDGES_US: [u64; 6] = [10, 40, 160, 640, 2_560, 10_240];

/// The `Cols::pause_hist` bucket of a pause (ns): the first edge of `PAUSE_EDGES_US` the pause
/// is under, or the last bucket.
#[must_use]
pub fn pause_bucket(pause_ns: u64) -> usize {
    let us = pause_ns / 1000;
    PAUSE_EDGES_US
        .iter()
        .position(|&e| us < e)
        .unwrap_or(PAUSE_EDGES_US.len())
}

/// Largest value of each of up to `w` buckets of `cycles`.
pub fn downsample(cycles: &[Cycle], w: usize, value: impl Fn(&Cycle) -> u64) -> Vec<u64> {
    let n = cycles.len();
    let w = w.min(n);
    (0..w)
        .map(|j| {
            let (lo, hi) = (j * n / w, ((j + 1) * n / w).max(j * n / w + 1));
            cycles[lo..hi.min(n)].iter().map(&value).max().unwrap_or(0)
        })
        .collect()
}

/// Recompute `p.cols` over the window `w` of its shown cycles, unless they are what it was
/// computed from.
pub(super) fn refresh_cols(p: &mut Pane, w: std::ops::Range<usize>) {
    let key = (p.run, p.shown, w.start, w.end);
    if key == p.cols.key {
        return;
    }
    let all = p.cycles();
    let cycles = &all[w.clone()];
    let d = |f: fn(&Cycle) -> u64| downsample(cycles, COLS, f);
    let mut pause_hist = [0u64; 7];
    for c in all {
        pause_hist[pause_bucket(c.pause())] += 1;
    }
    let p50 = p.summary.as_ref().map_or(0.0, |s| s.pause_ms.p50);
    let limit = (p50 * 10.0 * 1e6).max(1_000_000.0) as u64;
    let mut outliers: Vec<(u32, u64)> = all
        .iter()
        .filter(|c| c.pause() > limit)
        .map(|c| (c.num, c.pause()))
        .collect();
    outliers.sort_by_key(|o| std::cmp::Reverse(o.1));
    let outliers_total = outliers.len();
    outliers.truncate(8);
    p.cols = Cols {
        outliers_total,
        outlier_limit: limit,
        key,
        window: w,
        pause: d(Cycle::pause),
        mark: d(Cycle::mark_wall),
        heap_live: d(|c| c.heap_live),
        heap_end: d(|c| c.heap_end),
        heap_goal: d(|c| c.goal.unwrap_or(0)),
        cpu: CpuSeries {
            assist: d(|c| c.cpu.assist),
            background: d(|c| c.cpu.background),
            idle: d(|c| c.cpu.idle),
        },
        density_x10: d(|c| (c.page_density().unwrap_or(0.0) * 10.0) as u64),
        pause_hist,
        outliers,
        has_density: cycles.iter().any(|c| c.page_density().is_some()),
        has_scan: cycles.iter().any(|c| c.scan.is_some()),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testing::pane_of;

    fn heap_live(values: &[u64]) -> Vec<Cycle> {
        values
            .iter()
            .map(|&v| Cycle {
                heap_live: v,
                ..Default::default()
            })
            .collect()
    }

    #[test]
    fn downsample_keeps_the_largest_value_of_each_bucket() {
        let d = |values: &[u64], w| downsample(&heap_live(values), w, |c| c.heap_live);
        assert_eq!(d(&[1, 5, 2, 7, 3, 0], 3), [5, 7, 3]);
        // 7 cycles in 3 buckets: 2, 2 and 3 cycles.
        assert_eq!(d(&[4, 1, 9, 2, 8, 3, 7], 3), [4, 9, 8]);
        // Exact edges: the cycle at index 2 belongs to the second bucket, not the first.
        assert_eq!(d(&[1, 2, 9, 3], 2), [2, 9]);
        assert_eq!(d(&[9, 1, 2, 3], 2), [9, 3]);
        assert_eq!(d(&[2, 9, 4], 1), [9]);
    }

    /// Unlike the view's `columns`, fewer cycles than buckets are kept as they are, one value
    /// a cycle, not stretched.
    #[test]
    fn downsample_keeps_a_short_run_as_it_is() {
        let d = |values: &[u64], w| downsample(&heap_live(values), w, |c| c.heap_live);
        assert_eq!(d(&[3, 8], 5), [3, 8]);
        assert_eq!(d(&[3, 8], 2), [3, 8]);
        assert_eq!(d(&[], 5), Vec::<u64>::new());
        assert_eq!(d(&[3, 8], 0), Vec::<u64>::new());
    }

    #[test]
    fn pause_buckets_start_at_their_edge() {
        let cases = [
            (0, 0),
            (9_999, 0), // 9.999 µs: under 10 µs
            (10_000, 1),
            (39_999, 1),
            (40_000, 2),
            (159_999, 2),
            (160_000, 3),
            (640_000, 4),
            (2_560_000, 5),
            (10_239_999, 5),
            (10_240_000, 6),
            (u64::MAX, 6),
        ];
        for (ns, bucket) in cases {
            assert_eq!(pause_bucket(ns), bucket, "{ns} ns");
        }
    }

    /// The series cover the zoom window only; the pause distribution and the outliers (over
    /// 1 ms while there is no summary to take a median from) cover every shown cycle.
    #[test]
    fn pause_distribution_and_outliers_cover_all_shown_cycles() {
        let pauses_us = [3_000, 20, 20, 50_000, 2_000];
        let mut p = pane_of(pauses_us.iter().enumerate().map(|(i, &us)| Cycle {
            num: i as u32 + 1,
            clock: gcscope_model::Clock {
                sweep_term: us * 1000,
                ..Default::default()
            },
            ..Default::default()
        }));
        p.shown = 4; // the 2 ms pause is not revealed yet
        refresh_cols(&mut p, 2..4);
        assert_eq!(p.cols.pause, [20_000, 50_000_000]);
        assert_eq!(p.cols.pause_hist, [0, 2, 0, 0, 0, 1, 1]);
        assert_eq!(p.cols.outliers, [(4, 50_000_000), (1, 3_000_000)]);
    }

    /// Every field of this cycle differs, so a series that read another's field would show.
    #[test]
    fn each_series_reads_its_own_field() {
        use gcscope_model::{Clock, Cpu, GreenTeaCounts, ScanCounts, ScanStats};
        let green_tea = GreenTeaCounts {
            sparse_objs: 1,
            span_objs_dense: 4,
            spans_dense: 1,
            ..Default::default()
        }; // 5 objects in 2 visits: density 2.5
        let mut p = pane_of([Cycle {
            num: 1,
            clock: Clock {
                sweep_term: 1,
                mark: 2,
                mark_term: 10,
            },
            cpu: Cpu {
                sweep_term: 100,
                assist: 3,
                background: 4,
                idle: 5,
                mark_term: 200,
            },
            heap_start: 300,
            heap_live: 6,
            heap_end: 7,
            goal: Some(8),
            scan: Some(Box::new(ScanStats {
                total: ScanCounts {
                    objs: 400,
                    green_tea: Some(green_tea),
                },
                classes: Vec::new(),
            })),
            ..Default::default()
        }]);
        refresh_cols(&mut p, 0..1);
        let c = &p.cols;
        assert_eq!(
            c.pause,
            [11],
            "pause = sweep termination + mark termination"
        );
        assert_eq!(c.mark, [2]);
        assert_eq!(c.heap_live, [6]);
        assert_eq!(c.heap_end, [7]);
        assert_eq!(c.heap_goal, [8]);
        assert_eq!(c.cpu.assist, [3]);
        assert_eq!(c.cpu.background, [4]);
        assert_eq!(c.cpu.idle, [5]);
        assert_eq!(c.density_x10, [25]);
        assert!(c.has_density && c.has_scan);
    }
}
