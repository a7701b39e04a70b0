//! `gcscope ab`: two commands run in turn, A B A B ..., never two at once, each with gctrace
//! on, each run recorded. Side A's events go to one sink, B's to the other; a side's runs
//! share its decoder, so each program is a new run of that side's timeline.

use super::child::{self, ChildControl, ChildSpec};
use super::{Sink, SourceError};
use gcscope_core::trace::Decoder;
use gcscope_model::{Event, ProgramExit};
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct AbSpec {
    /// A and B as one program would run (`sh -c COMMAND`); `record`, `ab` and `warmup` are
    /// set here per run.
    pub sides: [ChildSpec; 2],
    /// Measured runs a side.
    pub runs: usize,
    /// Runs a side before the measured ones (A B each time), shown and recorded, never
    /// samples: caches, page cache and CPU frequency settle.
    pub warmup: usize,
    /// Where every run is recorded: `a-01.log` (its stderr, byte for byte), `a-01.stdout`,
    /// and `runs.tsv` listing them in the order they ran.
    pub record: Option<PathBuf>,
    /// Go on after a failed run (non-zero status, a signal, the time cap) instead of stopping.
    pub keep_going: bool,
}

/// One run's end, for progress and the report.
#[derive(Debug, Clone)]
pub struct RunEnd {
    /// 1-based position in the whole order (warm-ups included).
    pub order: usize,
    pub total: usize,
    pub side: char,
    /// 1-based run of its side; warm-ups are numbered apart.
    pub run: usize,
    pub warmup: bool,
    pub exit: ProgramExit,
    pub cycles: usize,
    /// The last lines it printed, for a failed run's report.
    pub tail: Vec<String>,
}

impl RunEnd {
    #[must_use]
    pub fn failed(&self) -> bool {
        !self.exit.status.success() || self.exit.stopped.is_some()
    }
}

/// Where the A/B is: run `k` of `total` (warm-ups included) starts (`end` is `None`) or
/// has ended.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    pub k: usize,
    pub total: usize,
    pub side: char,
    pub warmup: bool,
    pub end: Option<&'a RunEnd>,
}

/// How the A/B ended.
#[derive(Debug, Clone)]
pub struct AbOutcome {
    pub ends: Vec<RunEnd>,
    /// Stopped early: by a failed run (without `keep_going`) or by the user.
    pub stopped_by: Option<String>,
}

/// Runs the A/B to its end or until `control` stops it. `progress` hears of each run as it
/// starts (`None` end) and ends.
pub fn run(
    spec: &AbSpec,
    control: &ChildControl,
    out: [&mut dyn Sink; 2],
    progress: &mut dyn FnMut(Step<'_>),
) -> Result<AbOutcome, SourceError> {
    let mut outs = out;
    let mut decs = [Decoder::new(), Decoder::new()];
    let mut order: Vec<(usize, usize, bool)> = Vec::new();
    for w in 1..=spec.warmup {
        order.push((0, w, true));
        order.push((1, w, true));
    }
    for r in 1..=spec.runs {
        order.push((0, r, false));
        order.push((1, r, false));
    }
    let total = order.len();
    let mut index = match &spec.record {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| SourceError::open(dir, e))?;
            let path = dir.join("runs.tsv");
            // Never over an earlier record (the command checked the directory is fresh).
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|e| SourceError::open(&path, e))?;
            let _ = writeln!(
                f,
                "order\tside\trun\twarmup\tlog\tstatus\twall_s\tcpu_s\tother_cpus\tcommand"
            );
            Some(f)
        }
        None => None,
    };
    let mut outcome = AbOutcome {
        ends: Vec::new(),
        stopped_by: None,
    };
    for (k, &(side, run, warmup)) in order.iter().enumerate() {
        if control.stopping() {
            outcome.stopped_by = Some("stopped by the user".into());
            break;
        }
        let letter = ['A', 'B'][side];
        let step = Step {
            k: k + 1,
            total,
            side: letter,
            warmup,
            end: None,
        };
        progress(step);
        let mut c = spec.sides[side].clone();
        let name = format!(
            "{}-{}{:02}",
            letter.to_ascii_lowercase(),
            if warmup { "warmup-" } else { "" },
            run
        );
        c.record = spec.record.as_ref().map(|d| d.join(format!("{name}.log")));
        c.ab = Some((letter, run));
        c.warmup = warmup;
        let mut tail: std::collections::VecDeque<String> = Default::default();
        let mut cycles = 0;
        c.record_stdout = spec
            .record
            .as_ref()
            .map(|d| d.join(format!("{name}.stdout")));
        let mut seen_exit = None;
        let mut sink = Tee {
            sink: &mut *outs[side],
            tail: &mut tail,
            cycles: &mut cycles,
            exit: &mut seen_exit,
        };
        // A record that could not be written ends the A/B after this run, whose figures
        // stand; a shell that cannot start ends it at once.
        let mut record_failed = None;
        let exit = match child::run(&c, control, &mut decs[side], &mut sink) {
            Ok(exit) => exit,
            Err(e @ SourceError::Write { .. }) => match seen_exit {
                Some(exit) => {
                    record_failed = Some(e.to_string());
                    exit
                }
                None => return Err(e),
            },
            Err(e) => return Err(e),
        };
        let end = RunEnd {
            order: k + 1,
            total,
            side: letter,
            run,
            warmup,
            exit,
            cycles,
            tail: tail.into_iter().collect(),
        };
        if let Some(f) = &mut index {
            let _ = writeln!(
                f,
                "{}\t{}\t{}\t{}\t{}.log\t{}\t{:.3}\t{}\t{}\t{}",
                k + 1,
                letter,
                run,
                warmup,
                name,
                end.exit.status.shell_code(),
                end.exit.wall_s,
                end.exit.cpu_s.map_or(String::new(), |c| format!("{c:.3}")),
                end.exit
                    .other_cpus
                    .map_or(String::new(), |c| format!("{c:.2}")),
                c.display
            );
        }
        progress(Step {
            end: Some(&end),
            ..step
        });
        let failed = end.failed();
        outcome.ends.push(end);
        if let Some(why) = record_failed {
            outcome.stopped_by = Some(why);
            break;
        }
        if failed && control.stopping() {
            outcome.stopped_by = Some("stopped by the user".into());
            break;
        }
        if failed && !spec.keep_going {
            let what = if warmup { "warm-up" } else { "run" };
            outcome.stopped_by = Some(format!(
                "{what} {run} of {letter} failed (--keep-going runs on)"
            ));
            break;
        }
    }
    for (dec, sink) in decs.iter_mut().zip(outs.iter_mut()) {
        dec.finish(&mut |e| sink.push(e));
        sink.flush();
    }
    Ok(outcome)
}

/// A side's sink that also keeps the run's last output lines and counts its cycles.
struct Tee<'a> {
    sink: &'a mut dyn Sink,
    tail: &'a mut std::collections::VecDeque<String>,
    cycles: &'a mut usize,
    exit: &'a mut Option<ProgramExit>,
}

impl Sink for Tee<'_> {
    fn push(&mut self, e: Event) {
        match &e {
            Event::Output { text, .. } => {
                if self.tail.len() == 5 {
                    self.tail.pop_front();
                }
                self.tail.push_back(text.clone());
            }
            Event::Cycle { .. } => *self.cycles += 1,
            Event::ProgramExit(e) => *self.exit = Some(*e),
            _ => {}
        }
        self.sink.push(e);
    }

    fn flush(&mut self) {
        self.sink.flush();
    }
}
