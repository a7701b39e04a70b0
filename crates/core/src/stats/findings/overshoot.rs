//! `overshoot`: the heap ends above its goal.

use super::{finding, pct};
use super::{Ctx, Finding, Rule, Severity};

pub(super) struct Overshoot;

impl Rule for Overshoot {
    fn id(&self) -> &'static str {
        "overshoot"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { f, n, .. } = *cx;
        let over = f.overshoot_n as f64 / n;
        if over >= 0.2 {
            out.push(finding(
                self.id(),
                Severity::Info,
                &f.overshoot_top,
                format!(
                    "In {} of cycles the heap ended 2 MB and 5% or more above its goal: the \
                     program allocated faster during marking than the pacer planned for. Peak \
                     memory is above the goal by that much. Not claimed: that the pacer is wrong \
                     (it adapts over the next cycles).",
                    pct(over)
                ),
            ));
        }
    }
}
