//! The pacer read-back against runs paced as the runtime paces them (`Sim`).
// The simulator turns the floats it chose into bytes, as the runtime's integer figures are.
#![allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]

use super::*;

/// A run of cycles paced as the runtime paces them: the goal from the previous cycle's
/// marked heap and roots at `gogc` (or the limit's goal, when lower), the floor below,
/// every figure truncated to whole MiB as gctrace prints them.
struct Sim {
    gogc: f64,
    limit_goal_mb: Option<f64>,
    roots_mb: f64,
    cycles: Vec<Cycle>,
}

impl Sim {
    fn new(gogc: f64) -> Sim {
        Sim {
            gogc,
            limit_goal_mb: None,
            roots_mb: 0.3,
            cycles: Vec::new(),
        }
    }

    /// One cycle whose marked heap is `live_mb`, goal set from the previous cycle.
    fn cycle(&mut self, live_mb: f64) -> &mut Sim {
        let num = self.cycles.last().map_or(1, |c| c.num + 1);
        let prev_live = self
            .cycles
            .last()
            .map_or(0.0, |c| c.heap_live as f64 / MIB as f64);
        let gogc_goal = prev_live + (prev_live + self.roots_mb) * self.gogc / 100.0;
        let floor = 4.0 * self.gogc / 100.0;
        let mut goal = gogc_goal.max(floor);
        if let Some(l) = self.limit_goal_mb {
            goal = goal.min(l.max(prev_live));
        }
        let bytes = |x: f64| (x * MIB as f64) as u64;
        self.cycles.push(Cycle {
            num,
            heap_start: bytes(goal * 0.9),
            heap_end: bytes(goal),
            heap_live: bytes(live_mb),
            goal: Some(bytes(goal)),
            stacks: Some(bytes(self.roots_mb * 0.6)),
            globals: Some(bytes(self.roots_mb * 0.4)),
            ..Cycle::default()
        });
        self
    }

    fn summary_from(&self, first: usize) -> PacerSummary {
        let mut s = PacerStats::default();
        self.cycles[first..].iter().for_each(|c| s.push(c));
        s.summary()
    }
}

fn wave(k: usize, base: f64, amp: f64) -> f64 {
    base + amp * ((k as f64) * 0.7).sin()
}

#[test]
fn gogc_is_read_back_within_the_truncation_from_heaps_above_the_floor() {
    for gogc in [25.0, 50.0, 100.0, 200.0, 400.0] {
        let mut sim = Sim::new(gogc);
        for k in 0..60 {
            sim.cycle(wave(k, 80.0, 20.0));
        }
        let s = sim.summary_from(0);
        let got = f64::from(s.gogc.expect("a GOGC"));
        assert!((got - gogc).abs() <= 0.15 * gogc, "GOGC={gogc}: {s:?}");
        assert_eq!(s.limit_cycles, 0, "GOGC={gogc}: {s:?}");
        assert_eq!(s.off, Some(false));
        assert!(s.gogc_cycles >= 55, "{s:?}");
        assert_eq!(s.floor_mb, Some((4.0 * got / 100.0).floor() as u32));
    }
}

