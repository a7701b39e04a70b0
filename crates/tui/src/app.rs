//! Dashboard state and its updates. Only the main loop calls the `&mut self` methods; views
//! read `&App`.

use super::keys::Action;
use gcscope_core::stats::compare::{self, Metric, Row};
use gcscope_core::stats::summary::{RunStats, RunSummary};
use gcscope_core::stats::turns::TurnSamples;
use gcscope_core::timeline::{Run, Timeline};
use gcscope_model::settings;
use gcscope_model::{Cycle, Event, SourceId};
use gcscope_source::{LabControl, LabKnob};
use std::time::Duration;

/// Replay speeds, x real time.
pub const SPEEDS: [f64; 12] = [
    0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0,
];

/// One source on screen.
pub struct Pane {
    pub name: String,
    pub timeline: Timeline,
    /// Cycles arrive live (stdin, follow): no replay, the newest is shown as it comes.
    pub live: bool,
    /// Selected run (process) of the source.
    pub run: usize,
    /// Selected cycle, an index into the run's cycles.
    pub cursor: usize,
    /// Cycles revealed so far by the replay (all of them when not replaying).
    pub shown: usize,
    /// The cursor sticks to the newest shown cycle.
    pub follow: bool,
    /// Summary of the shown cycles, refreshed by `App::refresh` (never on the render path).
    pub summary: Option<RunSummary>,
    summary_key: (usize, usize),
    /// Running statistics of the cycles revealed so far by a replay (run, stats): extended
    /// cycle by cycle as the replay advances, rebuilt only when it goes back.
    replay_stats: (usize, RunStats),
    /// The charts' series over the zoom window, downsampled, refreshed by `App::refresh`.
    pub cols: Cols,
    /// A live lab A/B side's completed turns, each a sample for the strip.
    turns: TurnSamples,
}

/// Per-cycle series over the visible window, at most `COLS` values each (the largest of each
/// bucket of cycles, so spikes survive), plus the pause distribution and outliers. A frame
/// then costs the same with a hundred cycles or a million.
#[derive(Default)]
pub struct Cols {
    key: (usize, usize, usize, usize),
    pub window: std::ops::Range<usize>,
    /// STW pause (sweep termination + mark termination), ns.
    pub pause: Vec<u64>,
    /// Wall time of the concurrent mark, ns.
    pub mark: Vec<u64>,
    /// Heap marked live, bytes.
    pub heap_live: Vec<u64>,
    /// Heap when the cycle ended, bytes.
    pub heap_end: Vec<u64>,
    /// Heap goal, bytes; 0 where the trace prints none.
    pub heap_goal: Vec<u64>,
    /// Mark CPU by kind of worker, ns.
    pub cpu: CpuSeries,
    /// Page scan density (objects per span visit) x10; 0 where the cycle has none.
    pub density_x10: Vec<u64>,
    /// Pause counts by bucket (see `PAUSE_EDGES_US`), over the shown cycles.
    pub pause_hist: [u64; 7],
    /// Shown cycles with a pause over 10x the median (and over 1 ms), largest first (index, pause).
    pub outliers: Vec<(u32, u64)>,
    /// How many pauses are outliers, listed or not.
    pub outliers_total: usize,
    /// The outlier threshold: `max(10 x p50, 1 ms)`, ns.
    pub outlier_limit: u64,
    pub has_density: bool,
    pub has_scan: bool,
}

/// Mark CPU per cycle by kind of worker, ns (see `model::Cpu`).
#[derive(Default)]
pub struct CpuSeries {
    pub assist: Vec<u64>,
    pub background: Vec<u64>,
    pub idle: Vec<u64>,
}

pub const COLS: usize = 512;
pub const PAUSE_EDGES_US: [u64; 6] = [10, 40, 160, 640, 2_560, 10_240];

