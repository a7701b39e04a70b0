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

/// Judged cycles a run keeps for the read-back (320 KiB of points). Past it the run keeps
/// one block of `BLOCK` consecutive cycle numbers in every 2, then 4, 8..., as many as fit:
/// memory stays flat however long the run, and each kept block still has its neighbours for
/// the flat-goal windows (which check that cycle numbers follow). The blocks kept are a
/// function of the cycle numbers alone, so a file read in pieces keeps the same ones.
const POINTS_CAP: usize = 1 << 14;
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
                self.keep(Point {
                    num: c.num,
                    goal: u32::try_from(g).unwrap_or(u32::MAX),
                    h2: p.h2,
                    roots: p.roots,
                });
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

    /// Keeps `p` when its block is kept, first keeping one block in twice as many as before
    /// while the points would pass the cap: what pushing it and then thinning keeps, without
    /// the vector ever holding more than the cap.
    fn keep(&mut self, p: Point) {
        let cap = if self.cap == 0 { POINTS_CAP } else { self.cap };
        if !in_kept_block(p.num, self.thinned) {
            return;
        }
        while self.points.len() >= cap {
            self.thinned += 1;
            let thinned = self.thinned;
            self.points.retain(|q| in_kept_block(q.num, thinned));
            if !in_kept_block(p.num, thinned) {
                return;
            }
        }
        if self.points.len() == self.points.capacity() {
            // Never past the cap: a vector doubled there only to be thinned at once.
            let len = self.points.len();
            self.points
                .reserve_exact((len * 2).max(BLOCK as usize).min(cap) - len);
        }
        self.points.push(p);
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
                    Some(goal) if p.num.checked_add(1) == Some(f.num) => self.keep(Point {
                        num: f.num,
                        goal,
                        h2: p.h2,
                        roots: p.roots,
                    }),
                    _ => self.gaps += 1,
                }
            }
        }
        for &p in &other.points {
            self.keep(p);
        }
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
        read_back::analyse(self)
    }
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
    /// one block of 64 consecutive cycles in every this many (`POINTS_CAP`, 16,384 points).
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

mod implied;
mod read_back;

#[cfg(test)]
mod tests;
