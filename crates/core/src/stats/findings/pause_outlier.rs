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
            // Where the long part is sweep termination, the GC had done no work yet: the time
            // is the time to stop the world, every P reaching a safepoint (GC guide: pauses
            // are "dominated by the time it takes to stop running goroutines").
            let stw1_long = outliers.iter().filter(|e| e.stw1_pct >= 80).count();
            let stw1 = if 2 * stw1_long >= outliers.len() {
                format!(
                    "In {stw1_long} of the {} long pauses the time was sweep termination, the \
                     stop before any GC work: the time to stop the world, every P reaching a \
                     safepoint (a goroutine in a loop without one, or threads not scheduled). ",
                    outliers.len()
                )
            } else {
                String::new()
            };
            // The load gcscope measured while the program ran, when it ran it: said as
            // measured, not asked.
            let cause = match s.other_cpus {
                Some(other) if other >= crate::stats::summary::LOADED_CPUS => format!(
                    "Other processes used {other:.2} CPUs while it ran (measured by gcscope): \
                     with the machine shared, stopping {} Ps waits for threads the OS has not \
                     scheduled.",
                    s.procs
                ),
                Some(other) => format!(
                    "The machine was quiet (other processes used {other:.2} CPUs, measured): \
                     the causes left are a CPU quota below GOMAXPROCS ({} here), a goroutine \
                     slow to reach a safepoint, or swapping (seed 003: a 40 ms pause).",
                    s.procs
                ),
                None => format!(
                    "Stopping the world waits for every P to stop; causes outside the GC are \
                     OS scheduling (more runnable threads than CPUs: is GOMAXPROCS, {} here, \
                     above the CPUs the process may use?), a CPU quota, a goroutine slow to \
                     reach a safepoint, or swapping (seed 003: a 40 ms pause).",
                    s.procs
                ),
            };
            out.push(finding(
                self.id(),
                severity,
                &outliers[..outliers.len().min(K)],
                format!(
                    "A stop-the-world pause of {} ms (gc {}) against a median of {} ms, on a \
                     heap, stacks and globals like the other cycles': the pause is not \
                     explained by GC work. {stw1}{cause} Not claimed: which of these.",
                    go_ms(f64::from(worst.key) / 1e6),
                    worst.num,
                    go_ms(p50_ms),
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::stats::findings::{evaluate, Facts};
    use crate::stats::summary::{RunStats, RunSummary};
    use crate::trace::parse::{parse_line, Line};

    fn run(sweep_term_ms_of_gc7: &str) -> (RunSummary, Facts) {
        let (mut stats, mut facts) = (RunStats::default(), Facts::default());
        for n in 1..=10 {
            let stw1 = if n == 7 {
                sweep_term_ms_of_gc7
            } else {
                "0.010"
            };
            let l = format!(
                "gc {n} @{n}.000s 1%: {stw1}+1.0+0.010 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, \
                 40->50->20 MB, 41 MB goal, 0 MB stacks, 0 MB globals, 4 P"
            );
            let Line::Cycle { cycle, .. } = parse_line(l.as_bytes()) else {
                panic!("{l}")
            };
            stats.push(&cycle);
            facts.push(&cycle);
        }
        (stats.summary(1, None).unwrap(), facts)
    }

    fn text(s: &RunSummary, f: &Facts) -> String {
        evaluate(s, f)
            .into_iter()
            .find(|x| x.id == "pause_outlier")
            .map(|x| x.text)
            .unwrap_or_default()
    }

    #[test]
    fn a_long_sweep_termination_is_named_time_to_stop_the_world_and_measured_load_is_said() {
        let (mut s, f) = run("5.0");
        let t = text(&s, &f);
        assert!(t.contains("the time to stop the world"), "{t}");
        assert!(t.contains("is GOMAXPROCS, 4 here"), "{t}");
        // A program gcscope ran, on a loaded machine: the load is said as measured.
        s.other_cpus = Some(1.6);
        let t = text(&s, &f);
        assert!(t.contains("Other processes used 1.60 CPUs"), "{t}");
        assert!(!t.contains("is GOMAXPROCS"), "{t}");
        s.other_cpus = Some(0.01);
        assert!(text(&s, &f).contains("The machine was quiet"));
    }
}
