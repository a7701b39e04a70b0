//! What the rules need of a run's cycles, in bounded memory: sums, counts, the first or
//! largest few cycles of each kind, and live-heap means over buckets of cycle numbers. Fed cycle by
//! cycle with the run's other statistics and mergeable exactly as they are (a large file is
//! read in pieces).

use gcscope_model::Cycle;

pub(super) const MIB: u64 = 1 << 20;
/// `MIB` for signed sizes (a heap's overshoot of its goal).
pub(super) const MIB_I64: i64 = 1 << 20;
/// Evidence cycles kept per kind.
pub(super) const K: usize = 3;
/// Pause candidates kept (the largest).
const PAUSES: usize = 8;
/// Live-heap buckets by cycle number: bucket b holds cycles [2^(b-1), 2^b).
pub(super) const BUCKETS: usize = 24;

/// One cycle kept as evidence, ranked by `key`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Ev {
    pub(super) num: u32,
    /// The ranking figure (an f32 ranks as well and keeps thousands of runs' facts small).
    pub(super) key: f32,
    /// Context some rules judge by (pause candidates: the live heap and roots, MiB).
    pub(super) live_mb: u32,
    pub(super) roots_mb: u32,
    /// Pause candidates: the share of the pause that was sweep termination (the stop before
    /// any GC work), percent.
    pub(super) stw1_pct: u8,
}

/// The `K` (or `cap`) largest by key; the earlier wins a tie. The largest of a union is
/// the largest of the parts' largest, so merging is exact.
#[inline(always)]
fn offer_top(v: &mut Vec<Ev>, e: Ev, cap: usize) {
    // Most cycles rank below a full list's last: one comparison, no scan.
    if would_rank(v, e.key, cap) {
        enter_top(v, e, cap);
    }
}

/// `offer_top` for an event that may rank: out of line, so the five offers a cycle are a
/// comparison each where they are inlined.
#[inline(never)]
fn enter_top(v: &mut Vec<Ev>, e: Ev, cap: usize) {
    let at = v.iter().position(|x| e.key > x.key).unwrap_or(v.len());
    if at < cap {
        v.insert(at, e);
        v.truncate(cap);
    }
}

/// Whether a share `part / whole` (`whole` > 0, both >= 0) surely cannot enter the `cap`
/// largest of `v`, told without the division: the part is below the last's key times the
/// whole by more than f32's rounding of the share could make up (a millionth; f32 rounds by
/// under 2^-24). Most cycles of a long run rank nowhere, and the division's latency was a
/// quarter of `Facts::push`'s time.
fn surely_below(v: &[Ev], part: f64, whole: f64, cap: usize) -> bool {
    v.len() >= cap
        && v.last()
            .is_some_and(|x| part <= f64::from(x.key) * whole * (1.0 - 1e-6))
}

/// Whether an event of `key` can enter the `cap` largest of `v` (else `offer_top` drops it).
fn would_rank(v: &[Ev], key: f32, cap: usize) -> bool {
    !(v.len() >= cap && v.last().is_some_and(|x| key <= x.key))
}

