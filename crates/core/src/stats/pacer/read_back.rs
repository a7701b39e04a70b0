//! The read-back itself (`analyse`): the run's GOGC from where the cycles' intervals agree,
//! then which cycles the heap floor or a memory limit set, GOGC=off, and where the setting
//! changed.

use super::implied::{
    best_agreement, highest_agreement, segment, Estimate, Implied, Segment, CHANGE_RUN, MIN_SUPPORT,
};
use super::{GogcChange, PacerStats, PacerSummary, Point, SetBy};

/// The goal the heap floor gives at `gogc`, in whole MiB as printed: `4 MiB × GOGC/100`.
fn floor_mb(gogc: f64) -> f64 {
    (4.0 * gogc / 100.0).floor()
}

/// How many evidence cycles a summary keeps of each kind.
const EVIDENCE: usize = 3;

fn note(v: &mut Vec<u32>, num: u32) {
    if v.len() < EVIDENCE {
        v.push(num);
    }
}

/// Cycles in a row with a flat goal while the live heap moves: the shape of a binding limit.
const FLAT_WINDOW: usize = 4;

pub(super) fn analyse(s: &PacerStats) -> PacerSummary {
    let pts = &s.points;
    let implied: Vec<Implied> = pts.iter().map(Implied::of).collect();
    let formula = if pts.iter().any(|p| p.roots.is_none()) && pts.iter().all(|p| p.roots.is_none())
    {
        "pre-1.18"
    } else {
        "go1.18"
    };
    let shaped = limit_shaped(pts);
    let floorish: Vec<bool> = pts.iter().map(at_a_floor).collect();
    // The cycles whose goal can speak for GOGC: not shaped like a limit, not at a floor.
    let free: Vec<usize> = (0..pts.len())
        .filter(|&i| shaped[i].is_none() && !floorish[i])
        .collect();
    // A limit that binds only lowers goals, so where one is evident the cycles GOGC set are
    // those with the highest implied GOGC, and a spread below them is the limit's goal moving
    // with the other memory it leaves room for, not settings changing.
    let shaped_n = shaped.iter().filter(|s| s.is_some()).count();
    let limit_evident = shaped_n >= 3;
    let segments = if limit_evident {
        vec![Segment {
            start: free.first().copied().unwrap_or(0),
            members: free.clone(),
        }]
    } else {
        segment(&free, &implied)
    };
    let agreement = |members: &[usize]| {
        let intervals = members.iter().map(|&i| implied[i]);
        if limit_evident {
            highest_agreement(intervals)
        } else {
            best_agreement(intervals)
        }
    };

    let mut summary = PacerSummary {
        gogc: None,
        gogc_range: None,
        gogc_basis: None,
        gogc_cycles: 0,
        cycles_judged: u32::try_from(pts.len()).unwrap_or(u32::MAX),
        floor_cycles: 0,
        floor_mb: None,
        limit_cycles: 0,
        pinned_cycles: 0,
        unexplained_cycles: 0,
        off: None,
        changes: Vec::new(),
        sampled_gaps: s.gaps,
        formula,
        go15_cycles: s.go15,
        judged_one_block_in: (s.thinned > 0)
            .then(|| 1u32.checked_shl(s.thinned).unwrap_or(u32::MAX)),
        flat_goal: false,
        limit_first: Vec::new(),
        pinned_first: Vec::new(),
        floor_first: Vec::new(),
    };

    // Each segment's GOGC, from the cycles of that segment; a cycle before the first
    // segment's start belongs to the first.
    let estimates: Vec<(usize, Option<Estimate>)> = segments
        .iter()
        .map(|seg| {
            // An estimate that explains too few of its own cycles explains none: goals that
            // no single GOGC fits (a limit's goal moving with other memory) can still agree by
            // chance three at a time.
            let est = agreement(&seg.members).filter(|&(lo, g, hi)| {
                let fits = seg
                    .members
                    .iter()
                    .filter(|&&i| implied[i].meets(lo, hi))
                    .count();
                // And GOGC's goal moves with the heap and roots: goals spread further than
                // (1 + GOGC/100) x their spread (and the truncation) were not GOGC's.
                let (gmin, gmax) = min_max(seg.members.iter().map(|&i| pts[i].goal));
                let (hmin, hmax) = min_max(seg.members.iter().map(|&i| pts[i].h2));
                let (rmin, rmax) = min_max(seg.members.iter().map(|&i| pts[i].roots.unwrap_or(0)));
                let room = (1.0 + g / 100.0) * f64::from(hmax - hmin + rmax - rmin + 3) + 2.0;
                3 * fits >= 2 * seg.members.len() && f64::from(gmax - gmin) <= room
            });
            (seg.start, est)
        })
        .collect();
    // Settings changes are claimed only where every stretch of the run has a GOGC that
    // explains it: a stretch no GOGC fits says the goals were not GOGC's, and then neither
    // were the values its neighbours agreed on.
    let mut estimates = estimates;
    let sizes: Vec<usize> = segments.iter().map(|s| s.members.len()).collect();
    if estimates.len() > 1
        && estimates
            .iter()
            .zip(&sizes)
            .any(|((_, e), &n)| e.is_none() && n >= CHANGE_RUN)
    {
        for e in &mut estimates {
            e.1 = None;
        }
    }
    // With no GOGC explaining the goals and none at a floor, goals that keep coming back to
    // one ceiling were held there by a limit, and those below it (but not below the live heap)
    // too: the limit's goal moving with the other memory it leaves room for.
    let ceiling = ceiling_of(pts, &floorish).filter(|_| estimates.iter().all(|(_, e)| e.is_none()));
    // The process's first goal is GOGC's floor, or GOGC's share of the roots when that is
    // larger: a first goal far above that was set without GOGC (GOGC=off, the limit's goal),
    // and goals like it later are the limit's too, whatever GOGC their ratio to the live heap
    // seems to say (a flat goal over a flat live heap says no more).
    let first_goal = s.first.filter(|f| f.num == 1).and_then(|f| f.goal);
    let off_from_start = match (s.first, first_goal) {
        (Some(f), Some(goal)) => {
            // Any GOGC the later cycles allow (or, with none, the default's) would have put
            // the first goal at its floor, unless the heap was already past it when the first
            // cycle began (a large first allocation: then the goal is the heap's, and the
            // later goals grow from it with the heap, or follow the live heap as GOGC's do,
            // where a limit's stay at a ceiling over a moving live heap).
            let g = estimates
                .last()
                .and_then(|(_, e)| *e)
                .map_or(100.0, |(_, g, _)| g);
            let expected = (4.0 + f64::from(f.roots) + 2.0) * g / 100.0 + 1.0;
            // And the goals stayed with it: a program's first large allocations can also make
            // a first goal above the floor, but then the goals grow from there with the heap.
            let near = pts
                .iter()
                .filter(|p| (f64::from(p.goal) - f64::from(goal)).abs() <= 0.15 * f64::from(goal))
                .count();
            f64::from(goal) > 2.0 * expected
                && goal >= 16
                && (f.heap_start < goal || 2 * shaped_n >= pts.len())
                && pts.len() >= 3
                && 3 * near >= 2 * pts.len()
                && common_floor(pts, &floorish).is_none()
        }
        _ => false,
    };
    if let (true, Some(goal)) = (off_from_start, first_goal) {
        return off_with_limit(s, summary, f64::from(goal));
    }
    let gogc_at = |i: usize| -> Option<Estimate> {
        estimates
            .iter()
            .rev()
            .find(|(start, _)| *start <= i)
            .or(estimates.first())
            .and_then(|(_, e)| *e)
    };

    for (i, p) in pts.iter().enumerate() {
        let consistent = |(lo, _, hi): Estimate| implied[i].meets(lo, hi);
        let by = match (gogc_at(i), shaped[i]) {
            // A goal at a ceiling that GOGC's own goal also explains was GOGC's there.
            (Some(est), Some(false)) if consistent(est) => SetBy::Gogc,
            (_, Some(pinned)) => {
                summary.pinned_cycles += u32::from(pinned);
                SetBy::Limit
            }
            (Some((lo, g, hi)), None) => {
                // Judged against the estimate's whole range: a cycle consistent with any GOGC
                // the evidence allows is GOGC's.
                let imp = implied[i];
                // At the floor first: a heap that small makes an interval wide enough to hold
                // any GOGC, but its goal was the floor's.
                if floorish[i] && (f64::from(p.goal) - floor_mb(g)).abs() <= 1.0 {
                    SetBy::Floor
                } else if imp.meets(lo, hi) {
                    SetBy::Gogc
                } else if imp.hi < lo && p.goal >= p.h2 {
                    SetBy::Limit
                } else if imp.lo > hi && (f64::from(p.goal) - floor_mb(g)).abs() <= 1.0 {
                    SetBy::Floor
                } else {
                    SetBy::Unexplained
                }
            }
            (None, None) if floorish[i] => SetBy::Floor,
            (None, None) if ceiling.is_some_and(|c| p.goal <= c && p.goal >= p.h2) => SetBy::Limit,
            (None, None) => SetBy::Unexplained,
        };
        match by {
            SetBy::Gogc => summary.gogc_cycles += 1,
            SetBy::Floor => {
                summary.floor_cycles += 1;
                note(&mut summary.floor_first, p.num);
            }
            SetBy::Limit => {
                summary.limit_cycles += 1;
                note(&mut summary.limit_first, p.num);
                if shaped[i] == Some(true) {
                    note(&mut summary.pinned_first, p.num);
                }
            }
            SetBy::Unexplained => summary.unexplained_cycles += 1,
        }
    }

    let mut last = estimates.iter().rev().find_map(|(_, e)| *e);
    // Goals at a floor say GOGC is in [25F, 25F+24]: where that meets the goals' own range, the
    // estimate is kept inside it (a tiny heap's goals alone read a few points low).
    if let (Some((lo, g, hi)), Some(f)) = (last, common_floor(pts, &floorish)) {
        let (flo, fhi) = (25.0 * f64::from(f), 25.0 * f64::from(f) + 24.0);
        if lo <= fhi && flo <= hi {
            let (lo, hi) = (lo.max(flo), hi.min(fhi));
            last = Some((lo, g.clamp(lo, hi), hi));
        }
    }
    if let Some((lo, g, hi)) = last {
        summary.gogc = Some(round(g));
        summary.gogc_range = Some([round(lo), round(hi)]);
        summary.gogc_basis = Some("goal");
        // Too wide to name one value: small heaps, whose truncated MB say little.
        if hi - lo > (0.5 * g).max(50.0) {
            summary.gogc = None;
        }
    } else if let Some(f) = common_floor(pts, &floorish) {
        // Goals at a floor of F MiB: 4 MiB × GOGC/100 truncated to F, so GOGC in [25F, 25F+25).
        summary.gogc_range = Some([25 * f, 25 * f + 24]);
        summary.gogc_basis = Some("floor");
        summary.gogc = (f >= 4).then_some(25 * f);
    } else if let Some(f) = first_goal {
        // The process's first goal is the floor (no marked heap yet): the same bound.
        if summary.limit_cycles == 0 && f > 0 {
            summary.gogc_range = Some([25 * f, 25 * f + 24]);
            summary.gogc_basis = Some("first_goal");
            summary.gogc = (f >= 4).then_some(25 * f);
        }
    }
    summary.floor_mb = summary
        .gogc
        .map(|g| (4.0 * f64::from(g) / 100.0).floor())
        .map(round);

    for pair in estimates.windows(2) {
        if let ((_, Some((_, a, _))), (start, Some((_, b, _)))) = (pair[0], pair[1]) {
            summary.changes.push(GogcChange {
                cycle: pts[start].num,
                from: round(a),
                to: round(b),
            });
        }
    }

    let (gmin, gmax) = min_max(pts.iter().map(|p| p.goal));
    let (hmin, hmax) = min_max(pts.iter().map(|p| p.h2));
    summary.flat_goal = pts.len() >= 8
        && f64::from(gmax - gmin) <= (0.02 * f64::from(gmax)).max(1.0)
        && f64::from(hmax - hmin) <= (0.03 * f64::from(hmax)).max(2.0)
        && summary.limit_cycles < summary.cycles_judged;
    summary.off = if s.unbounded_goals > 0 {
        Some(true)
    } else if summary.flat_goal {
        None
    } else if summary.gogc_cycles > 0 || summary.floor_cycles >= 3 {
        Some(false)
    } else if proves_off(s, &summary) {
        Some(true)
    } else {
        None
    };
    summary
}