/// The `Cols::pause_hist` bucket of a pause (ns): the first edge of `PAUSE_EDGES_US` the pause
/// is under, or the last bucket.
pub fn pause_bucket(pause_ns: u64) -> usize {
    let us = pause_ns / 1000;
    PAUSE_EDGES_US
        .iter()
        .position(|&e| us < e)
        .unwrap_or(PAUSE_EDGES_US.len())
}

/// Largest value of each of up to `w` buckets of `cycles`.
pub fn downsample(cycles: &[Cycle], w: usize, value: impl Fn(&Cycle) -> u64) -> Vec<u64> {
    let n = cycles.len();
    let w = w.min(n);
    (0..w)
        .map(|j| {
            let (lo, hi) = (j * n / w, ((j + 1) * n / w).max(j * n / w + 1));
            cycles[lo..hi.min(n)].iter().map(&value).max().unwrap_or(0)
        })
        .collect()
}

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
    pub focus: usize,
    /// Replaying at the trace's own timestamps.
    pub playing: bool,
    pub speed: usize,
    /// Replay clock: trace time since the selected runs' first cycle, ns.
    pub replay_t: u64,
    last_tick: Option<Duration>,
    pub help: bool,
    /// The findings overlay is open (`i`): 1-9 go to a finding's first evidence cycle.
    pub findings: bool,
    /// `/` typed: the digits so far.
    pub jump: Option<String>,
    /// Cycles across the charts' width; `None` fits the whole run.
    pub zoom: Option<usize>,
    pub link: Link,
    pub quit: bool,
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
    /// What the strip was last computed from: each pane's (run, shown, cycles in the run).
    strip_key: Vec<(usize, usize, usize, usize)>,
    /// Live lab sources: where the lab keys send their switches.
    pub lab: Option<LabControl>,
}

/// Output lines a live pane keeps (about 10 MB of typical lines).
const LIVE_OUTPUT_LINES: usize = 100_000;

impl Pane {
    pub fn new(name: impl Into<String>, live: bool) -> Self {
        Pane {
            name: name.into(),
            // A live source may print without end (`gcscope run -- yes`): the log keeps its
            // latest lines and counts the rest.
            timeline: Timeline {
                keep_output: live.then_some(LIVE_OUTPUT_LINES),
                ..Timeline::default()
            },
            live,
            run: 0,
            cursor: 0,
            shown: 0,
            follow: true,
            summary: None,
            summary_key: (usize::MAX, usize::MAX),
            replay_stats: (0, RunStats::default()),
            cols: Cols::default(),
            turns: TurnSamples::default(),
        }
    }

    pub fn current_run(&self) -> Option<&Run> {
        self.timeline.runs.get(self.run)
    }

    /// The revealed cycles of the selected run.
    pub fn cycles(&self) -> &[Cycle] {
        self.current_run()
            .map_or(&[][..], |r| &r.cycles[..self.shown.min(r.cycles.len())])
    }

    pub fn selected(&self) -> Option<&Cycle> {
        self.cycles().get(self.cursor)
    }

    fn total(&self) -> usize {
        self.current_run().map_or(0, |r| r.cycles.len())
    }

    fn start_at(&self) -> u64 {
        self.current_run()
            .and_then(|r| r.cycles.first())
            .map_or(0, |c| c.at)
    }

    /// Reveal the cycles whose start is within `t` of the run's first cycle.
    fn reveal_until(&mut self, t: u64) {
        let start = self.start_at();
        if let Some(r) = self.timeline.runs.get(self.run) {
            self.shown = r
                .cycles
                .partition_point(|c| c.at.saturating_sub(start) <= t);
        }
    }

    fn reveal_all(&mut self) {
        self.shown = self.total();
    }

    fn clamp_cursor(&mut self) {
        let n = self.shown.min(self.total());
        if self.follow || self.cursor >= n {
            self.cursor = n.saturating_sub(1);
        }
    }

    /// Time of the selected cycle since the run's start.
    fn cursor_t(&self) -> u64 {
        self.selected()
            .map_or(0, |c| c.at.saturating_sub(self.start_at()))
    }
}

