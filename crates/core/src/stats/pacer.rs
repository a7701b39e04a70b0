//! The pacer read back from a run's cycles: which GOGC set the heap goals, where the heap floor
//! or a memory limit set them instead, and where the setting changed (`debug.SetGCPercent`).
//!
//! Per cycle N, from cycle N-1's marked heap h2 and roots (stacks + globals) and cycle N's
//! goal (runtime/mgcpacer.go; ../shared/reference/pacer.md):
//! - Go 1.18+: `goal = h2 + (h2 + stacks + globals) × GOGC/100`; before 1.18 (no roots on the
//!   line) `goal = h2 × (1 + GOGC/100)`. So each cycle implies a GOGC, known to an interval
//!   because gctrace truncates every MB figure (`Implied`).
//! - The floor: `goal = max(GOGC goal, 4 MiB × GOGC/100)` (heapMinimum).
//! - A memory limit: `goal = min(GOGC goal, limit goal)`, never below the marked heap, so a
//!   binding limit shows as goals below what GOGC would give: flat while the live heap moves,
//!   or pinned to the live heap.
//! - GOGC=off: no GOGC goal at all. Without a limit the goal printed is the runtime's maximum;
//!   with one, only a trace that holds the process's first cycle can show that no GOGC goal
//!   ever applied (a window from the middle of a run cannot).
//!
//! The run's GOGC is the value the most cycles' intervals agree on (the point covered by the
//! most intervals), among cycles not flagged as limit- or floor-set by their own shape; the
//! flags then follow from that value. Nothing here is fitted to a recorded trace: every bound
//! is the runtime's formula with gctrace's truncation, or a stated tolerance.

use gcscope_model::Cycle;
use serde::Serialize;

/// A cycle's figures the pacer needs, in whole MiB as gctrace prints them (truncated).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Point {
    num: u32,
    goal: u32,
    /// The previous cycle's marked heap.
    h2: u32,
    /// The previous cycle's stacks + globals; `None` on pre-1.18 lines.
    roots: Option<u32>,
}

/// Judged cycles a run keeps for the read-back (2.5 MiB of points). Past it the run keeps
/// one block of `BLOCK` consecutive cycle numbers in every 2, then 4, 8..., as many as fit:
/// memory stays flat however long the run, and each kept block still has its neighbours for
/// the flat-goal windows (which check that cycle numbers follow). The blocks kept are a
/// function of the cycle numbers alone, so a file read in pieces keeps the same ones.
const POINTS_CAP: usize = 1 << 17;
/// Consecutive cycles a kept block holds.
const BLOCK: u32 = 64;

/// What a run's cycles say about its pacer, pushed one cycle at a time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PacerStats {
    points: Vec<Point>,
    /// Points are kept for one block in every 2^thinned (`POINTS_CAP`).
    thinned: u32,
    /// The cap on points, `POINTS_CAP` when 0 (a test lifts it to compare with every point).
    cap: usize,
    prev: Option<Prev>,
    /// The run's first cycle.
    first: Option<First>,
    /// Go 1.5's five-phase lines: its pacer set goals from a reachable-heap estimate and a
    /// trigger ratio, not this model's formula, so they are not judged.
    go15: u32,
    /// Cycles whose number does not follow the previous one's (sampled or lost lines): no
    /// previous marked heap to judge them by.
    gaps: u32,
    /// Cycles that printed the runtime's "no goal" maximum: GOGC=off and no memory limit.
    unbounded_goals: u32,
}