fn offer_first(v: &mut Vec<Ev>, e: Ev) {
    if v.len() < K {
        v.push(e);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Bucket {
    pub(super) n: u32,
    /// The cycle that opened the bucket.
    pub(super) first: u32,
    /// Live heap summed in MiB (gctrace prints whole MB: exact). Saturating, as any u64 may
    /// come: a saturating sum of non-negative terms is the same in any grouping, so merged
    /// pieces still equal the whole.
    pub(super) live_mb: u64,
}

/// What the rules need of a run's cycles, in bounded memory.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Facts {
    pub(super) n: usize,
    pub(super) first: Option<Ev>,
    pub(super) first_at: u64,
    pub(super) last_live: u64,
    pub(super) last_at: u64,
    /// The last cycle's own wall time (its phases), so the run's span covers it too.
    pub(super) last_wall: u64,
    pub(super) live_sum: u128,
    pub(super) roots_sum: u128,
    /// Cycles that print stacks and globals (Go 1.18+), and their sums.
    pub(super) roots_n: usize,
    pub(super) roots_live_sum: u128,
    pub(super) idle_top: Vec<Ev>,
    pub(super) assist_top: Vec<Ev>,
    pub(super) forced_n: usize,
    pub(super) forced_cpu: u64,
    pub(super) gc_cpu: u64,
    pub(super) leak_checks: usize,
    pub(super) forced_first: Vec<Ev>,
    /// Gaps of 110 s or more between cycle starts (sysmon's 2-minute forced GC).
    pub(super) gap_n: usize,
    pub(super) gap_first: Vec<Ev>,
    pub(super) pauses: Vec<Ev>,
    pub(super) overshoot_n: usize,
    pub(super) overshoot_top: Vec<Ev>,
    pub(super) roots_top: Vec<Ev>,
    pub(super) buckets: Vec<Bucket>,
}

fn roots(c: &Cycle) -> Option<u64> {
    Some(c.stacks?.saturating_add(c.globals?))
}

impl Facts {
    pub fn push(&mut self, c: &Cycle) {
        let mb = |b: u64| u32::try_from(b >> 20).unwrap_or(u32::MAX);
        // The cycle's part of every event, made once (not once an offer).
        let base = Ev {
            num: c.num,
            key: 0.0,
            live_mb: mb(c.heap_live),
            roots_mb: mb(roots(c).unwrap_or(0)),
            stw1_pct: 0,
        };
        // The key only ranks cycles (the figures are printed from the cycle): f32 is enough.
        #[allow(clippy::cast_possible_truncation)]
        let ev = |key: f64| Ev {
            key: key as f32,
            ..base
        };
        // Saturating: values come from text and may be anything a u64 holds.
        let gc = [
            c.cpu.sweep_term,
            c.cpu.assist,
            c.cpu.background,
            c.cpu.idle,
            c.cpu.mark_term,
        ]
        .iter()
        .fold(0u64, |a, &x| a.saturating_add(x));
        let pause = c.clock.sweep_term.saturating_add(c.clock.mark_term);
        if self.n == 0 {
            self.first = Some(ev(0.0));
            self.first_at = c.at;
        } else {
            self.gap(c.at, ev(0.0));
        }
        self.n += 1;
        self.last_live = c.heap_live;
        self.last_at = c.at;
        self.last_wall = c
            .clock
            .sweep_term
            .saturating_add(c.clock.mark)
            .saturating_add(c.clock.mark_term);
        self.live_sum += u128::from(c.heap_live);
        self.gc_cpu = self.gc_cpu.saturating_add(gc);
        if gc > 0 {
            let (idle, gc) = (c.cpu.idle as f64, gc as f64);
            if !surely_below(&self.idle_top, idle, gc, K) {
                offer_top(&mut self.idle_top, ev(idle / gc), K);
            }
        }
        offer_top(&mut self.assist_top, ev(c.cpu.assist as f64), K);
        if c.forced || c.leak_check {
            self.forced_n += 1;
            self.forced_cpu = self.forced_cpu.saturating_add(gc);
            self.leak_checks += usize::from(c.leak_check);
            offer_first(&mut self.forced_first, ev(0.0));
        }
        let pause_ev = ev(pause as f64);
        // The sweep-termination share only for a pause that ranks (a division a cycle).
        if would_rank(&self.pauses, pause_ev.key, PAUSES) {
            let stw1_pct = c
                .clock
                .sweep_term
                .min(pause)
                .saturating_mul(100)
                .checked_div(pause)
                .map_or(0, |p| u8::try_from(p).unwrap_or(100));
            offer_top(
                &mut self.pauses,
                Ev {
                    stw1_pct,
                    ..pause_ev
                },
                PAUSES,
            );
        }
        if let Some(over) = c.overshoot() {
            let goal = c.goal.unwrap_or(0);
            if over >= 2 * MIB_I64 && over as f64 >= 0.05 * goal as f64 {
                self.overshoot_n += 1;
                offer_top(&mut self.overshoot_top, ev(over as f64), K);
            }
        }
        if let Some(r) = roots(c) {
            self.roots_n += 1;
            self.roots_sum += u128::from(r);
            self.roots_live_sum += u128::from(c.heap_live);
            let all = c.heap_live as f64 + r as f64;
            if all > 0.0 {
                let r = r as f64;
                if !surely_below(&self.roots_top, r, all, K) {
                    offer_top(&mut self.roots_top, ev(r / all), K);
                }
            }
        }
        let b = bucket(c.num);
        if self.buckets.len() <= b {
            self.buckets.resize(b + 1, Bucket::default());
        }
        let bk = &mut self.buckets[b];
        if bk.n == 0 {
            bk.first = c.num;
        }
        bk.n += 1;
        bk.live_mb = bk.live_mb.saturating_add(c.heap_live >> 20);
    }

    fn gap(&mut self, at: u64, e: Ev) {
        if at.saturating_sub(self.last_at) >= 110_000_000_000 {
            self.gap_n += 1;
            offer_first(&mut self.gap_first, e);
        }
    }

    /// `other`'s cycles after these, as if pushed here.
    pub fn append(&mut self, other: &Facts) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = other.clone();
            return;
        }
        // The reckoning that needs the cycle before `other`'s first.
        if let Some(first) = other.first {
            self.gap(other.first_at, first);
        }
        self.n += other.n;
        self.last_live = other.last_live;
        self.last_at = other.last_at;
        self.last_wall = other.last_wall;
        self.live_sum += other.live_sum;
        self.roots_sum += other.roots_sum;
        self.roots_n += other.roots_n;
        self.roots_live_sum += other.roots_live_sum;
        self.gc_cpu = self.gc_cpu.saturating_add(other.gc_cpu);
        for e in &other.idle_top {
            offer_top(&mut self.idle_top, *e, K);
        }
        for e in &other.assist_top {
            offer_top(&mut self.assist_top, *e, K);
        }
        self.forced_n += other.forced_n;
        self.forced_cpu = self.forced_cpu.saturating_add(other.forced_cpu);
        self.leak_checks += other.leak_checks;
        for e in &other.forced_first {
            offer_first(&mut self.forced_first, *e);
        }
        self.gap_n += other.gap_n;
        for e in &other.gap_first {
            offer_first(&mut self.gap_first, *e);
        }
        for e in &other.pauses {
            offer_top(&mut self.pauses, *e, PAUSES);
        }
        self.overshoot_n += other.overshoot_n;
        for e in &other.overshoot_top {
            offer_top(&mut self.overshoot_top, *e, K);
        }
        for e in &other.roots_top {
            offer_top(&mut self.roots_top, *e, K);
        }
        if self.buckets.len() < other.buckets.len() {
            self.buckets.resize(other.buckets.len(), Bucket::default());
        }
        for (mine, theirs) in self.buckets.iter_mut().zip(&other.buckets) {
            if theirs.n > 0 {
                if mine.n == 0 {
                    mine.first = theirs.first;
                }
                mine.n += theirs.n;
                mine.live_mb = mine.live_mb.saturating_add(theirs.live_mb);
            }
        }
    }
}

