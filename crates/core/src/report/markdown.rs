//! `summary --format markdown`: each run a row of the figures a reviewer reads first, then the
//! findings, ready to paste into a PR or an issue. The same figures as the text summary, by
//! the same code (`RunSummary`), at the same printed precision.

use super::Source;
use crate::fmt::{escape_controls, go_ms, pct};
use crate::stats::compare::P99_CYCLES;
use crate::stats::findings::Severity;
use std::fmt::Write;

/// A Markdown cell: escaped for the terminal and for the table (`|` would end the cell).
fn cell(s: &str) -> String {
    escape_controls(s).replace('|', "\\|")
}

#[must_use]
pub fn summary_markdown(sources: &[Source]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "| source | run | format, P | cycles | Go's GC % | GC P time ms (compulsory) | \
         compulsory P ms/cycle: mean, median | idle share of GC P time | pause ms p50 / p99 / max | \
         live heap MB | goal MB | GOGC (pacer) |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut findings = String::new();
    for s in sources {
        let last = crate::timeline::last_process(&s.timeline.runs);
        let runs = &s.timeline.runs;
        let mut n = 0;
        for k in 0..runs.len() {
            let Some(r) = crate::timeline::summary_in_log(runs, last, k) else {
                continue;
            };
            n += 1;
            let p = &r.pause_ms;
            let p99 = if r.cycles < P99_CYCLES {
                "-".to_string()
            } else {
                go_ms(p.p99)
            };
            let cycles = match r.before_window {
                0 => r.cycles.to_string(),
                b => format!("{} (+{b} before the window)", r.cycles),
            };
            let goal = r
                .heap_goal_mb
                .map_or("-".to_string(), |g| format!("{}..{}", g.min, g.max));
            let gogc = r
                .pacer
                .as_ref()
                .and_then(|p| p.gogc)
                .map_or("-".to_string(), |g| g.to_string());
            let earlier = if r.earlier_process {
                " (earlier process)"
            } else {
                ""
            };
            let _ = writeln!(
                o,
                "| {} | {n}{earlier} | {}, {} P | {cycles} | {} | {} ({}) | {}, {} | {} | {} / {p99} / {} | {}..{} | {goal} | {gogc} |",
                cell(&s.name),
                r.format,
                r.procs,
                r.final_gc_pct,
                go_ms(r.gc_cpu_ms),
                go_ms(r.compulsory_cpu_ms),
                go_ms(r.compulsory_ms_per_cycle()),
                go_ms(r.per_cycle_median_ms.compulsory_cpu),
                pct(r.idle_share),
                go_ms(p.p50),
                go_ms(p.max),
                r.heap_live_mb.min,
                r.heap_live_mb.max,
            );
            for f in &r.findings {
                let _ = writeln!(
                    findings,
                    "- **{}** {} (run {n} of {}): {}",
                    match f.severity {
                        Severity::Warn => "warn",
                        Severity::Info => "info",
                    },
                    f.id,
                    cell(&s.name),
                    cell(&f.text)
                );
            }
        }
    }
    let _ = writeln!(
        o,
        "\nGo's cpu fields are P time (wall time while holding a P), not CPU seconds; compulsory \
         = all GC P time but idle marking. p99 is `-` for a run under {P99_CYCLES} cycles (it \
         would be the max)."
    );
    if !findings.is_empty() {
        o.push_str("\nFindings:\n\n");
        o.push_str(&findings);
    }
    o
}
