//! The state one source's events build: runs of cycles, program output, notes and problems.
//!
//! The headless commands and the dashboard both read this; only `apply` changes it.

use crate::stats::summary::{RunStats, RunSummary};
use gcscope_model::NoteKind;
use gcscope_model::{Cycle, CycleStore, ScanStats};
use gcscope_model::{Event, ProgramExit, ProgramStart, SourceError};

mod retire;

pub use retire::{Retire, Retired, RetiredRun, KEEP_RUNS, MAX_UNDECIDED_RUNS};

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Timeline {
    /// When false, cycles only feed the runs' running statistics and are not kept (a summary
    /// of a huge file needs no per-cycle records).
    pub drop_cycles: bool,
    /// When true, program output and notes are counted, not kept (a summary reports only
    /// how many there were): memory stays flat however much output a log holds.
    pub drop_text: bool,
    /// Keep at most about this many output lines, the latest: older ones are counted in
    /// `dropped_output` (a live program may print without end).
    pub keep_output: Option<usize>,
    /// Output lines and notes (by `NoteKind` index) counted and not kept, under `drop_text`.
    pub dropped_output: usize,
    pub dropped_notes: [usize; NoteKind::ALL.len()],
    pub runs: Vec<Run>,
    pub output: Vec<TextLine>,
    pub notes: Vec<Note>,
    pub problems: Vec<Problem>,
    /// The programs gcscope ran to produce this source (`run`: one; `ab`: a side's runs).
    pub programs: Vec<Program>,
    /// What other processes used of the machine, in CPUs, while the program that wrote this
    /// log ran: read from the `runs.tsv` recorded beside it (`ab --record`, `run --record`),
    /// so a recorded log's figures keep the load they were measured under.
    pub recorded_other_cpus: Option<f64>,
    /// Whether the source is still producing, and how it ended.
    pub source: SourceState,
    /// The steady-state window (`--from-cycle`, `--after`): cycles before it are counted in
    /// their run's `before_window` and feed nothing else.
    pub window: Window,
    /// Where runs go once no cycle can reach them again; `None`: every run is kept. A log of
    /// many short processes then holds only its latest runs (`Retire`).
    pub retire: Option<Retire>,
    /// Hold at least this many of the latest runs in full when retiring (`KEEP_RUNS` at the
    /// least; the dashboard holds more, to go back through).
    pub keep_runs: usize,
    /// `runs[0]` is run `run_base` (a `RunId` index): the runs before it were retired.
    pub run_base: usize,
    /// What the retired runs add to the timeline's counts.
    pub retired: Retired,
    /// With `keep_figures`, what `compare` needs of the retired runs with cycles, folded in
    /// as each retires (`compare::Side`: constant memory however many runs).
    pub retired_figures: crate::stats::compare::Side,
    pub keep_figures: bool,
    /// With `keep_figures` and this `Some`, each retired run's compact record too, oldest
    /// first: for `compare --format bench`, which prints a line a run.
    pub retired_records: Option<Vec<crate::stats::compare::RunFigures>>,
    /// `retired_figures` (and `retired_records`) hold every run of the timeline, the live
    /// ones' too (`report::Source::seal_figures`): `compare` reads them there.
    pub figures_sealed: bool,
    /// A run after the first began at gc 1: the log holds several processes (`last_process`).
    pub several_processes: bool,
    /// Runs get `RunStats::lean` statistics: for a view that summarises nothing (`--csv`).
    pub lean_stats: bool,
    /// At most this many cycles are to come (a file's size over the shortest gc line), or 0
    /// when unknown. The first run to pass `RESERVE_FROM` cycles reserves room for them at
    /// once, so that its cycles are not copied again and again as it grows: each copy held
    /// the old vector and the new one, twice as large, at once (the dashboard's peak was twice
    /// what its cycles took). Untouched room is address space, not memory.
    pub cycles_hint: usize,
    /// The box of a cycle whose figures were taken and that is not kept (`drop_cycles`, a
    /// cycle before the window), emptied, for the next line read to fill
    /// (`read::read_lines`): a box allocated and freed a line was a twentieth of a large
    /// file's summary.
    #[doc(hidden)]
    pub spare_cycle: SpareCycle,
}

