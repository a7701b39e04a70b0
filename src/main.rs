//! The `gcscope` command line: parse arguments, pick a command. The work is in the library.

use anyhow::{bail, Result};
use clap::{Parser, Subcommand, ValueEnum};
use gcscope::lab::{self, Shape};
use gcscope::report::{self, Source};
use gcscope::source::{self, LabControl, Spec};
use std::io::Write;
use std::path::PathBuf;

/// mimalloc rather than glibc's malloc: a large trace is read on one thread per core, and
/// glibc grows each extra thread's arena with an `mprotect` call per page and hands out fresh,
/// page-faulting memory (3 us a page on the CI VM) where mimalloc reuses its own. `summary`
/// of the 1,000,000-line trace (assets/bench/speed.sh): best of 15 0.141 s -> 0.127 s,
/// median 0.175 s -> 0.149 s.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Replay a real Go 1.27.3 trace built into the binary (Green Tea, tree workload).
    Demo,
    /// The GC lab: a real concurrent mark-sweep collector running a heap-shape workload.
    Lab {
        #[command(flatten)]
        args: LabArgs,
        /// Both markers on the same workload, seed and P: legacy as A, Green Tea as B. Live,
        /// the two take turns on the machine; headless, runs go one after another.
        #[arg(long, conflicts_with = "marker")]
        ab: bool,
        /// With --headless --ab: runs per side (alternating A, B, A, B...).
        #[arg(long, default_value_t = 5, requires = "ab")]
        runs: usize,
        /// Shortest turn of a side in the live A/B (ms).
        #[arg(long, default_value_t = 250)]
        turn_ms: u64,
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
    #[arg(long, value_enum)]
    marker: Option<MarkerArg>,
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

impl Default for LabArgs {
    /// The same values as the flags' defaults (a test checks they agree).
    fn default() -> LabArgs {
        LabArgs {
            workload: Shape::Tree,
            marker: None,
            gogc: 100,
            procs: 2,
            seed: 1,
            scale: 1.0,
            arena_mb: 8192,
        }
    }
}

impl LabArgs {
    fn config(&self, duration: Option<std::time::Duration>) -> lab::Config {
        lab::Config {
            shape: self.workload,
            marker: self.marker.unwrap_or(MarkerArg::Greentea).into(),
            // Go's GOGC is an int32; the lab has no GOGC=off.
            gogc: self.gogc.clamp(1, i32::MAX as u64),
            procs: self.procs.clamp(1, 64),
            duration,
            seed: self.seed,
            scale: self.scale.clamp(1.0 / 64.0, 64.0),
            arena_mb: self.arena_mb.max(64),
            ..lab::Config::default()
        }
    }
}

#[derive(Clone, Copy, ValueEnum, Default)]
enum MarkerArg {
    Legacy,
    #[default]
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
        // The embedded default: the lab's live A/B, no Go and no file needed.
        None if cli.files.is_empty() => lab_ab_live(&LabArgs::default(), 250),
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
                let printed = write_stdout(|out| report::write_summary_text(&sources, out));
                // The process ends here: freeing a million-line timeline only costs time.
                std::mem::forget(sources);
                printed
            }
        }
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
            (false, false) => {
                let cfg = args.config(None);
                let label = cfg.label();
                let (control, specs) = LabControl::new(vec![cfg]);
                gcscope::ui::run(
                    specs.into_iter().map(|s| (label.clone(), s)).collect(),
                    Some(control),
                )
            }
            (false, true) => lab_ab_live(&args, turn_ms),
            (true, false) => lab_headless(&args.config(Some(duration)), json, trace_out.as_deref()),
            (true, true) => {
                if trace_out.is_some() {
                    bail!("--trace-out takes one run; for A/B traces run each marker with its own file");
                }
                lab_ab_headless(&args, duration, runs, json)
            }
        },
        Some(Command::Demo) => {
            gcscope::ui::run(vec![(EMBEDDED_NAME.into(), Spec::Embedded(EMBEDDED))], None)
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
    gcscope::ui::run(sources, None)
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

/// The two markers as A (legacy) and B (Green Tea), live, taking turns on the machine.
fn lab_ab_live(args: &LabArgs, turn_ms: u64) -> Result<()> {
    let turns = std::sync::Arc::new(lab::turns::Turns::new(
        2,
        std::time::Duration::from_millis(turn_ms.max(10)),
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
    gcscope::ui::run(names.into_iter().zip(specs).collect(), Some(control))
}

/// Headless A/B: `runs` runs per side, alternating, then the same comparison as `compare`.
fn lab_ab_headless(
    args: &LabArgs,
    duration: std::time::Duration,
    runs: usize,
    json: bool,
) -> Result<()> {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 0..runs.max(1) {
        for marker in [lab::Marker::Legacy, lab::Marker::Greentea] {
            let mut cfg = args.config(Some(duration));
            cfg.marker = marker;
            let mut tl = gcscope::timeline::Timeline::default();
            tl.apply(gcscope::model::Event::RunStart {
                run: 0,
                line: 0,
                restart: None,
            });
            let end = lab::run(&cfg, |lc| {
                tl.apply(gcscope::model::Event::Cycle {
                    run: 0,
                    cycle: Box::new(lc.result.cycle),
                });
                true
            });
            eprintln!(
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

fn read_sources(files: &[PathBuf], keep_cycles: bool) -> Result<Vec<Source>> {
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
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
                        ..Default::default()
                    },
                )?,
            })
        })
        .collect()
}

fn print(s: &str) -> Result<()> {
    write_stdout(|out| out.write_all(s.as_bytes()))
}

fn write_stdout(
    write: impl FnOnce(&mut std::io::StdoutLock<'static>) -> std::io::Result<()>,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match write(&mut out).and_then(|_| out.flush()) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(parse_duration("5h").is_err());
        assert!(parse_duration("x").is_err());
    }
}
