//! `gcscope tune` as text: what the fit read, the predictions as a table marked "model", the
//! changes against the trace's own setting, and what was assumed.

use crate::stats::tune::verify::Verified;
use crate::stats::tune::{Prediction, Setting, Tune};
use std::fmt::Write as _;

fn setting(p: &Prediction) -> String {
    Setting {
        gogc: p.gogc,
        limit_mib: p.limit_mib,
    }
    .label()
}

fn signed_pct(x: f64) -> String {
    format!("{:+.0}%", x * 100.0)
}

/// One setting's cost against the run's own: "GOGC=200: GC P time -45%, peak heap +60 MiB".
#[must_use]
pub fn tune_change(p: &Prediction, own: &Prediction) -> String {
    let cpu = if own.compulsory_gc_cpu_s > 0.0 {
        signed_pct(p.compulsory_gc_cpu_s / own.compulsory_gc_cpu_s - 1.0)
    } else {
        "n/a".into()
    };
    format!(
        "{}: GC P time {cpu}, peak heap {:+.0} MiB",
        setting(p),
        p.peak_heap_mb - own.peak_heap_mb
    )
}

/// The settings worth trying against the run's own: the nearest lower and higher GOGC that
/// the model predicts (x1.4 or more from the run's own), and any limit asked for.
#[must_use]
pub fn worth_trying_predictions(t: &Tune) -> Vec<&Prediction> {
    let Some(own) = t.predictions.iter().find(|p| p.own) else {
        return Vec::new();
    };
    let ok: Vec<&Prediction> = t
        .predictions
        .iter()
        .filter(|p| p.refused.is_none() && !p.own)
        .collect();
    let g = f64::from(own.gogc.unwrap_or(100));
    let lower = ok
        .iter()
        .filter(|p| p.limit_mib.is_none() && p.gogc.is_some_and(|x| f64::from(x) * 1.4 <= g))
        .max_by_key(|p| p.gogc);
    let higher = ok
        .iter()
        .filter(|p| p.limit_mib.is_none() && p.gogc.is_some_and(|x| f64::from(x) >= g * 1.4))
        .min_by_key(|p| p.gogc);
    let limits = ok.iter().filter(|p| p.limit_mib.is_some());
    lower
        .into_iter()
        .chain(higher)
        .chain(limits)
        .copied()
        .collect()
}

/// Those settings' costs against the run's own, one line each.
#[must_use]
pub fn worth_trying(t: &Tune) -> Vec<String> {
    let Some(own) = t.predictions.iter().find(|p| p.own) else {
        return Vec::new();
    };
    worth_trying_predictions(t)
        .into_iter()
        .map(|p| tune_change(p, own))
        .collect()
}

/// `tune --verify` as text: per setting and figure, the model's range beside the measured
/// median and range, and whether it held.
#[must_use]
pub fn verify_text(command: &str, runs: usize, work_mib: f64, v: &[Verified]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "verify: {command}\n  {runs} run{} a setting, interleaved; each run's cycles and GC P \
         time scaled to the trace's work ({work_mib:.0} MiB allocated)",
        if runs == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        s,
        "  {:<26} {:<15} {:>22} {:>26}  held",
        "setting", "figure", "model [range]", "measured median [min-max]"
    );
    let mut held = 0;
    for x in v {
        let name = format!(
            "{}{}",
            x.setting().label(),
            if x.own { " (trace)" } else { "" }
        );
        let Some(m) = &x.measured else {
            let _ = writeln!(
                s,
                "  {name:<26} no run gave figures ({} failed)",
                x.failed_runs
            );
            continue;
        };
        let h = x.held;
        held += usize::from(h.is_some_and(|h| h.all()));
        let rows = [
            (
                "cycles",
                x.predicted.cycles,
                x.range[0].cycles,
                x.range[1].cycles,
                &m.cycles,
                h.map(|h| h.cycles),
                0,
            ),
            (
                "GC P time s",
                x.predicted.compulsory_gc_cpu_s,
                x.range[0].compulsory_gc_cpu_s,
                x.range[1].compulsory_gc_cpu_s,
                &m.compulsory_gc_cpu_s,
                h.map(|h| h.compulsory_gc_cpu_s),
                2,
            ),
            (
                "peak heap MiB",
                x.predicted.peak_heap_mb,
                x.range[0].peak_heap_mb,
                x.range[1].peak_heap_mb,
                &m.peak_heap_mb,
                h.map(|h| h.peak_heap_mb),
                0,
            ),
        ];
        for (i, (fig, p, lo, hi, sp, ok, d)) in rows.into_iter().enumerate() {
            let model = format!("{p:.d$} [{lo:.d$}-{hi:.d$}]");
            let meas = format!("{:.d$} [{:.d$}-{:.d$}]", sp.median, sp.min, sp.max);
            let _ = writeln!(
                s,
                "  {:<26} {fig:<15} {model:>22} {meas:>26}  {}",
                if i == 0 { name.as_str() } else { "" },
                match ok {
                    Some(true) => "yes",
                    Some(false) => "NO",
                    None => "-",
                }
            );
        }
        if x.failed_runs > 0 {
            let _ = writeln!(
                s,
                "  {:<26} {} run(s) failed and are left out",
                "", x.failed_runs
            );
        }
    }
    let _ = writeln!(
        s,
        "the model held on {held} of {} settings (every figure's measured median inside its range)",
        v.len()
    );
    // The trace's own setting is the control: the model there is the trace's own figures
    // (calibrated), so a miss says the runs differ from the trace, not the model from the
    // runtime, and every other setting's miss in that figure may be the same difference.
    if let Some((x, h, m)) = v
        .iter()
        .filter(|x| x.own)
        .find_map(|x| Some((x, x.held?, x.measured.as_ref()?)))
    {
        let misses: Vec<String> = [
            (h.cycles, "cycles", x.predicted.cycles, m.cycles.median, 0),
            (
                h.compulsory_gc_cpu_s,
                "GC P time s",
                x.predicted.compulsory_gc_cpu_s,
                m.compulsory_gc_cpu_s.median,
                2,
            ),
            (
                h.peak_heap_mb,
                "peak heap MiB",
                x.predicted.peak_heap_mb,
                m.peak_heap_mb.median,
                0,
            ),
        ]
        .into_iter()
        .filter(|(ok, ..)| !ok)
        .map(|(_, fig, p, got, d)| format!("{fig} {got:.d$} against the trace's {p:.d$}"))
        .collect();
        if !misses.is_empty() {
            let _ = writeln!(
                s,
                "the trace's own setting, the control, measured {}: these runs differ from \
                 the trace (a spread from run to run one trace cannot show, another machine or \
                 its load, another build or input), so the other settings' misses in that \
                 figure may be the same difference; fit a trace recorded where the runs are",
                misses.join(", ")
            );
        }
    }
    s
}

