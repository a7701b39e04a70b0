//! `assist_bound`: mutators marking because they allocate faster than the background workers
//! (25 % of the Ps) keep up.

use super::{finding, pct};
use super::{Ctx, Finding, Rule, Severity};
use gcscope_model::units::go_ms;

pub(super) struct AssistBound;

impl Rule for AssistBound {
    fn id(&self) -> &'static str {
        "assist_bound"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx {
            s, f, capacity_ms, ..
        } = *cx;
        if capacity_ms > 0.0 {
            let assist = (s.cpu_ms.assist / capacity_ms).min(1.0);
            if assist >= 0.05 {
                let dominant = s.cpu_ms.assist > s.cpu_ms.background;
                out.push(finding(
                    self.id(),
                    Severity::Warn,
                    &f.assist_top,
                    format!(
                        "Mark assists took {} of the Ps' time ({} ms){}: goroutines that \
                         allocate during marking pay for it in latency. The runtime aims \
                         background marking at 25% of the Ps (gcBackgroundUtilization, \
                         mgcpacer.go) and has allocating goroutines assist when they outrun it; \
                         5% is gcscope's threshold, not the runtime's. More headroom (a larger \
                         GOGC or memory limit) or less allocation reduce them. Not claimed: \
                         which goroutines paid.",
                        pct(assist),
                        go_ms(s.cpu_ms.assist),
                        if dominant {
                            format!(
                                ", more than the background workers ({} ms): assists dominate",
                                go_ms(s.cpu_ms.background)
                            )
                        } else {
                            String::new()
                        }
                    ),
                ));
            }
        }
    }
}
