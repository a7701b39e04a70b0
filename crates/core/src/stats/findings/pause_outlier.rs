//! `pause_outlier`: a long stop-the-world pause on a heap like the others.

use super::facts::{Ev, K, MIB};
use super::finding;
use super::{Ctx, Finding, Rule, Severity};
use gcscope_model::units::go_ms;

pub(super) struct PauseOutlier;

impl Rule for PauseOutlier {
    fn id(&self) -> &'static str {
        "pause_outlier"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { s, f, n, .. } = *cx;
        let p50_ms = s.pause_ms.p50;
        let live_mean = f.live_sum as f64 / n;
        let roots_mean = if f.roots_n > 0 {
            f.roots_sum as f64 / f.roots_n as f64
        } else {
            0.0
        };
        // A median of a handful of pauses says little: from 5 cycles.
        let outliers: Vec<Ev> = f
            .pauses
            .iter()
            .filter(|_| f.n >= 5)
            .filter(|e| {
                let ms = f64::from(e.key) / 1e6;
                let mib = MIB as f64;
                ms >= 1.0
                    && ms >= 10.0 * p50_ms
                    && f64::from(e.live_mb) * mib <= 2.0 * live_mean + mib
                    && f64::from(e.roots_mb) * mib <= 2.0 * roots_mean + mib
            })
            .copied()
            .collect();
        if let Some(worst) = outliers.first() {
            // One or two short ones on a shared machine are common (quiet real runs have them);
            // several, or one of 10 ms and more, is worth a warning.
            let severity = if outliers.len() >= 3 || worst.key >= 10e6 {
                Severity::Warn
            } else {
                Severity::Info
            };
            out.push(finding(
                "pause_outlier",
                severity,
                &outliers[..outliers.len().min(K)],
                format!(
                    "A stop-the-world pause of {} ms (gc {}) against a median of {} ms, on a heap, \
                     stacks and globals like the other cycles': the pause is not explained by GC \
                     work. Stopping the world waits for every P to stop; causes outside the GC are \
                     OS scheduling (more runnable threads than CPUs: is GOMAXPROCS, {} here, above \
                     the CPUs the process may use?), a CPU quota, or swapping (seed 003: a 40 ms \
                     pause). Not claimed: which of these.",
                    go_ms(f64::from(worst.key) / 1e6),
                    worst.num,
                    go_ms(p50_ms),
                    s.procs
                ),
            ));
        }
    }
}
