//! `gcscope run` and `gcscope ab`: real programs, live or headless, one or an interleaved A/B.

use super::{print, print_json};
use anyhow::{bail, Result};
use gcscope_core::report::{self, Source};
use gcscope_core::timeline::{Retire, Timeline};
use gcscope_core::trace::metric::UserMetric;
use gcscope_core::trace::Decoder;
use gcscope_model::ExitStatus;
use gcscope_source::ab::{self, AbSpec, Step};
use gcscope_source::child::{self, ChildControl, ChildSpec};
use gcscope_source::gobuild;
use gcscope_source::Spec;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// gcscope ends with this status (the program's, as a shell reports it).
#[derive(Debug)]
pub struct ExitWith(pub i32);

impl std::fmt::Display for ExitWith {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit status {}", self.0)
    }
}

impl std::error::Error for ExitWith {}

/// Where a command's program file is: a path as given, or found on PATH.
fn locate(program: &Path) -> Option<PathBuf> {
    if program.components().count() > 1 {
        return Some(program.to_path_buf());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

/// The program a shell command runs, through wrappers (`wrappers::program`).
fn shell_program(command: &str) -> Option<PathBuf> {
    super::wrappers::program(&super::wrappers::shell_words(command)).map(PathBuf::from)
}

/// Said when the program's Go build could not be read: gcscope chose gctrace by default and
/// the header has no build line, for this reason.
fn build_note(program: Option<&Path>, build: Option<&String>, level: u8) -> Option<String> {
    if build.is_some() {
        return None;
    }
    Some(match program {
        Some(p) => format!(
            "gcscope: no Go build info in {} (not a Go executable, a script, or not found): \
             gctrace={level}",
            gcscope_core::fmt::path(p)
        ),
        None => format!(
            "gcscope: no program found in the command to read a Go build from: gctrace={level}"
        ),
    })
}

/// The Go build label and the gctrace level for a program file: `--gctrace` if given, else 2
/// where the runtime prints page scan counters with it (Go 1.25+), else 1.
fn build_and_level(program: Option<PathBuf>, gctrace: Option<u8>) -> (Option<String>, u8) {
    let build = program
        .and_then(|p| locate(&p))
        .and_then(|p| gobuild::read(&p).ok().flatten());
    // Before Go 1.25 gctrace=2 prints exactly what 1 does (checked on 1.19 and 1.21-1.24:
    // same gc lines, nothing else, same cost); very old runtimes (Go 1.4-1.5 era) repeated
    // each collection under it. So 2 only where it adds the scan: lines, and 1 for a program
    // whose Go version is unknown.
    let level = gctrace.unwrap_or(match build.as_ref().and_then(|b| b.minor()) {
        Some(v) if v >= (1, 25) => 2,
        _ => 1,
    });
    let label = build.map(|b| match b.green_tea() {
        Some(true) => format!("{} (Green Tea)", b.label()),
        Some(false) => format!("{} (legacy marking)", b.label()),
        None => b.label(),
    });
    (label, level)
}

/// Stops the program(s) when gcscope is sent SIGINT, SIGTERM, SIGHUP or SIGQUIT while
/// headless: passed on as the same signal (then SIGKILL after the grace period), so the
/// summary is still printed.
pub(crate) fn forward_signals(control: Arc<ChildControl>) {
    // In place before the program starts: a Ctrl-C right after its first output must not
    // find gcscope with the default action (killed, the summary lost, the program's pipes
    // broken).
    super::on_signals(move |n| control.stop(Some(n)));
}

/// However the dashboard ended (q, Ctrl-C, a signal, an error), the program ends with it:
/// SIGTERM (or the signal gcscope got), SIGKILL after the grace period, reaped.
fn stop_after_dashboard(control: &ChildControl, result: &Result<(), gcscope_tui::Error>) {
    let signal = result.as_ref().err().and_then(gcscope_tui::Error::signal);
    control.stop(signal);
    if !control.wait_finished(Duration::from_millis(300)) {
        let _ = writeln!(
            std::io::stderr(),
            "gcscope: stopping the program (SIGKILL if it is still running in {} s)",
            child::GRACE.as_secs()
        );
        control.wait_finished(child::GRACE + Duration::from_secs(2));
    }
}

/// `gcscope run`'s arguments.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Write the program's stderr (its gc lines and other messages) to FILE byte for
    /// byte, for `gcscope view/summary/compare` later.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// gctrace level: 1, or 2 for page scan counters (Go 1.25+). Default: 2 for a Go 1.25+
    /// binary, else 1.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub gctrace: Option<u8>,
    /// No dashboard: the program's output passes through, the summary is printed (to
    /// stderr) at its end.
    #[arg(long)]
    pub headless: bool,
    #[command(flatten)]
    pub window: super::WindowArgs,
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, num_args = 1.., value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

pub fn run(args: RunArgs) -> Result<()> {
    let Some(first) = args.command.first() else {
        bail!("no program to run: `gcscope run -- ./prog ARGS`");
    };
    let words: Vec<String> = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let program = super::wrappers::program(&words)
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from(first)));
    let (build, level) = build_and_level(program.clone(), args.gctrace);
    let note = build_note(program.as_deref(), build.as_ref(), level);
    // Escaped once here, so that every line naming the command (the header, "cannot start",
    // the exit line, runs.tsv) shows its control bytes as `\u{1b}`, never raw.
    let display = gcscope_core::fmt::escape_controls(
        &args
            .command
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" "),
    )
    .into_owned();
    let headless = args.headless || !std::io::stdout().is_terminal();
    let spec = ChildSpec {
        argv: args.command.clone(),
        display: display.clone(),
        gctrace: level,
        build,
        record: args.record.clone(),
        record_stdout: None,
        passthrough: headless,
        // On a terminal, headless, the program is the user's as it would be without
        // gcscope: it reads the terminal and Ctrl-C reaches it directly.
        own_group: !(headless && std::io::stdin().is_terminal()),
        no_stdin: !headless,
        timeout: None,
        metrics: Vec::new(),
        ab: None,
        warmup: false,
        supervisor: std::env::current_exe().ok(),
    };
    let control = ChildControl::new();
    if !headless {
        let (closed, result) = gcscope_tui::run_keeping(
            vec![(display.clone(), Spec::Run(Box::new(spec), control.clone()))],
            args.window.window(),
            true,
        );
        let timelines = closed.kept;
        stop_after_dashboard(&control, &result);
        // What the dashboard showed stays in the terminal: the summary `--headless` prints,
        // where it prints it.
        if let Some(kept) = timelines.into_iter().next() {
            let (tl, mut retired) = (kept.timeline, kept.retired_text);
            if let (Some(log), Some(exit)) = (&args.record, tl.programs.last().and_then(|p| p.exit))
            {
                record_row(log, &display, &exit);
            }
            // gcscope's quit stops a program still running: said as such, not as a crash.
            let status = match control.exit() {
                None => "still running when the dashboard closed".to_string(),
                Some(s) if control.stopping() && !s.success() => {
                    format!("stopped when the dashboard closed: {s}")
                }
                Some(s) => s.to_string(),
            };
            let over = oversubscribed(&tl);
            let sources = [Source {
                name: format!("{display} ({status})"),
                timeline: tl,
            }];
            let mut err = std::io::BufWriter::new(std::io::stderr().lock());
            if let Some(n) = &note {
                let _ = writeln!(err, "{n}");
            }
            let _ = writeln!(err, "gcscope run: {display}: {status}");
            if let Some(o) = over {
                let _ = writeln!(err, "gcscope run: {o}");
            }
            if let Err(e) = report::write_summary_text_after(
                &sources,
                std::slice::from_mut(&mut retired),
                &mut err,
            ) {
                let _ = writeln!(err, "gcscope run: {e}");
            }
            let _ = err.flush();
        }
        result?;
        return match control.exit() {
            Some(s) if !s.success() => Err(ExitWith(s.shell_code()).into()),
            _ => Ok(()),
        };
    }
    if let Some(n) = &note {
        let _ = writeln!(std::io::stderr(), "{n}");
    }
    forward_signals(control.clone());
    // A program that prints without end keeps only its latest runs: older ones go to the
    // summary's spool as they retire.
    let retired = std::sync::Arc::new(std::sync::Mutex::new(report::Spool::default()));
    let to = retired.clone();
    let mut tl = Timeline {
        drop_text: true,
        window: args.window.window(),
        retire: Some(Retire::new(move |r| {
            let mut spool = to.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            report::retired_run_text(&r, &mut spool);
        })),
        ..Default::default()
    };
    let mut dec = Decoder::new();
    let r = child::run(&spec, &control, &mut dec, &mut |e| tl.apply(e));
    dec.finish(&mut |e| tl.apply(e));
    // A program that ran (a record that failed is said after its summary).
    let Some(exit) = tl.programs.last().and_then(|p| p.exit) else {
        r?;
        bail!("{} did not run", spec.display);
    };
    if let Some(log) = &args.record {
        record_row(log, &spec.display, &exit);
    }
    let name = format!("{} ({})", spec.display, exit.status);
    let over = oversubscribed(&tl);
    tl.retire = None;
    let mut spool = std::mem::take(
        &mut *retired
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    // The program's stdout is its own: gcscope's report goes to stderr, as `time` does.
    let mut err = std::io::BufWriter::new(std::io::stderr().lock());
    let _ = writeln!(err, "\ngcscope run: {}", run_line(&spec.display, &exit));
    if let Some(o) = over {
        let _ = writeln!(err, "gcscope run: {o}");
    }
    let sources = [Source { name, timeline: tl }];
    if let Err(e) =
        report::write_summary_text_after(&sources, std::slice::from_mut(&mut spool), &mut err)
    {
        let _ = writeln!(err, "gcscope run: {e}");
    }
    let _ = err.flush();
    r?;
    if exit.status.success() {
        Ok(())
    } else {
        Err(ExitWith(exit.status.shell_code()).into())
    }
}

