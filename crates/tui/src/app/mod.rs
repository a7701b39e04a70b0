//! Dashboard state and its updates. Only the main loop calls the `&mut self` methods; views
//! read `&App`.

mod cols;
mod mode;
mod pane;
#[cfg(test)]
mod testing;

use cols::refresh_cols;
pub use cols::{downsample, pause_bucket, Cols, CpuSeries, COLS, PAUSE_EDGES_US};
pub use mode::Mode;
pub use pane::Pane;

use super::keys::Action;
use gcscope_core::stats::compare::{self, Metric, Row};
use gcscope_core::stats::summary::{RunStats, RunSummary};
use gcscope_model::settings;
use gcscope_model::{CycleIndex, CycleSlice, Event, RunId, SourceId};
use gcscope_source::{LabControl, LabKnob};
use pane::{clamped, FIRST_CYCLE};
use std::time::Duration;

/// Replay speeds, x real time.
pub const SPEEDS: [f64; 12] = [
    0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0,
];

/// The live lab A/B compares each side's latest turns, at most this many: a range over every
/// turn of a long session only widens, and a verdict would then depend on how long it ran.
/// Ten a side whose ranges do not overlap is a strong result (p < 1e-5 with no difference).
pub const TURN_WINDOW: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Samples {
    #[default]
    Runs,
    /// The latest completed turns a side, the same number on both (at most `TURN_WINDOW`).
    Turns(usize),
    /// `gcscope ab`: each side's programs that ended well (A's count, B's).
    Programs(usize, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    Index,
    Time,
}

pub struct App {
    pub panes: Vec<Pane>,
    /// The pane the keys act on (an A/B's side).
    pub focus: SourceId,
    /// Replaying at the trace's own timestamps.
    pub playing: bool,
    pub speed: usize,
    /// Replay clock: trace time since the selected runs' first cycle, ns.
    pub replay_t: u64,
    last_tick: Option<Duration>,
    /// What keys go to and what is drawn over the panes: one overlay or input at a time.
    pub mode: Mode,
    /// Cycles across the charts' width; `None` fits the whole run.
    pub zoom: Option<usize>,
    pub link: Link,
    pub quit: bool,
    /// `s` was pressed: the loop writes the next frame it draws to an SVG file.
    pub snapshot: bool,
    /// What the last key did not do and why (the hint bar shows it until the next key).
    pub notice: Option<String>,
    /// Start the replay by itself once every source has arrived (the demo).
    pub autoplay: bool,
    /// A/B comparison strip, refreshed with the summaries: the rows at least one side has.
    pub comparison: Vec<Row>,
    /// What the strip's samples are: each side's selected run, or (live lab A/B) each
    /// completed turn of it, paired turn for turn.
    pub samples: Samples,
    /// How the two selected runs' settings differ beyond the marker ("GOGC 100 vs 200"):
    /// then the strip compares nothing and says why.
    pub mismatch: Vec<String>,
    /// `findings: A only x; B only y` for the runs the sides show, or empty: the strip's last
    /// line, worked out with the comparison (not per frame).
    pub finding_diff: String,
    /// What the strip was last computed from: each pane's (run, shown, cycles in the run,
    /// programs that ended).
    strip_key: Vec<(RunId, usize, usize, usize)>,
    /// Live lab sources: where the lab keys send their switches.
    pub lab: Option<LabControl>,
}

impl App {
    #[must_use]
    pub fn new(panes: Vec<Pane>) -> Self {
        App {
            panes,
            focus: SourceId::from_index(0),
            playing: false,
            speed: 2,
            replay_t: 0,
            last_tick: None,
            mode: Mode::Normal,
            zoom: None,
            link: Link::Index,
            quit: false,
            snapshot: false,
            notice: None,
            autoplay: false,
            comparison: Vec::new(),
            samples: Samples::Runs,
            mismatch: Vec::new(),
            finding_diff: String::new(),
            strip_key: Vec::new(),
            lab: None,
        }
    }

    /// A source's event. Files arrive whole and are shown at once; a replay starts on request.
    pub fn apply(&mut self, pane: SourceId, ev: Event) {
        let Some(p) = self.panes.get_mut(pane.index()) else {
            return;
        };
        let ended = matches!(ev, Event::End { .. });
        let new_run = matches!(ev, Event::RunStart { .. });
        // What a followed file's reader says about the file itself (gcscope's own lines,
        // numbered 0: waiting, deleted, truncated, replaced) shows in the header until cycles
        // flow again; in the log panel it is one line among the program's.
        // (A program's own output can be numbered 0 too, before its first stderr line: only
        // a live source that runs no program, and gcscope's own words.)
        match &ev {
            Event::Output { line: 0, text }
                if p.live && p.timeline.programs.is_empty() && text.starts_with("gcscope: ") =>
            {
                p.source_event = Some(text.clone());
            }
            Event::Cycle { .. } => p.source_event = None,
            _ => {}
        }
        p.timeline.apply(ev);
        if new_run && p.live && p.follow {
            // A live source started a run (a restarted process, a lab switch): show it.
            p.run = RunId::from_index(p.timeline.run_count().saturating_sub(1));
            p.cursor = FIRST_CYCLE;
        }
        if ended && !p.live && p.run == RunId::FIRST {
            // A file of many runs (a log of restarts) opens on its latest: what happened
            // last is what its reader came for; `[` goes back.
            p.run = RunId::from_index(p.timeline.run_count().saturating_sub(1));
        }
        if p.run.index() < p.timeline.run_base {
            // The run on screen was retired (only the latest runs are held): the oldest held.
            p.run = RunId::from_index(p.timeline.run_base);
            p.reveal_all();
            p.clamp_cursor();
        }
        if p.live || !self.playing || ended {
            if p.live || !self.playing {
                p.reveal_all();
            }
            p.clamp_cursor();
        }
        if ended && self.autoplay && self.panes.iter().all(|p| p.timeline.source.ended()) {
            self.autoplay = false;
            for p in &mut self.panes {
                p.cursor = FIRST_CYCLE;
            }
            self.start_replay();
        }
    }

    /// Advance the replay clock to `now` (any monotonic clock; tests inject one).
    pub fn tick(&mut self, now: Duration) {
        let last = self.last_tick.replace(now).unwrap_or(now);
        if !self.playing {
            return;
        }
        let dt = now.saturating_sub(last).as_secs_f64() * SPEEDS[self.speed];
        self.replay_t = self.replay_t.saturating_add((dt * 1e9) as u64);
        let mut done = true;
        for p in self.panes.iter_mut().filter(|p| !p.live) {
            p.reveal_until(self.replay_t);
            p.follow = true;
            p.clamp_cursor();
            done &= p.shown >= p.total();
        }
        if done {
            self.playing = false;
        }
    }

    /// Recompute what views read and is too costly for the render path.
    pub fn refresh(&mut self) {
        // A summary of a growing run is recomputed at once when it costs under this, else
        // after `SUMMARY_EVERY` times its cost: at most a tenth of the time goes to it.
        const SUMMARY_FREE: std::time::Duration = std::time::Duration::from_millis(4);
        const SUMMARY_EVERY: u32 = 10;
        for p in &mut self.panes {
            // The run count is in the key: a new process makes the ones before it earlier
            // processes of the log, and their findings say so.
            let key = (p.run, p.shown, p.timeline.run_count());
            if Some(key) == p.summary_key {
                continue;
            }
            // A run that only grew (a file streaming in, a replay, a live program): a summary
            // that costs more than a frame's share waits, so the load stays linear; it is
            // exact again once the source ends or the view changes.
            let grew = p
                .summary_key
                .is_some_and(|(run, shown, _)| run == p.run && shown <= p.shown);
            if grew && !p.timeline.source.ended() {
                if let Some((at, cost)) = p.summary_at {
                    if cost > SUMMARY_FREE && at.elapsed() < cost * SUMMARY_EVERY {
                        continue;
                    }
                }
            }
            let started = std::time::Instant::now();
            p.summary_key = Some(key);
            let Some(r) = p.timeline.run(p.run.index()) else {
                p.summary = None;
                continue;
            };
            p.summary = if p.shown >= r.cycles.len() {
                r.summary()
            } else {
                let (run, stats) = &mut p.replay_stats;
                if *run != p.run || stats.cycles() > p.shown {
                    *run = p.run;
                    *stats = RunStats::default();
                }
                for c in r.cycles.slice(stats.cycles()..p.shown) {
                    stats.push(&c);
                }
                stats.summary(r.first_line, r.restart)
            };
            let last = p.timeline.last_process().map(|k| k + p.timeline.run_base);
            if let Some(s) = p
                .summary
                .as_mut()
                .filter(|_| last.is_some_and(|l| p.run.index() < l))
            {
                gcscope_core::timeline::mark_earlier_process(s);
            }
            p.summary_at = Some((started, started.elapsed()));
        }
        if self.mode == Mode::Tune {
            for p in &mut self.panes {
                p.refresh_tune();
            }
        }
        let windows: Vec<_> = self.panes.iter().map(|p| self.window(p)).collect();
        for (p, w) in self.panes.iter_mut().zip(windows) {
            refresh_cols(p, w);
        }
        if self.panes.len() == 2 {
            self.compare_sides();
        }
    }

    /// The strip: the two sides' selected runs, or in a live lab A/B their completed turns
    /// (paired: the first k of each), by `compare`'s rule; nothing when the runs' settings
    /// differ beyond the marker.
    fn compare_sides(&mut self) {
        // Once per change of what the sides show, not per frame.
        let key: Vec<(RunId, usize, usize, usize)> = self
            .panes
            .iter()
            .map(|p| {
                (
                    p.run,
                    p.shown,
                    p.current_run().map_or(0, |r| r.cycles.len()),
                    p.timeline
                        .programs
                        .iter()
                        .filter(|p| p.exit.is_some())
                        .count(),
                )
            })
            .collect();
        if key == self.strip_key {
            return;
        }
        self.strip_key = key;
        self.finding_diff = finding_diff(&self.panes);
        let label = |p: &Pane| {
            p.current_run()
                .and_then(|r| r.label.clone())
                .unwrap_or_default()
        };
        self.mismatch = settings::differences(&label(&self.panes[0]), &label(&self.panes[1]));
        if !self.mismatch.is_empty() {
            self.comparison.clear();
            return;
        }
        for p in &mut self.panes {
            let cycles = p
                .timeline
                .run(p.run.index())
                .map_or(CycleSlice::empty(), |r| r.cycles.all());
            p.turns.update(p.run.index(), &cycles);
        }
        let (a, b) = (&self.panes[0], &self.panes[1]);
        if !a.timeline.programs.is_empty() && !b.timeline.programs.is_empty() {
            // `gcscope ab`: the strip fills in run by run, as `compare` would see the runs.
            let (sa, sb) = (a.timeline.program_samples(), b.timeline.program_samples());
            self.samples = Samples::Programs(sa.len(), sb.len());
            self.comparison = compare::compare(&sa, &sb);
            self.comparison.retain(Row::has_values);
            return;
        }
        let k = a.turns.done.len().min(b.turns.done.len()).min(TURN_WINDOW);
        let live_ab = self.lab.is_some();
        self.comparison = if live_ab && k > 0 {
            self.samples = Samples::Turns(k);
            let latest = |p: &'_ Pane| p.turns.done.len() - k;
            let mut rows = compare::compare(&a.turns.done[latest(a)..], &b.turns.done[latest(b)..]);
            // The runtime's cumulative GC CPU % runs over the whole run, not one turn.
            rows.retain(|r| r.metric != Metric::GcCpuPct.key());
            rows
        } else {
            self.samples = Samples::Runs;
            let side = |p: &Pane| -> Vec<RunSummary> { p.summary.iter().cloned().collect() };
            compare::compare(&side(a), &side(b))
        };
        // As `gcscope compare` prints them: no row for a figure neither side has.
        self.comparison.retain(Row::has_values);
    }

    /// Why `action` would do nothing here, said in the hint bar instead of nothing at all.
    fn why_not(&self, action: Action) -> Option<String> {
        let live = self.panes.iter().any(|p| p.live);
        if let Some(p) = self.focused().filter(|p| {
            action == Action::PrevRun
                && p.timeline.run_base > 0
                && p.run.index() <= p.timeline.run_base
        }) {
            return Some(format!(
                "[: runs 1-{} were let go ({} held in full); `gcscope summary` has them all",
                p.timeline.run_base,
                pane::HELD_RUNS
            ));
        }
        let runs = self.focused().map_or(0, |p| p.timeline.run_count());
        let why = match action {
            a if a.lab_only() && self.lab.is_none() => {
                "lab keys (w m < >) change the live lab: `gcscope lab` or plain `gcscope`"
            }
            Action::LabMarker if self.lab.as_ref().is_some_and(|l| l.marker.is_none()) => {
                "m: the A/B already shows both markers (A legacy, B Green Tea); \
                 `gcscope lab` runs one and m switches it"
            }
            Action::PlayPause | Action::Faster | Action::Slower if live => {
                "replay (space + -) is for recorded files; this source is live"
            }
            Action::SwitchFocus | Action::LinkMode if self.panes.len() < 2 => {
                "Tab and l work in an A/B: `gcscope view A B`"
            }
            Action::PrevRun | Action::NextRun if runs < 2 => {
                "[ ]: this source has one run (a run is a process: the cycle counter restarts)"
            }
            // The ends do not wrap: `]` on the newest run of a live lab went back to run 1.
            Action::NextRun if self.focused().is_some_and(|p| p.run.index() + 1 >= runs) => {
                "]: this is the newest run ([ goes back)"
            }
            Action::PrevRun if self.focused().is_some_and(|p| p.run.index() == 0) => {
                "[: this is the first run (] goes forward)"
            }
            _ => return None,
        };
        Some(why.to_string())
    }

    pub fn act(&mut self, action: Action) {
        self.notice = self.why_not(action);
        if self.notice.is_some() {
            return;
        }
        match action {
            Action::Quit => self.quit = true,
            Action::Snapshot => self.snapshot = true,
            Action::Help => self.toggle(Mode::Help),
            Action::Findings => self.toggle(Mode::Findings),
            Action::Tune => self.toggle(Mode::Tune),
            Action::PlayPause => {
                if self.playing {
                    self.playing = false;
                } else {
                    self.start_replay();
                }
            }
            Action::StepBack => self.step(-1),
            Action::StepForward => self.step(1),
            Action::Faster => self.speed = (self.speed + 1).min(SPEEDS.len() - 1),
            Action::Slower => self.speed = self.speed.saturating_sub(1),
            Action::Start => self.seek_index(FIRST_CYCLE),
            Action::End => {
                self.playing = false;
                for p in &mut self.panes {
                    p.reveal_all();
                    p.follow = true;
                    p.clamp_cursor();
                }
            }
            Action::AllAtOnce => {
                self.playing = false;
                for p in &mut self.panes {
                    p.reveal_all();
                    p.clamp_cursor();
                }
            }
            Action::SwitchFocus => {
                self.focus =
                    SourceId::from_index((self.focus.index() + 1) % self.panes.len().max(1));
            }
            Action::Follow => {
                // The sides are linked: following is both sides' or neither's (one side
                // following while the other held still unlinked them silently).
                let follow = !self.focused().is_some_and(|p| p.follow);
                for p in &mut self.panes {
                    p.follow = follow;
                    p.clamp_cursor();
                }
                if !follow {
                    self.link_others();
                }
                self.notice = Some(if follow {
                    "following the newest cycle (f holds still)".into()
                } else {
                    "holding still at the selected cycle (f follows the newest)".into()
                });
            }
            Action::Jump => self.mode = Mode::Jump(String::new()),
            Action::ZoomIn => {
                let n = self.panes.iter().map(|p| p.shown).max().unwrap_or(0);
                self.zoom = Some((self.zoom.unwrap_or(n) / 2).max(8));
            }
            Action::ZoomOut => {
                let n = self.panes.iter().map(|p| p.shown).max().unwrap_or(0);
                self.zoom = self.zoom.map(|z| z * 2).filter(|&z| z < n);
            }
            Action::PrevRun | Action::NextRun => {
                // A live lab A/B's sides switch settings together, run for run: they move
                // together, so the strip always compares one experiment.
                let together = self.lab.is_some();
                let focus = self.focus.index();
                for (i, p) in self.panes.iter_mut().enumerate() {
                    if !together && i != focus {
                        continue;
                    }
                    let last = p.timeline.run_count().saturating_sub(1);
                    let run = p.run.index();
                    p.run = RunId::from_index(if action == Action::NextRun {
                        (run + 1).min(last)
                    } else {
                        run.saturating_sub(1).max(p.timeline.run_base)
                    });
                    p.reveal_all();
                    p.follow = true;
                    p.clamp_cursor();
                }
            }
            Action::LinkMode => {
                self.link = match self.link {
                    Link::Index => Link::Time,
                    Link::Time => Link::Index,
                };
                self.link_others();
                // Said where it is seen at every size (the header has it only from 90 columns).
                self.notice = Some(match self.link {
                    Link::Index => "linked by index: the sides select their Nth cycle".into(),
                    Link::Time => {
                        "linked by time: the sides select the cycle at the same time since start"
                            .into()
                    }
                });
            }
            Action::LabWorkload => self.turn_lab(LabKnob::NextWorkload),
            Action::LabMarker => self.turn_lab(LabKnob::ToggleMarker),
            Action::LabGogcUp => self.turn_lab(LabKnob::GogcUp),
            Action::LabGogcDown => self.turn_lab(LabKnob::GogcDown),
        }
    }

    /// A lab key changes the running lab, whose settings are the newest run's: a side showing
    /// an older run goes to the newest first and says so, so the change starts from what is
    /// on screen.
    fn turn_lab(&mut self, knob: LabKnob) {
        let Some(lab) = &mut self.lab else {
            return;
        };
        lab.turn(knob);
        let mut moved = false;
        for p in &mut self.panes {
            let newest = p.timeline.run_count().saturating_sub(1);
            if p.run.index() < newest {
                p.run = RunId::from_index(newest);
                p.reveal_all();
                p.clamp_cursor();
                moved = true;
            }
            p.follow = true;
        }
        if moved {
            self.notice = Some(
                "the lab runs the newest run's settings: changed from those, shown from the \
                 newest run on"
                    .into(),
            );
        }
    }

    /// The pane the keys act on.
    #[must_use]
    pub fn focused(&self) -> Option<&Pane> {
        self.panes.get(self.focus.index())
    }

    fn start_replay(&mut self) {
        // From the cursor, or from the start when the cursor is at the end.
        let at_end = self
            .panes
            .iter()
            .all(|p| p.live || p.cursor.index() + 1 >= p.total());
        self.replay_t = if at_end {
            0
        } else {
            self.focused().map_or(0, Pane::cursor_t)
        };
        self.playing = self.panes.iter().any(|p| !p.live);
        for p in self.panes.iter_mut().filter(|p| !p.live) {
            p.reveal_until(self.replay_t);
            p.follow = true;
            p.clamp_cursor();
        }
    }

    fn step(&mut self, delta: isize) {
        self.playing = false;
        let Some(p) = self.panes.get_mut(self.focus.index()) else {
            return;
        };
        p.reveal_all();
        p.follow = false;
        p.cursor = clamped(p.cursor.index().saturating_add_signed(delta), p.total());
        self.link_others();
    }

    fn seek_index(&mut self, i: CycleIndex) {
        self.playing = false;
        for p in &mut self.panes {
            p.reveal_all();
            p.follow = false;
            p.cursor = clamped(i.index(), p.total());
        }
    }

    /// Select the focused side's first cycle numbered `num` or above (its last if none is).
    fn seek_cycle_number(&mut self, num: u32) {
        self.playing = false;
        let Some(p) = self.panes.get_mut(self.focus.index()) else {
            return;
        };
        p.reveal_all();
        if let Some(r) = p.current_run() {
            let i = r.cycles.partition_point(|c| c.num < num);
            p.cursor = clamped(i, r.cycles.len());
            p.follow = false;
        }
        self.link_others();
    }

    /// Move the other pane's cursor to the focused one: same index, or nearest in time.
    fn link_others(&mut self) {
        let Some(src) = self.focused() else {
            return;
        };
        let (idx, t) = (src.cursor, src.cursor_t());
        let link = self.link;
        for (i, p) in self.panes.iter_mut().enumerate() {
            if i == self.focus.index() {
                continue;
            }
            p.reveal_all();
            p.follow = false;
            let at = match link {
                Link::Index => idx.index(),
                Link::Time => {
                    let start = p.start_at();
                    p.current_run().map_or(0, |r| {
                        r.cycles.partition_point(|c| c.at.saturating_sub(start) < t)
                    })
                }
            };
            p.cursor = clamped(at, p.total());
        }
    }

    /// The range of cycles the charts show: the zoom window around the cursor, or all.
    #[must_use]
    pub fn window(&self, p: &Pane) -> std::ops::Range<usize> {
        let n = p.cycles().len();
        match self.zoom {
            Some(z) if z < n => {
                let hi = (p.cursor.index() + 1 + z / 2).clamp(z, n);
                hi - z..hi
            }
            _ => 0..n,
        }
    }
}

/// `findings: A only x, y; B only z` for the runs the two sides show (`i` says why), or
/// nothing when they have the same findings.
fn finding_diff(panes: &[Pane]) -> String {
    let ids = |i: usize| -> Vec<&'static str> {
        panes
            .get(i)
            .and_then(|p| p.summary.as_ref())
            .map(|s| s.findings.iter().map(|f| f.id).collect())
            .unwrap_or_default()
    };
    let (a, b) = (ids(0), ids(1));
    let only = |x: &[&'static str], y: &[&'static str]| -> Vec<&'static str> {
        x.iter().filter(|id| !y.contains(id)).copied().collect()
    };
    let mut parts = Vec::new();
    for (side, ids) in [("A", only(&a, &b)), ("B", only(&b, &a))] {
        if !ids.is_empty() {
            parts.push(format!("{side} only {}", ids.join(", ")));
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("findings: {} (i on a side says why)", parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::testing::pane;
    use super::*;

    /// Each pane's selected cycle, as places in its run.
    fn cursors(app: &App) -> Vec<usize> {
        app.panes.iter().map(|p| p.cursor.index()).collect()
    }

    #[test]
    fn replay_follows_the_trace_clock() {
        let mut app = App::new(vec![pane(&[0, 100, 1_000, 5_000])]);
        assert_eq!(app.panes[0].shown, 4);
        app.act(Action::PlayPause);
        assert!(app.playing);
        assert_eq!(
            app.panes[0].shown, 1,
            "replay restarts from the first cycle"
        );
        app.tick(Duration::from_millis(0));
        app.tick(Duration::from_millis(150)); // x1: 150 ms of trace time
        assert_eq!(app.panes[0].shown, 2);
        app.act(Action::Faster); // x2
        app.tick(Duration::from_millis(600)); // +450 ms real = 900 ms trace: t = 1050
        assert_eq!(app.panes[0].shown, 3);
        assert_eq!(cursors(&app), [2]);
        for _ in 0..20 {
            app.act(Action::Faster);
        }
        assert_eq!(SPEEDS[app.speed], 1000.0);
        app.tick(Duration::from_millis(610)); // +10 ms x1000 = 10 s
        assert_eq!(app.panes[0].shown, 4);
        assert!(!app.playing, "the replay stops at the end");
    }

    #[test]
    fn steps_jumps_and_links() {
        let mut app = App::new(vec![pane(&[0, 10, 20, 30]), pane(&[0, 25, 26])]);
        app.act(Action::Start);
        assert_eq!(cursors(&app), [0, 0]);
        app.act(Action::StepForward);
        app.act(Action::StepForward);
        assert_eq!(cursors(&app), [2, 2]);
        app.act(Action::LinkMode);
        app.act(Action::StepForward); // A at 30 ms -> B's first cycle at or after 30 ms: none
        assert_eq!(cursors(&app), [3, 2]);
        app.act(Action::StepBack); // A at 20 ms -> B's cycle at 25 ms
        assert_eq!(cursors(&app)[1], 1);
        app.act(Action::Jump);
        for c in "2\n".chars() {
            app.jump_key(Some(c));
        }
        assert_eq!(cursors(&app)[0], 1);
        assert_eq!(app.mode, Mode::Normal);
        app.act(Action::End);
        assert_eq!(cursors(&app)[0], 3);
    }

    #[test]
    fn zoom_window_follows_the_cursor() {
        let times: Vec<u64> = (0..100).collect();
        let mut app = App::new(vec![pane(&times)]);
        assert_eq!(app.window(&app.panes[0]), 0..100);
        app.act(Action::ZoomIn);
        assert_eq!(app.window(&app.panes[0]), 50..100);
        app.act(Action::Start);
        assert_eq!(app.window(&app.panes[0]), 0..50);
        app.act(Action::ZoomOut);
        assert_eq!(app.window(&app.panes[0]), 0..100);
    }
}
