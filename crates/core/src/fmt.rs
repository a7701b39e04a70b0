//! Numbers as people read them, shared by the headless reports and the dashboard: one
//! formatter per kind of figure, so a figure reads the same in every view.

use crate::stats::compare::{Change, Metric, Row, Verdict};
use crate::stats::Spread;
// The model's units, named here too: reports and the dashboard format every figure from this
// module.
pub use gcscope_model::units::{escape_controls, go_ms, path, Fixed};

/// How Go prints gc lines, for a source that had none: the dashboard's guide and the headless
/// commands' hint on stderr say the same.
pub const NO_GC_LINES_HINT: [&str; 6] = [
    "Go prints one line per GC cycle on standard error when GODEBUG has gctrace=1:",
    "  GODEBUG=gctrace=1 ./prog 2>&1 | gcscope -      (2>&1: the lines are on stderr)",
    "  GODEBUG=gctrace=1 ./prog 2> gc.log; gcscope view gc.log",
    "GODEBUG=gctrace=2 (Go 1.25+) adds scan: lines: page scan density, Green Tea's measure.",
    "gcscope reads Go 1.5 and later; older runtimes printed another format.",
    "No Go program at hand? `gcscope demo` replays a real A/B; `gcscope` runs the lab.",
];

/// A share (0..1) as a percentage with one decimal, or `n/a`.
#[must_use]
pub fn pct(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |v| format!("{}%", Fixed(v * 100.0, 1)))
}

/// `median [min-max]`, or the single value of one run.
#[must_use]
pub fn spread_text(s: &Option<Spread>) -> String {
    spread_with(s, &fmt_num)
}

/// A comparison row's side as `spread_text` has it, in the unit and precision every view
/// uses for the figure: the idle share, a fraction in JSON, reads as a percentage everywhere
/// in text (`2.4% [2.3%-3.1%]`), as `summary` and the CPU pane print it; times in ms at
/// gctrace's precision (`go_ms`).
#[must_use]
pub fn row_spread(r: &Row, s: &Option<Spread>) -> String {
    let p: &dyn Fn(f64) -> String = match Metric::from_key(&r.metric) {
        Some(Metric::IdleShare | Metric::AssistShare) => &|v| format!("{}%", Fixed(v * 100.0, 1)),
        Some(Metric::CyclesPerRun) => &|v| Fixed(v, 0).to_string(),
        Some(m) if m.is_ms() => &go_ms,
        // Go prints the cumulative GC CPU as a whole percentage.
        Some(Metric::GcCpuPct) => &|v| Fixed(v, 0).to_string(),
        _ => &fmt_num,
    };
    spread_with(s, p)
}

/// `median [min-max]` (or the one value of one run), each number by `p`.
fn spread_with(s: &Option<Spread>, p: &dyn Fn(f64) -> String) -> String {
    match s {
        Some(s) if s.n == 1 => p(s.median),
        Some(s) => format!("{} [{}-{}]", p(s.median), p(s.min), p(s.max)),
        None => "n/a".into(),
    }
}

/// A run's percentiles as every view prints them, `p50 X  p90 Y  p99 Z  max W` in ms at
/// gctrace's precision; the p99 left out of a run under `P99_CYCLES` cycles, where it would
/// only repeat the max.
#[must_use]
pub fn percentiles_text(p: &crate::stats::percentile::Percentiles, cycles: usize) -> String {
    let p99 = if cycles < crate::stats::compare::P99_CYCLES {
        String::new()
    } else {
        format!("  p99 {}", go_ms(p.p99))
    };
    format!(
        "p50 {}  p90 {}{p99}  max {}",
        go_ms(p.p50),
        go_ms(p.p90),
        go_ms(p.max)
    )
}

/// Three significant digits, no exponent below 10^15; from there (a program's own figure
/// can be anything: a 300-digit value widened every table line to 1,256 columns) and for
/// the non-finite, scientific form.
#[must_use]
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        return v.to_string();
    }
    if a >= 1e15 {
        return format!("{v:.2e}");
    }
    if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// A comparison's change as people read it: `-31.0%`, `+1.2 pp`, `×3.10`.
