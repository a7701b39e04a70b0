//! `forced`: runtime.GC, debug.FreeOSMemory, goroutine-leak checks.

use super::{finding, pct};
use super::{Ctx, Finding, Rule, Severity};

pub(super) struct Forced;

impl Rule for Forced {
    fn id(&self) -> &'static str {
        "forced"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { f, .. } = *cx;
        if f.forced_n > 0 {
            let cpu = if f.gc_cpu > 0 {
                f.forced_cpu as f64 / f.gc_cpu as f64
            } else {
                0.0
            };
            out.push(finding(
                self.id(),
                if cpu >= 0.5 {
                    Severity::Warn
                } else {
                    Severity::Info
                },
                &f.forced_first,
                format!(
                    "{} of {} cycles were forced{} ({} of GC P time): the program, not the pacer, \
                     started them (runtime.GC, debug.FreeOSMemory{}). Not claimed: which call.",
                    f.forced_n,
                    f.n,
                    if f.leak_checks > 0 {
                        format!(", {} of them goroutine-leak checks", f.leak_checks)
                    } else {
                        String::new()
                    },
                    pct(cpu),
                    if f.leak_checks > 0 {
                        ", the goroutineleak profile"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
}
