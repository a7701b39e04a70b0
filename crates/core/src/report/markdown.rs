//! `summary --format markdown`: each run a row of the figures a reviewer reads first, then the
//! findings, ready to paste into a PR or an issue. The same figures as the text summary, by
//! the same code (`RunSummary`), at the same printed precision.

use super::{Source, Spool};
use crate::fmt::{escape_controls, go_ms, pct};
use crate::stats::compare::P99_CYCLES;
use crate::stats::findings::Severity;
use crate::stats::summary::RunSummary;
use crate::timeline::RetiredRun;
use std::fmt::Write;

/// A Markdown cell: escaped for the terminal and for the table (`|` would end the cell).
fn cell(s: &str) -> String {
    escape_controls(s).replace('|', "\\|")
}

/// The runs a timeline retired while it was read, formatted then (`retired_run_markdown`):
/// their table rows and their findings' lines, each spooled until the table is written.
#[derive(Default)]
pub struct MarkdownSpools {
    rows: Spool,
    findings: Spool,
}

/// A retired run's row and findings, into its source's spools.
pub fn retired_run_markdown(r: &RetiredRun, name: &str, spools: &mut MarkdownSpools) {
    if let (Some(n), Some(summary)) = (r.number, r.summary()) {
        let (mut row, mut findings) = (String::new(), String::new());
        run_markdown(&mut row, &mut findings, name, n, &summary);
        spools.rows.push(row.as_bytes());
        spools.findings.push(findings.as_bytes());
    }
}

/// One run's table row into `o` and its findings' lines into `findings`.
fn run_markdown(o: &mut String, findings: &mut String, name: &str, n: usize, r: &RunSummary) {
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
        cell(name),
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
            cell(name),
            cell(&f.text)
        );
    }
}

/// `summary --format markdown`: each source's retired runs (`retired[k]`, spooled as they
/// were retired) before its held ones, in the table and in the findings.
///
/// # Errors
/// A spool that could not be written (a full disk), or the output's error.
pub fn write_summary_markdown_after(
    sources: &[Source],
    retired: &mut [MarkdownSpools],
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    for sp in retired.iter() {
        sp.rows.check()?;
        sp.findings.check()?;
    }
    out.write_all(
        "| source | run | format, P | cycles | Go's GC % | GC P time ms (compulsory) | \
         compulsory P ms/cycle: mean, median | idle share of GC P time | pause ms p50 / p99 / max | \
         live heap MB | goal MB | GOGC (pacer) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n"
            .as_bytes(),
    )?;
    // The held runs' findings, per source, written after every retired one's.
    let mut held_findings: Vec<String> = Vec::with_capacity(sources.len());
    for (k, s) in sources.iter().enumerate() {
        if let Some(sp) = retired.get_mut(k) {
            sp.rows.copy_to(out, 0)?;
        }
        let (mut rows, mut findings) = (String::new(), String::new());
        for (n, r) in s.timeline.numbered_summaries() {
            run_markdown(&mut rows, &mut findings, &s.name, n, &r);
        }
        out.write_all(rows.as_bytes())?;
        held_findings.push(findings);
    }
    let _ = writeln!(
        out,
        "\nGo's cpu fields are P time (wall time while holding a P), not CPU seconds; compulsory \
         = all GC P time but idle marking. p99 is `-` for a run under {P99_CYCLES} cycles (it \
         would be the max)."
    );
    let any = held_findings.iter().any(|f| !f.is_empty())
        || retired.iter().any(|sp| !sp.findings.is_empty());
    if any {
        out.write_all(b"\nFindings:\n\n")?;
        for (k, f) in held_findings.iter().enumerate() {
            if let Some(sp) = retired.get_mut(k) {
                sp.findings.copy_to(out, 0)?;
            }
            out.write_all(f.as_bytes())?;
        }
    }
    Ok(())
}
