//! `gcscope lab`: the GC lab live in the dashboard, or headless, one run or an A/B.

use super::{print, print_json};
use anyhow::{Context, Result};
use clap::ValueEnum;
use gcscope_core::report::{self, Source};
use gcscope_lab::{self as lab, Shape};
use gcscope_source::LabControl;
use std::io::Write;

/// A workload on the command line: its choices are `Shape::ALL` by name (the lab's types carry
/// no command-line derive: the lab depends on no clap).
fn shape_parser() -> impl clap::builder::TypedValueParser<Value = Shape> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Shape::ALL.map(Shape::name)).try_map(|name: String| {
        Shape::from_name(&name).ok_or_else(|| format!("no workload is called {name}"))
    })
}

/// The lab's settings on the command line.
#[derive(clap::Args, Clone)]
pub struct LabArgs {
    /// Heap shape to run.
    #[arg(long, value_parser = shape_parser(), default_value = "tree")]
    workload: Shape,
    /// Marking strategy of a one-sided lab (`--ab` runs both).
    #[arg(long, value_enum, default_value_t = MarkerArg::Greentea)]
    marker: MarkerArg,
    /// GOGC: heap growth allowed over the live heap, percent (1-10000; the lab has no off).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    gogc: u64,
    /// GOMAXPROCS-like P slots (1-64).
    #[arg(long, default_value_t = 2, value_parser = procs_in_range)]
    procs: usize,
    /// Random seed: same seed, same workload.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Heap size factor, 1/64 to 64 (1: about 10-80 MB live depending on the shape).
    #[arg(long, default_value_t = 1.0, value_parser = scale_in_range)]
    scale: f64,
    /// Virtual arena size in MB, 64-65536 (address space; touched only as the heap grows).
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u64).range(64..=65_536))]
    arena_mb: u64,
}

impl Default for LabArgs {
    /// The same values as the flags' defaults (a test checks they agree).
    fn default() -> LabArgs {
        LabArgs {
            workload: Shape::Tree,
            marker: MarkerArg::Greentea,
            gogc: 100,
            procs: 2,
            seed: 1,
            scale: 1.0,
            arena_mb: 8192,
        }
    }
}

impl LabArgs {
    pub fn config(&self, duration: Option<std::time::Duration>) -> lab::Config {
        lab::Config {
            shape: self.workload,
            marker: self.marker.into(),
            // The flags' ranges were checked when they were parsed.
            gogc: self.gogc,
            procs: self.procs,
            duration,
            seed: self.seed,
            scale: self.scale,
            arena_mb: self.arena_mb,
            ..lab::Config::default()
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum MarkerArg {
    /// Object by object, through work buffers (Go without Green Tea).
    Legacy,
    /// Page by page, through span queues (Go's default since 1.26).
    Greentea,
}

impl From<MarkerArg> for lab::Marker {
    fn from(m: MarkerArg) -> lab::Marker {
        match m {
            MarkerArg::Legacy => lab::Marker::Legacy,
            MarkerArg::Greentea => lab::Marker::Greentea,
        }
    }
}

fn procs_in_range(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=64).contains(&n) => Ok(n),
        _ => Err(format!("{s:?} is not a whole number from 1 to 64")),
    }
}

fn scale_in_range(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (1.0 / 64.0..=64.0).contains(&v) => Ok(v),
        _ => Err(format!("{s:?} is not a number from 0.015625 (1/64) to 64")),
    }
}

/// `5s`, `500ms`, `2m`, `1m 30s` (humantime), or plain seconds; at most 24 h.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    const MAX: std::time::Duration = std::time::Duration::from_secs(86_400);
    let d = match s.trim().parse::<f64>() {
        // A plain number is seconds.
        Ok(secs) if secs.is_finite() && secs >= 0.0 && secs <= MAX.as_secs_f64() => {
            std::time::Duration::from_secs_f64(secs)
        }
        Ok(_) => return Err(format!("{s:?} is not between 0 and 24h")),
        Err(_) => humantime::parse_duration(s.trim())
            .map_err(|e| format!("not a duration: {s:?}: {e} (try 5s, 500ms, 2m)"))?,
    };
    if d > MAX {
        return Err(format!("{s:?} is longer than 24h"));
    }
    Ok(d)
}

/// One marker, live in the dashboard; keys switch workload, marker and GOGC.
pub fn live(args: &LabArgs) -> Result<()> {
    let cfg = args.config(None);
    let label = cfg.label();
    let (control, specs) = LabControl::new(vec![cfg]);
    let (closed, result) = gcscope_tui::run(
        specs.into_iter().map(|s| (label.clone(), s)).collect(),
        Some(control),
    );
    super::say_what_was_shown(vec![label], closed);
    Ok(result?)
}

