//! Runs a timeline lets go once no cycle can reach them (`Timeline::retire`): who gets them,
//! what they leave behind, and when each is decided.

use super::{mark_earlier_process, Problem, Run, Timeline};
use crate::stats::summary::RunSummary;

/// Keep this many of the latest runs (the reader continues only its latest `RECENT_RUNS`):
/// older ones are retired when twice as many are held.
pub const KEEP_RUNS: usize = 2 * crate::trace::reader::RECENT_RUNS;

/// Retire runs still undecided (whether they are an earlier process) past this many.
pub const MAX_UNDECIDED_RUNS: usize = 4096;

/// What a timeline does with a run it retires: called with each, oldest first.
#[derive(Clone)]
pub struct Retire(std::sync::Arc<std::sync::Mutex<dyn FnMut(RetiredRun) + Send>>);

impl Retire {
    pub fn new(f: impl FnMut(RetiredRun) + Send + 'static) -> Self {
        Retire(std::sync::Arc::new(std::sync::Mutex::new(f)))
    }

    /// Retired runs are dropped (their counts stay in `Timeline::retired`).
    #[must_use]
    pub fn drop_them() -> Self {
        Retire::new(|_| {})
    }

    fn send(&self, r: RetiredRun) {
        let mut f = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(r);
    }
}

impl std::fmt::Debug for Retire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Retire")
    }
}

/// Where retired runs go is not part of what a timeline holds.
impl PartialEq for Retire {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A run taken out of its timeline, with what only the timeline knew of it.
pub struct RetiredRun {
    pub run: Run,
    /// Its `RunId` index.
    pub index: usize,
    /// Its 1-based number among the runs with cycles (as `summary` numbers them); `None`
    /// without cycles.
    pub number: Option<usize>,
    /// It comes before the last process of its log (`mark_earlier_process`).
    pub earlier_process: bool,
}

impl RetiredRun {
    /// Its figures as every view of the log gives them (`summary_in_log`).
    #[must_use]
    pub fn summary(&self) -> Option<RunSummary> {
        let mut s = self.run.summary()?;
        if self.earlier_process {
            mark_earlier_process(&mut s);
        }
        Some(s)
    }
}

/// The counts of the runs a timeline retired.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Retired {
    pub runs: usize,
    pub with_cycles: usize,
    pub cycles: usize,
    pub before_window: usize,
    /// The latest run retired before it was known whether it is an earlier process (more
    /// than `MAX_UNDECIDED_RUNS` runs with no restart at gc 1), written as not one.
    pub unmarked_upto: Option<usize>,
}

impl Timeline {
    /// With `retire` set, hands the oldest runs beyond `KEEP_RUNS` to it, once it is known
    /// whether each is an earlier process of the log (a later run has cycles and some run
    /// began at gc 1), or past `MAX_UNDECIDED_RUNS` of them. Half the held runs at a time, so
    /// that retiring costs O(1) a run.
    pub(super) fn retire_old_runs(&mut self) {
        let Some(to) = self.retire.clone() else {
            return;
        };
        let keep = self.keep_runs.max(KEEP_RUNS);
        if self.runs.len() < 2 * keep {
            return;
        }
        let old = self.runs.len() - keep;
        // later[k]: a run after k has cycles.
        let mut later = vec![false; old];
        let mut seen = false;
        for k in (0..self.runs.len()).rev() {
            if k < old {
                later[k] = seen;
            }
            seen |= self.runs[k].stats.cycles() > 0;
        }
        let forced = self.runs.len() > MAX_UNDECIDED_RUNS.max(2 * keep);
        // Nothing is decided yet (one process so far, its oldest run has cycles): the usual
        // case of a log whose counter went back but never to gc 1, checked in O(1).
        if !forced && !self.several_processes && self.runs[0].stats.cycles() > 0 {
            return;
        }
        let mut n = 0;
        while n < old {
            let r = &self.runs[n];
            let decided = r.stats.cycles() == 0 || (self.several_processes && later[n]) || forced;
            if !decided {
                break;
            }
            n += 1;
        }
        if n == 0 {
            return;
        }
        let programs = &mut self.programs;
        for (k, run) in self.runs.drain(..n).enumerate() {
            let index = self.run_base + k;
            let earlier_process = self.several_processes && later[k];
            let cycles = run.stats.cycles();
            let number = (cycles > 0).then(|| {
                self.retired.with_cycles += 1;
                self.retired.with_cycles
            });
            if cycles > 0 && !earlier_process {
                self.retired.unmarked_upto = Some(index);
            }
            if self.keep_figures {
                if let Some(mut s) = run.summary() {
                    if earlier_process {
                        mark_earlier_process(&mut s);
                    }
                    if let Some(load) = self.recorded_other_cpus {
                        s.other_cpus.get_or_insert(load);
                    }
                    let record = crate::stats::compare::RunFigures::from(&s);
                    self.retired_figures.push_record(&record);
                    if let Some(records) = &mut self.retired_records {
                        records.push(record);
                    }
                }
            }
            self.retired.runs += 1;
            self.retired.cycles += cycles;
            self.retired.before_window += run.before_window;
            if let Some(p) = programs
                .iter_mut()
                .rev()
                .find(|p| (p.first_run..p.end_run).contains(&index))
            {
                p.retired_p_time_ms += run.stats.gc_p_time_ms();
                if cycles > 0 {
                    p.retired_main = Some(Box::new(run.clone()));
                }
            }
            to.send(RetiredRun {
                run,
                index,
                number,
                earlier_process,
            });
        }
        self.run_base += n;
    }

    /// At the end: runs retired as not an earlier process, that the log then showed to be
    /// one, are said to be.
    pub(super) fn say_unmarked_runs(&mut self) {
        let Some(upto) = self.retired.unmarked_upto else {
            return;
        };
        let Some(last) = self.last_process() else {
            return;
        };
        if upto < self.run_base + last {
            self.problems.push(Problem {
                line: self.runs[last].first_line,
                reason: format!(
                    "runs up to {} were summarised before the log showed several processes \
                     (a restart at gc 1, after over {MAX_UNDECIDED_RUNS} runs): they are not \
                     marked as an earlier process, as they would be",
                    upto + 1
                ),
            });
        }
    }
}
