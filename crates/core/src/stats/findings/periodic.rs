//! `periodic`: sysmon forces a GC when none ran for 2 minutes (forcegcperiod).

use super::finding;
use super::{Ctx, Finding, Rule, Severity};

pub(super) struct Periodic;

impl Rule for Periodic {
    fn id(&self) -> &'static str {
        "periodic"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { f, .. } = *cx;
        if f.gap_n > 0 {
            out.push(finding(
                self.id(),
                Severity::Info,
                &f.gap_first,
                format!(
                    "{} cycle{} came 2 minutes or more after the one before: sysmon's periodic \
                     GC of a program that allocates little (forcegcperiod; gctrace=1 prints `GC \
                     forced` before it). Benign: it returns memory to the OS.",
                    f.gap_n,
                    if f.gap_n == 1 { "" } else { "s" }
                ),
            ));
        }
    }
}
