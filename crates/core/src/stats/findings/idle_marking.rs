//! `idle_marking`: idle marking is CPU no goroutine wanted (runtime/metrics: not a cost).

use super::{finding, pct};
use super::{Ctx, Finding, Rule, Severity};
use gcscope_model::units::go_ms;

pub(super) struct IdleMarking;

impl Rule for IdleMarking {
    fn id(&self) -> &'static str {
        "idle_marking"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { s, f, gc_share, .. } = *cx;
        if s.gc_cpu_ms > 0.0 {
            let idle = s.cpu_ms.idle / s.gc_cpu_ms;
            let material = gc_share.is_some_and(|g| g >= 0.01);
            if idle >= 0.2 && material {
                let severity = if idle >= 1.0 / 3.0 {
                    Severity::Warn
                } else {
                    Severity::Info
                };
                let total_pct = gc_share.unwrap_or(0.0) * 100.0;
                out.push(finding(
                    self.id(),
                    severity,
                    &f.idle_top,
                    format!(
                        "{} of GC P time is idle marking ({} of {} ms): of GC's {:.1}% of the \
                         {} Ps' time, {:.1} points are idle Ps marking with time no goroutine \
                         wanted. runtime/metrics counts it apart (/cpu/classes/gc/mark/idle); \
                         compulsory GC P time ({} ms) is the cost. Not claimed: that the program \
                         would run faster without it.",
                        pct(idle),
                        go_ms(s.cpu_ms.idle),
                        go_ms(s.gc_cpu_ms),
                        total_pct,
                        s.procs,
                        total_pct * idle,
                        go_ms(s.compulsory_cpu_ms)
                    ),
                ));
            }
        }
    }
}