fn refresh_cols(p: &mut Pane, w: std::ops::Range<usize>) {
    let key = (p.run, p.shown, w.start, w.end);
    if key == p.cols.key {
        return;
    }
    let all = p.cycles();
    let cycles = &all[w.clone()];
    let d = |f: fn(&Cycle) -> u64| downsample(cycles, COLS, f);
    let mut pause_hist = [0u64; 7];
    for c in all {
        pause_hist[pause_bucket(c.pause())] += 1;
    }
    let p50 = p.summary.as_ref().map_or(0.0, |s| s.pause_ms.p50);
    let limit = (p50 * 10.0 * 1e6).max(1_000_000.0) as u64;
    let mut outliers: Vec<(u32, u64)> = all
        .iter()
        .filter(|c| c.pause() > limit)
        .map(|c| (c.num, c.pause()))
        .collect();
    outliers.sort_by_key(|o| std::cmp::Reverse(o.1));
    let outliers_total = outliers.len();
    outliers.truncate(8);
    p.cols = Cols {
        outliers_total,
        outlier_limit: limit,
        key,
        window: w,
        pause: d(Cycle::pause),
        mark: d(Cycle::mark_wall),
        heap_live: d(|c| c.heap_live),
        heap_end: d(|c| c.heap_end),
        heap_goal: d(|c| c.goal.unwrap_or(0)),
        cpu: CpuSeries {
            assist: d(|c| c.cpu.assist),
            background: d(|c| c.cpu.background),
            idle: d(|c| c.cpu.idle),
        },
        density_x10: d(|c| (c.page_density().unwrap_or(0.0) * 10.0) as u64),
        pause_hist,
        outliers,
        has_density: cycles.iter().any(|c| c.page_density().is_some()),
        has_scan: cycles.iter().any(|c| c.scan.is_some()),
    };
}