/// What a headless run reports beside the run's figures: its settings and the lab's own
/// measurements (`--json`: `{"lab": ..., "run": ...}`; `run` is what `summary --json` reports
/// for the run's `--trace-out` file, field for field).
#[derive(serde::Serialize)]
struct LabReport {
    lab: LabRun,
    run: Option<gcscope_core::stats::summary::RunSummary>,
}

#[derive(serde::Serialize)]
struct LabRun {
    workload: &'static str,
    marker: &'static str,
    gogc: u64,
    procs: usize,
    seed: u64,
    scale: f64,
    wall_s: f64,
    /// Workload operations per second (trees built, map accesses, replacements).
    ops_per_s: f64,
    checks: lab::Checks,
}

/// One run, no dashboard: a line per cycle as it ends (stderr with `--json`), the trace file,
/// then the run's figures from the same statistics engine as `summary`.
pub fn headless(cfg: &lab::Config, json: bool, trace_out: Option<&std::path::Path>) -> Result<()> {
    let mut file = match trace_out {
        Some(p) => Some(std::io::BufWriter::new(std::fs::File::create(p).map_err(
            |e| anyhow::anyhow!("cannot create {}: {e}", gcscope_core::fmt::path(p)),
        )?)),
        None => None,
    };
    // SIGINT or SIGTERM (and the other ending signals) stop the run after its cycle: what
    // was written to the trace file is flushed, not lost in its buffer.
    let signalled = signal_flag();
    let (mut stdout, mut stderr) = (std::io::stdout().lock(), std::io::stderr().lock());
    let (timeline, end) = record(cfg, |cycle, text| {
        if signalled.load(std::sync::atomic::Ordering::SeqCst) != 0 {
            return Err(anyhow::anyhow!("stopped by a signal"));
        }
        if let Some(cycle) = cycle {
            let progress: &mut dyn Write = if json { &mut stderr } else { &mut stdout };
            writeln!(progress, "{}", human_line(cycle)).context("writing the output")?;
        }
        if let Some(f) = file.as_mut() {
            f.write_all(text.as_bytes())
                .context("writing the trace file")?;
        }
        Ok(())
    });
    drop((stdout, stderr));
    // What was written is kept, also when the run did not finish.
    if let Some(f) = file.as_mut() {
        f.flush().context("writing the trace file")?;
    }
    let sig = signalled.load(std::sync::atomic::Ordering::SeqCst);
    if sig != 0 {
        if let Some(p) = trace_out {
            eprintln!(
                "gcscope lab: stopped by signal {sig}; {} has every cycle until then",
                gcscope_core::fmt::path(p)
            );
        }
        return Err(super::run::ExitWith(128 + sig).into());
    }
    let end = end?;
    let wall = end.wall.as_secs_f64();
    let report = LabReport {
        lab: LabRun {
            workload: cfg.shape.name(),
            marker: cfg.marker.name(),
            gogc: cfg.gogc,
            procs: cfg.procs,
            seed: cfg.seed,
            scale: cfg.scale,
            wall_s: wall,
            ops_per_s: end.ops as f64 / wall.max(1e-9),
            checks: end.checks.clone(),
        },
        run: timeline.runs.first().and_then(|r| r.summary()),
    };
    if json {
        return print_json(&report);
    }
    let mut text = format!(
        "\n{}: {} cycles in {:.1} s, {:.0} workload ops/s, checks {}\n",
        cfg.label(),
        end.cycles,
        wall,
        report.lab.ops_per_s,
        if end.checks.clean() {
            "clean".to_string()
        } else {
            format!("{:?}", end.checks)
        }
    );
    if let Some(r) = &report.run {
        report::run_text(&mut text, 1, r);
    }
    print(&text)
}

/// The number of the first ending signal (`gcscope_source::signals::ENDING`) gcscope gets
/// from now on, or 0: a thread waits for them, so the default action (the process killed
/// with its buffers) never runs.
fn signal_flag() -> std::sync::Arc<std::sync::atomic::AtomicI32> {
    use std::sync::atomic::Ordering::SeqCst;
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicI32::new(0));
    let set = flag.clone();
    super::on_signals(move |n| {
        let _ = set.compare_exchange(0, n, SeqCst, SeqCst);
    });
    flag
}

