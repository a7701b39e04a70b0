//! The `gcscope` command line: parse arguments, pick a command. The work is in the library.

use anyhow::{bail, Result};
use clap::{Parser, Subcommand, ValueEnum};
use gcscope::lab::{self, Shape};
use gcscope::report::{self, Source};
use gcscope::source::Spec;
use gcscope::trace;
use std::io::Write;
use std::path::PathBuf;

/// A real trace recorded with Go 1.27.3 (Green Tea, tree workload), shown when no file is given.
const EMBEDDED_NAME: &str = "embedded: go1.27.3_greentea_tree_p2_r1.log";
const EMBEDDED: &[u8] = include_bytes!("../traces/go/go1.27.3_greentea_tree_p2_r1.log");

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
    /// The GC lab: a real concurrent mark-sweep collector running a heap-shape workload.
    Lab {
        #[command(flatten)]
        args: LabArgs,
        /// No dashboard: print each cycle as it ends, statistics at the end.
        #[arg(long)]
        headless: bool,
        /// How long to run (headless; the dashboard runs until you quit).
        #[arg(long, value_parser = parse_duration, default_value = "5s")]
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

/// The lab's settings on the command line.
#[derive(clap::Args, Clone)]
struct LabArgs {
    /// Heap shape to run.
    #[arg(long, value_enum, default_value = "tree")]
    workload: Shape,
    /// Marking strategy: object by object (legacy) or page by page (Green Tea).
    #[arg(long, value_enum, default_value = "greentea")]
    marker: MarkerArg,
    /// GOGC: heap growth allowed over the live heap, percent.
    #[arg(long, default_value_t = 100)]
    gogc: u64,
    /// GOMAXPROCS-like P slots.
    #[arg(long, default_value_t = 2)]
    procs: usize,
    /// Random seed: same seed, same workload.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Heap size factor (1: about 10-80 MB live depending on the shape).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Virtual arena size (touched only as the heap grows).
    #[arg(long, default_value_t = 8192)]
    arena_mb: u64,
}

impl LabArgs {
    fn config(&self, duration: Option<std::time::Duration>) -> lab::Config {
        lab::Config {
            shape: self.workload,
            marker: self.marker.into(),
            gogc: self.gogc.max(1),
            procs: self.procs.clamp(1, 64),
            duration,
            seed: self.seed,
            scale: self.scale.clamp(1.0 / 64.0, 64.0),
            arena_mb: self.arena_mb.max(64),
            ..lab::Config::default()
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum MarkerArg {
    Legacy,
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

/// `5s`, `500ms`, `2m`, or plain seconds.
fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let (num, unit) = s
        .find(|c: char| c.is_ascii_alphabetic())
        .map_or((s, "s"), |i| s.split_at(i));
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("not a duration: {s:?} (try 5s, 500ms, 2m)"))?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" => v,
        "m" => v * 60.0,
        _ => return Err(format!("unknown unit in {s:?} (ms, s or m)")),
    };
    if !(0.0..=86_400.0).contains(&secs) {
        return Err(format!("duration out of range: {s:?}"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

#[derive(Clone, Copy, ValueEnum)]
enum CompareFormat {
    Table,
    Bench,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("gcscope: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        None if cli.files.is_empty() => {
            gcscope::ui::run(vec![(EMBEDDED_NAME.into(), Spec::Embedded(EMBEDDED))])
        }
        None => view(&cli.files, cli.follow),
        Some(Command::View { files, follow }) => view(&files, follow),
        Some(Command::Summary { files, json, csv }) => {
            // Per-cycle records are needed only for the per-cycle CSV.
            let sources = read_sources(&files, csv)?;
            if json {
                print_json(&report::summary_json(&sources))
            } else if csv {
                print(&report::summary_csv(&sources))
            } else {
                print(&report::summary_text(&sources))
            }
        }
        Some(Command::Lab {
            args,
            headless,
            duration,
            json,
            trace_out,
        }) => {
            if !headless {
                bail!("the live lab dashboard is not wired yet; use --headless");
            }
            lab_headless(&args.config(Some(duration)), json, trace_out.as_deref())
        }
        Some(Command::Compare { a, b, json, format }) => {
            let (a, b) = (read_sources(&a, false)?, read_sources(&b, false)?);
            if report::all_runs(&a).is_empty() || report::all_runs(&b).is_empty() {
                bail!("each side needs at least one run with gc cycles");
            }
            if json {
                print_json(&report::compare_json(&a, &b))
            } else if matches!(format, Some(CompareFormat::Bench)) {
                print(&report::compare_bench(&a, &b))
            } else {
                print(&report::compare_text(&a, &b))
            }
        }
    }
}

fn view(files: &[PathBuf], follow: bool) -> Result<()> {
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
    }
    let mut sources = Vec::new();
    for f in files {
        let spec = if f.as_os_str() == "-" {
            Spec::Stdin
        } else if follow {
            Spec::Follow(f.clone())
        } else {
            if let Err(e) = std::fs::metadata(f) {
                bail!("cannot open {}: {e}", f.display());
            }
            Spec::File(f.clone())
        };
        sources.push((f.display().to_string(), spec));
    }
    gcscope::ui::run(sources)
}

fn lab_headless(cfg: &lab::Config, json: bool, trace_out: Option<&std::path::Path>) -> Result<()> {
    let mut file = match trace_out {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p)
                .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", p.display()))?,
        )),
        None => None,
    };
    let summary = lab::headless::run(cfg, json, file.as_mut().map(|f| f as &mut dyn Write))?;
    if let Some(f) = file.as_mut() {
        f.flush()?;
    }
    if json {
        print_json(&summary)
    } else {
        print(&lab::headless::summary_text(&summary))
    }
}

fn read_sources(files: &[PathBuf], keep_cycles: bool) -> Result<Vec<Source>> {
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
    }
    files
        .iter()
        .map(|f| {
            Ok(Source {
                name: f.display().to_string(),
                timeline: trace::read_path_into(
                    f,
                    gcscope::timeline::Timeline {
                        drop_cycles: !keep_cycles,
                        ..Default::default()
                    },
                )?,
            })
        })
        .collect()
}

fn print(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

fn print_json(v: &impl serde::Serialize) -> Result<()> {
    let mut s = serde_json::to_string_pretty(v)?;
    s.push('\n');
    print(&s)
}
