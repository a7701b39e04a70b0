//! `stw_dominates`: the stop-the-world phases, not the concurrent mark, are what GC costs: they
//! take most of GC's P time, or every pause is long (a median, not an outlier).

use super::{finding, pct};
use super::{Ctx, Finding, Rule, Severity};
use gcscope_model::units::go_ms;

pub(super) struct StwDominates;

/// A median pause this long is no outlier: every stop of the world takes it.
const LONG_MEDIAN_MS: f64 = 1.0;

impl Rule for StwDominates {
    fn id(&self) -> &'static str {
        "stw_dominates"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx {
            s, f, capacity_ms, ..
        } = *cx;
        // STW P time is pause x GOMAXPROCS: what the Ps could not run while the world stood.
        let stw = s.cpu_ms.sweep_term + s.cpu_ms.mark_term;
        let share = if s.gc_cpu_ms > 0.0 {
            stw / s.gc_cpu_ms
        } else {
            0.0
        };
        // Material only where GC itself is: 1 % of the Ps' time or more.
        let material = capacity_ms > 0.0 && s.gc_cpu_ms / capacity_ms >= 0.01;
        let long_median = f.n >= 5 && s.pause_ms.p50 >= LONG_MEDIAN_MS;
        let stw_most = material && share >= 0.5;
        if !stw_most && !long_median {
            return;
        }
        let what = if stw_most {
            format!(
                "Stop-the-world phases took {} of GC's P time ({} of {} ms; each is pause x \
                 {} Ps), more than the concurrent mark: ",
                pct(share),
                go_ms(stw),
                go_ms(s.gc_cpu_ms),
                s.procs
            )
        } else {
            String::new()
        };
        let pauses = format!(
            "the median pause is {} ms (p90 {} ms){}.",
            go_ms(s.pause_ms.p50),
            go_ms(s.pause_ms.p90),
            if long_median {
                ": every stop of the world is long, not a few outliers"
            } else {
                ""
            }
        );
        let cause = match s.other_cpus {
            Some(other) => format!(" gcscope measured {other:.2} other CPUs busy while it ran."),
            None => String::new(),
        };
        out.push(finding(
            self.id(),
            Severity::Warn,
            &f.pauses[..f.pauses.len().min(3)],
            format!(
                "{what}{pauses}{cause} Pauses are dominated by the time it takes to stop running \
                 goroutines (GC guide): GOMAXPROCS above the CPUs the process may use (a CPU \
                 quota), a loaded machine, or goroutines slow to reach a safepoint stretch \
                 every one; so do very frequent cycles on a tiny heap, each paying the stops. \
                 Not claimed: which of these."
            ),
        ));
    }
}