/// A run longer than `POINTS_CAP` judges one block in 2^k and says so, and reads what
/// every point reads: the GOGC, a limit that binds for a stretch (about the same share of
/// the cycles judged), a change of setting (in the kept block where it fell). Its memory
/// holds at most the cap, and the run read in two pieces (`append`) keeps the same blocks
/// and says the same, at cuts that thin either piece first or neither.
#[test]
fn a_long_run_judges_blocks_and_reads_what_every_point_reads() {
    let n = 3 * POINTS_CAP;
    let run = |change: bool| {
        let mut sim = Sim::new(100.0);
        for k in 0..n {
            if change && k == n / 2 {
                sim.gogc = 200.0;
            }
            if !change {
                sim.limit_goal_mb = (n / 2..n / 2 + 20_000).contains(&k).then_some(150.0);
            }
            sim.cycle(wave(k, 80.0, 20.0));
        }
        let (mut thinned, mut every) = (
            PacerStats::default(),
            PacerStats {
                cap: usize::MAX,
                ..Default::default()
            },
        );
        sim.cycles.iter().for_each(|c| {
            thinned.push(c);
            every.push(c);
        });
        (sim, thinned, every)
    };
    let (sim, thinned, every) = run(false);
    assert!(thinned.points.len() <= POINTS_CAP && thinned.points.len() > POINTS_CAP / 2);
    // Never grown past the cap to be thinned back (`keep`).
    assert!(
        thinned.points.capacity() <= POINTS_CAP,
        "{}",
        thinned.points.capacity()
    );
    let (s, all) = (thinned.summary(), every.summary());
    assert_eq!(
        (s.judged_one_block_in, all.judged_one_block_in),
        (Some(4), None)
    );
    assert_eq!(s.cycles_judged as usize, thinned.points.len());
    assert_eq!((s.gogc, all.gogc), (Some(100), Some(100)), "{s:?}");
    let share = |x: &PacerSummary| f64::from(x.limit_cycles) / f64::from(x.cycles_judged);
    assert!(share(&all) > 0.02, "{all:?}");
    assert!((share(&s) - share(&all)).abs() < 0.01, "{s:?} {all:?}");
    assert!(crate::fmt::pacer_text(&s).contains("1 block of 64 cycles in 4 judged"));
    for cut in [1000, POINTS_CAP + 77, 2 * POINTS_CAP + 1, n - 3] {
        let (mut a, mut b) = (PacerStats::default(), PacerStats::default());
        sim.cycles[..cut].iter().for_each(|c| a.push(c));
        sim.cycles[cut..].iter().for_each(|c| b.push(c));
        a.append(&b);
        assert_eq!(a.points, thinned.points, "cut {cut}");
        assert!(a.points.capacity() <= POINTS_CAP, "cut {cut}");
        assert_eq!(a.summary(), s, "cut {cut}");
    }
    // A short run is not thinned, and says nothing of blocks.
    assert_eq!(sim.summary_from(n - 1000).judged_one_block_in, None);

    // A change of setting half way: the blocks read what every point reads. (Both read
    // this run's goals as a limit's: goals of GOGC 100 and 200 share a band over heaps
    // 50 % apart, the ceiling shape; the same holds of every point, so it is the
    // read-back's, not the blocks'.)
    let (_, thinned, every) = run(true);
    let (s, all) = (thinned.summary(), every.summary());
    assert_eq!(
        (s.gogc, s.changes.len()),
        (all.gogc, all.changes.len()),
        "{s:?} {all:?}"
    );
    assert!((share(&s) - share(&all)).abs() < 0.01, "{s:?} {all:?}");
}

#[test]
fn a_window_from_the_middle_of_a_run_reads_the_same_gogc_and_never_off() {
    let mut sim = Sim::new(100.0);
    for k in 0..200 {
        sim.cycle(wave(k, 120.0, 30.0));
    }
    let s = sim.summary_from(137);
    assert!(s.gogc.is_some_and(|g| (85..=115).contains(&g)), "{s:?}");
    assert_eq!(s.off, Some(false));
    assert_eq!(s.limit_cycles, 0);
}

#[test]
fn a_limit_that_binds_from_the_first_cycle_is_seen_without_a_contrast() {
    // The goal held at 110 MiB by the limit while the live heap moves 60-90 MiB: GOGC=100
    // would want 120-180 MiB.
    let mut sim = Sim::new(100.0);
    sim.limit_goal_mb = Some(110.0);
    for k in 0..30 {
        sim.cycle(wave(k, 75.0, 15.0));
    }
    let s = sim.summary_from(1);
    assert!(s.limit_cycles >= 25, "{s:?}");
    assert_eq!(s.gogc_cycles, 0, "{s:?}");
    assert_eq!(s.off, None, "a window cannot prove GOGC=off: {s:?}");
}

#[test]
fn a_goal_pinned_to_the_live_heap_is_a_limit_leaving_no_room() {
    let mut sim = Sim::new(100.0);
    sim.limit_goal_mb = Some(0.0);
    for k in 0..20 {
        sim.cycle(wave(k, 200.0, 5.0));
    }
    let s = sim.summary_from(0);
    assert!(s.pinned_cycles >= 18 && s.limit_cycles >= 18, "{s:?}");
}

#[test]
fn a_limit_mid_run_is_counted_against_the_run_gogc() {
    let mut sim = Sim::new(100.0);
    for k in 0..30 {
        sim.cycle(wave(k, 40.0, 10.0));
    }
    sim.limit_goal_mb = Some(100.0);
    for k in 0..20 {
        sim.cycle(wave(k, 75.0, 15.0));
    }
    let s = sim.summary_from(0);
    assert!(s.gogc.is_some_and(|g| (85..=115).contains(&g)), "{s:?}");
    assert!((15..=21).contains(&s.limit_cycles), "{s:?}");
    assert!(
        s.changes.is_empty(),
        "a limit is not a change of GOGC: {s:?}"
    );
}