/// The run's first cycle: at the process's first cycle (number 1) the goal is the floor or
/// GOGC's share of the roots, whichever is larger.
#[derive(Debug, Clone, Copy, PartialEq)]
struct First {
    num: u32,
    /// MiB, when printed and bounded.
    goal: Option<u32>,
    goal_unbounded: bool,
    /// Stacks + globals, MiB.
    roots: u32,
    /// The heap when it started, MiB.
    heap_start: u32,
    go15: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Prev {
    num: u32,
    h2: u32,
    roots: Option<u32>,
}

const MIB: u64 = 1 << 20;
/// A goal this large (1 TiB × 2^20) is no goal: what the runtime prints when GOGC=off leaves
/// no GOGC goal and no memory limit is set (`^uint64(0)` clamped to `maxInt64`, in MB).
const UNBOUNDED_GOAL_MB: u64 = 1 << 40;
/// Intervals are widened by this share on each side: the goal is computed from the pacer's
/// exact figures, of which gctrace's are not only truncated but taken at slightly other
/// moments (the marked heap at mark termination, the stack scan of the cycle).
const SLACK: f64 = 0.03;

/// Whether cycle `num` is in a block kept once a run is thinned `thinned` times: block
/// `num / BLOCK` is a multiple of 2^thinned.
fn in_kept_block(num: u32, thinned: u32) -> bool {
    let every = 1u32.checked_shl(thinned).map_or(u32::MAX, |n| n - 1);
    (num / BLOCK) & every == 0
}

fn mb(bytes: u64) -> u32 {
    u32::try_from(bytes / MIB).unwrap_or(u32::MAX)
}

impl PacerStats {
    pub fn push(&mut self, c: &Cycle) {
        let roots = match (c.stacks, c.globals) {
            (Some(s), Some(g)) => Some(mb(s).saturating_add(mb(g))),
            _ => None,
        };
        let goal = c.goal.map(|g| g / MIB);
        if self.first.is_none() {
            self.first = Some(First {
                num: c.num,
                goal: goal
                    .filter(|&g| g < UNBOUNDED_GOAL_MB)
                    .map(|g| u32::try_from(g).unwrap_or(u32::MAX)),
                goal_unbounded: goal.is_some_and(|g| g >= UNBOUNDED_GOAL_MB),
                roots: roots.unwrap_or(0),
                heap_start: mb(c.heap_start),
                go15: c.go15.is_some(),
            });
        }
        if c.go15.is_some() {
            self.go15 += 1;
            self.prev = None;
            return;
        }
        match (self.prev, goal) {
            (_, Some(g)) if g >= UNBOUNDED_GOAL_MB => self.unbounded_goals += 1,
            (Some(p), Some(g)) if p.num.checked_add(1) == Some(c.num) => {
                if self.kept(c.num) {
                    self.points.push(Point {
                        num: c.num,
                        goal: u32::try_from(g).unwrap_or(u32::MAX),
                        h2: p.h2,
                        roots: p.roots,
                    });
                    self.thin();
                }
            }
            (Some(_), _) => self.gaps += 1,
            (None, _) => {}
        }
        self.prev = Some(Prev {
            num: c.num,
            h2: mb(c.heap_live),
            roots,
        });
    }

    /// Whether cycle `num`'s point is in a kept block (`POINTS_CAP`).
    fn kept(&self, num: u32) -> bool {
        in_kept_block(num, self.thinned)
    }

    /// Keeps one block in twice as many as before while the points are over the cap.
    fn thin(&mut self) {
        let cap = if self.cap == 0 { POINTS_CAP } else { self.cap };
        while self.points.len() > cap {
            self.thinned += 1;
            let thinned = self.thinned;
            self.points.retain(|p| in_kept_block(p.num, thinned));
        }
    }

    /// Another run's cycles that followed this run's (a file read in pieces).
    pub fn append(&mut self, other: &PacerStats) {
        // Both thinned alike first: the blocks the more thinned kept are kept by the other too.
        if other.thinned > self.thinned {
            let thinned = other.thinned;
            self.thinned = thinned;
            self.points.retain(|p| in_kept_block(p.num, thinned));
        }
        // The first cycle of `other` had no previous one there; here it has ours, and is
        // judged as `push` would have (its unbounded goal and Go 1.5 line are counted there).
        if let (Some(p), Some(f)) = (self.prev, other.first) {
            if !f.go15 && !f.goal_unbounded {
                match f.goal {
                    Some(goal) if p.num.checked_add(1) == Some(f.num) => {
                        if self.kept(f.num) {
                            self.points.push(Point {
                                num: f.num,
                                goal,
                                h2: p.h2,
                                roots: p.roots,
                            });
                        }
                    }
                    _ => self.gaps += 1,
                }
            }
        }
        let thinned = self.thinned;
        self.points.extend(
            other
                .points
                .iter()
                .filter(|p| in_kept_block(p.num, thinned)),
        );
        self.thin();
        self.first = self.first.or(other.first);
        self.go15 += other.go15;
        self.gaps += other.gaps;
        self.unbounded_goals += other.unbounded_goals;
        if other.prev.is_some() {
            self.prev = other.prev;
        }
    }

