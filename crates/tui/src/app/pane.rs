//! One source on screen: its timeline, which run and cycle it shows, and what the views read
//! of it (summary, chart series), refreshed off the render path.

use super::cols::Cols;
use gcscope_core::report::Spool;
use gcscope_core::stats::summary::{RunStats, RunSummary};
use gcscope_core::stats::tune::Tune;
use gcscope_core::stats::turns::TurnSamples;
use gcscope_core::timeline::{Retire, Run, Timeline};
use gcscope_model::{Cycle, CycleIndex, CycleSlice, RunId};
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

/// The first cycle of a run.
pub(super) const FIRST_CYCLE: CycleIndex = CycleIndex::from_index(0);

/// Output lines a live pane keeps (about 10 MB of typical lines).
const LIVE_OUTPUT_LINES: usize = 100_000;

/// The place `i` in a run of `n` cycles, or its last cycle if `i` is past it (the first of an
/// empty run).
pub(super) fn clamped(i: usize, n: usize) -> CycleIndex {
    CycleIndex::from_index(i.min(n.saturating_sub(1)))
}

/// One source on screen.
pub struct Pane {
    pub name: String,
    pub timeline: Timeline,
    /// Cycles arrive live (stdin, follow): no replay, the newest is shown as it comes.
    pub live: bool,
    /// Selected run (process) of the source.
    pub run: RunId,
    /// Selected cycle: its place in the selected run's cycles.
    pub cursor: CycleIndex,
    /// How many of the run's cycles the replay has revealed so far (all of them when not
    /// replaying): a count, not a place.
    pub shown: usize,
    /// The cursor sticks to the newest shown cycle.
    pub follow: bool,
    /// Summary of the shown cycles, refreshed by `App::refresh` (never on the render path).
    pub summary: Option<RunSummary>,
    /// What `summary` was computed from: (run, shown).
    pub(super) summary_key: Option<(RunId, usize, usize)>,
    /// When the summary was last computed, and what that cost: while a run only grows, a
    /// costly summary is computed again at most every `SUMMARY_EVERY` costs.
    pub(super) summary_at: Option<(std::time::Instant, std::time::Duration)>,
    /// Running statistics of the cycles revealed so far by a replay (run, stats): extended
    /// cycle by cycle as the replay advances, rebuilt only when it goes back.
    pub(super) replay_stats: (RunId, RunStats),
    /// The charts' series over the zoom window, downsampled, refreshed by `App::refresh`.
    pub cols: Cols,
    /// A live lab A/B side's completed turns, each a sample for the strip.
    pub(super) turns: TurnSamples,
    /// What another GOGC would cost, for the tune view (`t`): the model's answer for the shown
    /// cycles of the selected run, or why it has none. Computed by `App::refresh` while the
    /// view is open, keyed like `summary`.
    pub tune: Option<Result<Tune, String>>,
    pub(super) tune_key: Option<(RunId, usize, usize)>,
    /// The latest thing the source said about itself (`--follow`: waiting, deleted,
    /// truncated, replaced), shown in the header until the next cycle.
    pub source_event: Option<String>,
    /// The summary text of the runs the timeline retired, oldest first.
    pub retired_text: Arc<Mutex<Spool>>,
}

/// Runs a pane holds in full (cycles and all): older ones are retired, to their summary.
pub const HELD_RUNS: usize = 256;

impl Pane {
    pub fn new(name: impl Into<String>, live: bool) -> Self {
        let retired_text = Arc::new(Mutex::new(Spool::default()));
        Pane {
            name: name.into(),
            // A live source may print without end (`gcscope run -- yes`): the log keeps its
            // latest lines and counts the rest.
            timeline: Timeline {
                keep_output: live.then_some(LIVE_OUTPUT_LINES),
                // A stream of many short processes holds its latest runs in full and counts
                // the older ones (`spool_retired` keeps their summary text).
                retire: Some(Retire::drop_them()),
                keep_runs: HELD_RUNS,
                ..Timeline::default()
            },
            retired_text,
            live,
            run: RunId::FIRST,
            cursor: FIRST_CYCLE,
            shown: 0,
            follow: true,
            summary: None,
            summary_key: None,
            summary_at: None,
            replay_stats: (RunId::FIRST, RunStats::default()),
            cols: Cols::default(),
            turns: TurnSamples::default(),
            tune: None,
            tune_key: None,
            source_event: None,
        }
    }

    /// Spool the summary text of each run the timeline retires, for the summary a command
    /// prints once the dashboard ends (`retired_text`).
    pub fn spool_retired(&mut self) {
        let to = self.retired_text.clone();
        self.timeline.retire = Some(Retire::new(move |r| {
            let mut spool = to.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            gcscope_core::report::retired_run_text(&r, &mut spool);
        }));
    }

    /// The tune view's model for the selected run, over its shown cycles: recomputed when the
    /// run, the shown count or the runs change (one pass over the run's cycles).
    pub(super) fn refresh_tune(&mut self) {
        let key = (self.run, self.shown, self.timeline.run_count());
        if self.tune_key == Some(key) {
            return;
        }
        self.tune_key = Some(key);
        self.tune = self.timeline.run(self.run.index()).map(|r| {
            let shown = r.cycles.slice(0..self.shown);
            let pacer = self.summary.as_ref().and_then(|s| s.pacer.as_ref());
            gcscope_core::stats::tune::tune(&shown, pacer, &[]).map_err(|e| e.to_string())
        });
    }

    #[must_use]
    pub fn current_run(&self) -> Option<&Run> {
        self.timeline.run(self.run.index())
    }

    /// The revealed cycles of the selected run.
    #[must_use]
    pub fn cycles(&self) -> CycleSlice<'_> {
        self.current_run()
            .map_or(CycleSlice::empty(), |r| r.cycles.slice(0..self.shown))
    }

    #[must_use]
    pub fn selected(&self) -> Option<Cow<'_, Cycle>> {
        self.cycles().get(self.cursor.index())
    }

    /// Cycles in the selected run, revealed or not.
    pub(crate) fn total(&self) -> usize {
        self.current_run().map_or(0, |r| r.cycles.len())
    }

    pub(super) fn start_at(&self) -> u64 {
        self.current_run()
            .and_then(|r| r.cycles.first())
            .map_or(0, |c| c.at)
    }

    /// Reveal the cycles whose start is within `t` of the run's first cycle.
    pub(super) fn reveal_until(&mut self, t: u64) {
        let start = self.start_at();
        if let Some(r) = self.timeline.run(self.run.index()) {
            self.shown = r
                .cycles
                .partition_point(|c| c.at.saturating_sub(start) <= t);
        }
    }

    pub(super) fn reveal_all(&mut self) {
        self.shown = self.total();
    }

    pub(super) fn clamp_cursor(&mut self) {
        let n = self.shown.min(self.total());
        if self.follow || self.cursor.index() >= n {
            self.cursor = clamped(n, n);
        }
    }

    /// Time of the selected cycle since the run's start.
    pub(super) fn cursor_t(&self) -> u64 {
        self.selected()
            .map_or(0, |c| c.at.saturating_sub(self.start_at()))
    }
}