#[must_use]
pub fn change_text(r: &Row) -> Option<String> {
    let c = r.change?;
    Some(match r.unit {
        Change::Relative => format!("{c:+.1}%"),
        Change::Points => format!("{c:+.1} pp"),
        Change::Ratio => format!("×{}", fmt_num(c)),
    })
}

/// A comparison's cell: the change where there is a verdict; otherwise `A only`, `B only`,
/// `n/a`, or `~` (no verdict; the row's `why` says why).
#[must_use]
pub fn verdict_text(r: &Row) -> String {
    match (r.a, r.b, r.verdict) {
        (None, None, _) => "n/a".into(),
        (Some(_), None, _) => "A only".into(),
        (None, Some(_), _) => "B only".into(),
        (_, _, Verdict::None) => "~".into(),
        _ => change_text(r).unwrap_or_else(|| "n/a".into()),
    }
}
/// The pacer in a line, for the summary and the heap panel: the GOGC read back and what it
/// rests on, then the floor and the limit where they set goals.
#[must_use]
pub fn pacer_text(p: &crate::stats::pacer::PacerSummary) -> String {
    let mut parts = Vec::new();
    let judged = p.cycles_judged;
    match (p.off, p.gogc, p.gogc_range) {
        (Some(true), _, _) => parts.push("GOGC=off (no GOGC goal)".to_string()),
        (_, Some(g), Some([lo, hi])) => {
            let basis = match p.gogc_basis {
                Some("floor") => "from the floor".to_string(),
                Some("first_goal") => "from the first goal".to_string(),
                _ => format!("{} of {judged} cycles", p.gogc_cycles),
            };
            parts.push(format!("GOGC {g} ({lo}-{hi}, {basis})"));
        }
        (_, None, Some([lo, hi])) => parts.push(format!("GOGC {lo}-{hi} (too coarse to name one)")),
        _ if judged == 0 => parts.push("GOGC unknown (no cycle to judge)".to_string()),
        _ => parts.push("GOGC unknown".to_string()),
    }
    if p.flat_goal {
        parts.push("goal flat: GOGC or a limit, the trace cannot tell".into());
    }
    for c in &p.changes {
        parts.push(format!("GOGC {} -> {} at gc {}", c.from, c.to, c.cycle));
    }
    if p.floor_cycles > 0 {
        let at = p.floor_mb.map(|f| format!(" ({f} MB)")).unwrap_or_default();
        parts.push(format!("floor{at} set {} goals", p.floor_cycles));
    }
    if p.limit_cycles > 0 {
        let pinned = match p.pinned_cycles {
            0 => String::new(),
            n => format!(", {n} pinned to the live heap"),
        };
        parts.push(format!(
            "a memory limit set {} of {judged} goals{pinned}",
            p.limit_cycles
        ));
    }
    if let Some(n) = p.judged_one_block_in {
        parts.push(format!("a long run: 1 block of 64 cycles in {n} judged"));
    }
    if p.sampled_gaps > 0 {
        let what = if p.sampled_gaps == 1 {
            "cycle"
        } else {
            "cycles"
        };
        parts.push(format!(
            "{} {what} after missing lines not judged",
            p.sampled_gaps
        ));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::fmt_num;

    #[test]
    fn huge_figures_are_scientific_and_the_rest_three_digits() {
        assert_eq!(fmt_num(1234.5), "1234");
        assert_eq!(fmt_num(12.345), "12.3");
        assert_eq!(fmt_num(0.01234), "0.012");
        assert_eq!(fmt_num(999e12), "999000000000000");
        assert_eq!(fmt_num(1e300), "1.00e300");
        assert_eq!(fmt_num(-2.5e20), "-2.50e20");
        assert_eq!(fmt_num(f64::INFINITY), "inf");
        assert!(fmt_num(f64::MAX).len() < 12);
    }
}