    #[must_use]
    pub fn summary(&self) -> PacerSummary {
        analyse(self)
    }
}

/// The GOGC a cycle's goal implies, as an interval: every MB figure of the line is truncated,
/// so the true values lie in `[x, x + 1)` MiB.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Implied {
    lo: f64,
    hi: f64,
}

impl Implied {
    fn of(p: &Point) -> Implied {
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

    fn meets(&self, lo: f64, hi: f64) -> bool {
        self.lo <= hi && lo <= self.hi
    }
}

/// The goal the heap floor gives at `gogc`, in whole MiB as printed: `4 MiB × GOGC/100`.
fn floor_mb(gogc: f64) -> f64 {
    (4.0 * gogc / 100.0).floor()
}

/// How each judged cycle's goal was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SetBy {
    Gogc,
    Floor,
    Limit,
    /// Not explained by the run's GOGC, its floor or a limit (a setting changing, a forced
    /// cycle's goal, too small a heap to tell).
    Unexplained,
}

/// A stretch of a run with one GOGC (a `SetGCPercent` call starts another).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GogcChange {
    /// The first cycle whose goal follows the new setting.
    pub cycle: u32,
    pub from: u32,
    pub to: u32,
}

/// The pacer of one run, read back from its cycles. In `summary --json` as `runs[].pacer`
/// (docs/SUMMARY.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PacerSummary {
    /// The GOGC that set the run's goals (the last one in effect when it changed), or `None`
    /// when the trace cannot tell (no cycle's goal was GOGC's, or the cycles' intervals are too
    /// wide: small heaps).
    pub gogc: Option<u32>,
    /// The GOGC values consistent with the evidence, `[lo, hi]`.
    pub gogc_range: Option<[u32; 2]>,
    /// What the estimate rests on: `goal` (cycles whose goal GOGC set), `floor` (goals at the
    /// heap floor 4 MB × GOGC/100), `first_goal` (the process's first cycle's goal, which is
    /// the floor).
    pub gogc_basis: Option<&'static str>,
    /// Cycles whose goal that GOGC explains (within gctrace's truncation).
    pub gogc_cycles: u32,
    /// Cycles judged: those with a goal and the previous cycle's marked heap (the cycle before
    /// them in the trace is their predecessor in the process).
    pub cycles_judged: u32,
    /// Cycles whose goal was the heap floor (4 MB × GOGC/100) rather than GOGC's goal.
    pub floor_cycles: u32,
    /// The floor at that GOGC, MiB.
    pub floor_mb: Option<u32>,
    /// Cycles whose goal a memory limit set: below GOGC's goal (flat while the live heap
    /// moved, or pinned to the live heap).
    pub limit_cycles: u32,
    /// Of those, cycles whose goal sat at the previous marked heap: the limit left no room.
    pub pinned_cycles: u32,
    /// Cycles whose goal none of these explains.
    pub unexplained_cycles: u32,
    /// GOGC=off: `true` only when provable (the runtime's no-goal maximum was printed, or the
    /// trace holds the process's first cycle and no goal was ever GOGC's or the floor's),
    /// `false` when a cycle's goal was GOGC's, `null` when the trace cannot tell.
    pub off: Option<bool>,
    /// Where GOGC changed mid-run (`debug.SetGCPercent`).
    pub changes: Vec<GogcChange>,
    /// Cycles whose number did not follow the previous cycle's: lines sampled or lost, so those
    /// cycles could not be judged.
    pub sampled_gaps: u32,
    /// `go1.18` (goal over heap + stacks + globals) or `pre-1.18` (heap only).
    pub formula: &'static str,
    /// Go 1.5 five-phase lines, not judged: that pacer set goals another way.
    pub go15_cycles: u32,
    /// A run too long to keep every judged cycle: the cycles judged (and counted above) are
    /// one block of 64 consecutive cycles in every this many (`POINTS_CAP`, 131,072 points).
    /// In JSON only when thinned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged_one_block_in: Option<u32>,
    /// Every judged goal within 2 % of one value while the live heap barely moved: a GOGC and
    /// a limit would print the same, so `gogc` may be a limit's ratio (`off` is then unknown
    /// unless the first cycle tells).
    pub flat_goal: bool,
    /// The first few cycles (by number) a limit set, the limit pinned to the live heap, and
    /// the floor set: the evidence the findings cite.
    #[serde(skip)]
    pub limit_first: Vec<u32>,
    #[serde(skip)]
    pub pinned_first: Vec<u32>,
    #[serde(skip)]
    pub floor_first: Vec<u32>,
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
/// Cycles in a row that agree on a new GOGC before it counts as a change of setting.
const CHANGE_RUN: usize = 3;
/// Cycles that must agree on a GOGC before it is named: one or two cycles' goals could be
/// anything's (a forced cycle, a limit's edge).
const MIN_SUPPORT: i32 = 3;

