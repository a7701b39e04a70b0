//! The `gcscope` command line: parse arguments, pick a command. The work is in the library.

use anyhow::{bail, Result};
use clap::{Parser, Subcommand, ValueEnum};
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
