//! `gcscope tune`: what another GOGC or memory limit would cost, from one run of a trace
//! (a model: `crates/core/src/stats/tune/`), and `--verify`, which runs the program to check.

use super::{print, print_json};
use anyhow::{bail, Context, Result};
use gcscope_core::report;
use gcscope_core::stats::tune::{self, Setting, Tune};
use gcscope_core::timeline::{last_process, Timeline};
use gcscope_source as source;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct TuneArgs {
    /// A gctrace log (`-`: standard input), Go 1.18+ best (older lines carry the heap only).
    pub trace: PathBuf,
    /// GOGC values to predict, comma-separated (`off` allowed with --limit); default
    /// 25,50,100,150,200,300,400 and the trace's own.
    #[arg(long, value_delimiter = ',', value_parser = parse_gogc)]
    pub gogc: Vec<Option<u32>>,
    /// A memory limit to predict (GOMEMLIMIT syntax: 512MiB, 1GiB, or bytes), at each GOGC
    /// given (or the trace's own). Repeatable.
    #[arg(long, value_parser = parse_size)]
    pub limit: Vec<f64>,
    /// Which run of the trace (1-based); default the log's last process (under `go run`, the
    /// program's).
    #[arg(long)]
    pub run: Option<usize>,
    /// Machine-readable output: `basis` (the fit) and `predictions[]`, and with --verify
    /// `verify[]` (docs/TUNE.md).
    #[arg(long)]
    pub json: bool,
    /// Check the model: run the program (`-- CMD ARGS`) at the predicted settings and at the
    /// trace's own, interleaved, and print prediction and measurement side by side. Without
    /// --gogc/--limit it checks the settings worth trying (the nearest GOGC below and above).
    #[arg(long, requires = "command")]
    pub verify: bool,
    /// With --verify: runs per setting (the verdict rule wants 3 or more).
    #[arg(long, default_value_t = 3, requires = "verify", value_parser = clap::value_parser!(u16).range(1..=100))]
    pub runs: u16,
    /// With --verify: stop a run after this long (`30s`, `5m`).
    #[arg(long, requires = "verify", value_parser = super::lab::parse_duration)]
    pub timeout: Option<std::time::Duration>,
    /// With --verify: the program that wrote the trace and its arguments, after `--`.
    #[arg(last = true, num_args = 1..)]
    pub command: Vec<std::ffi::OsString>,
}

fn parse_gogc(s: &str) -> Result<Option<u32>, String> {
    if s.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    match s.parse::<u32>() {
        Ok(g) if (1..=100_000).contains(&g) => Ok(Some(g)),
        _ => Err(format!("GOGC must be 1-100000 or off, not {s:?}")),
    }
}

/// A size in MiB, as GOMEMLIMIT spells it: a number with B, KiB, MiB, GiB or TiB, or bytes.
pub fn parse_size(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("a size like 512MiB or 1GiB, not {s:?}"))?;
    let mul = match unit {
        "" | "B" => 1.0 / 1_048_576.0,
        "KiB" => 1.0 / 1024.0,
        "MiB" => 1.0,
        "GiB" => 1024.0,
        "TiB" => 1_048_576.0,
        _ => {
            return Err(format!(
                "unit {unit:?}: use B, KiB, MiB, GiB or TiB (as GOMEMLIMIT)"
            ))
        }
    };
    let mib = n * mul;
    if mib < 1.0 {
        return Err(format!("a limit under 1 MiB ({s:?}) leaves no heap"));
    }
    Ok(mib)
}

/// The settings the arguments ask for: each GOGC alone, and each limit at each GOGC (or at
/// the trace's own).
pub fn settings(args: &TuneArgs, trace_gogc: Option<u32>) -> Vec<Setting> {
    let mut out = asked(args, trace_gogc);
    // A check runs the trace's own setting beside the others: the control.
    if args.verify && !out.is_empty() {
        if let Some(g) = trace_gogc {
            let own = Setting {
                gogc: Some(g),
                limit_mib: None,
            };
            if !out.contains(&own) {
                out.insert(0, own);
            }
        }
    }
    out
}