/// An empty cycle's box to fill (`Timeline::spare_cycle`). Not part of what a timeline says:
/// timelines are equal whatever they hold here.
#[derive(Debug, Clone, Default)]
pub struct SpareCycle(pub(crate) Option<Box<Cycle>>);

impl PartialEq for SpareCycle {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl SpareCycle {
    /// Keeps `cycle`'s box, emptied.
    fn keep(&mut self, mut cycle: Box<Cycle>) {
        *cycle = Cycle::default();
        self.0 = Some(cycle);
    }
}

/// Cycles a run holds before it reserves room for the rest (`Timeline::cycles_hint`).
pub const RESERVE_FROM: usize = 1 << 16;

/// A steady-state window over each run: from cycle `from_cycle` on and from `after_ns` on
/// (the run's own clock: time since its process started). A benchmark's setup cycles, some
/// forced, can hold most of a run's GC time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    pub from_cycle: Option<u32>,
    pub after_ns: Option<u64>,
}

impl Window {
    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.from_cycle.is_none() && self.after_ns.is_none()
    }

    /// Whether the cycle is inside the window.
    #[must_use]
    pub fn admits(&self, c: &Cycle) -> bool {
        self.from_cycle.is_none_or(|n| c.num >= n) && self.after_ns.is_none_or(|t| c.at >= t)
    }

    /// `from gc 10, after 2.5s`, or `None` for the whole run.
    #[must_use]
    pub fn text(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(n) = self.from_cycle {
            parts.push(format!("from gc {n}"));
        }
        if let Some(t) = self.after_ns {
            parts.push(format!("after {}s", crate::fmt::Fixed(t as f64 / 1e9, 3)));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// A source's state as its events tell it: still producing until its `Event::End`, then ended
/// by itself or with the error that stopped it.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SourceState {
    #[default]
    Producing,
    Ended,
    Failed(SourceError),
}

impl SourceState {
    /// The source has sent its end, well or badly.
    #[must_use]
    pub fn ended(&self) -> bool {
        !matches!(self, SourceState::Producing)
    }

    /// What stopped it, if it ended badly.
    #[must_use]
    pub fn error(&self) -> Option<&SourceError> {
        match self {
            SourceState::Failed(e) => Some(e),
            _ => None,
        }
    }
}

/// A program gcscope ran, and the runs (Go processes) its trace holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub start: ProgramStart,
    /// Its runs: `RunId` indices `first_run..end_run` (end_run grows while it runs).
    pub first_run: usize,
    pub end_run: usize,
    /// What its retired runs (`Timeline::retire`) leave: their GC P time, and the latest of
    /// them with cycles (its main run, unless a later one has cycles).
    pub retired_p_time_ms: f64,
    pub retired_main: Option<Box<Run>>,
    /// `--metric` figures from its output, in the order first seen.
    pub values: Vec<(String, f64)>,
    pub exit: Option<ProgramExit>,
}

impl Program {
    /// A sample for an A/B: ended by itself with status 0, not a warm-up.
    #[must_use]
    pub fn is_sample(&self) -> bool {
        !self.start.warmup
            && self
                .exit
                .is_some_and(|e| e.status.success() && e.stopped.is_none())
    }

    /// The run that stands for the program: its last Go process with cycles (`go run` traces
    /// the go command's own cycles first; a program's own children come before its end).
    #[must_use]
    pub fn main_run<'a>(&'a self, tl: &'a Timeline) -> Option<&'a Run> {
        tl.runs_in(self.first_run..self.end_run)
            .iter()
            .rev()
            .find(|r| r.stats.cycles() > 0)
            .or(self.retired_main.as_deref())
    }

    /// Go's GC P time over all its runs (`go run`'s go command and the program's own Go
    /// children too, as wait4's CPU counts them) against the process's CPU time (user + sys),
    /// both in seconds, when both are known. P time is wall time while a GC worker holds a P:
    /// on an oversubscribed machine it exceeds the CPU the process was given.
    #[must_use]
    pub fn p_time_and_cpu_s(&self, tl: &Timeline) -> Option<(f64, f64)> {
        let cpu = self.exit?.cpu_s?;
        let p: f64 = tl
            .runs_in(self.first_run..self.end_run)
            .iter()
            .map(|r| r.stats.gc_p_time_ms())
            .sum::<f64>()
            + self.retired_p_time_ms;
        Some((p / 1000.0, cpu))
    }