/// `run --record LOG` writes, beside the log, the facts `ab --record` keeps for each run: a
/// row of `runs.tsv` (status, wall, CPU, the load other processes put on the machine), so
/// that `compare` of the log says what the run was measured under. Appended to a `runs.tsv`
/// of the same columns, created if there is none; one of other columns is left alone, said.
fn record_row(log: &Path, display: &str, exit: &gcscope_model::ProgramExit) {
    const HEAD: &str = "order\tside\trun\twarmup\tlog\tstatus\twall_s\tcpu_s\tother_cpus\tcommand";
    let Some(name) = log.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let path = log.with_file_name("runs.tsv");
    let existing = std::fs::read_to_string(&path).ok();
    if existing
        .as_deref()
        .is_some_and(|t| t.lines().next() != Some(HEAD))
    {
        let _ = writeln!(
            std::io::stderr(),
            "gcscope run: {} has other columns; the run's load is not recorded there",
            gcscope_core::fmt::path(&path)
        );
        return;
    }
    let order = existing.as_deref().map_or(1, |t| t.lines().count());
    let row = format!(
        "{order}\t-\t1\tfalse\t{name}\t{}\t{:.3}\t{}\t{}\t{}\n",
        exit.status.shell_code(),
        exit.wall_s,
        exit.cpu_s.map_or(String::new(), |c| format!("{c:.3}")),
        exit.other_cpus.map_or(String::new(), |c| format!("{c:.2}")),
        display.replace(['\t', '\n'], " ")
    );
    let text = match existing {
        Some(t) => t + &row,
        None => format!("{HEAD}\n{row}"),
    };
    if let Err(e) = std::fs::write(&path, text) {
        let _ = writeln!(
            std::io::stderr(),
            "gcscope run: cannot write {}: {e}",
            gcscope_core::fmt::path(&path)
        );
    }
}