/// The whole text of one run's `tune`.
#[must_use]
pub fn tune_text(name: &str, run: usize, t: &Tune) -> String {
    let b = &t.basis;
    let mut s = String::new();
    let gogc = b.trace_gogc.map_or(
        "GOGC unknown (the pacer model cannot read it)".into(),
        |g| format!("GOGC {g} read back"),
    );
    let _ = writeln!(
        s,
        "{name}: run {}, {} cycles ({} pairs fitted), {} formula, {} P, {gogc}",
        run + 1,
        b.cycles,
        b.pairs_used,
        b.formula,
        b.procs
    );
    let _ = writeln!(
        s,
        "  work        {:.0} MiB allocated over {:.2} s ({:.0} MiB/s); live heap {:.1} MiB \
         ({:.1}-{:.1}), stacks + globals {:.1} MiB; a cycle uses {:.2} of its runway (median)",
        b.work_mib,
        b.span_s,
        b.alloc_mib_per_s,
        b.live_mib.mean,
        b.live_mib.min,
        b.live_mib.max,
        b.roots_mib,
        b.runway_used
    );
    let c = &b.cost;
    let cost = format!(
        "{:.2} ms (mean); against the scan work {:.2} ms + {:.3} ms/MiB (r2 {:.2}, rms {:.2} ms)",
        c.mean_ms, c.intercept_ms, c.ms_per_mib, c.r2, c.rms_ms
    );
    let _ = writeln!(
        s,
        "  cost        compulsory GC P time per cycle {cost}; idle marking {:.2} ms/cycle left out",
        b.idle_ms_per_cycle
    );
    if let (Some(e), Some(g)) = (b.goal_check, b.trace_gogc) {
        let _ = writeln!(
            s,
            "  self-check  the runtime's goal rule at GOGC={g} gives the trace's goals within {:.1}% (median)",
            e * 100.0
        );
    }
    let _ = writeln!(
        s,
        "model, not measured (`gcscope tune TRACE --verify -- CMD` runs it), for the same work:"
    );
    let _ = writeln!(
        s,
        "  {:<28} {:>8} {:>11} {:>9} {:>10} {:>10} {:>9}",
        "setting", "cycles", "GC P time", "of Ps", "peak heap", "mean heap", "cycles/s"
    );
    for p in &t.predictions {
        let name = format!("{}{}", setting(p), if p.own { " (trace)" } else { "" });
        if let Some(why) = &p.refused {
            let _ = writeln!(s, "  {name:<28} not predicted: {why}");
            continue;
        }
        let _ = writeln!(
            s,
            "  {name:<28} {:>8.0} {:>9.2} s {:>8.1}% {:>6.0} MiB {:>6.0} MiB {:>9.1}{}",
            p.cycles,
            p.compulsory_gc_cpu_s,
            p.gc_share_of_ps * 100.0,
            p.peak_heap_mb,
            p.mean_heap_mb,
            p.cycles_per_s,
            match (p.cpu_limiter, p.limit_mib.is_some()) {
                (true, _) => "  limiter: GC capped at ~50% of the Ps, the heap overruns the limit"
                    .to_string(),
                (false, true) if p.limit_binds_share > 0.0 => {
                    format!("  limit sets {:.0}% of goals", p.limit_binds_share * 100.0)
                }
                (false, true) => "  limit does not bind".to_string(),
                _ => String::new(),
            }
        );
    }
    let tries = worth_trying(t);
    if !tries.is_empty() {
        let _ = writeln!(s, "against the trace's own setting (model):");
        for line in tries {
            let _ = writeln!(s, "  {line}");
        }
    }
    let _ = writeln!(s, "assumed:");
    for a in &b.assumptions {
        let _ = writeln!(s, "  - {a}");
    }
    s
}