/// The bucket of the runtime's cycle number `num`: b holds cycles [2^(b-1), 2^b), so a trend
/// is read in cycles (the process's own clock), not in wall seconds a loaded machine stretches;
/// and pieces of one run, read apart, agree on every cycle's bucket.
fn bucket(num: u32) -> usize {
    ((u32::BITS - num.leading_zeros()) as usize).min(BUCKETS - 1)
}

/// `[2^(b-1), 2^b)` cycles as people read them.
pub(super) fn bucket_span(b: usize) -> String {
    match b {
        0 => "gc 0".to_string(),
        b if b == BUCKETS - 1 => format!("gc {} and later", 1u64 << (b - 1)),
        b => format!("gc {}-{}", 1u64 << (b - 1), (1u64 << b) - 1),
    }
}

pub(super) fn mb(bytes: f64) -> String {
    format!("{:.0}", bytes / MIB as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_model::Cycle;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// The check without the division never drops a share that would rank: over shares at,
    /// just above and just below the last kept key, it says "below" only where the share's
    /// key is not above that key.
    #[test]
    fn a_share_surely_below_never_ranks() {
        let mut seed = 11;
        let (mut said, mut tried) = (0, 0);
        for _ in 0..200_000 {
            let whole = rng(&mut seed) % 1_000_000_000_000 + 1;
            let part = rng(&mut seed) % (whole + 1);
            let share = part as f64 / whole as f64;
            #[allow(clippy::cast_possible_truncation)]
            let exact = share as f32;
            // The last kept key at the share's own key, an ulp or 20 (a little more than the
            // millionth) above or below it, or far above.
            let nudge = [0, 1, -1, 20, -20, 1 << 22][(rng(&mut seed) % 6) as usize];
            let last = f32::from_bits(exact.to_bits().saturating_add_signed(nudge));
            let v = vec![
                Ev {
                    num: 0,
                    key: last,
                    live_mb: 0,
                    roots_mb: 0,
                    stw1_pct: 0,
                };
                K
            ];
            tried += 1;
            if surely_below(&v, part as f64, whole as f64, K) {
                said += 1;
                assert!(!would_rank(&v, exact, K), "{part}/{whole} v {last}");
            }
        }
        // Shares 20 ulps or more below the last are told without dividing.
        assert!(said * 4 > tried, "{said} of {tried}");
    }

    fn cyc(seed: &mut u64, num: u32, at: &mut u64) -> Cycle {
        *at += [0, 1_000_000, 120_000_000_000, 3_000_000_000][(rng(seed) % 4) as usize];
        let mut c = Cycle {
            num,
            at: *at,
            ..Cycle::default()
        };
        c.heap_live = [1, 16, 20, 100][(rng(seed) % 4) as usize] * MIB;
        c.heap_end = c.heap_live + [0, 3, 10][(rng(seed) % 3) as usize] * MIB;
        c.goal = Some([4, 21, 24, 40, 200][(rng(seed) % 5) as usize] * MIB);
        c.forced = rng(seed).is_multiple_of(5);
        c.cpu.idle = [0, 5, 5][(rng(seed) % 3) as usize];
        c.cpu.assist = [0, 5, 7][(rng(seed) % 3) as usize];
        c.cpu.background = 5;
        c.clock.sweep_term = [1, 2, 2][(rng(seed) % 3) as usize];
        if rng(seed).is_multiple_of(2) {
            c.stacks = Some((rng(seed) % 3) * MIB);
            c.globals = Some(MIB);
        }
        c
    }

    /// Pieces appended (up to 4, split anywhere) equal the cycles pushed one by one: 120 s
    /// gaps, goal/live ratios and ties across the cuts. (helper-10's review.)
    #[test]
    fn append_is_exact() {
        for s in 1..3000u64 {
            let mut seed = s.wrapping_mul(0x9E3779B97F4A7C15) | 1;
            let n = (rng(&mut seed) % 30) as usize + 1;
            let mut at = 0;
            let cs: Vec<Cycle> = (0..n)
                .map(|i| cyc(&mut seed, u32::try_from(i).unwrap() + 1, &mut at))
                .collect();
            let mut whole = Facts::default();
            cs.iter().for_each(|c| whole.push(c));
            // split in up to 4 pieces
            let mut cuts: Vec<usize> = (0..3)
                .map(|_| usize::try_from(rng(&mut seed) % (n as u64 + 1)).unwrap())
                .collect();
            cuts.push(0);
            cuts.push(n);
            cuts.sort();
            let mut merged = Facts::default();
            for w in cuts.windows(2) {
                let mut p = Facts::default();
                cs[w[0]..w[1]].iter().for_each(|c| p.push(c));
                merged.append(&p);
            }
            assert_eq!(whole, merged, "seed {s}");
        }
    }

    /// A million cycles of the largest live heap the parser takes: the sums do not overflow
    /// (a u64 bucket sum did, and panicked in release builds).
    #[test]
    fn huge_live_heaps_do_not_overflow_the_sums() {
        let mut c = Cycle {
            heap_live: ((1u64 << 44) - 1) << 20,
            ..Cycle::default()
        };
        let mut f = Facts::default();
        for i in 0..(1u32 << 20) + 2 {
            c.num = i;
            f.push(&c);
        }
    }
}