fn analyse(s: &PacerStats) -> PacerSummary {
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
    // (goal, index) pairs sorted whole: a group's order does not matter (only its heaps'
    // range and its members), and a sort of pairs in place is several times faster than a
    // stable sort of indices by a key read elsewhere (a summary of a million cycles).
    let mut pairs: Vec<(u32, usize)> = pts.iter().map(|p| p.goal).zip(0..).collect();
    pairs.sort_unstable();
    let by_goal: Vec<usize> = pairs.into_iter().map(|(_, i)| i).collect();
    let mut from = 0;
    for to in 1..=by_goal.len() {
        let base = pts[by_goal[from]].goal;
        let ends = to == by_goal.len()
            || f64::from(pts[by_goal[to]].goal - base) > (0.06 * f64::from(base)).max(1.0);
        if !ends {
            continue;
        }
        let group = &by_goal[from..to];
        let (hmin, hmax) = min_max(group.iter().map(|&i| pts[i].h2));
        // Within a 6 % band of goals GOGC's goals have live heaps within 6 % too (the goal
        // moves with the heap at least 1:1), so heaps 10 % apart are a ceiling's.
        let moved = f64::from(hmax - hmin) >= (0.1 * f64::from(base)).max(3.0);
        if group.len() >= FLAT_WINDOW && moved && !group.iter().any(|&i| at_a_floor(&pts[i])) {
            for &i in group {
                out[i].get_or_insert(false);
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

/// The value the most intervals share: `(lo, mid, hi)` of the region covered by the most,
/// or `None` with no interval. The region is where the intervals of every cycle GOGC set
/// overlap; cycles a limit or a floor set fall outside it.
fn best_agreement(intervals: impl Iterator<Item = Implied>) -> Option<Estimate> {
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
    let mut edges: Vec<(f64, i32)> = Vec::new();
    for imp in intervals {
        if imp.hi.is_finite() && imp.hi >= imp.lo {
            edges.push((imp.lo, 1));
            edges.push((imp.hi, -1));
        }
    }
    // Openings before closings at the same value: touching intervals agree there. (Equal
    // edges are alike, so an unstable sort gives the same order.)
    edges.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    Depths { edges }
}

impl Depths {
    /// The stretch that begins at edge `k`, `depth` intervals deep.
    fn at(&self, k: usize, depth: i32) -> Depth {
        let (x, d) = self.edges[k];
        Depth {
            lo: x,
            // The stretch runs to the next edge.
            hi: self.edges.get(k + 1).map_or(x, |e| e.0),
            depth,
            opens: d > 0,
        }
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
fn highest_agreement(intervals: impl Iterator<Item = Implied> + Clone) -> Option<Estimate> {
    // Read twice rather than collected: a million cycles' intervals were 16 MB of fresh
    // memory in every summary.
    let top = depths(intervals.clone())
        .down()
        .find(|r| r.depth >= MIN_SUPPORT)?;
    let band = (0.9 * top.lo, top.hi);
    best_agreement(intervals.filter(|i| i.lo <= band.1 && band.0 <= i.hi))
}

/// A GOGC estimate: the range the evidence allows and its middle, `(lo, mid, hi)`.
type Estimate = (f64, f64, f64);

/// A stretch of cycles (indices into the points) that agree on one GOGC.
struct Segment {
    start: usize,
    members: Vec<usize>,
}

/// Splits the free cycles where GOGC changed: a new segment starts where `CHANGE_RUN` cycles
/// in a row agree with each other and not with the segment so far. A lone cycle that agrees
/// with neither stays in the current segment (it is judged later, as unexplained).
fn segment(free: &[usize], implied: &[Implied]) -> Vec<Segment> {
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
// The simulator turns the floats it chose into bytes, as the runtime's integer figures are.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
mod tests {
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
}