fn asked(args: &TuneArgs, trace_gogc: Option<u32>) -> Vec<Setting> {
    let mut out: Vec<Setting> = args
        .gogc
        .iter()
        .filter(|g| g.is_some() || args.limit.is_empty())
        .map(|&gogc| Setting {
            gogc,
            limit_mib: None,
        })
        .collect();
    let at: Vec<Option<u32>> = if args.gogc.is_empty() {
        vec![trace_gogc.or(Some(100))]
    } else {
        args.gogc.clone()
    };
    for &l in &args.limit {
        for &gogc in &at {
            out.push(Setting {
                gogc,
                limit_mib: Some(l),
            });
        }
    }
    if !args.limit.is_empty() && args.gogc.is_empty() {
        // The grid, then the limits: ask for it explicitly.
        let mut grid: Vec<Setting> = tune::GRID
            .iter()
            .map(|&g| Setting {
                gogc: Some(g),
                limit_mib: None,
            })
            .collect();
        grid.append(&mut out);
        out = grid;
    }
    out
}

/// Read the trace and fit its chosen run.
pub fn fit(args: &TuneArgs) -> Result<(String, usize, Tune)> {
    let tl: Timeline = source::read_path(&args.trace)?;
    let k = match args.run {
        Some(0) => bail!("runs are numbered from 1"),
        Some(n) if n > tl.runs.len() => {
            bail!("run {n}: the trace has {} runs", tl.runs.len())
        }
        Some(n) => n - 1,
        None => last_process(&tl.runs)
            .or_else(|| tl.runs.iter().rposition(|r| !r.cycles.is_empty()))
            .with_context(|| format!("{}: no gc lines", gcscope_core::fmt::path(&args.trace)))?,
    };
    let run = &tl.runs[k];
    let pacer = run.summary().and_then(|s| s.pacer);
    let settings = settings(args, pacer.as_ref().and_then(|p| p.gogc));
    let t = tune::tune(&run.cycles.all(), pacer.as_ref(), &settings).map_err(|e| {
        anyhow::anyhow!(
            "{}, run {}: not tuned: {e}",
            gcscope_core::fmt::path(&args.trace),
            k + 1
        )
    })?;
    Ok((gcscope_core::fmt::path(&args.trace), k, t))
}

pub fn tune(args: &TuneArgs) -> Result<()> {
    let (name, k, t) = fit(args)?;
    if args.verify {
        return verify(args, &name, k, &t);
    }
    if args.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            trace: &'a str,
            run: usize,
            model: &'static str,
            #[serde(flatten)]
            tune: &'a Tune,
        }
        return print_json(&Out {
            trace: &name,
            run: k + 1,
            model: "predicted, not measured",
            tune: &t,
        });
    }
    print(&report::tune_text(&name, k, &t))
}

/// The environment a setting runs with: GOGC and GOMEMLIMIT both set, so the caller's own
/// values do not leak into a run (`off` is what Go reads as no limit).
fn env_of(s: &Setting) -> [String; 2] {
    [
        format!(
            "GOGC={}",
            s.gogc.map_or("off".to_string(), |g| g.to_string())
        ),
        format!(
            "GOMEMLIMIT={}",
            s.limit_mib
                .map_or("off".to_string(), |l| format!("{}MiB", l.round()))
        ),
    ]
}

/// The program's main run in its trace: the last process (`go run` traces the go command and
/// the compiler first).
fn main_cycles(tl: &Timeline) -> gcscope_model::CycleSlice<'_> {
    last_process(&tl.runs)
        .or_else(|| tl.runs.iter().rposition(|r| !r.cycles.is_empty()))
        .and_then(|k| tl.runs.get(k))
        .map_or(gcscope_model::CycleSlice::empty(), |r| r.cycles.all())
}

