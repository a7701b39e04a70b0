//! The charts' series over the zoom window, downsampled to at most `COLS` values, and the
//! pause distribution and outliers of the shown cycles: recomputed by `App::refresh` when
//! what a pane shows changes, never per frame, from an index kept up to date cycle by cycle
//! (`SeriesIndex`), so a refresh costs what the screen shows, not what was loaded.

use super::pane::Pane;
use gcscope_model::{Cycle, CycleSlice, RunId};

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
    /// What the series are taken from, extended as cycles are shown.
    index: SeriesIndex,
}

/// The series' values of every `BLOCK` shown cycles folded into their maximum, the pause
/// distribution, and the largest pauses, over the shown cycles of one run: extended as
/// cycles are revealed (O(1) a cycle), so a bucket of `downsample` over any window is the
/// maximum of whole blocks and at most two partial ones.
#[derive(Default)]
struct SeriesIndex {
    run: RunId,
    /// Cycles folded in: `all[..upto]` of the shown cycles.
    upto: usize,
    /// Per whole block: each series' maximum, and whether a cycle has a density or a scan.
    blocks: Vec<([u64; SERIES], u8)>,
    pause_hist: [u64; 7],
    /// How many shown cycles have each pause (ns): how many are over any limit.
    pauses: std::collections::BTreeMap<u64, u32>,
    /// The `TOP` largest pauses, largest first, the earlier cycle first among equals:
    /// (place, Go's number, pause).
    top: Vec<(usize, u32, u64)>,
}

const BLOCK: usize = 64;
const TOP: usize = 8;
const SERIES: usize = 9;
const HAS_DENSITY: u8 = 1;
const HAS_SCAN: u8 = 2;

/// The series, in `SeriesIndex::blocks` order.
fn series(c: &Cycle) -> [u64; SERIES] {
    let density = c.page_density();
    [
        c.pause(),
        c.mark_wall(),
        c.heap_live,
        c.heap_end,
        c.goal.unwrap_or(0),
        c.cpu.assist,
        c.cpu.background,
        c.cpu.idle,
        (density.unwrap_or(0.0) * 10.0) as u64,
    ]
}

fn flags(c: &Cycle) -> u8 {
    (if c.page_density().is_some() {
        HAS_DENSITY
    } else {
        0
    }) | (if c.scan.is_some() { HAS_SCAN } else { 0 })
}

impl SeriesIndex {
    /// Folds in the shown cycles `all` of `run`, from scratch when they are not those
    /// folded so far continued (another run, fewer shown, a replay from the start).
    fn extend(&mut self, run: RunId, all: &CycleSlice<'_>) {
        if run != self.run || all.len() < self.upto {
            *self = SeriesIndex {
                run,
                ..SeriesIndex::default()
            };
        }
        for (i, c) in all.iter().enumerate().skip(self.upto) {
            let pause = c.pause();
            self.pause_hist[pause_bucket(pause)] += 1;
            *self.pauses.entry(pause).or_default() += 1;
            if self.top.len() < TOP || self.top.last().is_some_and(|t| pause > t.2) {
                let at = self.top.partition_point(|t| t.2 >= pause);
                self.top.insert(at, (i, c.num, pause));
                self.top.truncate(TOP);
            }
        }
        let whole = all.len() / BLOCK;
        for b in self.blocks.len()..whole {
            let mut max = [0u64; SERIES];
            let mut f = 0;
            for c in all.slice(b * BLOCK..(b + 1) * BLOCK) {
                for (m, v) in max.iter_mut().zip(series(&c)) {
                    *m = (*m).max(v);
                }
                f |= flags(&c);
            }
            self.blocks.push((max, f));
        }
        self.upto = all.len();
    }

