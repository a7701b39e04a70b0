//! `min_heap`: the heap floor (4 MB x GOGC/100), not GOGC, set most goals, and GC runs often.

use super::{cycle_rate, cycles_of, finding, gogc_words};
use super::{Ctx, Finding, Rule, Severity};

pub(super) struct MinHeap;

impl Rule for MinHeap {
    fn id(&self) -> &'static str {
        "min_heap"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { s, .. } = *cx;
        let Some(p) = &s.pacer else {
            return;
        };
        let judged = p.cycles_judged;
        if p.floor_cycles >= 3 && 2 * p.floor_cycles >= judged {
            if let Some(rate) = cycle_rate(s).filter(|&r| r >= 10.0) {
                let floor = p
                    .floor_mb
                    .map_or_else(|| "the floor".to_string(), |f| format!("the {f} MB floor"));
                out.push(finding(
                    self.id(),
                    Severity::Warn,
                    &cycles_of(&p.floor_first),
                    format!(
                        "The heap goal is {floor} (4 MB x GOGC/100, at {}) in {} of {judged} \
                         cycles, and GC runs {rate:.0} times a second (by cycle numbers): the live \
                         heap ({}-{} MB) is too small for GOGC's own goal, so the runtime's floor \
                         sets it (heapMinimum, mgcpacer.go). A larger GOGC raises the floor by 4 MB \
                         per 100 and spaces the cycles out. Not claimed: that the cycles cost much \
                         (a tiny heap marks fast).",
                        gogc_words(p),
                        p.floor_cycles,
                        s.heap_live_mb.min,
                        s.heap_live_mb.max
                    ),
                ));
            }
        }
    }
}