fn verify(args: &TuneArgs, name: &str, k: usize, t: &Tune) -> Result<()> {
    use gcscope_core::stats::tune::verify::{self as check, RunFigures};
    use gcscope_source::child::{self, ChildControl, ChildSpec};
    use std::io::Write as _;
    let chosen: Vec<&gcscope_core::stats::tune::Prediction> =
        if args.gogc.is_empty() && args.limit.is_empty() {
            let mut v: Vec<_> = t.predictions.iter().filter(|p| p.own).collect();
            v.extend(report::worth_trying_predictions(t));
            v
        } else {
            t.predictions
                .iter()
                .filter(|p| p.refused.is_none())
                .collect()
        };
    if chosen.is_empty() {
        bail!(
            "nothing to verify: the model predicts none of the settings asked for (tune without \
             --verify says why)"
        );
    }
    let display = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let control = ChildControl::new();
    super::run::forward_signals(control.clone());
    let runs = usize::from(args.runs);
    let total = runs * chosen.len();
    let mut figures: Vec<Vec<RunFigures>> = vec![Vec::new(); chosen.len()];
    let mut failed = vec![0usize; chosen.len()];
    let mut err = std::io::stderr();
    let mut step = 0;
    'rounds: for r in 1..=runs {
        for (i, p) in chosen.iter().enumerate() {
            if control.stopping() {
                let _ = writeln!(err, "gcscope tune: stopped; the runs so far are compared");
                break 'rounds;
            }
            step += 1;
            let setting = Setting {
                gogc: p.gogc,
                limit_mib: p.limit_mib,
            };
            let env = env_of(&setting);
            let mut argv: Vec<std::ffi::OsString> = vec!["env".into()];
            argv.extend(env.iter().map(Into::into));
            argv.extend(args.command.iter().cloned());
            let spec = ChildSpec {
                argv,
                display: format!("{} {display}", env.join(" ")),
                gctrace: 1,
                build: None,
                record: None,
                record_stdout: None,
                passthrough: false,
                own_group: true,
                no_stdin: true,
                timeout: args.timeout,
                metrics: Vec::new(),
                ab: None,
                warmup: false,
                supervisor: std::env::current_exe().ok(),
            };
            let mut tl = Timeline {
                drop_text: true,
                ..Timeline::default()
            };
            let exit = child::run(
                &spec,
                &control,
                &mut gcscope_core::trace::Decoder::new(),
                &mut |e| tl.apply(e),
            )?;
            let ok =
                matches!(exit.status, gcscope_model::ExitStatus::Code(0)) && exit.stopped.is_none();
            let cycles = main_cycles(&tl);
            let got = if ok {
                check::run_figures(&cycles, t.basis.work_mib)
            } else {
                None
            };
            let _ = writeln!(
                err,
                "gcscope tune: [{step}/{total}] {} run {r}: {} cycles, {:.2} s, {}{}",
                setting.label(),
                cycles.len(),
                exit.wall_s,
                exit.status,
                if ok && got.is_none() {
                    " (under 2 cycles: no figures)"
                } else {
                    ""
                }
            );
            match got {
                Some(f) => figures[i].push(f),
                None => failed[i] += 1,
            }
        }
    }
    let verified: Vec<check::Verified> = chosen
        .iter()
        .enumerate()
        .map(|(i, p)| check::verify(p, &figures[i], failed[i]))
        .collect();
    // Stopped by a signal: the runs so far are printed, and gcscope ends as the signal says.
    let stopped = control.stopping().then(|| control.signal()).flatten();
    let printed = print_verify(args, name, k, t, &display, runs, &verified);
    if let Some(sig) = stopped {
        printed?;
        return Err(super::run::ExitWith(128 + sig).into());
    }
    printed
}

fn print_verify(
    args: &TuneArgs,
    name: &str,
    k: usize,
    t: &Tune,
    display: &str,
    runs: usize,
    verified: &[gcscope_core::stats::tune::verify::Verified],
) -> Result<()> {
    use gcscope_core::stats::tune::verify as check;
    if args.json {
        #[derive(serde::Serialize)]
        struct Out<'a> {
            trace: &'a str,
            run: usize,
            command: &'a str,
            runs_per_setting: usize,
            #[serde(flatten)]
            tune: &'a Tune,
            verify: &'a [check::Verified],
        }
        return print_json(&Out {
            trace: name,
            run: k + 1,
            command: display,
            runs_per_setting: runs,
            tune: t,
            verify: verified,
        });
    }
    print(&format!(
        "{}\n{}",
        report::tune_text(name, k, t),
        report::verify_text(display, runs, t.basis.work_mib, verified)
    ))
}
