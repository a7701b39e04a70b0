//! `gogc_off`: GOGC=off, only where the pacer model proves it (never on a window from the middle
//! of a run).

use super::{cycles_of, finding};
use super::{Ctx, Finding, Rule, Severity};

pub(super) struct GogcOff;

impl Rule for GogcOff {
    fn id(&self) -> &'static str {
        "gogc_off"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { s, .. } = *cx;
        let Some(p) = &s.pacer else {
            return;
        };
        let judged = p.cycles_judged;
        if p.off == Some(true) {
            let with = if p.limit_cycles > 0 {
                format!(
                    "a memory limit set the goals ({} of {judged} cycles)",
                    p.limit_cycles
                )
            } else {
                "no limit either: the goal printed is the runtime's no-goal maximum".to_string()
            };
            out.push(finding(
                self.id(),
                Severity::Info,
                &cycles_of(&[s.first_cycle]),
                format!(
                    "GC is off (GOGC=off): no cycle's goal was GOGC's, from the process's first \
                     cycle on, and {with}. Not claimed: that it was set by the environment rather \
                     than debug.SetGCPercent(-1)."
                ),
            ));
        }
    }
}