/// The program's GC P time against its CPU time, said when P time was the larger.
fn oversubscribed(tl: &Timeline) -> Option<String> {
    let p = tl.programs.last()?;
    report::p_time_over_cpu(&[p.p_time_and_cpu_s(tl)?])
}

fn run_line(display: &str, exit: &gcscope_model::ProgramExit) -> String {
    let mut s = format!("{display}: {} after {:.2} s", exit.status, exit.wall_s);
    match exit.stopped {
        Some(gcscope_model::Stopped::Timeout) => s.push_str(" (stopped at the time cap)"),
        Some(gcscope_model::Stopped::User) => s.push_str(" (stopped by gcscope)"),
        None => {}
    }
    if let Some(o) = exit.other_cpus {
        s.push_str(&format!(", other load {o:.2} CPUs"));
    }
    s
}

/// `gcscope ab`'s arguments.
#[derive(clap::Args)]
pub struct AbArgs {
    /// Command A (the baseline).
    pub a: String,
    /// Command B.
    pub b: String,
    /// Measured runs a side (1-1000).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub runs: u16,
    /// Runs a side before the measured ones (A B each), not compared.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=100))]
    pub warmup: u16,
    /// Record every run in DIR: `a-01.log` (stderr, byte for byte), `a-01.stdout`, and
    /// `runs.tsv` with the order, statuses, times and load.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// The comparison as JSON on stdout, with verdicts and every run (implies
    /// --headless; progress goes to stderr).
    #[arg(long, conflicts_with_all = ["markdown", "format"])]
    pub json: bool,
    /// The result as Markdown on stdout (a table with the verdict rule's footnotes, for a PR
    /// comment), also after the dashboard closes: `--format markdown`.
    #[arg(long, conflicts_with = "format")]
    pub markdown: bool,
    /// The result's format: `compare`'s table, Markdown, or Go benchmark lines for benchstat.
    #[arg(long, value_enum, default_value_t = super::CompareFormat::Table)]
    pub format: super::CompareFormat,
    /// No dashboard: progress on stderr, the table at the end.
    #[arg(long)]
    pub headless: bool,
    /// A figure of the program's own (throughput, latency), compared beside the GC's:
    /// NAME=REGEX, the number in the regex's first group on the last output line (stdout
    /// or stderr) it matches in each run. Repeatable.
    #[arg(long = "metric", value_name = "NAME=REGEX", value_parser = super::parse_metric)]
    pub metrics: Vec<UserMetric>,
    /// gctrace level for both sides: default 2 when both are Go 1.25+ binaries, else 1.
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub gctrace: Option<u8>,
    /// Stop a run that lasts longer than this (SIGTERM, then SIGKILL): it counts as failed.
    /// `30s`, `2m`, or plain seconds.
    #[arg(long, value_parser = super::lab::parse_duration)]
    pub timeout: Option<std::time::Duration>,
    /// Go on after a failed run (it is left out) instead of stopping the A/B.
    #[arg(long)]
    pub keep_going: bool,
    #[command(flatten)]
    pub window: super::WindowArgs,
}