    /// Each series' maximum and the flags over `all[range]`.
    fn fold(&self, all: &CycleSlice<'_>, range: std::ops::Range<usize>) -> ([u64; SERIES], u8) {
        let mut max = [0u64; SERIES];
        let mut f = 0;
        let mut take = |m: &[u64; SERIES], fl: u8| {
            for (a, &v) in max.iter_mut().zip(m) {
                *a = (*a).max(v);
            }
            f |= fl;
        };
        let (lo, hi) = (range.start, range.end);
        let first = lo.div_ceil(BLOCK);
        let last = (hi / BLOCK).min(self.blocks.len());
        if first >= last {
            for c in all.slice(lo..hi) {
                take(&series(&c), flags(&c));
            }
        } else {
            for c in all.slice(lo..first * BLOCK) {
                take(&series(&c), flags(&c));
            }
            for (m, fl) in &self.blocks[first..last] {
                take(m, *fl);
            }
            for c in all.slice(last * BLOCK..hi) {
                take(&series(&c), flags(&c));
            }
        }
        (max, f)
    }
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
pub fn downsample(cycles: &CycleSlice<'_>, w: usize, value: impl Fn(&Cycle) -> u64) -> Vec<u64> {
    let n = cycles.len();
    let w = w.min(n);
    (0..w)
        .map(|j| {
            let (lo, hi) = (j * n / w, ((j + 1) * n / w).max(j * n / w + 1));
            cycles
                .slice(lo..hi.min(n))
                .iter()
                .map(|c| value(&c))
                .max()
                .unwrap_or(0)
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
    let mut index = std::mem::take(&mut p.cols.index);
    let all = p.cycles();
    index.extend(p.run, &all);
    // `downsample`'s buckets over the window, each the maximum of its blocks.
    let n = w.len();
    let width = COLS.min(n);
    let mut columns: [Vec<u64>; SERIES] = std::array::from_fn(|_| Vec::with_capacity(width));
    let mut any = 0;
    for j in 0..width {
        let (lo, hi) = (j * n / width, ((j + 1) * n / width).max(j * n / width + 1));
        let (max, f) = index.fold(&all, w.start + lo..w.start + hi.min(n));
        for (col, v) in columns.iter_mut().zip(max) {
            col.push(v);
        }
        any |= f;
    }
    let p50 = p.summary.as_ref().map_or(0.0, |s| s.pause_ms.p50);
    let limit = (p50 * 10.0 * 1e6).max(1_000_000.0) as u64;
    let outliers_total = index
        .pauses
        .range(limit.saturating_add(1)..)
        .map(|(_, &k)| k as usize)
        .sum();
    let outliers = index
        .top
        .iter()
        .filter(|t| t.2 > limit)
        .map(|t| (t.1, t.2))
        .collect();
    let [pause, mark, heap_live, heap_end, heap_goal, assist, background, idle, density_x10] =
        columns;
    p.cols = Cols {
        outliers_total,
        outlier_limit: limit,
        key,
        window: w,
        pause,
        mark,
        heap_live,
        heap_end,
        heap_goal,
        cpu: CpuSeries {
            assist,
            background,
            idle,
        },
        density_x10,
        pause_hist: index.pause_hist,
        outliers,
        has_density: any & HAS_DENSITY != 0,
        has_scan: any & HAS_SCAN != 0,
        index,
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testing::pane_of;

    fn heap_live(values: &[u64]) -> gcscope_model::CycleStore {
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
        let d = |values: &[u64], w| downsample(&heap_live(values).all(), w, |c| c.heap_live);
        assert_eq!(d(&[1, 5, 2, 7, 3, 0], 3), [5, 7, 3]);
        // 7 cycles in 3 buckets: 2, 2 and 3 cycles.
        assert_eq!(d(&[4, 1, 9, 2, 8, 3, 7], 3), [4, 9, 8]);
        // Exact edges: the cycle at index 2 belongs to the second bucket, not the first.
        assert_eq!(d(&[1, 2, 9, 3], 2), [2, 9]);
        assert_eq!(d(&[9, 1, 2, 3], 2), [9, 3]);
        assert_eq!(d(&[2, 9, 4], 1), [9]);
    }

    /// The series from the block index are `downsample`'s over every window, for runs of
    /// any length and windows that cut blocks anywhere, while cycles are revealed; and the
    /// outliers are those a sort of every shown cycle gives.
    #[test]
    fn the_index_gives_downsamples_series_and_outliers_over_any_window() {
        let mut seed = 7u64;
        let mut rand = move |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let cycles: Vec<Cycle> = (0..3000)
            .map(|i| Cycle {
                num: i + 1,
                clock: gcscope_model::Clock {
                    sweep_term: rand(3) * 1_000_000 + rand(1000),
                    mark: rand(5_000_000),
                    mark_term: rand(50_000),
                },
                heap_live: rand(1 << 30),
                heap_end: rand(1 << 30),
                goal: (rand(4) > 0).then(|| rand(1 << 30)),
                ..Default::default()
            })
            .collect();
        let mut p = pane_of(cycles.iter().cloned());
        let store = gcscope_model::CycleStore::from(cycles.clone());
        for shown in [0, 1, 63, 64, 65, 700, 2048, 3000] {
            p.shown = shown;
            for _ in 0..6 {
                let a = rand(shown as u64 + 1) as usize;
                let b = a + rand((shown - a) as u64 + 1) as usize;
                refresh_cols(&mut p, a..b);
                let w = &store.slice(a..b);
                assert_eq!(p.cols.pause, downsample(w, COLS, Cycle::pause));
                assert_eq!(p.cols.mark, downsample(w, COLS, Cycle::mark_wall));
                assert_eq!(
                    p.cols.heap_goal,
                    downsample(w, COLS, |c| c.goal.unwrap_or(0))
                );
                assert_eq!(p.cols.heap_end, downsample(w, COLS, |c| c.heap_end));
                let limit = p.cols.outlier_limit;
                let mut want: Vec<(u32, u64)> = cycles[..shown]
                    .iter()
                    .filter(|c| c.pause() > limit)
                    .map(|c| (c.num, c.pause()))
                    .collect();
                want.sort_by_key(|o| std::cmp::Reverse(o.1));
                assert_eq!(p.cols.outliers_total, want.len());
                want.truncate(8);
                assert_eq!(p.cols.outliers, want, "shown {shown}");
            }
        }
    }

    /// Unlike the view's `columns`, fewer cycles than buckets are kept as they are, one value
    /// a cycle, not stretched.
    #[test]
    fn downsample_keeps_a_short_run_as_it_is() {
        let d = |values: &[u64], w| downsample(&heap_live(values).all(), w, |c| c.heap_live);
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
