//! Arguments, and which command runs: one file per command family.

mod lab;
mod run;
mod summary;
mod tune;
mod view;
mod wrappers;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use gcscope_core::report::Source;
use gcscope_core::trace::metric::UserMetric;
use gcscope_source as source;
use std::io::Write;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "gcscope",
    version,
    about = "See what Go's garbage collector did: GODEBUG=gctrace=1 logs in a terminal dashboard, summaries and A/B comparisons",
    after_help = "\
With no arguments, gcscope runs its GC lab live: legacy marking (A) against Green Tea (B) on a
tree heap, side by side, taking turns on the machine (`gcscope lab --ab`). `gcscope lab` runs
Green Tea alone. `gcscope demo` plays an A/B of two real Go 1.27.3 traces built into the binary.

  gcscope trace.log                          the dashboard (`gcscope view trace.log`)
  gcscope old.log new.log                    A/B side by side
  GODEBUG=gctrace=1 ./prog 2>&1 | gcscope -  live from a pipe
  gcscope summary trace.log                  per-run figures
  gcscope compare old*.log -- new*.log       A/B statistics
  gcscope run -- ./prog ARGS                 a Go program live, gctrace on
  gcscope ab './old' './new'                 interleaved A/B runs, compared",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// One trace, or two for A/B (`-`: standard input): short for `gcscope view FILE [FILE]`.
    /// None: the lab's live A/B.
    #[arg(num_args = 0..=2)]
    files: Vec<PathBuf>,
    /// With files: follow them as they grow, like `tail -F` (`gcscope view --follow`).
    #[arg(long, short)]
    follow: bool,
    #[command(flatten)]
    window: WindowArgs,
}

/// A steady-state window: the cycles a figure is of. A benchmark's setup cycles (some forced)
/// can hold most of a run's GC time; every figure, the header and the JSON say the window.
#[derive(clap::Args, Clone, Copy, Default)]
pub(crate) struct WindowArgs {
    /// Only cycles from gc N on, in each run (its own counter).
    #[arg(long, value_name = "N")]
    from_cycle: Option<u32>,
    /// Only cycles that start after this time since their process started (5s, 1.5s, 2m).
    #[arg(long, value_name = "DURATION", value_parser = lab::parse_duration)]
    after: Option<std::time::Duration>,
}