#[test]
fn a_small_heap_at_the_floor_gives_the_gogc_range_of_that_floor() {
    for (gogc, floor) in [(25.0, 1), (100.0, 4), (400.0, 16)] {
        let mut sim = Sim::new(gogc);
        for k in 0..40 {
            sim.cycle(wave(k, 0.6, 0.2));
        }
        let s = sim.summary_from(0);
        assert!(s.floor_cycles >= 35, "GOGC={gogc}: {s:?}");
        assert_eq!(s.gogc_basis, Some("floor"), "{s:?}");
        let [lo, hi] = s.gogc_range.unwrap();
        assert!(f64::from(lo) <= gogc && gogc <= f64::from(hi), "{s:?}");
        assert_eq!(s.limit_cycles, 0, "a floor is not a limit: {s:?}");
        assert_eq!(lo, 25 * floor);
    }
}

#[test]
fn set_gc_percent_mid_run_is_a_change_at_its_cycle() {
    let mut sim = Sim::new(100.0);
    for k in 0..40 {
        sim.cycle(wave(k, 60.0, 10.0));
    }
    sim.gogc = 400.0;
    for k in 0..40 {
        sim.cycle(wave(k, 60.0, 10.0));
    }
    let s = sim.summary_from(0);
    assert_eq!(s.changes.len(), 1, "{s:?}");
    let c = s.changes[0];
    assert!((40..=42).contains(&c.cycle), "{c:?}");
    assert!(
        (85..=115).contains(&c.from) && (340..=460).contains(&c.to),
        "{c:?}"
    );
    assert!(s.gogc.is_some_and(|g| (340..=460).contains(&g)), "{s:?}");
}

#[test]
fn gogc_off_is_proven_only_by_the_first_cycle_or_an_unbounded_goal() {
    // GOGC=off, limit goal ~256 MiB from the first cycle.
    let mut sim = Sim::new(100.0);
    sim.gogc = 1e9;
    sim.limit_goal_mb = Some(256.0);
    for k in 0..20 {
        sim.cycle(wave(k, 180.0, 30.0));
    }
    assert_eq!(sim.summary_from(0).off, Some(true));
    let window = sim.summary_from(5);
    assert_eq!(window.off, None, "from the middle: cannot tell: {window:?}");
    let mut s = PacerStats::default();
    s.push(&Cycle {
        num: 3,
        goal: Some(u64::MAX >> 1),
        ..Cycle::default()
    });
    assert_eq!(s.summary().off, Some(true));
}

#[test]
fn gogc_off_with_a_flat_live_heap_is_told_by_the_first_goal() {
    // A goal of 171 MiB over a live heap of ~96 MiB looks like GOGC 78 cycle by cycle;
    // the first cycle's goal (177 MiB, where GOGC 78 would have put the floor at 3 MiB)
    // says no GOGC goal was ever there.
    let mut sim = Sim::new(1e9);
    sim.limit_goal_mb = Some(171.0);
    sim.cycle(53.0);
    for k in 0..40 {
        sim.cycle(wave(k, 96.0, 0.4));
    }
    sim.cycles[0].goal = Some(177 * MIB);
    let s = sim.summary_from(0);
    assert_eq!(s.off, Some(true), "{s:?}");
    assert_eq!(s.gogc, None, "{s:?}");
    assert!(s.limit_cycles >= 38, "{s:?}");
    // The same window from its middle cannot be told from GOGC 78: it says so by naming
    // no limit and no GOGC=off.
    let w = sim.summary_from(10);
    assert!(w.flat_goal && w.off.is_none(), "{w:?}");
}

#[test]
fn sampled_lines_are_not_judged_against_the_wrong_predecessor() {
    let mut sim = Sim::new(100.0);
    for k in 0..100 {
        sim.cycle(wave(k, 50.0, 10.0));
    }
    let mut s = PacerStats::default();
    for c in sim.cycles.iter().step_by(7) {
        s.push(c);
    }
    let sum = s.summary();
    assert_eq!(sum.cycles_judged, 0);
    assert_eq!(sum.sampled_gaps, 14);
    // Only the process's first goal speaks: the floor, 4 MB at GOGC 100-124.
    assert_eq!(sum.gogc_basis, Some("first_goal"), "{sum:?}");
    assert_eq!(sum.gogc_range, Some([100, 124]));
}

#[test]
fn pieces_appended_equal_one_reading() {
    let mut sim = Sim::new(200.0);
    for k in 0..50 {
        sim.cycle(wave(k, 50.0, 10.0));
    }
    let mut whole = PacerStats::default();
    sim.cycles.iter().for_each(|c| whole.push(c));
    let (mut a, mut b) = (PacerStats::default(), PacerStats::default());
    sim.cycles[..23].iter().for_each(|c| a.push(c));
    sim.cycles[23..].iter().for_each(|c| b.push(c));
    a.append(&b);
    assert_eq!(a.summary(), whole.summary());
}