impl App {
    pub fn new(panes: Vec<Pane>) -> Self {
        App {
            panes,
            focus: 0,
            playing: false,
            speed: 2,
            replay_t: 0,
            last_tick: None,
            help: false,
            findings: false,
            jump: None,
            zoom: None,
            link: Link::Index,
            quit: false,
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
        p.timeline.apply(ev);
        if new_run && p.live && p.follow {
            // A live source started a run (a restarted process, a lab switch): show it.
            p.run = p.timeline.runs.len() - 1;
            p.cursor = 0;
        }
        if ended && !p.live && p.run == 0 {
            // A file of many runs (a log of restarts) opens on its latest: what happened
            // last is what its reader came for; `[` goes back.
            p.run = p.timeline.runs.len().saturating_sub(1);
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
                p.cursor = 0;
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
        for p in &mut self.panes {
            let key = (p.run, p.shown);
            if key == p.summary_key {
                continue;
            }
            p.summary_key = key;
            let Some(r) = p.timeline.runs.get(p.run) else {
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
                for c in &r.cycles[stats.cycles()..p.shown] {
                    stats.push(c);
                }
                stats.summary(r.first_line, r.restart)
            };
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
        let key: Vec<(usize, usize, usize, usize)> = self
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
            p.timeline
                .runs
                .get(p.run)
                .and_then(|r| r.label.clone())
                .unwrap_or_default()
        };
        self.mismatch = settings::differences(&label(&self.panes[0]), &label(&self.panes[1]));
        if !self.mismatch.is_empty() {
            self.comparison.clear();
            return;
        }
        for p in &mut self.panes {
            let cycles = p.timeline.runs.get(p.run).map_or(&[][..], |r| &r.cycles);
            p.turns.update(p.run, cycles);
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
        let runs = self
            .panes
            .get(self.focus)
            .map_or(0, |p| p.timeline.runs.len());
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
            Action::Help => self.help = !self.help,
            Action::Findings => self.findings = !self.findings,
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
            Action::Start => self.seek_index(0),
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
            Action::SwitchFocus => self.focus = (self.focus + 1) % self.panes.len().max(1),
            Action::Follow => {
                if let Some(p) = self.panes.get_mut(self.focus) {
                    p.follow = !p.follow;
                    p.clamp_cursor();
                }
            }
            Action::Jump => self.jump = Some(String::new()),
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
                let focus = self.focus;
                for (i, p) in self.panes.iter_mut().enumerate() {
                    if !together && i != focus {
                        continue;
                    }
                    let runs = p.timeline.runs.len().max(1);
                    p.run = if action == Action::NextRun {
                        (p.run + 1) % runs
                    } else {
                        (p.run + runs - 1) % runs
                    };
                    p.reveal_all();
                    p.follow = true;
                    p.clamp_cursor();
                }
            }
            Action::LinkMode => {
                self.link = match self.link {
                    Link::Index => Link::Time,
                    Link::Time => Link::Index,
                }
            }
            Action::LabWorkload => self.turn_lab(LabKnob::NextWorkload),
            Action::LabMarker => self.turn_lab(LabKnob::ToggleMarker),
            Action::LabGogcUp => self.turn_lab(LabKnob::GogcUp),
            Action::LabGogcDown => self.turn_lab(LabKnob::GogcDown),
        }
    }

    fn turn_lab(&mut self, knob: LabKnob) {
        if let Some(lab) = &mut self.lab {
            lab.turn(knob);
        }
    }

    /// A key typed while `/` waits for a cycle number.
    /// A key while the findings overlay is open: 1-9 go to that finding's first evidence
    /// cycle on the focused side (and say which); any key closes the overlay.
    pub fn findings_key(&mut self, c: Option<char>) {
        self.findings = false;
        let Some(k) = c.and_then(|c| c.to_digit(10)).filter(|&k| k >= 1) else {
            return;
        };
        let found = self
            .panes
            .get(self.focus)
            .and_then(|p| p.summary.as_ref())
            .and_then(|s| s.findings.get(k as usize - 1))
            .map(|f| (f.id, f.cycles.first().copied()));
        match found {
            Some((id, Some(num))) => {
                self.seek_cycle_number(num);
                self.notice = Some(format!("{id}: gc {num}, its first evidence cycle"));
            }
            Some((id, None)) => {
                self.notice = Some(format!("{id} is about the whole run, not one cycle"));
            }
            None => self.notice = Some(format!("no finding {k}")),
        }
    }

    pub fn jump_key(&mut self, c: Option<char>) {
        let Some(buf) = self.jump.as_mut() else {
            return;
        };
        match c {
            Some(d) if d.is_ascii_digit() && buf.len() < 10 => buf.push(d),
            Some('\u{8}') => {
                buf.pop();
            }
            Some('\n') => {
                let target = buf.parse::<u32>().ok();
                self.jump = None;
                if let Some(num) = target {
                    self.seek_cycle_number(num);
                }
            }
            _ => self.jump = None,
        }
    }

    fn start_replay(&mut self) {
        // From the cursor, or from the start when the cursor is at the end.
        let at_end = self
            .panes
            .iter()
            .all(|p| p.live || p.cursor + 1 >= p.total());
        self.replay_t = if at_end {
            0
        } else {
            self.panes.get(self.focus).map_or(0, Pane::cursor_t)
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
        let Some(p) = self.panes.get_mut(self.focus) else {
            return;
        };
        p.reveal_all();
        p.follow = false;
        let n = p.total();
        p.cursor = p
            .cursor
            .saturating_add_signed(delta)
            .min(n.saturating_sub(1));
        self.link_others();
    }

    fn seek_index(&mut self, i: usize) {
        self.playing = false;
        for p in &mut self.panes {
            p.reveal_all();
            p.follow = false;
            p.cursor = i.min(p.total().saturating_sub(1));
        }
    }

    fn seek_cycle_number(&mut self, num: u32) {
        self.playing = false;
        let Some(p) = self.panes.get_mut(self.focus) else {
            return;
        };
        p.reveal_all();
        if let Some(r) = p.current_run() {
            let i = r.cycles.partition_point(|c| c.num < num);
            p.cursor = i.min(r.cycles.len().saturating_sub(1));
            p.follow = false;
        }
        self.link_others();
    }

    /// Move the other pane's cursor to the focused one: same index, or nearest in time.
    fn link_others(&mut self) {
        let Some(src) = self.panes.get(self.focus) else {
            return;
        };
        let (idx, t) = (src.cursor, src.cursor_t());
        let link = self.link;
        for (i, p) in self.panes.iter_mut().enumerate() {
            if i == self.focus {
                continue;
            }
            p.reveal_all();
            p.follow = false;
            let n = p.total();
            p.cursor = match link {
                Link::Index => idx,
                Link::Time => {
                    let start = p.start_at();
                    p.current_run().map_or(0, |r| {
                        r.cycles.partition_point(|c| c.at.saturating_sub(start) < t)
                    })
                }
            }
            .min(n.saturating_sub(1));
        }
    }

    /// The range of cycles the charts show: the zoom window around the cursor, or all.
    pub fn window(&self, p: &Pane) -> std::ops::Range<usize> {
        let n = p.cycles().len();
        match self.zoom {
            Some(z) if z < n => {
                let hi = (p.cursor + 1 + z / 2).clamp(z, n);
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
    use super::*;
    use gcscope_model::Cycle;

    /// A file pane of one run with these cycles, all shown.
    fn pane_of(cycles: impl IntoIterator<Item = Cycle>) -> Pane {
        let mut p = Pane::new("t", false);
        p.timeline.apply(Event::RunStart {
            run: gcscope_model::RunId::FIRST,
            line: 1,
            restart: None,
        });
        for c in cycles {
            p.timeline.apply(Event::Cycle {
                run: gcscope_model::RunId::FIRST,
                cycle: Box::new(c),
            });
        }
        p.reveal_all();
        p.clamp_cursor();
        p
    }

    /// Cycles 1, 2, ... starting at these times.
    fn pane(times_ms: &[u64]) -> Pane {
        pane_of(times_ms.iter().enumerate().map(|(i, &t)| Cycle {
            num: i as u32 + 1,
            at: t * 1_000_000,
            ..Default::default()
        }))
    }

    fn heap_live(values: &[u64]) -> Vec<Cycle> {
        values
            .iter()
            .map(|&v| Cycle {
                heap_live: v,
                ..Default::default()
            })
            .collect()
    }

    #[test]
    fn downsample_keeps_the_largest_value_of_each_bucket() {
        let d = |values: &[u64], w| downsample(&heap_live(values), w, |c| c.heap_live);
        assert_eq!(d(&[1, 5, 2, 7, 3, 0], 3), [5, 7, 3]);
        // 7 cycles in 3 buckets: 2, 2 and 3 cycles.
        assert_eq!(d(&[4, 1, 9, 2, 8, 3, 7], 3), [4, 9, 8]);
        // Exact edges: the cycle at index 2 belongs to the second bucket, not the first.
        assert_eq!(d(&[1, 2, 9, 3], 2), [2, 9]);
        assert_eq!(d(&[9, 1, 2, 3], 2), [9, 3]);
        assert_eq!(d(&[2, 9, 4], 1), [9]);
    }

    /// Unlike the view's `columns`, fewer cycles than buckets are kept as they are, one value
    /// a cycle, not stretched.
    #[test]
    fn downsample_keeps_a_short_run_as_it_is() {
        let d = |values: &[u64], w| downsample(&heap_live(values), w, |c| c.heap_live);
        assert_eq!(d(&[3, 8], 5), [3, 8]);
        assert_eq!(d(&[3, 8], 2), [3, 8]);
        assert_eq!(d(&[], 5), Vec::<u64>::new());
        assert_eq!(d(&[3, 8], 0), Vec::<u64>::new());
    }

    #[test]
    fn pause_buckets_start_at_their_edge() {
        let cases = [
            (0, 0),
            (9_999, 0), // 9.999 µs: under 10 µs
            (10_000, 1),
            (39_999, 1),
            (40_000, 2),
            (159_999, 2),
            (160_000, 3),
            (640_000, 4),
            (2_560_000, 5),
            (10_239_999, 5),
            (10_240_000, 6),
            (u64::MAX, 6),
        ];
        for (ns, bucket) in cases {
            assert_eq!(pause_bucket(ns), bucket, "{ns} ns");
        }
    }

    /// The series cover the zoom window only; the pause distribution and the outliers (over
    /// 1 ms while there is no summary to take a median from) cover every shown cycle.
    #[test]
    fn pause_distribution_and_outliers_cover_all_shown_cycles() {
        let pauses_us = [3_000, 20, 20, 50_000, 2_000];
        let mut p = pane_of(pauses_us.iter().enumerate().map(|(i, &us)| Cycle {
            num: i as u32 + 1,
            clock: gcscope_model::Clock {
                sweep_term: us * 1000,
                ..Default::default()
            },
            ..Default::default()
        }));
        p.shown = 4; // the 2 ms pause is not revealed yet
        refresh_cols(&mut p, 2..4);
        assert_eq!(p.cols.pause, [20_000, 50_000_000]);
        assert_eq!(p.cols.pause_hist, [0, 2, 0, 0, 0, 1, 1]);
        assert_eq!(p.cols.outliers, [(4, 50_000_000), (1, 3_000_000)]);
    }

    /// Every field of this cycle differs, so a series that read another's field would show.
    #[test]
    fn each_series_reads_its_own_field() {
        use gcscope_model::{Clock, Cpu, GreenTeaCounts, ScanCounts, ScanStats};
        let green_tea = GreenTeaCounts {
            sparse_objs: 1,
            span_objs_dense: 4,
            spans_dense: 1,
            ..Default::default()
        }; // 5 objects in 2 visits: density 2.5
        let mut p = pane_of([Cycle {
            num: 1,
            clock: Clock {
                sweep_term: 1,
                mark: 2,
                mark_term: 10,
            },
            cpu: Cpu {
                sweep_term: 100,
                assist: 3,
                background: 4,
                idle: 5,
                mark_term: 200,
            },
            heap_start: 300,
            heap_live: 6,
            heap_end: 7,
            goal: Some(8),
            scan: Some(Box::new(ScanStats {
                total: ScanCounts {
                    objs: 400,
                    green_tea: Some(green_tea),
                },
                classes: Vec::new(),
            })),
            ..Default::default()
        }]);
        refresh_cols(&mut p, 0..1);
        let c = &p.cols;
        assert_eq!(
            c.pause,
            [11],
            "pause = sweep termination + mark termination"
        );
        assert_eq!(c.mark, [2]);
        assert_eq!(c.heap_live, [6]);
        assert_eq!(c.heap_end, [7]);
        assert_eq!(c.heap_goal, [8]);
        assert_eq!(c.cpu.assist, [3]);
        assert_eq!(c.cpu.background, [4]);
        assert_eq!(c.cpu.idle, [5]);
        assert_eq!(c.density_x10, [25]);
        assert!(c.has_density && c.has_scan);
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
        assert_eq!(app.panes[0].cursor, 2);
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
        assert_eq!((app.panes[0].cursor, app.panes[1].cursor), (0, 0));
        app.act(Action::StepForward);
        app.act(Action::StepForward);
        assert_eq!((app.panes[0].cursor, app.panes[1].cursor), (2, 2));
        app.act(Action::LinkMode);
        app.act(Action::StepForward); // A at 30 ms -> B's first cycle at or after 30 ms: none
        assert_eq!((app.panes[0].cursor, app.panes[1].cursor), (3, 2));
        app.act(Action::StepBack); // A at 20 ms -> B's cycle at 25 ms
        assert_eq!(app.panes[1].cursor, 1);
        app.act(Action::Jump);
        for c in "2\n".chars() {
            app.jump_key(Some(c));
        }
        assert_eq!(app.panes[0].cursor, 1);
        assert!(app.jump.is_none());
        app.act(Action::End);
        assert_eq!(app.panes[0].cursor, 3);
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