impl WindowArgs {
    pub(crate) fn window(self) -> gcscope_core::timeline::Window {
        gcscope_core::timeline::Window {
            from_cycle: self.from_cycle,
            after_ns: self
                .after
                .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// The dashboard: replay a trace, or two side by side (A/B).
    ///
    /// Replays at the trace's own timestamps; `?` in the dashboard lists the keys. `-` reads
    /// standard input: `GODEBUG=gctrace=1 ./prog 2>&1 | gcscope view -` (gctrace=2 adds the page
    /// scan density, Go 1.25+).
    View {
        /// One trace, or two for A/B (A first); `-` for standard input.
        #[arg(required = true, num_args = 1..=2)]
        files: Vec<PathBuf>,
        /// Follow the files as they grow, like `tail -F` (survives truncation and rotation).
        #[arg(long, short, conflicts_with = "snapshot")]
        follow: bool,
        #[command(flatten)]
        window: WindowArgs,
        /// No dashboard: draw one frame (every cycle shown) to this SVG file, with its
        /// colours, for an issue or a PR (`s` in the dashboard does the same).
        #[arg(long, value_name = "FILE.svg")]
        snapshot: Option<PathBuf>,
        /// The snapshot's size in cells, WxH.
        #[arg(long, value_name = "WxH", default_value = "120x40", value_parser = parse_size, requires = "snapshot")]
        size: (u16, u16),
    },
    /// Per-run figures of one or more traces (`-` reads standard input).
    ///
    /// Per run: the line format, P, cycles, GC CPU by class, compulsory GC CPU, pauses, mark
    /// time, heap, page scan density (gctrace=2 or lab traces), notes and problems with their
    /// line numbers. docs/SUMMARY.md says how each figure is computed.
    Summary {
        /// Trace files; `-` for standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Machine-readable output (field names in docs/SUMMARY.md).
        #[arg(long, conflicts_with_all = ["csv", "format"])]
        json: bool,
        /// One row per cycle, for spreadsheets.
        #[arg(long, conflicts_with = "format")]
        csv: bool,
        /// Text output format: the per-run report, or a Markdown table to paste into a PR.
        #[arg(long, value_enum, default_value_t = SummaryFormat::Text)]
        format: SummaryFormat,
        #[command(flatten)]
        window: WindowArgs,
    },
    /// Compare runs: `gcscope compare A... -- B...`, median [min-max] per side and B vs A.
    ///
    /// Every run of every file is a run of its side. A direction only with 3+ runs a side whose
    /// ranges do not overlap, otherwise `~` and why; a p-value only beside a verdict, from 4
    /// runs a side (docs/SUMMARY.md).
    Compare {
        /// Side A: the trace files before `--` (`-` for standard input).
        #[arg(required = true, num_args = 1..)]
        a: Vec<PathBuf>,
        /// Side B: the trace files after `--`.
        #[arg(last = true, required = true, num_args = 1..)]
        b: Vec<PathBuf>,
        /// Machine-readable output: both sides' spreads, the change and the verdict per metric
        /// (field names in docs/SUMMARY.md).
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// Text output format.
        #[arg(long, value_enum, default_value_t = CompareFormat::Table)]
        format: CompareFormat,
        /// A figure of the program's own, compared beside the GC's: NAME=REGEX, the number in
        /// the regex's first group on the last output line it matches in each run (a file
        /// `X.log` recorded by `gcscope ab` is read with its `X.stdout`). Repeatable.
        #[arg(long = "metric", value_name = "NAME=REGEX", value_parser = parse_metric)]
        metrics: Vec<UserMetric>,
        #[command(flatten)]
        window: WindowArgs,
    },
    /// Run a program with gctrace on and watch its collector live.
    ///
    /// `gcscope run -- ./prog ARGS`: gctrace is added to the program's GODEBUG (its other
    /// settings kept; a gctrace it sets wins), its stderr is read as the trace and its output
    /// shown beside. For a Go binary the header names its Go version and GOEXPERIMENT, and
    /// gctrace=2 (page scan density) is used from Go 1.25. q or Ctrl-C stops the program
    /// (SIGTERM, then SIGKILL after 3 s); it never outlives gcscope. Headless (or without a
    /// terminal) its output passes through, the summary follows on stderr, and gcscope exits
    /// with the program's status.
    Run(run::RunArgs),
    /// A/B two commands: run interleaved, A B A B ..., gctrace on, then compare's table.
    ///
    /// Each command is one argument, run by `sh -c` (so `GOGC=50 ./prog` works), with the
    /// same environment otherwise. Never two at once. Every run is a sample of its side; a
    /// verdict needs 3 runs a side whose ranges do not overlap (as `compare`). Runs that
    /// fail (non-zero status, a signal, the time cap) are reported and left out. The load
    /// other processes put on the machine is measured per run and reported.
    Ab(run::AbArgs),
    /// What another GOGC or memory limit would cost: predicted from one run of a trace.
    ///
    /// Fits the work the program does (MiB allocated between cycles), its live heap and roots,
    /// the pacer's over- or undershoot and the compulsory GC P time per cycle, then predicts
    /// for the same work, per setting: cycles, compulsory GC P time and its share of the Ps,
    /// peak and mean heap, cycles/s, where a limit binds and when the CPU limiter would. A
    /// model, shown as one; it refuses runs it does not fit (a growing live heap, phases, too
    /// few cycles) and settings far outside the trace. docs/TUNE.md has its validation.
    Tune(tune::TuneArgs),
    /// An A/B that plays by itself: two real Go 1.27.3 traces built in, legacy vs Green Tea.
    ///
    /// The same program (a graph heap, 2 P) recorded under GODEBUG=gctrace=2 with Go 1.27.3,
    /// legacy marking as A and Green Tea as B, replayed side by side with their page scan
    /// density. No file and no Go needed.
    Demo,
    /// The GC lab, live: a real concurrent mark-sweep collector, Green Tea by default.
    ///
    /// A collector with both of Go's marking strategies runs a heap-shape workload in the
    /// dashboard (`w` workload, `< >` GOGC, `m` marker). Alone it runs Green Tea (`--marker
    /// legacy` for the other); `--ab` runs both side by side, taking turns on the machine
    /// (bare `gcscope` is `gcscope lab --ab`). `--headless`: no dashboard, cycle lines and
    /// statistics (docs/LAB.md).
    Lab {
        #[command(flatten)]
        args: lab::LabArgs,
        /// Both markers on the same workload, seed and P: legacy as A, Green Tea as B. Live,
        /// the two take turns on the machine; headless, runs go one after another.
        #[arg(long, conflicts_with = "marker")]
        ab: bool,
        /// With --headless --ab: runs per side, 1-1000 (alternating A, B, A, B...).
        #[arg(long, default_value_t = 5, requires = "ab", value_parser = clap::value_parser!(u16).range(1..=1000))]
        runs: u16,
        /// Shortest turn of a side in the live A/B, ms (10-10000).
        #[arg(long, default_value_t = 250, value_parser = clap::value_parser!(u64).range(10..=10_000))]
        turn_ms: u64,
        /// No dashboard: print each cycle as it ends, statistics at the end.
        #[arg(long)]
        headless: bool,
        /// How long a headless run lasts, up to 24h: `5s`, `500ms`, `2m` or plain seconds (the
        /// dashboard runs until you quit).
        #[arg(long, value_parser = lab::parse_duration, default_value = "5s")]
        duration: std::time::Duration,
        /// With --headless: statistics as JSON on stdout (cycle lines go to stderr).
        #[arg(long, requires = "headless")]
        json: bool,
        /// With --headless: write the cycles as a gctrace file (plus `lab:` lines) that
        /// `gcscope view/summary/compare` read like a Go trace.
        #[arg(long, requires = "headless")]
        trace_out: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum CompareFormat {
    /// The readable table: median [min-max] per side, B vs A, the verdict.
    Table,
    /// Go benchmark-format lines, one per run and figure, for benchstat (`benchstat -col
    /// side`).
    Bench,
    /// The table as Markdown, with its footnotes: ready for a PR comment.
    Markdown,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub(crate) enum SummaryFormat {
    /// Per run: every figure, notes, problems and findings (docs/SUMMARY.md).
    Text,
    /// One Markdown table row per run, then the findings: ready for a PR or an issue.
    Markdown,
}

pub fn run() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        // The embedded default: the lab's live A/B, no Go and no file needed.
        None if cli.files.is_empty() => lab::ab_live(&lab::LabArgs::default(), 250),
        None => view::view(&cli.files, cli.follow, cli.window.window()),
        Some(Command::View {
            files,
            follow: _,
            window,
            snapshot: Some(svg),
            size,
        }) => view::snapshot(&files, window.window(), &svg, size),
        Some(Command::View {
            files,
            follow,
            window,
            ..
        }) => view::view(&files, follow, window.window()),
        Some(Command::Summary {
            files,
            json,
            csv,
            format,
            window,
        }) => summary::summary(&files, json, csv, format, window.window()),
        Some(Command::Tune(args)) => tune::tune(&args),
        Some(Command::Lab {
            args,
            ab,
            runs,
            turn_ms,
            headless,
            duration,
            json,
            trace_out,
        }) => match (headless, ab) {
            (false, false) => lab::live(&args),
            (false, true) => lab::ab_live(&args, turn_ms),
            (true, false) => {
                lab::headless(&args.config(Some(duration)), json, trace_out.as_deref())
            }
            (true, true) => {
                if trace_out.is_some() {
                    anyhow::bail!(
                        "--trace-out takes one run; for A/B traces run each marker with its own file"
                    );
                }
                lab::ab_headless(&args, duration, usize::from(runs), json)
            }
        },
        Some(Command::Demo) => view::demo(),
        Some(Command::Compare {
            a,
            b,
            json,
            format,
            metrics,
            window,
        }) => summary::compare(&a, &b, json, format, &metrics, window.window()),
        Some(Command::Run(args)) => run::run(args),
        Some(Command::Ab(args)) => run::ab(args),
    }
}

/// `WxH` in cells, each within what a terminal and the dashboard can have.
fn parse_size(s: &str) -> Result<(u16, u16), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?} is not WxH (e.g. 120x40)"))?;
    let dim = |v: &str, min: u16| -> Result<u16, String> {
        let n: u16 = v
            .trim()
            .parse()
            .map_err(|_| format!("{v:?} in {s:?} is not a whole number"))?;
        if !(min..=1000).contains(&n) {
            return Err(format!("{n} in {s:?} is outside {min}-1000"));
        }
        Ok(n)
    };
    Ok((
        dim(w, gcscope_tui::view::MIN_W)?,
        dim(h, gcscope_tui::view::MIN_H)?,
    ))
}

/// `--metric NAME=REGEX`, with a name that is not one of gcscope's own figures.
fn parse_metric(spec: &str) -> Result<UserMetric, String> {
    let m = UserMetric::parse(spec)?;
    if gcscope_core::stats::compare::Metric::from_key(&m.name).is_some() {
        return Err(format!(
            "{:?} is one of gcscope's own figures; pick another name",
            m.name
        ));
    }
    Ok(m)
}

/// The sources named, each timeline prepared by `prepare` (given the source's name) before it
/// is read: e.g. to retire its older runs.
pub(crate) fn read_sources_with(
    files: &[PathBuf],
    keep_cycles: bool,
    window: gcscope_core::timeline::Window,
    mut prepare: impl FnMut(&str, &mut gcscope_core::timeline::Timeline),
) -> Result<Vec<Source>> {
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        anyhow::bail!("standard input (-) can be read only once");
    }
    stdin_not_a_terminal(files)?;
    files
        .iter()
        .map(|f| {
            let name = f.display().to_string();
            let mut timeline = gcscope_core::timeline::Timeline {
                drop_cycles: !keep_cycles,
                drop_text: true,
                window,
                ..Default::default()
            };
            prepare(&name, &mut timeline);
            let mut timeline = source::read_path_into(f, timeline)?;
            timeline.retire = None;
            Ok(Source { name, timeline })
        })
        .collect()
}