/// The run had no GOGC goal from its first cycle on: the goals near the first one (within 10 %)
/// were the limit's; the others stay unexplained.
fn off_with_limit(s: &PacerStats, mut summary: PacerSummary, first: f64) -> PacerSummary {
    for p in &s.points {
        let g = f64::from(p.goal);
        if (g - first).abs() <= 0.1 * first && p.goal >= p.h2 {
            summary.limit_cycles += 1;
            note(&mut summary.limit_first, p.num);
            let pinned = f64::from(p.h2) >= 16.0 && g <= f64::from(p.h2) * 1.05 + 1.0;
            summary.pinned_cycles += u32::from(pinned);
            if pinned {
                note(&mut summary.pinned_first, p.num);
            }
        } else {
            summary.unexplained_cycles += 1;
        }
    }
    summary.off = Some(true);
    summary
}

/// GOGC=off with a memory limit, provable: the trace holds the process's first cycle, every
/// judged goal was set by the limit, and the first goal was already the limit's (about the
/// later goals), where any GOGC would have put it at the floor of 4 MB × GOGC/100 (40 MB even
/// at GOGC=1000).
fn proves_off(s: &PacerStats, summary: &PacerSummary) -> bool {
    let Some(first) = s.first.filter(|f| f.num == 1).and_then(|f| f.goal) else {
        return false;
    };
    if summary.limit_cycles < 3 || summary.limit_cycles != summary.cycles_judged {
        return false;
    }
    let mut goals: Vec<u32> = s.points.iter().map(|p| p.goal).collect();
    goals.sort_unstable();
    let median = f64::from(goals[goals.len() / 2]);
    first >= 40 && (f64::from(first) - median).abs() <= 0.2 * median
}