/// Runs the lab and reads it back from the trace text it writes (`# gcscope LABEL`, then each
/// cycle's lines), through the same reader as a Go trace: its figures are those `summary`
/// reports for a `--trace-out` file, at the precision the text carries. `each` sees the header
/// (no cycle), then every cycle and its text as it ends; an error from it stops the run and is
/// returned.
fn record(
    cfg: &lab::Config,
    mut each: impl FnMut(Option<&gcscope_model::Cycle>, &str) -> Result<()>,
) -> (gcscope_core::timeline::Timeline, Result<lab::RunEnd>) {
    let mut timeline = gcscope_core::timeline::Timeline::default();
    let mut decoder = gcscope_core::trace::Decoder::new();
    let header = format!("# gcscope {}\n", cfg.label());
    let mut failed = each(None, &header).err();
    decoder.push(header.as_bytes(), &mut |e| timeline.apply(e));
    let end = lab::run(cfg, |lc| {
        if failed.is_some() {
            return false;
        }
        let text = gcscope_core::trace::format::cycle_text(&lc.result.cycle);
        if let Err(e) = each(Some(&lc.result.cycle), &text) {
            failed = Some(e);
            return false;
        }
        decoder.push(text.as_bytes(), &mut |e| timeline.apply(e));
        true
    });
    decoder.finish(&mut |e| timeline.apply(e));
    let end = match (failed, end.error.clone()) {
        (Some(e), _) => Err(e),
        (None, Some(e)) => Err(e.into()),
        (None, None) => Ok(end),
    };
    (timeline, end)
}

/// One line for a person watching a headless run.
fn human_line(c: &gcscope_model::Cycle) -> String {
    let mut s = gcscope_core::trace::format::line(c);
    if let Some(l) = &c.lab {
        s.push_str(&format!(
            "  | {:.1} objs/page visit, {} freed{}",
            l.density().unwrap_or(0.0),
            l.objects_freed,
            if l.setup { ", setup" } else { "" }
        ));
    }
    if let Some(share) = c.idle_share() {
        s.push_str(&format!(", idle {:.0}%", share * 100.0));
    }
    s
}

/// The two markers as A (legacy) and B (Green Tea), live, taking turns on the machine.
pub fn ab_live(args: &LabArgs, turn_ms: u64) -> Result<()> {
    let turns = std::sync::Arc::new(lab::turns::Turns::new(
        2,
        std::time::Duration::from_millis(turn_ms),
    ));
    let cfgs: Vec<lab::Config> = [lab::Marker::Legacy, lab::Marker::Greentea]
        .into_iter()
        .enumerate()
        .map(|(side, marker)| {
            let mut cfg = args.config(None);
            cfg.marker = marker;
            cfg.turns = Some((turns.clone(), side));
            cfg
        })
        .collect();
    let names: Vec<String> = cfgs.iter().map(|c| c.label()).collect();
    let (control, specs) = LabControl::new(cfgs);
    let (closed, result) =
        gcscope_tui::run(names.iter().cloned().zip(specs).collect(), Some(control));
    super::say_what_was_shown(names, closed);
    Ok(result?)
}

/// Headless A/B: `runs` runs per side, alternating, then the same comparison as `compare`.
pub fn ab_headless(
    args: &LabArgs,
    duration: std::time::Duration,
    runs: usize,
    json: bool,
) -> Result<()> {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 0..runs {
        for marker in [lab::Marker::Legacy, lab::Marker::Greentea] {
            let mut cfg = args.config(Some(duration));
            cfg.marker = marker;
            let (tl, end) = record(&cfg, |_, _| Ok(()));
            let end = end?;
            // Progress only: a closed stderr does not stop the A/B.
            let _ = writeln!(
                std::io::stderr(),
                "{} run {}: {} cycles in {:.1} s",
                cfg.label(),
                i + 1,
                end.cycles,
                end.wall.as_secs_f64()
            );
            let side = if marker == lab::Marker::Legacy {
                &mut a
            } else {
                &mut b
            };
            side.push(Source {
                name: format!("{} run {}", cfg.label(), i + 1),
                timeline: tl,
            });
        }
    }
    if json {
        print_json(&report::compare_json(&a, &b))
    } else {
        print(&report::compare_text(&a, &b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    #[test]
    fn lab_defaults_agree_with_the_flags() {
        let cli = Cli::parse_from(["gcscope", "lab"]);
        let Some(Command::Lab { args, .. }) = cli.command else {
            panic!("not the lab command");
        };
        let (a, d) = (args.config(None), LabArgs::default().config(None));
        assert_eq!(format!("{a:?}"), format!("{d:?}"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("5s"), Ok(std::time::Duration::from_secs(5)));
        assert_eq!(
            parse_duration("250ms"),
            Ok(std::time::Duration::from_millis(250))
        );
        assert_eq!(parse_duration("2"), Ok(std::time::Duration::from_secs(2)));
        assert_eq!(
            parse_duration("1m 30s"),
            Ok(std::time::Duration::from_secs(90))
        );
        assert!(parse_duration("25h").is_err());
        assert!(parse_duration("x").is_err());
        assert!(parse_duration("NaN").is_err());
        assert!(parse_duration("-1").is_err());
    }
}
