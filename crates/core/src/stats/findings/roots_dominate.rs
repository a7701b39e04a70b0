//! `roots_dominate`: stacks and globals a large part of what is scanned (Go 1.18+).

use super::facts::mb;
use super::{finding, pct};
use super::{Ctx, Finding, Rule, Severity};

pub(super) struct RootsDominate;

impl Rule for RootsDominate {
    fn id(&self) -> &'static str {
        "roots_dominate"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { f, .. } = *cx;
        if f.roots_n >= 2 {
            let share = f.roots_sum as f64 / ((f.roots_sum + f.roots_live_sum) as f64).max(1.0);
            if share >= 0.2 {
                out.push(finding(
                    self.id(),
                    Severity::Info,
                    &f.roots_top,
                    format!(
                        "Stacks and globals are {} of the heap, stacks and globals together \
                         (means {} MB of roots, {} MB live): since Go 1.18 they count in the GOGC \
                         goal, and every cycle scans them. Fewer or shallower goroutines, or \
                         smaller pointerful globals, shrink them. Not claimed: scan time (Go \
                         1.19 prints allocated, not scanned, stack space).",
                        pct(share),
                        mb(f.roots_sum as f64 / f.roots_n as f64),
                        mb(f.roots_live_sum as f64 / f.roots_n as f64)
                    ),
                ));
            }
        }
    }
}