fn round(x: f64) -> u32 {
    // GOGC values are whole numbers from 0 up; the estimates are finite and non-negative.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let r = x.round().clamp(0.0, f64::from(u32::MAX)) as u32;
    r
}

/// Whether each cycle's goal is shaped like a binding limit's, by itself and its neighbours:
/// `Some(true)` pinned to the previous marked heap, `Some(false)` flat while the live heap
/// moved, `None` neither. Needs no GOGC: a GOGC goal moves with the live heap by at least as
/// much as the heap moved.
fn limit_shaped(pts: &[Point]) -> Vec<Option<bool>> {
    let mut out = vec![None; pts.len()];
    for (i, p) in pts.iter().enumerate() {
        // At the live heap: a GOGC goal is at least GOGC% of the heap above it, so within 5 %
        // (1 MiB for truncation) only GOGC below 5 would be; heaps under 16 MiB are too
        // coarse to tell.
        let (g, h) = (f64::from(p.goal), f64::from(p.h2));
        if h >= 16.0 && g <= h + (0.05 * h).max(1.0) {
            out[i] = Some(true);
        }
    }
    // A ceiling: the same goal again and again over live heaps that differ (not only in a
    // row): GOGC's goal would have differed with them, a limit's stays.
    // (goal, live heap, index) sorted whole: a group's order does not matter (only its
    // heaps' range and its members), and the goals and heaps are read here in order. (A stable
    // sort of indices by a key read elsewhere was several times slower, and reading the
    // points in goal order a fifth of the read-back of a million cycles: a cache miss each.)
    let mut by_goal: Vec<(u32, u32, u32)> = pts
        .iter()
        .zip(0u32..)
        .map(|(p, i)| (p.goal, p.h2, i))
        .collect();
    // By goal alone: a sort that also ordered each group's heaps and indices took five times
    // as long (a million cycles' goals are a few hundred values).
    by_goal.sort_unstable_by_key(|&(goal, _, _)| goal);
    let mut from = 0;
    for to in 1..=by_goal.len() {
        let base = by_goal[from].0;
        let ends = to == by_goal.len()
            || f64::from(by_goal[to].0 - base) > (0.06 * f64::from(base)).max(1.0);
        if !ends {
            continue;
        }
        let group = &by_goal[from..to];
        let (hmin, hmax) = min_max(group.iter().map(|&(_, h2, _)| h2));
        // Within a 6 % band of goals GOGC's goals have live heaps within 6 % too (the goal
        // moves with the heap at least 1:1), so heaps 10 % apart are a ceiling's.
        let moved = f64::from(hmax - hmin) >= (0.1 * f64::from(base)).max(3.0);
        if group.len() >= FLAT_WINDOW
            && moved
            && !group.iter().any(|&(_, _, i)| at_a_floor(&pts[i as usize]))
        {
            for &(_, _, i) in group {
                out[i as usize].get_or_insert(false);
            }
        }
        from = to;
    }
    for w in (0..pts.len().saturating_sub(FLAT_WINDOW - 1)).map(|i| i..i + FLAT_WINDOW) {
        let window = &pts[w.clone()];
        if !window
            .windows(2)
            .all(|p| p[0].num.checked_add(1) == Some(p[1].num))
        {
            continue;
        }
        let (gmin, gmax) = min_max(window.iter().map(|p| p.goal));
        let (hmin, hmax) = min_max(window.iter().map(|p| p.h2));
        let goal_range = f64::from(gmax - gmin);
        let heap_range = f64::from(hmax - hmin);
        let flat = goal_range <= (0.02 * f64::from(gmax)).max(1.0);
        // The live heap moved by more than the goal could hide (truncation, 2 MiB) and by 8 %
        // of the goal: a GOGC goal would have moved by more than the heap did.
        let moved =
            heap_range >= (0.08 * f64::from(gmax)).max(3.0) && heap_range > 2.0 * goal_range;
        if flat && moved && !window.iter().any(at_a_floor) {
            for k in w {
                out[k].get_or_insert(false);
            }
        }
    }
    out
}

