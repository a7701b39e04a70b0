//! `gcscope lab --headless`: per-cycle lines while running, statistics at the end, and the
//! trace file (Go-format lines plus the `lab:` extension) that replays like a Go trace.

use super::{Config, LabCycle, RunEnd};
use crate::model::{Cycle, ScanStats};
use crate::stats::median_u64;
use crate::trace::format;
use serde::Serialize;
use std::io::Write;

/// End-of-run statistics (`--json`; keys documented in docs/LAB.md).
#[derive(Debug, Clone, Serialize)]
pub struct LabSummary {
    pub marker: &'static str,
    pub workload: &'static str,
    pub gogc: u64,
    pub procs: usize,
    pub seed: u64,
    pub scale: f64,
    /// Cycles after the workload built its long-lived heap (the statistics below use these;
    /// all cycles if there are none).
    pub cycles: usize,
    pub setup_cycles: usize,
    pub wall_s: f64,
    pub ops_per_s: f64,
    pub gc_cpu_ms_per_cycle: f64,
    pub compulsory_cpu_ms_per_cycle: f64,
    pub thread_cpu_ms_per_cycle: f64,
    pub mark_wall_ms_median: f64,
    pub page_scan_density: Option<f64>,
    /// Objects per span visit from the Go-style `scan:` counters (Green Tea only).
    pub go_scan_density: Option<f64>,
    pub idle_share: Option<f64>,
    pub objects_freed: u64,
    pub heap_live_mb_median: f64,
    /// Live heap marked per second of mark CPU (assist + background + idle, Go's accounting).
    pub mark_throughput_mb_per_cpu_s: Option<f64>,
    pub pause_ms: Pauses,
    pub checks: super::Checks,
}

