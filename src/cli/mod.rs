//! Arguments, and which command runs: one file per command family.

mod lab;
mod summary;
mod view;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use gcscope::report::Source;
use gcscope::source;
use std::io::Write;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "gcscope",
    version,
    about = "See what Go's garbage collector did: GODEBUG=gctrace=1 logs in a terminal dashboard, summaries and A/B comparisons",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Shortcut for `gcscope view FILE [FILE]`.
    #[arg(num_args = 0..=2)]
    files: Vec<PathBuf>,
    /// With the shortcut: follow the files as they grow.
    #[arg(long, short)]
    follow: bool,
}

#[derive(Subcommand)]
enum Command {
    /// The dashboard: replay a trace, or two side by side (A/B). `-` reads standard input:
    /// `GODEBUG=gctrace=1 ./prog 2>&1 | gcscope view -`.
    View {
        #[arg(required = true, num_args = 1..=2)]
        files: Vec<PathBuf>,
        /// Follow the files as they grow, like `tail -F` (survives truncation and rotation).
        #[arg(long, short)]
        follow: bool,
    },
    /// Per-run figures of one or more traces (`-` reads standard input).
    Summary {
        /// Trace files; `-` for standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Machine-readable output (field names in docs/SUMMARY.md).
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// One row per cycle, for spreadsheets.
        #[arg(long)]
        csv: bool,
    },
    /// Compare runs: `gcscope compare A... -- B...`. Median [min-max] per side, delta, `~` where
    /// the ranges overlap.
    Compare {
        /// Side A files, then `--`, then side B files.
        #[arg(required = true, num_args = 1..)]
        a: Vec<PathBuf>,
        #[arg(last = true, required = true, num_args = 1..)]
        b: Vec<PathBuf>,
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// `bench`: per-run Go benchmark-format lines for benchstat (`benchstat -col side`).
        #[arg(long, value_enum)]
        format: Option<CompareFormat>,
    },
    /// Replay a real Go 1.27.3 trace built into the binary (Green Tea, tree workload).
    Demo,
    /// The GC lab: a real concurrent mark-sweep collector running a heap-shape workload.
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
        /// How long to run (headless; the dashboard runs until you quit).
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
enum CompareFormat {
    Table,
    Bench,
}

pub fn run() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        // The embedded default: the lab's live A/B, no Go and no file needed.
        None if cli.files.is_empty() => lab::ab_live(&lab::LabArgs::default(), 250),
        None => view::view(&cli.files, cli.follow),
        Some(Command::View { files, follow }) => view::view(&files, follow),
        Some(Command::Summary { files, json, csv }) => summary::summary(&files, json, csv),
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
        Some(Command::Compare { a, b, json, format }) => {
            summary::compare(&a, &b, json, matches!(format, Some(CompareFormat::Bench)))
        }
    }
}

pub(crate) fn read_sources(files: &[PathBuf], keep_cycles: bool) -> Result<Vec<Source>> {
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        anyhow::bail!("standard input (-) can be read only once");
    }
    files
        .iter()
        .map(|f| {
            Ok(Source {
                name: f.display().to_string(),
                timeline: source::read_path_into(
                    f,
                    gcscope::timeline::Timeline {
                        drop_cycles: !keep_cycles,
                        drop_text: true,
                        ..Default::default()
                    },
                )?,
            })
        })
        .collect()
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
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return 141;
    }
    if let Some(gcscope::ui::Interrupted(signal)) = e.downcast_ref() {
        return 128 + signal;
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
