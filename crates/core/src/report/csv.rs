//! `summary --csv`: one row per cycle, for spreadsheets. The header is the row type's field
//! names, so header and rows cannot drift apart; rows are written as they are made.

use crate::stats::ms;
use crate::timeline::Timeline;
use crate::Error;
use gcscope_model::{Cycle, Event, RunId};
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

/// `summary --csv` as the input streams: rows are written while sources are read, in input
/// order, with at most one cycle held (its `scan:` lines follow it: it is written when the next
/// cycle arrives, or its source ends). Memory stays flat however long the input.
pub struct CsvRows<W: std::io::Write> {
    /// The steady-state window: rows only for the cycles inside it.
    pub window: crate::timeline::Window,
    w: csv::Writer<W>,
    rows: usize,
    failed: Option<csv::Error>,
}

impl<W: std::io::Write> CsvRows<W> {
    pub fn new(out: W) -> Self {
        CsvRows {
            window: crate::timeline::Window::default(),
            w: csv::Writer::from_writer(out),
            rows: 0,
            failed: None,
        }
    }

    /// Reads one source: `read` is given the sink its events go to.
    /// A source's own error (`E`) comes back as it is; a CSV write error as `E` too.
    pub fn source<E: From<Error>>(
        &mut self,
        name: &str,
        read: impl FnOnce(&mut dyn FnMut(Event)) -> Result<(), E>,
    ) -> Result<(), E> {
        // The timeline decides which run a cycle is in and which scan: lines count, as for
        // every other view; its cycles are written and dropped as they complete.
        let mut tl = Timeline {
            drop_text: true,
            window: self.window,
            // Rows are written as they come: a run no cycle can reach again has no more.
            retire: Some(crate::timeline::Retire::drop_them()),
            // Rows need no medians: the statistics count and check, and hold nothing a cycle.
            lean_stats: true,
            ..Timeline::default()
        };
        let mut held: Option<RunId> = None;
        let mut sink = |ev: Event| {
            if self.failed.is_some() {
                return;
            }
            let cycle_run = match &ev {
                Event::Cycle { run, .. } => Some(*run),
                _ => None,
            };
            if let (Some(_), Some(prev)) = (cycle_run, held) {
                if let Err(e) = self.flush_run(name, &mut tl, prev) {
                    self.failed = Some(e);
                }
            }
            tl.apply(ev);
            if cycle_run.is_some() {
                held = cycle_run;
            }
        };
        read(&mut sink)?;
        if let Some(prev) = held {
            let r = self.flush_run(name, &mut tl, prev);
            self.failed = self.failed.take().or(r.err());
        }
        match self.failed.take() {
            Some(e) => Err(Error::from(e).into()),
            None => Ok(()),
        }
    }

    /// Writes and drops the cycles `run` holds.
    fn flush_run(&mut self, name: &str, tl: &mut Timeline, run: RunId) -> csv::Result<()> {
        if let Some(r) = tl.run_mut(run.index()) {
            for c in std::mem::take(&mut r.cycles) {
                self.w.serialize(Row::new(name, run.number(), &c))?;
                self.rows += 1;
            }
        }
        Ok(())
    }

    /// Ends the table: with no cycles at all, the header alone, so a spreadsheet still sees
    /// the columns.
    pub fn finish(mut self) -> Result<(), Error> {
        if self.rows == 0 {
            // serde writes the header with the first row; the row is made and left out.
            let mut w = csv::Writer::from_writer(Vec::new());
            w.serialize(Row::new("", 0, &Cycle::default()))?;
            let text = w.into_inner().map_err(|e| e.into_error())?;
            let header = text.split(|&b| b == b'\n').next().unwrap_or_default();
            let mut out = self.w.into_inner().map_err(|e| e.into_error())?;
            out.write_all(header)?;
            out.write_all(b"\n")?;
            return Ok(out.flush()?);
        }
        self.w.flush()?;
        Ok(())
    }
}