#[derive(Debug, Clone, Serialize)]
pub struct Pauses {
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

fn ms(ns: f64) -> f64 {
    ns / 1e6
}

/// Nearest-rank percentile of sorted values.
fn pct(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

pub fn summarize(cfg: &Config, cycles: &[(Cycle, bool)], end: &RunEnd) -> LabSummary {
    let steady: Vec<&Cycle> = cycles.iter().filter(|(_, s)| !s).map(|(c, _)| c).collect();
    let use_: Vec<&Cycle> = if steady.is_empty() {
        cycles.iter().map(|(c, _)| c).collect()
    } else {
        steady.clone()
    };
    let n = use_.len().max(1) as f64;
    let sum = |f: &dyn Fn(&Cycle) -> u64| use_.iter().map(|c| f(c)).sum::<u64>();
    let mark_cpu = sum(&|c| c.mark_cpu());
    let (objs, visits) = (
        sum(&|c| c.lab.as_ref().map_or(0, |l| l.objects_scanned)),
        sum(&|c| c.lab.as_ref().map_or(0, |l| l.page_visits)),
    );
    let go = use_
        .iter()
        .filter_map(|c| c.scan.as_ref()?.total.green_tea)
        .fold((0, 0), |(o, v), g| {
            (
                o + g.sparse_objs + g.span_objs_sparse + g.span_objs_dense,
                v + g.visits(),
            )
        });
    let mut pauses: Vec<u64> = use_.iter().map(|c| c.pause()).collect();
    pauses.sort_unstable();
    let live = sum(&|c| c.heap_live);
    LabSummary {
        marker: cfg.marker.name(),
        workload: cfg.shape.name(),
        gogc: cfg.gogc,
        procs: cfg.procs,
        seed: cfg.seed,
        scale: cfg.scale,
        cycles: use_.len(),
        setup_cycles: cycles.len() - steady.len(),
        wall_s: end.wall.as_secs_f64(),
        ops_per_s: end.ops as f64 / end.wall.as_secs_f64().max(1e-9),
        gc_cpu_ms_per_cycle: ms(sum(&|c| c.gc_cpu()) as f64 / n),
        compulsory_cpu_ms_per_cycle: ms(sum(&|c| c.compulsory_cpu()) as f64 / n),
        thread_cpu_ms_per_cycle: ms(sum(&|c| c.lab.as_ref().map_or(0, |l| l.thread_cpu)) as f64 / n),
        mark_wall_ms_median: ms(median_u64(
            &mut use_.iter().map(|c| c.mark_wall()).collect::<Vec<_>>(),
        )
        .unwrap_or(0.0)),
        page_scan_density: (visits > 0).then(|| objs as f64 / visits as f64),
        go_scan_density: (go.1 > 0).then(|| go.0 as f64 / go.1 as f64),
        idle_share: (mark_cpu > 0).then(|| sum(&|c| c.cpu.idle) as f64 / mark_cpu as f64),
        objects_freed: cycles
            .iter()
            .map(|(c, _)| c.lab.as_ref().map_or(0, |l| l.objects_freed))
            .sum(),
        heap_live_mb_median: median_u64(&mut use_.iter().map(|c| c.heap_live).collect::<Vec<_>>())
            .unwrap_or(0.0)
            / (1 << 20) as f64,
        mark_throughput_mb_per_cpu_s: (mark_cpu > 0)
            .then(|| (live as f64 / (1 << 20) as f64) / (mark_cpu as f64 / 1e9)),
        pause_ms: Pauses {
            p50: ms(pct(&pauses, 0.5) as f64),
            p99: ms(pct(&pauses, 0.99) as f64),
            max: ms(pauses.last().copied().unwrap_or(0) as f64),
        },
        checks: end.checks.clone(),
    }
}

/// The `scan:` lines Go prints under gctrace=2 for these counters: the total, then one per
/// size class (`L` for large objects).
pub fn scan_lines(s: &ScanStats) -> String {
    let mut out = format!("scan: total {}\n", scan_counts(&s.total));
    for (size, c) in &s.classes {
        let class = if *size == 0 {
            "L".to_string()
        } else {
            format!("{size}B")
        };
        out.push_str(&format!("scan: class {class} {}\n", scan_counts(c)));
    }
    out
}

fn scan_counts(c: &crate::model::ScanCounts) -> String {
    match c.green_tea {
        Some(g) => format!(
            "{}+{}+{}={} objs, {}+{}={} spans",
            g.sparse_objs,
            g.span_objs_sparse,
            g.span_objs_dense,
            g.sparse_objs + g.span_objs_sparse + g.span_objs_dense,
            g.spans_sparse,
            g.spans_dense,
            g.spans_sparse + g.spans_dense
        ),
        None => format!("{} objs", c.objs),
    }
}

/// A cycle as trace text: the `lab:` line, the gc line, the `scan:` line.
pub fn trace_lines(c: &Cycle) -> String {
    let mut s = String::with_capacity(400);
    if let Some(l) = &c.lab {
        s.push_str(&format::lab_line(l));
        s.push('\n');
    }
    s.push_str(&format::line(c));
    s.push('\n');
    if let Some(scan) = &c.scan {
        s.push_str(&scan_lines(scan));
    }
    s
}

/// One line for a person watching a headless run.
pub fn human_line(c: &Cycle) -> String {
    let mut s = format::line(c);
    if let Some(l) = &c.lab {
        s.push_str(&format!(
            "  | {:.1} objs/page visit, {} freed",
            l.density().unwrap_or(0.0),
            l.objects_freed
        ));
    }
    if let Some(share) = c.idle_share() {
        s.push_str(&format!(", idle {:.0}%", share * 100.0));
    }
    s
}

/// Runs headless: prints each cycle (to stderr when stdout carries JSON), writes the trace
/// file, returns the statistics.
pub fn run(
    cfg: &Config,
    json: bool,
    mut trace_out: Option<&mut dyn Write>,
) -> std::io::Result<LabSummary> {
    let mut cycles = Vec::new();
    let mut err = None;
    if let Some(w) = trace_out.as_deref_mut() {
        writeln!(w, "# gcscope {}", cfg.label())?;
    }
    let end = super::run(cfg, |lc: LabCycle| {
        let c = lc.result.cycle;
        let line = human_line(&c);
        if json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
        if let Some(w) = trace_out.as_deref_mut() {
            if let Err(e) = w.write_all(trace_lines(&c).as_bytes()) {
                err = Some(e);
                return false;
            }
        }
        cycles.push((c, lc.setup));
        true
    });
    if let Some(e) = err {
        return Err(e);
    }
    Ok(summarize(cfg, &cycles, &end))
}

/// The end-of-run statistics for a person.
pub fn summary_text(s: &LabSummary) -> String {
    let opt = |v: Option<f64>, d: usize| v.map_or("-".into(), |v| format!("{v:.d$}"));
    format!(
        "\n{} {} GOGC={} P={} seed={} scale={}: {} cycles ({} during setup) in {:.1} s\n\
         GC CPU/cycle {:.2} ms (compulsory {:.2} ms, thread CPU {:.2} ms), mark wall median {:.2} ms\n\
         page scan density {} objects/page visit (Go counters: {}), idle share {}\n\
         pauses p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; live heap median {:.1} MB; {} objects freed\n\
         mark throughput {} MB/CPU-s; checks {}\n",
        s.workload,
        s.marker,
        s.gogc,
        s.procs,
        s.seed,
        s.scale,
        s.cycles,
        s.setup_cycles,
        s.wall_s,
        s.gc_cpu_ms_per_cycle,
        s.compulsory_cpu_ms_per_cycle,
        s.thread_cpu_ms_per_cycle,
        s.mark_wall_ms_median,
        opt(s.page_scan_density, 2),
        opt(s.go_scan_density, 2),
        opt(s.idle_share, 3),
        s.pause_ms.p50,
        s.pause_ms.p99,
        s.pause_ms.max,
        s.heap_live_mb_median,
        s.objects_freed,
        opt(s.mark_throughput_mb_per_cpu_s, 0),
        if s.checks.clean() { "clean".to_string() } else { format!("{:?}", s.checks) },
    )
}