    /// The figures of its main run, with the program's own (`--metric` values, the load).
    #[must_use]
    pub fn summary(&self, tl: &Timeline) -> Option<RunSummary> {
        let run = self.main_run(tl)?;
        let mut s = run.summary()?;
        s.values.clone_from(&self.values);
        s.other_cpus = self.exit.and_then(|e| e.other_cpus);
        // The findings again, now that they can say the load gcscope measured.
        if s.other_cpus.is_some() {
            s.findings = run.stats.findings(&s);
        }
        Some(s)
    }
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Run {
    pub cycles: CycleStore,
    pub stats: RunStats,
    pub first_line: u64,
    /// `(new, previous)` cycle numbers when this run began because the counter restarted.
    pub restart: Option<(u32, u32)>,
    /// What the source calls this run, when it says (the lab does).
    pub label: Option<String>,
    /// The program's own figures found in its output (`compare --metric`).
    pub values: Vec<(String, f64)>,
    /// Cycles read before the timeline's window, left out of everything else.
    pub before_window: usize,
    /// The last cycle read was before the window: its scan lines are left out with it.
    skipping: bool,
    /// A saturated sum was reported (once a run).
    saturated_said: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TextLine {
    pub line: u64,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    pub line: u64,
    pub kind: NoteKind,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub line: u64,
    pub reason: String,
}

impl Run {
    /// The run's figures; `None` for a run without cycles.
    #[must_use]
    pub fn summary(&self) -> Option<RunSummary> {
        let mut s = self.stats.summary(self.first_line, self.restart)?;
        s.before_window = self.before_window;
        s.label.clone_from(&self.label);
        s.values.clone_from(&self.values);
        Some(s)
    }
}

/// Summaries of many runs, on all cores when there are many. Order is kept.
#[must_use]
pub fn summarize(runs: &[Run]) -> Vec<RunSummary> {
    summarize_with(runs, last_process(runs))
}

/// `summarize`, the last process's run `last` given (`Timeline::last_process` knows the runs
/// a timeline retired).
#[must_use]
pub fn summarize_with(runs: &[Run], last: Option<usize>) -> Vec<RunSummary> {
    crate::par::chunks(runs, 256, |offset, part| {
        (offset..offset + part.len())
            .filter_map(|k| summary_in_log(runs, last, k))
            .collect::<Vec<_>>()
    })
    .concat()
}

/// Run `k`'s summary as every view of a log gives it: marked as an earlier process when it
/// comes before `last` (`last_process`, worked out once per log).
#[must_use]
pub fn summary_in_log(runs: &[Run], last: Option<usize>, k: usize) -> Option<RunSummary> {
    let mut s = runs.get(k)?.summary()?;
    if last.is_some_and(|l| k < l) {
        mark_earlier_process(&mut s);
    }
    Some(s)
}

/// In a log of several processes (the cycle counter restarted at gc 1), the index of the last
/// run with cycles; `None` for a log of one process. Under `go run` and `go test` the go
/// command's and the compiler's own cycles come first and the program's last.
#[must_use]
pub fn last_process(runs: &[Run]) -> Option<usize> {
    let several = runs
        .iter()
        .skip(1)
        .any(|r| r.restart.is_some_and(|(new, _)| new == 1));
    if !several {
        return None;
    }
    runs.iter().rposition(|r| r.stats.cycles() > 0)
}

/// A run before the last process of its log: marked, and its findings say so (they are about
/// a process that may not be the one the reader came for).
pub fn mark_earlier_process(s: &mut RunSummary) {
    s.earlier_process = true;
    for f in &mut s.findings {
        f.text.insert_str(
            0,
            "(An earlier process of this log: under go run or go test, the go command's or a \
             compile step's, not the program's.) ",
        );
    }
}

impl Timeline {
    pub fn apply(&mut self, ev: Event) {
        match ev {
            Event::RunStart { run, line, restart } => {
                debug_assert_eq!(run.index(), self.run_count());
                self.several_processes |=
                    self.run_count() > 0 && restart.is_some_and(|(new, _)| new == 1);
                self.runs.push(Run {
                    first_line: line,
                    restart,
                    stats: if self.lean_stats {
                        RunStats::lean()
                    } else {
                        RunStats::default()
                    },
                    ..Run::default()
                });
                let end = self.run_count();
                if let Some(p) = self.programs.last_mut().filter(|p| p.exit.is_none()) {
                    p.end_run = end;
                }
                self.retire_old_runs();
            }
            Event::ProgramStart(start) => self.programs.push(Program {
                start: *start,
                first_run: self.run_count(),
                end_run: self.run_count(),
                retired_p_time_ms: 0.0,
                retired_main: None,
                values: Vec::new(),
                exit: None,
            }),
            Event::ProgramValue { name, value } => {
                if let Some(p) = self.programs.last_mut() {
                    match p.values.iter_mut().find(|(n, _)| *n == name) {
                        Some(v) => v.1 = value,
                        None => p.values.push((name, value)),
                    }
                }
            }
            Event::ProgramExit(exit) => {
                if let Some(p) = self.programs.last_mut() {
                    p.exit = Some(exit);
                }
            }
            Event::RunLabel { run, label } => {
                if let Some(r) = self.run_mut(run.index()) {
                    r.label = Some(label);
                }
            }
            Event::Cycle { run, cycle } => {
                let (base, len) = (self.run_base, self.runs.len());
                if let Some(r) = run
                    .index()
                    .checked_sub(base)
                    .filter(|&k| k < len)
                    .map(|k| &mut self.runs[k])
                {
                    // The previous cycle's scan: lines are complete now; trim their growth
                    // headroom (gctrace=2 logs carry ~20 classes a cycle).
                    r.skipping = !self.window.admits(&cycle);
                    if r.skipping {
                        r.before_window += 1;
                        self.spare_cycle.keep(cycle);
                        return;
                    }
                    if let Some(scan) = r.cycles.last_whole_mut().and_then(|c| c.scan.as_mut()) {
                        scan.classes.shrink_to_fit();
                    }
                    r.stats.push(&cycle);
                    // Per cycle of a large trace: the count first, the sums only once there are
                    // cycles enough for one to saturate.
                    if !r.saturated_said
                        && r.stats.cycles() >= crate::stats::run_stats::SATURATING_CYCLES
                        && r.stats.saturated()
                    {
                        r.saturated_said = true;
                        self.problems.push(Problem {
                            line: cycle.line,
                            reason: "a sum of this run reached 2^64-1 ns (about 585 years) here \
                                     and stops there: its sums and the figures made of them are \
                                     lower bounds from this line on"
                                .into(),
                        });
                    }
                    if !self.drop_cycles {
                        let len = r.cycles.len();
                        if len == r.cycles.capacity()
                            && len >= RESERVE_FROM
                            && self.cycles_hint > len
                        {
                            // Refused (more than the machine will give): grown as before.
                            let _ = r.cycles.try_reserve_exact(self.cycles_hint - len);
                            self.cycles_hint = 0;
                        }
                        r.cycles.push(*cycle);
                    } else {
                        self.spare_cycle.keep(cycle);
                    }
                }
            }
            Event::Scan { run, line, scan } => {
                let (base, len) = (self.run_base, self.runs.len());
                let Some(r) = run
                    .index()
                    .checked_sub(base)
                    .filter(|&k| k < len)
                    .map(|k| &mut self.runs[k])
                    .filter(|r| !r.skipping)
                else {
                    return;
                };
                // The run's statistics decide which lines count (they see every cycle, kept
                // or not): the cycle's record keeps those, and a line refused is a problem.
                if let Err(why) = r.stats.push_scan(&scan) {
                    self.problems.push(Problem {
                        line,
                        reason: why.to_string(),
                    });
                } else if let Some(cycle) = r.cycles.last_mut() {
                    let stats = cycle.scan.get_or_insert_with(Box::<ScanStats>::default);
                    match scan.class {
                        None => stats.total = scan.counts,
                        Some(class) => stats.classes.push((class, scan.counts)),
                    }
                }
            }
            Event::Output { .. } if self.drop_text => self.dropped_output += 1,
            Event::Note { kind, .. } if self.drop_text => self.dropped_notes[kind as usize] += 1,
            Event::Output { line, text } => {
                if let Some(max) = self.keep_output {
                    // Half at a time, so that dropping costs O(1) per line.
                    if self.output.len() >= max.max(2) {
                        let half = self.output.len() / 2;
                        self.output.drain(..half);
                        self.dropped_output += half;
                    }
                }
                self.output.push(TextLine { line, text });
            }
            Event::Note { line, kind, text } => self.notes.push(Note { line, kind, text }),
            Event::Problem { line, reason } => self.problems.push(Problem { line, reason }),
            Event::End { error } => {
                self.source = error.map_or(SourceState::Ended, SourceState::Failed);
                self.say_unmarked_runs();
            }
        }
    }

    /// `other`, read from the input right after this timeline's `lines_before` lines and
    /// numbering its own from 1, added to it: its run `k` is this timeline's run `runs[k]`
    /// (an existing one it continues, or the next new one), and `restart` replaces what its
    /// first run, when new, says about the counter (read on its own, it could not know). See
    /// `Reader::join`.
    pub fn append(
        &mut self,
        mut other: Timeline,
        runs: &[usize],
        restart: Option<(u32, u32)>,
        lines_before: u64,
    ) {
        for run in &mut other.runs {
            run.first_line += lines_before;
            run.cycles.shift_lines(lines_before);
        }
        for t in &mut other.output {
            t.line += lines_before;
        }
        for n in &mut other.notes {
            n.line += lines_before;
        }
        for p in &mut other.problems {
            p.line += lines_before;
        }
        for (k, mut run) in other.runs.into_iter().enumerate() {
            let to = runs.get(k).copied().unwrap_or(self.run_count());
            let (base, len) = (self.run_base, self.runs.len());
            let mine = to
                .checked_sub(base)
                .filter(|&i| i < len)
                .map(|i| &mut self.runs[i]);
            match mine {
                Some(mine) => {
                    if let Some(scan) = mine.cycles.last_whole_mut().and_then(|c| c.scan.as_mut()) {
                        scan.classes.shrink_to_fit();
                    }
                    mine.stats.append(&run.stats);
                    mine.cycles.append(&mut run.cycles);
                    mine.before_window += run.before_window;
                    mine.skipping = run.skipping;
                    // Sums that saturate only once the pieces are added up: said at the
                    // piece's start (a piece read on its own cannot know the line).
                    if !mine.saturated_said && !run.saturated_said && mine.stats.saturated() {
                        mine.saturated_said = true;
                        other.problems.push(Problem {
                            line: lines_before + 1,
                            reason: "a sum of this run reached 2^64-1 ns (about 585 years) in \
                                     the lines from here and stops there: its sums and the \
                                     figures made of them are lower bounds"
                                .into(),
                        });
                    }
                    mine.saturated_said |= run.saturated_said;
                }
                None => {
                    if k == 0 {
                        run.restart = restart;
                    }
                    self.several_processes |=
                        self.run_count() > 0 && run.restart.is_some_and(|(new, _)| new == 1);
                    self.runs.push(run);
                    let end = self.run_count();
                    if let Some(p) = self.programs.last_mut().filter(|p| p.exit.is_none()) {
                        p.end_run = end;
                    }
                }
            }
        }
        self.output.extend(other.output);
        self.notes.extend(other.notes);
        self.dropped_output += other.dropped_output;
        for (mine, theirs) in self.dropped_notes.iter_mut().zip(other.dropped_notes) {
            *mine += theirs;
        }
        self.problems.extend(other.problems);
        if other.source.ended() {
            self.source = other.source;
        }
        self.retire_old_runs();
    }

    /// Run `index` (a `RunId` index), unless retired.
    #[must_use]
    pub fn run(&self, index: usize) -> Option<&Run> {
        self.runs.get(index.checked_sub(self.run_base)?)
    }

    /// Run `index` to change, unless retired.
    pub fn run_mut(&mut self, index: usize) -> Option<&mut Run> {
        self.runs.get_mut(index.checked_sub(self.run_base)?)
    }

    /// The runs of `RunId` indices `range` still held.
    #[must_use]
    pub fn runs_in(&self, range: std::ops::Range<usize>) -> &[Run] {
        let from = range
            .start
            .saturating_sub(self.run_base)
            .min(self.runs.len());
        let to = range.end.saturating_sub(self.run_base).min(self.runs.len());
        &self.runs[from..to.max(from)]
    }

    /// Every run so far, retired or held.
    #[must_use]
    pub fn run_count(&self) -> usize {
        self.run_base + self.runs.len()
    }

    /// Runs with cycles so far, retired or held (those `summary` numbers and prints).
    #[must_use]
    pub fn runs_with_cycles(&self) -> usize {
        self.retired.with_cycles + self.runs.iter().filter(|r| r.stats.cycles() > 0).count()
    }

    /// The index in `runs` of the last process's run (see `last_process`), knowing the runs
    /// already retired.
    #[must_use]
    pub fn last_process(&self) -> Option<usize> {
        if !self.several_processes {
            return None;
        }
        self.runs.iter().rposition(|r| r.stats.cycles() > 0)
    }

    /// The held runs' summaries as every view of the log gives them, each with its 1-based
    /// number among the runs with cycles (retired ones counted).
    pub fn numbered_summaries(&self) -> impl Iterator<Item = (usize, RunSummary)> + '_ {
        let last = self.last_process();
        (0..self.runs.len())
            .filter_map(move |k| summary_in_log(&self.runs, last, k))
            .enumerate()
            .map(|(i, s)| (self.retired.with_cycles + i + 1, s))
    }

    /// The A/B samples: each program that ended well, by its main run's figures.
    #[must_use]
    pub fn program_samples(&self) -> Vec<RunSummary> {
        self.programs
            .iter()
            .filter(|p| p.is_sample())
            .filter_map(|p| p.summary(self))
            .collect()
    }

    #[must_use]
    pub fn cycle_count(&self) -> usize {
        self.retired.cycles + self.runs.iter().map(|r| r.stats.cycles()).sum::<usize>()
    }

    /// Cycles read before the window, over every run.
    #[must_use]
    pub fn before_window(&self) -> usize {
        self.retired.before_window + self.runs.iter().map(|r| r.before_window).sum::<usize>()
    }

    /// Notes of this kind, kept or counted.
    #[must_use]
    pub fn note_count(&self, kind: NoteKind) -> usize {
        self.notes.iter().filter(|n| n.kind == kind).count() + self.dropped_notes[kind as usize]
    }

    /// Lines of program output, kept or counted.
    #[must_use]
    pub fn output_count(&self) -> usize {
        self.output.len() + self.dropped_output
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(warmup: bool) -> Event {
        Event::ProgramStart(Box::new(ProgramStart {
            command: "prog".into(),
            build: None,
            godebug: "gctrace=1".into(),
            ab: (!warmup).then_some(('A', 1)),
            warmup,
        }))
    }

    fn exit(code: i32) -> Event {
        Event::ProgramExit(ProgramExit {
            status: gcscope_model::ExitStatus::Code(code),
            wall_s: 1.0,
            cpu_s: Some(1.0),
            other_cpus: Some(0.5),
            stopped: None,
        })
    }

    /// A run that passes `RESERVE_FROM` cycles reserves room for the hinted rest once, so its
    /// cycles are never copied again while it grows (the vector stays where it is); a hint the
    /// machine refuses, or none, grows as before.
    #[test]
    fn a_hinted_run_reserves_its_room_once() {
        for (hint, reserved) in [
            (RESERVE_FROM * 3, true),
            (usize::MAX / 2, false),
            (0, false),
        ] {
            let mut tl = Timeline {
                cycles_hint: hint,
                ..Timeline::default()
            };
            tl.apply(Event::RunStart {
                run: gcscope_model::RunId::FIRST,
                line: 1,
                restart: None,
            });
            // One past where growing by doubling would move the vector again.
            for num in 1..=u32::try_from(RESERVE_FROM * 2 + 1).unwrap() {
                tl.apply(Event::Cycle {
                    run: gcscope_model::RunId::FIRST,
                    cycle: Box::new(Cycle {
                        num,
                        at: u64::from(num) * 1_000_000,
                        line: u64::from(num),
                        ..Default::default()
                    }),
                });
            }
            let cycles = &tl.runs[0].cycles;
            assert_eq!(cycles.len(), RESERVE_FROM * 2 + 1);
            // Reserved once: exactly the hint, never grown again; else grown by doubling.
            assert_eq!(cycles.capacity() == hint, reserved, "hint {hint}");
            assert_eq!(
                cycles.capacity().is_power_of_two(),
                !reserved,
                "hint {hint}"
            );
            assert_eq!(tl.cycles_hint, 0, "the hint is spent once");
        }
    }

    /// An A/B side's samples: each program that ended well, by its last Go process with
    /// cycles (`go run` traces the go command first), with its own values and load; a
    /// warm-up and a failed run are not samples.
    #[test]
    fn program_samples_are_the_main_runs_of_programs_that_ended_well() {
        let gc = |n: u32, live: u32| {
            format!("gc {n} @0.{n}s 1%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->{live} MB, 5 MB goal, 2 P\n")
        };
        let mut tl = Timeline::default();
        let mut dec = crate::trace::Decoder::new();
        let push = |tl: &mut Timeline, dec: &mut crate::trace::Decoder, text: &str| {
            dec.push(text.as_bytes(), &mut |e| tl.apply(e));
        };
        // A warm-up, then a program whose trace holds two processes, then a failed one.
        tl.apply(start(true));
        push(&mut tl, &mut dec, &gc(1, 1));
        dec.new_stream(&mut |e| tl.apply(e));
        tl.apply(exit(0));
        tl.apply(start(false));
        push(&mut tl, &mut dec, &(gc(1, 2) + &gc(2, 2)));
        push(&mut tl, &mut dec, &(gc(1, 3) + &gc(2, 3) + &gc(3, 3)));
        tl.apply(Event::ProgramValue {
            name: "ops".into(),
            value: 7.0,
        });
        dec.new_stream(&mut |e| tl.apply(e));
        tl.apply(exit(0));
        tl.apply(start(false));
        push(&mut tl, &mut dec, &gc(1, 4));
        dec.new_stream(&mut |e| tl.apply(e));
        tl.apply(exit(2));
        assert_eq!(tl.runs.len(), 4);
        assert_eq!(tl.programs[1].first_run..tl.programs[1].end_run, 1..3);
        let s = tl.program_samples();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].cycles, 3);
        assert_eq!(s[0].values, [("ops".to_string(), 7.0)]);
        assert_eq!(s[0].other_cpus, Some(0.5));
    }