/// Calls `f` with each ending signal (`gcscope_source::Signals`) gcscope gets from now on, on
/// a thread of its own, so their default action (the process killed, its buffers and the
/// summary lost) never runs. Returns once the handlers are in place (or could not be).
pub(crate) fn on_signals(mut f: impl FnMut(i32) + Send + 'static) {
    let (ready, is_ready) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async move {
            let Ok(mut signals) = gcscope_source::Signals::new() else {
                return;
            };
            let _ = ready.send(());
            loop {
                f(signals.recv().await);
            }
        });
    });
    // (`recv` fails only if the handlers could not be set up: the thread is gone.)
    let _ = is_ready.recv();
}

/// `-` with a terminal as standard input would wait for typed lines (and, in the dashboard,
/// take the keys meant for it): refused, with how a trace is piped in.
pub(crate) fn stdin_not_a_terminal(files: &[PathBuf]) -> Result<()> {
    use std::io::IsTerminal;
    if files.iter().any(|f| f.as_os_str() == "-") && std::io::stdin().is_terminal() {
        anyhow::bail!(
            "standard input (-) is this terminal, not a trace: pipe one in, \
             `GODEBUG=gctrace=1 ./prog 2>&1 | gcscope -`, or give a file"
        );
    }
    Ok(())
}

