//! The GOGC pacer, ported from Go's `gcControllerState` (`mgcpacer.go`, Go 1.21+): heap goal,
//! trigger from the cons/mark runway, and the assist ratio. No memory limit, no CPU limiter.

const GOAL_UTILIZATION: f64 = 0.25;
const DEFAULT_HEAP_MINIMUM: u64 = 4 << 20;

/// What a finished mark phase tells the pacer.
#[derive(Debug, Clone, Copy)]
pub struct MarkPhase {
    pub heap_live: u64,
    /// heapLive when the cycle was triggered.
    pub triggered: u64,
    pub scan_work: u64,
    pub mark_ns: u64,
    pub assist_ns: u64,
    pub idle_ns: u64,
    pub procs: u64,
}

#[derive(Debug, Clone)]
pub struct Pacer {
    pub gogc: u64,
    pub heap_marked: u64,
    pub goal: u64,
    pub trigger: u64,
    pub last_heap_scan: u64,
    pub roots: u64,
    cons_mark: f64,
    last_cons_mark: [f64; 4],
    runway: u64,
}

impl Pacer {
    pub fn new(gogc: u64) -> Pacer {
        let mut p = Pacer {
            gogc,
            heap_marked: 0,
            goal: 0,
            trigger: 0,
            last_heap_scan: 0,
            roots: 0,
            cons_mark: 0.0,
            last_cons_mark: [0.0; 4],
            runway: 0,
        };
        p.commit(0, 0);
        p
    }

    fn heap_minimum(&self) -> u64 {
        DEFAULT_HEAP_MINIMUM * self.gogc / 100
    }

    /// `commit`: goal = marked + (marked + roots) * GOGC/100, at least 4 MiB * GOGC/100; the
    /// trigger leaves the runway the last cycles' cons/mark says marking needs.
    pub fn commit(&mut self, heap_marked: u64, roots: u64) {
        self.heap_marked = heap_marked;
        self.roots = roots;
        self.goal =
            (heap_marked + (heap_marked + roots) * self.gogc / 100).max(self.heap_minimum());
        self.runway = (self.cons_mark * (1.0 - GOAL_UTILIZATION) / GOAL_UTILIZATION
            * (self.last_heap_scan + roots) as f64) as u64;
        self.trigger = self.compute_trigger();
    }

    fn compute_trigger(&self) -> u64 {
        let goal = self.goal;
        let marked = self.heap_marked;
        if marked >= goal {
            return goal;
        }
        let dist = goal - marked;
        let min = marked + dist / 64 * 45;
        let mut max = marked + dist / 64 * 61;
        if goal > DEFAULT_HEAP_MINIMUM && goal - DEFAULT_HEAP_MINIMUM > max {
            max = goal - DEFAULT_HEAP_MINIMUM;
        }
        let max = max.max(min);
        let t = if self.runway > goal {
            min
        } else {
            goal - self.runway
        };
        t.clamp(min, max)
    }

    /// Scan work to do per byte allocated from here to the goal (`revise`).
    pub fn assist_ratio(&self, heap_live: u64, scan_done: u64, heap_scan_now: u64) -> f64 {
        let mut expected = self.last_heap_scan + self.roots;
        let mut goal = self.goal;
        if scan_done > expected {
            // Past the expected work: aim at the hard goal with all scannable memory.
            expected = heap_scan_now.max(scan_done) + self.roots;
            goal = goal + goal / 10;
        }
        let remaining_heap = goal.saturating_sub(heap_live).max(1);
        let remaining_work = expected.saturating_sub(scan_done).max(1000);
        remaining_work as f64 / remaining_heap as f64
    }

    /// `endCycle`: the cons/mark estimate from this cycle (allocation during mark against scan
    /// work), max of the last five.
    pub fn end_cycle(&mut self, m: &MarkPhase) {
        let MarkPhase {
            heap_live,
            triggered,
            scan_work,
            mark_ns,
            assist_ns,
            idle_ns,
            procs,
        } = *m;
        self.last_heap_scan = scan_work;
        if heap_live <= triggered || scan_work == 0 || mark_ns == 0 {
            return;
        }
        let d = (mark_ns * procs) as f64;
        let util = GOAL_UTILIZATION + assist_ns as f64 / d;
        let idle = idle_ns as f64 / d;
        let current = ((heap_live - triggered) as f64 * (util + idle))
            / (scan_work as f64 * (1.0 - util).max(0.05));
        self.cons_mark = self.last_cons_mark.iter().copied().fold(current, f64::max);
        self.last_cons_mark.rotate_left(1);
        self.last_cons_mark[3] = current;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goal_and_trigger_follow_go() {
        let mut p = Pacer::new(100);
        assert_eq!(p.goal, 4 << 20);
        p.commit(100 << 20, 1 << 20);
        // 100 MB marked + (100 + 1) * 100% = 201 MB.
        assert_eq!(p.goal, 201 << 20);
        // No cons/mark yet: no runway, so the trigger is the upper bound (goal - 4 MiB here).
        assert_eq!(p.trigger, (201 << 20) - (4 << 20));
        // A heavy allocator pushes the trigger down to, at most, the 45/64 bound.
        p.end_cycle(&MarkPhase {
            heap_live: 300 << 20,
            triggered: 150 << 20,
            scan_work: 10 << 20,
            mark_ns: 1_000_000,
            assist_ns: 500_000,
            idle_ns: 0,
            procs: 2,
        });
        p.commit(100 << 20, 1 << 20);
        let dist = (101u64 << 20) / 64;
        assert_eq!(p.trigger, (100 << 20) + dist * 45);
        let mut q = Pacer::new(50);
        q.commit(0, 0);
        assert_eq!(q.goal, 2 << 20);
        assert!(p.assist_ratio(150 << 20, 0, 0) > 0.0);
    }
}
