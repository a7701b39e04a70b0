//! `memory_limit`: goals a memory limit set (below GOGC's, by the pacer model), graded by how pinned
//! they are and what GC takes.

use super::{cycles_of, finding, gogc_words};
use super::{Ctx, Finding, Rule, Severity};

pub(super) struct MemoryLimit;

impl Rule for MemoryLimit {
    fn id(&self) -> &'static str {
        "memory_limit"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { s, .. } = *cx;
        let Some(p) = &s.pacer else {
            return;
        };
        let judged = p.cycles_judged;
        if p.limit_cycles >= 3 && 10 * p.limit_cycles >= judged {
            let pinned = f64::from(p.pinned_cycles) / f64::from(judged.max(1));
            let gc_pct = s.final_gc_pct;
            let (severity, grade) = if pinned >= 0.5 && gc_pct >= 25 {
                (
                    Severity::Warn,
                    format!(
                        "The goal is pinned to the live heap in {} cycles and GC took {gc_pct}% \
                         (Go's printed %, cumulative since start): the death spiral the CPU limiter \
                         guards against (at most ~50% of the Ps, mgclimit.go). ",
                        p.pinned_cycles
                    ),
                )
            } else if pinned >= 0.2 || gc_pct >= 25 {
                (
                    Severity::Warn,
                    format!(
                        "Little room is left: the goal sits at the live heap in {} cycles and \
                         GC took {gc_pct}% (Go's printed %): a risk of thrashing as the live heap \
                         grows. ",
                        p.pinned_cycles
                    ),
                )
            } else {
                (Severity::Info, String::new())
            };
            let evidence = if p.pinned_first.is_empty() {
                &p.limit_first
            } else {
                &p.pinned_first
            };
            out.push(finding(
                self.id(),
                severity,
                &cycles_of(evidence),
                format!(
                    "A memory limit (GOMEMLIMIT) set the goal in {} of {judged} cycles: below what \
                     {} would give from the live heap and roots (goals held at a ceiling while the \
                     live heap moved, or at the live heap itself). {grade}The runtime never sets \
                     the goal below the live heap (mgcpacer.go). Not claimed: the limit's value \
                     (the trace does not print it).",
                    p.limit_cycles,
                    gogc_words(p),
                ),
            ));
        }
    }
}