/// A `--metric` whose regex matched no output line of a side's runs: said per side (the
/// table has no row for a figure no run has, so it would be silent).
pub(crate) fn say_unmatched_metrics(metrics: &[UserMetric], a: &[Source], b: &[Source]) {
    let mut err = std::io::stderr().lock();
    for (side, sources) in [("A", a), ("B", b)] {
        let runs = gcscope_core::report::side_of(sources);
        for m in metrics {
            if runs.runs() > 0 && !runs.has_value(&m.name) {
                let _ = writeln!(
                    err,
                    "gcscope: --metric {} matched no output line in any of {side}'s {} run{}",
                    gcscope_core::fmt::escape_controls(&m.name),
                    runs.runs(),
                    if runs.runs() == 1 { "" } else { "s" }
                );
            }
        }
    }
}

/// A source that held no gc line: said on stderr with how Go prints them (the classic
/// forgotten `2>&1`), as the dashboard's guide says it.
pub(crate) fn hint_no_gc_lines(sources: &[Source]) {
    let empty: Vec<&str> = sources
        .iter()
        .filter(|s| s.timeline.cycle_count() + s.timeline.before_window() == 0)
        .map(|s| s.name.as_str())
        .collect();
    if empty.is_empty() {
        return;
    }
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "gcscope: no gc lines in {}.", empty.join(", "));
    for line in gcscope_core::fmt::NO_GC_LINES_HINT {
        let _ = writeln!(err, "  {line}");
    }
}

pub(crate) fn print(s: &str) -> Result<()> {
    write_stdout(|out| out.write_all(s.as_bytes()))
}