pub fn ab(args: AbArgs) -> Result<()> {
    if let Some(dir) = &args.record {
        fresh_record_dir(dir)?;
    }
    let notes: Vec<String> = [&args.a, &args.b]
        .iter()
        .filter_map(|command| {
            let program = shell_program(command);
            let (build, level) = build_and_level(program.clone(), args.gctrace);
            build_note(program.as_deref(), build.as_ref(), level)
        })
        .collect();
    let side = |command: &str| {
        let (build, level) = build_and_level(shell_program(command), args.gctrace);
        ChildSpec {
            argv: vec!["sh".into(), "-c".into(), command.into()],
            display: command.to_string(),
            gctrace: level,
            build,
            record: None,
            record_stdout: None,
            passthrough: false,
            // Runs read no input and stop as a group, on a terminal or not.
            own_group: true,
            no_stdin: true,
            timeout: args.timeout,
            metrics: args.metrics.clone(),
            ab: None,
            warmup: false,
            supervisor: std::env::current_exe().ok(),
        }
    };
    let (mut a, mut b) = (side(&args.a), side(&args.b));
    // One gctrace level for both sides: the scan: lines must not be on one side only.
    let level = a.gctrace.min(b.gctrace);
    a.gctrace = level;
    b.gctrace = level;
    let headless = args.headless || args.json || !std::io::stdout().is_terminal();
    let spec = AbSpec {
        sides: [a, b],
        runs: usize::from(args.runs),
        warmup: usize::from(args.warmup),
        record: args.record.clone(),
        keep_going: args.keep_going,
    };
    let control = ChildControl::new();
    if !headless {
        let sources = vec![
            (args.a.clone(), Spec::Ab(Box::new(spec), control.clone())),
            (args.b.clone(), Spec::Driven),
        ];
        let (closed, result) = gcscope_tui::run_keeping(sources, args.window.window(), false);
        let timelines = closed.kept;
        stop_after_dashboard(&control, &result);
        // What the dashboard showed stays in the terminal: the table `--headless` prints.
        if timelines.len() == 2 {
            let sources = ab_sources(timelines.into_iter().map(|k| k.timeline), &args);
            super::say_unmatched_metrics(&args.metrics, &sources[..1], &sources[1..]);
            let planned = usize::from(args.runs);
            let done = sources
                .iter()
                .map(|s| {
                    s.timeline
                        .programs
                        .iter()
                        .filter(|p| !p.start.warmup && p.exit.is_some())
                        .count()
                })
                .min()
                .unwrap_or(0);
            let why = (done < planned)
                .then(|| format!("the dashboard closed after {done} of {planned} runs a side"));
            for n in &notes {
                let _ = writeln!(std::io::stderr(), "{n}");
            }
            // (`--json` runs headless: this is the table.)
            let (sa, sb) = (&sources[..1], &sources[1..]);
            print(&ab_report(&args, sa, sb, why.as_deref()))?;
            result?;
            if sources
                .iter()
                .any(|s| s.timeline.program_samples().is_empty())
            {
                return Err(ExitWith(1).into());
            }
            return Ok(());
        }
        return Ok(result?);
    }
    for n in &notes {
        let _ = writeln!(std::io::stderr(), "{n}");
    }
    forward_signals(control.clone());
    let mut tls = [Timeline::default(), Timeline::default()];
    for t in &mut tls {
        t.drop_text = true;
        t.window = args.window.window();
        // The report is of programs: each keeps its main run and GC P time when its runs
        // retire (a program that prints runs without end).
        t.retire = Some(Retire::drop_them());
    }
    let [ta, tb] = &mut tls;
    let mut err = std::io::stderr();
    let outcome = ab::run(
        &spec,
        &control,
        [&mut |e| ta.apply(e), &mut |e| tb.apply(e)],
        &mut |step| {
            let _ = writeln!(err, "{}", progress_line(step));
        },
    )?;
    let sources = ab_sources(tls, &args);
    super::say_unmatched_metrics(&args.metrics, &sources[..1], &sources[1..]);
    let (sa, sb) = (&sources[..1], &sources[1..]);
    if args.json {
        print_json(&report::ab_json(sa, sb, outcome.stopped_by.as_deref()))?;
    } else {
        print(&ab_report(&args, sa, sb, outcome.stopped_by.as_deref()))?;
    }
    if let Some(why) = &outcome.stopped_by {
        let _ = writeln!(std::io::stderr(), "gcscope ab: {why}");
        if let Some(sig) = control.signal() {
            return Err(ExitWith(128 + sig).into());
        }
        return Err(ExitWith(1).into());
    }
    // Nothing to compare (no run of a side gave cycles) is a failed A/B, whatever the
    // programs' own statuses.
    if sources
        .iter()
        .any(|s| s.timeline.program_samples().is_empty())
    {
        return Err(ExitWith(1).into());
    }
    Ok(())
}

