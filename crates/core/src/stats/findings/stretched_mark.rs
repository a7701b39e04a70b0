//! `stretched_mark`: the concurrent mark took far more wall time than its P time explains: the
//! mark workers were starved of CPU, or the process was stopped or descheduled.

use super::finding;
use super::{Ctx, Finding, Rule, Severity};
use gcscope_model::units::go_ms;

pub(super) struct StretchedMark;

/// Mark wall time over (mark P time / P) in quiet and loaded recordings stays under 9 (the
/// background worker aims at 25 % of the Ps: about 4); 20 is gcscope's threshold.
const STRETCH: f64 = 20.0;

impl Rule for StretchedMark {
    fn id(&self) -> &'static str {
        "stretched_mark"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { s, f, .. } = *cx;
        let procs = f64::from(s.procs.max(1));
        let mark_p = (s.cpu_ms.assist + s.cpu_ms.background + s.cpu_ms.idle) / procs;
        let wall = s.clock_ms.mark;
        if f.n < 3 || wall < 1000.0 || mark_p <= 0.0 || wall < STRETCH * mark_p {
            return;
        }
        out.push(finding(
            self.id(),
            Severity::Warn,
            &[],
            format!(
                "The concurrent mark took {} ms of wall time for {} ms of mark P time over {} \
                 Ps ({:.0}x the time that marking itself took): the mark phase was stretched, \
                 so the heap grew for that long under the write barrier and assists. Mark \
                 workers starved of CPU (a CPU quota, a loaded machine) or a process stopped or \
                 descheduled (SIGSTOP, a debugger, swapping) do this. Not claimed: which.",
                go_ms(wall),
                go_ms(mark_p * procs),
                s.procs,
                wall / mark_p
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::stats::summary::RunStats;
    use crate::trace::parse::{parse_line, Line};

    fn findings(mark_ms: &str) -> Vec<&'static str> {
        let mut stats = RunStats::default();
        for n in 1..=5 {
            let l = format!(
                "gc {n} @{n}.000s 1%: 0.010+{mark_ms}+0.010 ms clock, 0.02+1.0/3.0/0+0.02 ms \
                 cpu, 8->9->5 MB, 10 MB goal, 0 MB stacks, 0 MB globals, 2 P"
            );
            let Line::Cycle { cycle, .. } = parse_line(l.as_bytes()) else {
                panic!("{l}")
            };
            stats.push(&cycle);
        }
        let s = stats.summary(1, None).unwrap();
        s.findings.iter().map(|f| f.id).collect()
    }

    /// 2.4 s of mark wall time a cycle for 4 ms of mark P time on 2 Ps fires; 8 ms does not.
    #[test]
    fn a_mark_far_longer_than_its_p_time_is_stretched_and_a_normal_one_is_not() {
        assert!(findings("2400").contains(&"stretched_mark"));
        assert!(!findings("8.0").contains(&"stretched_mark"));
    }
}
