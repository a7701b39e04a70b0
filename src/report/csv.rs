//! `summary --csv`: one row per cycle, for spreadsheets. The header is the row type's field
//! names, so header and rows cannot drift apart; rows are written as they are made.

use super::Source;
use crate::model::Cycle;
use crate::stats::ms;
use serde::Serialize;

/// One cycle. Times in ms, sizes in MB (whole MiB, as Go prints them).
#[derive(Serialize)]
struct Row<'a> {
    /// The file name, control characters escaped as in every text output.
    source: std::borrow::Cow<'a, str>,
    run: usize,
    cycle: u32,
    line: u64,
    at_s: f64,
    gc_pct: u16,
    forced: bool,
    clock_sweep_term_ms: f64,
    clock_mark_ms: f64,
    clock_mark_term_ms: f64,
    cpu_sweep_term_ms: f64,
    cpu_assist_ms: f64,
    cpu_background_ms: f64,
    cpu_idle_ms: f64,
    cpu_mark_term_ms: f64,
    pause_ms: f64,
    gc_cpu_ms: f64,
    compulsory_cpu_ms: f64,
    heap_start_mb: u64,
    heap_end_mb: u64,
    heap_live_mb: u64,
    goal_mb: Option<u64>,
    stacks_mb: Option<u64>,
    globals_mb: Option<u64>,
    procs: u32,
    scan_objects: Option<u64>,
    objects_per_span_visit: Option<f64>,
}

impl<'a> Row<'a> {
    fn new(source: &'a str, run: usize, c: &Cycle) -> Row<'a> {
        let mb = |v: Option<u64>| v.map(|b| b >> 20);
        Row {
            source: crate::fmt::escape_controls(source),
            run,
            cycle: c.num,
            line: c.line,
            at_s: c.at as f64 / 1e9,
            gc_pct: c.cum_pct,
            forced: c.forced,
            clock_sweep_term_ms: ms(c.clock.sweep_term),
            clock_mark_ms: ms(c.mark_wall()),
            clock_mark_term_ms: ms(c.clock.mark_term),
            cpu_sweep_term_ms: ms(c.cpu.sweep_term),
            cpu_assist_ms: ms(c.cpu.assist),
            cpu_background_ms: ms(c.cpu.background),
            cpu_idle_ms: ms(c.cpu.idle),
            cpu_mark_term_ms: ms(c.cpu.mark_term),
            pause_ms: ms(c.pause()),
            gc_cpu_ms: ms(c.gc_cpu()),
            compulsory_cpu_ms: ms(c.compulsory_cpu()),
            heap_start_mb: c.heap_start >> 20,
            heap_end_mb: c.heap_end >> 20,
            heap_live_mb: c.heap_live >> 20,
            goal_mb: mb(c.goal),
            stacks_mb: mb(c.stacks),
            globals_mb: mb(c.globals),
            procs: c.procs,
            scan_objects: c.scan.as_ref().map(|s| s.total.objs),
            objects_per_span_visit: c.page_density(),
        }
    }
}

/// Every cycle of every source, one row each, written to `out` as it goes.
pub fn write_summary_csv(sources: &[Source], mut out: impl std::io::Write) -> csv::Result<()> {
    if sources
        .iter()
        .all(|s| s.timeline.runs.iter().all(|r| r.cycles.is_empty()))
    {
        // No cycles: the header alone, so a spreadsheet still sees the columns. serde writes
        // the header with the first row; the row is made and left out.
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(Row::new("", 0, &Cycle::default()))?;
        let text = w.into_inner().map_err(|e| e.into_error())?;
        let header = text.split(|&b| b == b'\n').next().unwrap_or_default();
        out.write_all(header)?;
        out.write_all(b"\n")?;
        return Ok(());
    }
    let mut w = csv::Writer::from_writer(out);
    for s in sources {
        for (ri, run) in s.timeline.runs.iter().enumerate() {
            for c in &run.cycles {
                w.serialize(Row::new(&s.name, ri + 1, c))?;
            }
        }
    }
    w.flush()?;
    Ok(())
}