fn min_max(it: impl Iterator<Item = u32>) -> (u32, u32) {
    it.fold((u32::MAX, 0), |(lo, hi), x| (lo.min(x), hi.max(x)))
}

/// A goal that can be the heap floor `4 MiB × GOGC/100` of a GOGC whose own goal lies below
/// it: the floor binds only while the heap is small, at most F/(1 + GOGC/100) for a floor of F
/// MiB, with GOGC taken as 25F (the least GOGC with that floor: the loosest bound).
fn at_a_floor(p: &Point) -> bool {
    let f = f64::from(p.goal);
    if !(1.0..=400.0).contains(&f) {
        return false;
    }
    let gogc = 25.0 * f;
    let base = f64::from(p.h2) + f64::from(p.roots.unwrap_or(0));
    f64::from(p.h2) + base * gogc / 100.0 <= f + 1.0
}

/// The highest goal, when at least `MIN_SUPPORT` cycles came back to it (within 2 %) and no
/// cycle sat at a floor.
fn ceiling_of(pts: &[Point], floorish: &[bool]) -> Option<u32> {
    if floorish.iter().any(|&f| f) {
        return None;
    }
    let top = pts.iter().map(|p| p.goal).max()?;
    let near = pts
        .iter()
        .filter(|p| f64::from(top - p.goal) <= (0.02 * f64::from(top)).max(1.0))
        .count();
    (near >= usize::try_from(MIN_SUPPORT).unwrap_or(3)).then_some(top)
}

/// The floor most floor-like cycles sit at, when they agree (MiB).
fn common_floor(pts: &[Point], floorish: &[bool]) -> Option<u32> {
    let mut counts = std::collections::BTreeMap::<u32, u32>::new();
    for (p, _) in pts.iter().zip(floorish).filter(|(_, &f)| f) {
        *counts.entry(p.goal).or_default() += 1;
    }
    let total: u32 = counts.values().sum();
    let (&f, &n) = counts.iter().max_by_key(|(_, &n)| n)?;
    (2 * n > total).then_some(f)
}