/// `ab --record DIR` writes into an empty or new directory only: over an earlier record it
/// would replace some files and keep the others, and `compare DIR/a-*.log -- DIR/b-*.log`
/// would then mix two A/Bs; a file in the way is never overwritten.
fn fresh_record_dir(dir: &std::path::Path) -> Result<()> {
    let shown = gcscope_core::fmt::path(dir);
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                bail!(
                    "--record {shown}: the directory is not empty (an earlier record?); give a \
                     new one: files of two A/Bs in one directory would be compared as one"
                );
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if dir.exists() && !dir.is_dir() => {
            bail!("--record {shown}: a file is in the way (it is not a directory); nothing was written")
        }
        Err(e) => bail!("--record {shown}: cannot read it: {e}"),
    }
}

/// The A/B's result in the format asked for (`--markdown` is `--format markdown`).
fn ab_report(args: &AbArgs, a: &[Source], b: &[Source], stopped: Option<&str>) -> String {
    match (args.markdown, args.format) {
        (true, _) | (false, super::CompareFormat::Markdown) => report::ab_markdown(a, b, stopped),
        (false, super::CompareFormat::Bench) => report::compare_bench(a, b),
        (false, super::CompareFormat::Table) => report::ab_text(a, b, stopped),
    }
}

/// The two sides' timelines as the reports read them, each named by its command.
fn ab_sources(timelines: impl IntoIterator<Item = Timeline>, args: &AbArgs) -> Vec<Source> {
    timelines
        .into_iter()
        .zip([&args.a, &args.b])
        .map(|(timeline, cmd)| Source {
            name: cmd.clone(),
            timeline,
        })
        .collect()
}

fn progress_line(step: Step<'_>) -> String {
    let Step {
        k,
        total,
        side,
        warmup,
        end,
    } = step;
    let what = if warmup { "warm-up" } else { "run" };
    match end {
        None => format!("gcscope ab: [{k}/{total}] {side} {what} ..."),
        Some(e) => {
            let mut s = format!(
                "gcscope ab: [{k}/{total}] {side} {what} {}: {} cycles, {:.2} s, {}",
                e.run, e.cycles, e.exit.wall_s, e.exit.status
            );
            if let Some(o) = e.exit.other_cpus {
                s.push_str(&format!(", other load {o:.2} CPUs"));
                if o > gcscope_core::stats::summary::LOADED_CPUS {
                    s.push_str(" (loaded)");
                }
            }
            match e.exit.stopped {
                Some(gcscope_model::Stopped::Timeout) => s.push_str(", stopped at the time cap"),
                Some(gcscope_model::Stopped::User) => s.push_str(", stopped"),
                None => {}
            }
            if e.failed() {
                for t in &e.tail {
                    s.push_str(&format!("\n    | {t}"));
                }
            }
            s
        }
    }
}

impl From<ExitStatus> for ExitWith {
    fn from(s: ExitStatus) -> ExitWith {
        ExitWith(s.shell_code())
    }
}