pub(crate) fn write_stdout(
    write: impl FnOnce(&mut std::io::StdoutLock<'static>) -> std::io::Result<()>,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    write(&mut out)
        .and_then(|_| out.flush())
        .map_err(|e| anyhow::Error::new(e).context("writing the output"))
}

/// Says what went wrong, on stderr, and gives the exit status. Output lost to a closed pipe
/// (`| head`) ends quietly with 141, the status a shell reports for a tool SIGPIPE stopped, as
/// `yes | head` does; any other failure (a full disk: `> /dev/full`) is named, status 1.
pub fn report_error(e: &anyhow::Error) -> i32 {
    let broken_pipe = e.chain().any(|c| {
        let io = c
            .downcast_ref::<std::io::Error>()
            .or_else(|| c.downcast_ref().and_then(gcscope_core::Error::io))
            .or_else(|| c.downcast_ref().and_then(gcscope_model::SourceError::io));
        io.is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return 141;
    }
    if let Some(gcscope_source::Interrupted(signal)) = e.downcast_ref() {
        return 128 + signal;
    }
    if let Some(signal) = e.downcast_ref().and_then(gcscope_tui::Error::signal) {
        return 128 + signal;
    }
    // The program gcscope ran ended so: its status is gcscope's, said already.
    if let Some(run::ExitWith(code)) = e.downcast_ref() {
        return *code;
    }
    // Stderr may be gone too; then there is no one to tell.
    let _ = writeln!(std::io::stderr(), "gcscope: {e:#}");
    1
}

pub(crate) fn print_json(v: &impl serde::Serialize) -> Result<()> {
    // Written as it is serialised: a summary of thousands of runs is megabytes of JSON.
    write_stdout(|out| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
        serde_json::to_writer_pretty(&mut w, v).map_err(std::io::Error::from)?;
        w.write_all(b"\n")?;
        w.flush()
    })
}

/// What the dashboard showed stays in the terminal once it is back: each pane's run, as
/// `gcscope summary` prints it, and the A/B strip's rows.
pub fn say_what_was_shown(names: Vec<String>, closed: gcscope_tui::Closed) {
    let shown: Vec<_> = names
        .into_iter()
        .zip(closed.kept)
        .map(|(name, k)| {
            let source = gcscope_core::report::Source {
                name,
                timeline: k.timeline,
            };
            (source, k.run)
        })
        .collect();
    if shown.is_empty() {
        return;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = gcscope_core::report::write_shown_runs_text(&shown, &mut out)
        .and_then(|()| match &closed.strip {
            Some(strip) => std::io::Write::write_all(&mut out, strip.as_bytes()),
            None => Ok(()),
        })
        .and_then(|()| std::io::Write::flush(&mut out));
    if let Err(e) = written {
        let _ = writeln!(std::io::stderr(), "gcscope: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// clap's own checks, and every command and argument has a description.
    #[test]
    fn every_command_and_argument_is_described() {
        let cli = Cli::command();
        cli.clone().debug_assert();
        let mut commands = vec![&cli];
        commands.extend(cli.get_subcommands());
        for cmd in commands {
            assert!(cmd.get_about().is_some(), "{} has no about", cmd.get_name());
            for arg in cmd.get_arguments() {
                assert!(
                    arg.get_help().is_some(),
                    "gcscope {} {}: no description",
                    cmd.get_name(),
                    arg.get_id()
                );
            }
        }
    }

    /// Words as a shell splits them: whitespace outside quotes; '...' and "..." quote.
    fn shell_words(line: &str) -> Vec<String> {
        let (mut words, mut word, mut quote, mut any) = (Vec::new(), String::new(), None, false);
        for c in line.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => word.push(c),
                (None, '\'' | '"') => {
                    quote = Some(c);
                    any = true;
                }
                (None, c) if c.is_whitespace() => {
                    if any || !word.is_empty() {
                        words.push(std::mem::take(&mut word));
                    }
                    any = false;
                }
                (None, c) => word.push(c),
            }
        }
        if any || !word.is_empty() {
            words.push(word);
        }
        words
    }

    /// Every `gcscope` command line in the README's usage blocks parses as written.
    #[test]
    fn the_readme_commands_parse() {
        let readme = include_str!("../../README.md");
        let mut checked = 0;
        for block in readme.split("```sh").skip(1) {
            let block = block.split("```").next().unwrap_or_default();
            for line in block.lines() {
                let line = line.split(" #").next().unwrap_or_default();
                // The command after a pipe, up to a redirection, pipe or `&&`.
                let Some(start) = line.find("gcscope") else {
                    continue;
                };
                let words: Vec<String> = shell_words(&line[start..])
                    .into_iter()
                    .take_while(|w| !matches!(w.as_str(), "|" | ">" | "&&" | "2>&1"))
                    .collect();
                if let Err(e) = Cli::try_parse_from(&words) {
                    panic!("README: {line:?} does not parse: {e}");
                }
                checked += 1;
            }
        }
        assert!(checked >= 15, "only {checked} README commands found");
    }
}
