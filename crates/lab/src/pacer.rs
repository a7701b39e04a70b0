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
    /// GOGC is clamped to Go's range (an int32, at least 1: the lab has no GOGC=off).
    #[must_use]
    pub fn new(gogc: u64) -> Pacer {
        let mut p = Pacer {
            gogc: gogc.clamp(1, i32::MAX as u64),
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
        DEFAULT_HEAP_MINIMUM.saturating_mul(self.gogc) / 100
    }

    /// `commit`: goal = marked + (marked + roots) * GOGC/100, at least 4 MiB * GOGC/100; the
    /// trigger leaves the runway the last cycles' cons/mark says marking needs.
    pub fn commit(&mut self, heap_marked: u64, roots: u64) {
        self.heap_marked = heap_marked;
        self.roots = roots;
        let growth = (heap_marked.saturating_add(roots)).saturating_mul(self.gogc) / 100;
        self.goal = heap_marked.saturating_add(growth).max(self.heap_minimum());
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

    /// Scan work to do per byte allocated from here to the goal: Go's `revise`.
    /// `triggered` is heapLive when the cycle started; `heap_scan_now` bounds the scan work
    /// (the lab passes heapLive: every live byte might need scanning).
    #[must_use]
    pub fn assist_ratio(
        &self,
        heap_live: u64,
        triggered: u64,
        scan_done: u64,
        heap_scan_now: u64,
    ) -> f64 {
        let mut expected = (self.last_heap_scan + self.roots).max(1) as f64;
        let max_work = (heap_scan_now.saturating_add(self.roots)) as f64;
        let mut goal = self.goal as f64;
        if scan_done as f64 > expected {
            // More work than expected: the heap is growing. Extrapolate the goal to the
            // worst-case work, at most (1 + GOGC/100) x goal.
            let ext = (goal - triggered as f64) / expected * max_work + triggered as f64;
            let hard = (1.0 + self.gogc as f64 / 100.0) * goal;
            expected = max_work;
            goal = ext.min(hard);
        }
        if heap_live as f64 > goal {
            // Past even that: leave 10% of runway so the worst case still finishes.
            goal *= 1.1;
            expected = max_work;
        }
        let remaining_heap = (goal - heap_live as f64).max(1.0);
        let remaining_work = (expected - scan_done as f64).max(1000.0);
        remaining_work / remaining_heap
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
        assert!(p.assist_ratio(150 << 20, 100 << 20, 0, 0) > 0.0);
    }

    #[test]
    fn assist_ratio_stays_bounded_past_the_goal() {
        // A heap just past its goal: Go moves to the 1.1x hard goal instead of asking for
        // all the remaining work per byte (the lab's first pacer asked 9.4 M per byte).
        let mut p = Pacer::new(100);
        p.commit(10 << 20, 0);
        p.last_heap_scan = 10 << 20;
        let r = p.assist_ratio(p.goal + 1, 15 << 20, 1 << 20, p.goal + 1);
        assert!(r < 100.0, "{r}");
        // Within the goal and the expected work: remaining work over remaining heap.
        let r = p.assist_ratio(15 << 20, 15 << 20, 0, 15 << 20);
        assert!((r - 2.0).abs() < 0.01, "{r}");
    }

    #[test]
    fn huge_gogc_does_not_overflow() {
        let mut p = Pacer::new(u64::MAX);
        p.commit(u64::MAX / 4, 1 << 20);
        assert!(p.goal >= u64::MAX / 4);
        assert!(p.trigger <= p.goal);
    }
}