    /// A live pane's log keeps the latest lines, counts every one, and stays bounded.
    #[test]
    fn kept_output_is_bounded_and_counted() {
        let mut tl = Timeline {
            keep_output: Some(100),
            ..Timeline::default()
        };
        for line in 1..=250 {
            tl.apply(Event::Output {
                line,
                text: format!("l{line}"),
            });
        }
        assert!(tl.output.len() <= 100);
        assert_eq!(tl.output_count(), 250);
        assert_eq!(tl.output.last().map(|t| t.line), Some(250));
        assert!(tl.output.windows(2).all(|w| w[0].line + 1 == w[1].line));
    }

    /// A program gcscope ran: its findings know the load gcscope measured meanwhile (a long
    /// pause is said to have shared the machine with 1.6 other CPUs, not asked about).
    #[test]
    fn a_programs_findings_say_the_load_measured_while_it_ran() {
        let mut tl = Timeline::default();
        let mut dec = crate::trace::Decoder::new();
        tl.apply(start(false));
        let mut text = String::new();
        for n in 1..=10 {
            let stw1 = if n == 7 { "5.0" } else { "0.010" };
            text += &format!("gc {n} @{n}.000s 1%: {stw1}+1.0+0.010 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 40->50->20 MB, 41 MB goal, 0 MB stacks, 0 MB globals, 4 P\n");
        }
        dec.push(text.as_bytes(), &mut |e| tl.apply(e));
        dec.new_stream(&mut |e| tl.apply(e));
        tl.apply(Event::ProgramExit(ProgramExit {
            other_cpus: Some(1.6),
            ..match exit(0) {
                Event::ProgramExit(e) => e,
                _ => unreachable!(),
            }
        }));
        let s = tl.programs[0].summary(&tl).unwrap();
        let pause = s.findings.iter().find(|f| f.id == "pause_outlier").unwrap();
        assert!(
            pause.text.contains("Other processes used 1.60 CPUs"),
            "{}",
            pause.text
        );
    }
}
