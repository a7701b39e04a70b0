//! The statistics engine: a run's running statistics, updated cycle by cycle.

use super::findings::Facts;
use super::ms;
use super::pacer::PacerStats;
use super::per_cycle::{Col, CycleColumns};
use super::summary::{ClassScan, ClockMs, CpuMs, MinMax, PerCycle, RunSummary, ScanSummary};
use gcscope_model::ScanLine;
use gcscope_model::{Clock, Cpu, Cycle};

mod lab;
mod scan;

use lab::LabAcc;
use scan::{density, visits, ScanAcc};

/// Running statistics of one run, updated cycle by cycle: the timeline keeps them current as
/// events arrive (the dashboard reads them every frame), and `summary` can drop the cycles
/// themselves on a huge file. About 24 bytes a cycle (the per-cycle values medians need).
///
/// Setup cycles (the lab's warm-up, `LabStats::setup`) are counted but kept apart: a run's
/// figures are those of its other cycles, or of the setup cycles when it has no others (so a
/// short run still has a summary).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStats {
    /// The cycles that are not setup cycles.
    steady: Figures,
    /// The setup cycles (boxed: a Go trace has none).
    setup: Option<Box<Figures>>,
    /// The last cycle pushed was a setup cycle: its `scan:` lines go with it.
    last_setup: bool,
    /// The `scan:` lines the last cycle has had so far.
    seen: ScanSeen,
    /// The pacer read back from every cycle, setup ones included (a goal follows from the
    /// cycle before it, whatever that was).
    pacer: PacerStats,
    /// Counts, sums and the `scan:` rule only: no per-cycle values for medians and no pacer
    /// points, so memory does not grow with the cycles (`lean`).
    lean: bool,
}

/// The `scan:` lines counted for the last cycle: one `total` line and one line a class.
#[derive(Debug, Clone, Default, PartialEq)]
struct ScanSeen {
    total: bool,
    /// In the order printed (Go prints classes in increasing order, `L` = 0 first).
    classes: Vec<u32>,
}

/// Why a `scan:` line was not counted (`RunStats::push_scan`). Its `Display` is the reason
/// the timeline records as a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanRejected {
    /// The run has no cycle for it yet.
    NoCycle,
    /// The cycle (its number) already had a `total` line.
    SecondTotal { cycle: u32 },
    /// The cycle already had a line for this size class (bytes, 0 for large objects).
    SecondClass { cycle: u32, class: u32 },
}

impl std::fmt::Display for ScanRejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ScanRejected::NoCycle => write!(f, "scan: line with no gc line before it"),
            ScanRejected::SecondTotal { cycle } => {
                write!(f, "second scan: total line for gc {cycle}")
            }
            ScanRejected::SecondClass { cycle, class: 0 } => {
                write!(f, "second scan: class L line for gc {cycle}")
            }
            ScanRejected::SecondClass { cycle, class } => {
                write!(f, "second scan: class {class}B line for gc {cycle}")
            }
        }
    }
}

/// The figures of a set of cycles: sums, ranges and the per-cycle values medians and
/// percentiles are taken from.
///
/// Every sum saturates: values are read from text and may be anything a u64 holds.
#[derive(Debug, Clone, Default, PartialEq)]
struct Figures {
    format: &'static str,
    n: usize,
    forced: usize,
    procs: u32,
    first: (u32, u64),
    last: (u32, u64, u16),
    /// Sums over the run.
    cpu: Cpu,
    /// Sums over the run; `mark` sums `Cycle::mark_wall` (Go 1.5's scan and write-barrier
    /// install included).
    clock: Clock,
    gc_cpu: u64,
    /// The per-cycle values medians and percentiles are taken from: rows, binned past
    /// `per_cycle::ROWS_CAP` cycles.
    per: CycleColumns,
    pause_max: u64,
    mark_max: u64,
    live: Option<(u64, u64)>,
    goal: Option<(u64, u64)>,
    scan: ScanAcc,
    lab: LabAcc,
    /// What the findings need (bounded; `findings::Facts`).
    facts: Facts,
}

impl Col {
    /// A cycle's row.
    fn row(c: &Cycle, d: &Derived) -> [u64; Col::COUNT] {
        Col::ALL.map(|col| match col {
            Col::Assist => c.cpu.assist,
            Col::Background => c.cpu.background,
            Col::Idle => c.cpu.idle,
            Col::GcCpu => d.gc_cpu,
            Col::Pause => d.pause,
            Col::Mark => d.mark,
        })
    }
}

/// A cycle's derived figures as `Cycle::gc_cpu`, `Cycle::pause` and `Cycle::mark_wall` define
/// them, with sums that saturate: a line's values may be anything up to u64::MAX, where the
/// model's plain sums would wrap (or panic, in a debug build).
struct Derived {
    gc_cpu: u64,
    pause: u64,
    mark: u64,
}

impl Derived {
    fn of(c: &Cycle) -> Derived {
        let go15 = c.go15.as_deref().copied().unwrap_or_default();
        let cpu = &c.cpu;
        Derived {
            gc_cpu: [
                cpu.assist,
                cpu.background,
                cpu.idle,
                cpu.mark_term,
                go15.cpu_scan,
                go15.cpu_install_wb,
            ]
            .into_iter()
            .fold(cpu.sweep_term, u64::saturating_add),
            pause: c.clock.sweep_term.saturating_add(c.clock.mark_term),
            mark: c
                .clock
                .mark
                .saturating_add(go15.clock_scan)
                .saturating_add(go15.clock_install_wb),
        }
    }
}

fn widen(r: Option<(u64, u64)>, v: u64) -> Option<(u64, u64)> {
    Some(r.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
}

/// Fewer cycles than this cannot make a sum reach 2^64 ns: the parser takes no phase time of
/// `MAX_PHASE_NS` (2^53) or more, and a cycle's largest figure, its GC P time, adds up at most
/// seven of them (five cpu classes, Go 1.5's two more).
#[allow(clippy::cast_possible_truncation)]
pub const SATURATING_CYCLES: usize = (u64::MAX / (7 * crate::trace::parse::MAX_PHASE_NS)) as usize;

// A sound bound, checked by the compiler: that many cycles of the largest GC P time the parser
// lets through stay below 2^64, so skipping the check before them misses nothing.
const _: () = assert!((SATURATING_CYCLES as u64)
    .checked_mul(7 * crate::trace::parse::MAX_PHASE_NS)
    .is_some());

impl RunStats {
    /// Every cycle pushed, setup cycles included.
    #[must_use]
    pub fn cycles(&self) -> usize {
        self.steady.n + self.setup_cycles()
    }

    /// All GC P time pushed (setup cycles included), ms: Go's cpu fields summed.
    #[must_use]
    pub fn gc_p_time_ms(&self) -> f64 {
        let setup = self.setup.as_ref().map_or(0, |s| s.gc_cpu);
        ms(self.steady.gc_cpu.saturating_add(setup))
    }

    /// Whether a sum reached 2^64 - 1 ns and stopped there (`RunSummary::saturated`). It
    /// cannot before `SATURATING_CYCLES` cycles: the caller per cycle checks that first.
    #[must_use]
    pub fn saturated(&self) -> bool {
        let full = |f: &Figures| {
            let (c, k) = (&f.cpu, &f.clock);
            [
                c.sweep_term,
                c.assist,
                c.background,
                c.idle,
                c.mark_term,
                k.sweep_term,
                k.mark,
                k.mark_term,
                f.gc_cpu,
            ]
            .contains(&u64::MAX)
        };
        full(&self.steady) || self.setup.as_deref().is_some_and(full)
    }

    /// The setup cycles pushed.
    #[must_use]
    pub fn setup_cycles(&self) -> usize {
        self.setup.as_ref().map_or(0, |s| s.n)
    }

    /// A cycle, and the `scan:` counters its record carries (`Cycle::scan`: the lab's cycles
    /// bring theirs; a kept record has the lines `push_scan` counted), by `push_scan`'s rule.
    pub fn push(&mut self, c: &Cycle) {
        if !self.lean {
            self.pacer.push(c);
        }
        self.seen.total = false;
        self.seen.classes.clear();
        self.last_setup = c.lab.as_ref().is_some_and(|l| l.setup);
        if self.last_setup {
            self.setup
                .get_or_insert_with(Default::default)
                .push(c, self.lean);
        } else {
            self.steady.push(c, self.lean);
        }
        if let Some(scan) = &c.scan {
            let total = ScanLine {
                class: None,
                counts: scan.total,
            };
            let classes = scan.classes.iter().map(|&(class, counts)| ScanLine {
                class: Some(class),
                counts,
            });
            for line in std::iter::once(total).chain(classes) {
                // A line the rule refuses is left out, as it is from text.
                let _ = self.push_scan(&line);
            }
        }
    }

    /// A `scan:` line of the run's last cycle, counted with that cycle, or why not: the one
    /// rule for which lines count, whether or not the cycles are kept (the timeline keeps in
    /// a cycle's record exactly the lines counted here). A cycle's first `total` line and its
    /// first line for each size class count; a line repeating one of those, or before the
    /// run's first cycle, does not.
    pub fn push_scan(&mut self, line: &ScanLine) -> Result<(), ScanRejected> {
        let figures = match &mut self.setup {
            Some(setup) if self.last_setup => setup,
            _ if self.steady.n == 0 => return Err(ScanRejected::NoCycle),
            _ => &mut self.steady,
        };
        let seen = &mut self.seen;
        let cycle = figures.last.0;
        let first = !seen.total && seen.classes.is_empty();
        match line.class {
            None if seen.total => return Err(ScanRejected::SecondTotal { cycle }),
            None => seen.total = true,
            // Increasing, as Go prints them: new without a search.
            Some(class) if seen.classes.last().is_none_or(|&last| last < class) => {
                seen.classes.push(class)
            }
            Some(class) if seen.classes.contains(&class) => {
                return Err(ScanRejected::SecondClass { cycle, class })
            }
            Some(class) => seen.classes.push(class),
        }
        figures.scan.push(line, first);
        Ok(())
    }

    /// The statistics of this run's cycles followed by `other`'s, as if they had been pushed
    /// here one by one: how a run split over two pieces of a large input read side by side is
    /// put back together. (Summed in the same order, so the sums are the same numbers.)
    pub fn append(&mut self, other: &RunStats) {
        if other.cycles() == 0 {
            return;
        }
        self.steady.append(&other.steady);
        if let Some(theirs) = &other.setup {
            match &mut self.setup {
                Some(mine) => mine.append(theirs),
                None => self.setup = Some(theirs.clone()),
            }
        }
        self.last_setup = other.last_setup;
        self.seen.clone_from(&other.seen);
        self.pacer.append(&other.pacer);
    }

    /// The findings of a summary of this run, made again after the summary gained what only
    /// its caller knows (the load measured while a program ran).
    #[must_use]
    pub fn findings(&self, s: &RunSummary) -> Vec<super::findings::Finding> {
        let figures = match &self.setup {
            Some(setup) if self.steady.n == 0 => setup,
            _ => &self.steady,
        };
        super::findings::evaluate(s, &figures.facts)
    }

    /// The run's figures: of its cycles but the setup ones, or of the setup cycles when it
    /// has nothing else; `None` without cycles.
    #[must_use]
    pub fn summary(&self, first_line: u64, restart: Option<(u32, u32)>) -> Option<RunSummary> {
        // Lean statistics have no medians or pacer to summarise (`lean`).
        if self.lean {
            return None;
        }
        let figures = match &self.setup {
            Some(setup) if self.steady.n == 0 => setup,
            _ => &self.steady,
        };
        let mut s = figures.summary(first_line, restart)?;
        // Only what was left out: cycles + setup_cycles is every cycle of the run.
        if self.steady.n > 0 {
            s.setup_cycles = self.setup_cycles();
        }
        s.pacer = Some(self.pacer.summary());
        s.findings = super::findings::evaluate(&s, &figures.facts);
        Some(s)
    }
}

impl Figures {
    /// A cycle; `lean`: without its per-cycle values (`RunStats::lean`).
    fn push(&mut self, c: &Cycle, lean: bool) {
        if self.n == 0 {
            self.format = format_name(c);
            self.first = (c.num, c.at);
        }
        self.n += 1;
        self.forced += usize::from(c.forced);
        self.procs = self.procs.max(c.procs);
        self.last = (c.num, c.at, c.cum_pct);
        let d = Derived::of(c);
        add_cpu(&mut self.cpu, &c.cpu);
        add_clock(
            &mut self.clock,
            &Clock {
                mark: d.mark,
                ..c.clock
            },
        );
        self.gc_cpu = self.gc_cpu.saturating_add(d.gc_cpu);
        if !lean {
            self.per.push(Col::row(c, &d));
        }
        self.pause_max = self.pause_max.max(d.pause);
        self.mark_max = self.mark_max.max(d.mark);
        self.live = widen(self.live, c.heap_live >> 20);
        if let Some(g) = c.goal {
            self.goal = widen(self.goal, g >> 20);
        }
        if let Some(l) = &c.lab {
            self.lab.push(l);
        }
        self.facts.push(c);
    }

    /// `other`'s cycles after these.
    fn append(&mut self, other: &Figures) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = other.clone();
            return;
        }
        self.n += other.n;
        self.forced += other.forced;
        self.procs = self.procs.max(other.procs);
        self.last = other.last;
        add_cpu(&mut self.cpu, &other.cpu);
        add_clock(&mut self.clock, &other.clock);
        self.gc_cpu = self.gc_cpu.saturating_add(other.gc_cpu);
        self.per.append(&other.per);
        self.facts.append(&other.facts);
        self.pause_max = self.pause_max.max(other.pause_max);
        self.mark_max = self.mark_max.max(other.mark_max);
        for (mine, theirs) in [(&mut self.live, other.live), (&mut self.goal, other.goal)] {
            if let Some((lo, hi)) = theirs {
                *mine = widen(widen(*mine, lo), hi);
            }
        }
        self.scan.append(&other.scan);
        self.lab.append(&other.lab);
    }

    fn summary(&self, first_line: u64, restart: Option<(u32, u32)>) -> Option<RunSummary> {
        if self.n == 0 {
            return None;
        }
        let n = self.n;
        let (cpu, clock) = (&self.cpu, &self.clock);
        let per = &self.per;
        let (assist, background, idle, gc_cpu) = (
            per.median_ms(Col::Assist),
            per.median_ms(Col::Background),
            per.median_ms(Col::Idle),
            per.median_ms(Col::GcCpu),
        );
        let compulsory = per.compulsory_median_ms();
        let pause_ms = per.percentiles(Col::Pause, self.pause_max);
        let mark_ms = per.percentiles(Col::Mark, self.mark_max);
        let mark_cpu = cpu
            .assist
            .saturating_add(cpu.background)
            .saturating_add(cpu.idle);
        let span = self.last.1.saturating_sub(self.first.1);
        let (live_min, live_max) = self.live.unwrap_or_default();
        // A sum that reached 2^64 - 1 stayed there: its figures are lower bounds, said.
        let saturated = [
            cpu.sweep_term,
            cpu.assist,
            cpu.background,
            cpu.idle,
            cpu.mark_term,
            clock.sweep_term,
            clock.mark,
            clock.mark_term,
            self.gc_cpu,
        ]
        .contains(&u64::MAX);
        let s = RunSummary {
            label: None,
            before_window: 0,
            saturated,
            findings: Vec::new(),
            pacer: None,
            earlier_process: false,
            values: Vec::new(),
            other_cpus: None,
            format: self.format,
            first_line,
            restart,
            procs: self.procs,
            cycles: n,
            setup_cycles: 0,
            forced: self.forced,
            first_cycle: self.first.0,
            last_cycle: self.last.0,
            start_s: self.first.1 as f64 / 1e9,
            end_s: self.last.1 as f64 / 1e9,
            // By the runtime's cycle numbers: a trace of sampled or lost lines still ran every
            // cycle between its first and last (`missing_cycles` says how many it lacks).
            cycles_per_s: (n > 1 && span > 0)
                .then(|| f64::from(self.last.0.saturating_sub(self.first.0)) / (span as f64 / 1e9)),
            missing_cycles: (u64::from(self.last.0.saturating_sub(self.first.0)) + 1)
                .saturating_sub(n as u64),
            final_gc_pct: self.last.2,
            cpu_ms: CpuMs {
                sweep_term: ms(cpu.sweep_term),
                assist: ms(cpu.assist),
                background: ms(cpu.background),
                idle: ms(cpu.idle),
                mark_term: ms(cpu.mark_term),
            },
            clock_ms: ClockMs {
                sweep_term: ms(clock.sweep_term),
                mark: ms(clock.mark),
                mark_term: ms(clock.mark_term),
            },
            gc_cpu_ms: ms(self.gc_cpu),
            compulsory_cpu_ms: ms(self.gc_cpu.saturating_sub(cpu.idle)),
            per_cycle_binned: self.per.is_binned(),
            per_cycle_median_ms: PerCycle {
                assist,
                background,
                idle,
                gc_cpu,
                compulsory_cpu: compulsory,
            },
            idle_share: (mark_cpu > 0).then(|| cpu.idle as f64 / mark_cpu as f64),
            pause_ms,
            mark_ms,
            heap_live_mb: MinMax {
                min: live_min,
                max: live_max,
            },
            heap_goal_mb: self.goal.map(|(min, max)| MinMax { min, max }),
            scan: self.scan_summary(),
            lab: self.lab.summary().map(|mut l| {
                // Off-CPU time as a share of the mark segments' wall time (booked CPU plus
                // the wait): how much of it the threads spent waiting for a CPU.
                let c = &self.cpu;
                let mark = c.assist.saturating_add(c.background).saturating_add(c.idle);
                let wall = ms(mark) + l.offcpu_ms;
                l.offcpu_share = (wall > 0.0).then(|| l.offcpu_ms / wall);
                l
            }),
        };
        Some(s)
    }

    fn scan_summary(&self) -> Option<ScanSummary> {
        let acc = &self.scan;
        if acc.cycles == 0 {
            return None;
        }
        let objects = acc.objects;
        Some(ScanSummary {
            collector: if acc.green_tea.is_some() {
                "green_tea"
            } else {
                "legacy"
            },
            cycles_with_scan: acc.cycles,
            objects,
            objects_per_span_visit: acc.green_tea.as_ref().and_then(density),
            span_visits: acc.green_tea.as_ref().map(visits),
            dense_share: acc
                .green_tea
                .filter(|_| objects > 0)
                .map(|g| g.span_objs_dense as f64 / objects as f64),
            classes: acc
                .classes
                .iter()
                .map(|&(class, objects, g)| ClassScan {
                    class,
                    objects,
                    objects_per_span_visit: g.as_ref().and_then(density),
                })
                .collect(),
        })
    }
}

fn format_name(c: &Cycle) -> &'static str {
    if c.lab.is_some() {
        "gcscope lab"
    } else if c.go15.is_some() && c.goal.is_none() {
        "Go 1.5, early (5 phases, no goal)"
    } else if c.go15.is_some() {
        "Go 1.5 (5 phases)"
    } else if c.stacks.is_some() || c.globals.is_some() {
        "Go 1.18+ (stacks, globals)"
    } else {
        "Go 1.6-1.17"
    }
}

fn add_cpu(sum: &mut Cpu, c: &Cpu) {
    for (sum, v) in [
        (&mut sum.sweep_term, c.sweep_term),
        (&mut sum.assist, c.assist),
        (&mut sum.background, c.background),
        (&mut sum.idle, c.idle),
        (&mut sum.mark_term, c.mark_term),
    ] {
        *sum = sum.saturating_add(v);
    }
}

fn add_clock(sum: &mut Clock, c: &Clock) {
    for (sum, v) in [
        (&mut sum.sweep_term, c.sweep_term),
        (&mut sum.mark, c.mark),
        (&mut sum.mark_term, c.mark_term),
    ] {
        *sum = sum.saturating_add(v);
    }
}

impl RunStats {
    /// Statistics for a view that summarises nothing (`summary --csv`): cycles are counted
    /// and their `scan:` lines checked by the one rule, and memory stays flat however many
    /// cycles a run has. `summary` gives `None`.
    #[must_use]
    pub fn lean() -> Self {
        RunStats {
            lean: true,
            ..RunStats::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::summary::LabSummary;
    use gcscope_model::{GreenTeaCounts, LabStats};

    /// A run's statistics put together from two halves (`append`) are the statistics of the
    /// whole, at every cut: sums, ranges, per-cycle rows (whole µs, or ns once a value is not),
    /// scan: classes (and which lines were refused) and lab fields, setup cycles (first, and one
    /// among the others) kept apart.
    #[test]
    fn appended_halves_are_the_whole() {
        let cycles: Vec<(Cycle, Vec<ScanLine>)> = (1..=12u32)
            .map(|n| {
                let mut c = Cycle {
                    num: n,
                    at: u64::from(n) * 1_000_000,
                    forced: n % 5 == 0,
                    procs: 2 + n % 3,
                    heap_live: u64::from(n % 7) << 20,
                    goal: (n % 4 != 0).then_some(u64::from(n) << 20),
                    ..Default::default()
                };
                c.cpu.assist = u64::from(n) * 1000;
                c.cpu.idle = u64::from(n % 3) * 7000;
                // The lab's ns values from cycle 9 on: the rows turn to ns there.
                c.clock.mark = u64::from(n) * 1_000_000 + if n >= 9 { 17 } else { 0 };
                let setup = n <= 2 || n == 7;
                if n % 4 == 1 || setup {
                    c.lab = Some(Box::new(LabStats {
                        objects_scanned: u64::from(n),
                        density_hist: vec![1; n as usize % 5],
                        setup,
                        ..Default::default()
                    }));
                }
                let mut scans: Vec<ScanLine> = (0..n % 3)
                    .map(|k| ScanLine {
                        class: (k > 0).then_some(16 * (n % 4 + k)),
                        counts: gcscope_model::ScanCounts {
                            objs: u64::from(n + k),
                            green_tea: (n % 2 == 0).then(|| GreenTeaCounts {
                                sparse_objs: 1,
                                span_objs_sparse: 2,
                                span_objs_dense: u64::from(k),
                                spans_sparse: 1,
                                spans_dense: 1,
                            }),
                        },
                    })
                    .collect();
                // Lines repeated (refused, not counted), one cycle a setup cycle.
                if n == 8 || n == 11 || n == 2 {
                    scans.extend(scans.clone());
                }
                (c, scans)
            })
            .collect();
        let push_all = |part: &[(Cycle, Vec<ScanLine>)]| {
            let mut s = RunStats::default();
            for (c, scans) in part {
                s.push(c);
                for l in scans {
                    let _ = s.push_scan(l);
                }
            }
            s
        };
        let whole = push_all(&cycles);
        assert_eq!((whole.cycles(), whole.setup_cycles()), (12, 3));
        let summary = whole.summary(1, None).unwrap();
        assert_eq!((summary.cycles, summary.setup_cycles), (9, 3));
        assert_eq!((summary.first_cycle, summary.last_cycle), (3, 12));
        for cut in 0..=cycles.len() {
            let mut joined = push_all(&cycles[..cut]);
            joined.append(&push_all(&cycles[cut..]));
            assert_eq!(joined, whole, "cut at {cut}");
        }
    }

    #[test]
    fn lab_fields_are_summed_over_the_run() {
        let lab = |objs, visits, hist: &[u64]| LabStats {
            objects_scanned: objs,
            bytes_scanned: 16 * objs,
            page_visits: visits,
            objects_freed: 7,
            density_hist: hist.to_vec(),
            thread_cpu: 1_500_000,
            offcpu: 0,
            setup: false,
            turn: None,
        };
        let mut text = String::new();
        for (n, l) in [
            (1, Some(lab(300, 10, &[1, 2, 3]))),
            (2, None),
            (3, Some(lab(100, 40, &[5]))),
        ] {
            if let Some(l) = &l {
                text += &crate::trace::format::lab_line(l);
                text.push('\n');
            }
            text += &format!("gc {n} @0.{n}s 1%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n");
        }
        let tl = crate::read::read_all(text.as_bytes()).unwrap();
        assert!(tl.problems.is_empty(), "{:?}", tl.problems);
        let s = tl.runs[0].summary().unwrap();
        assert_eq!(s.format, "gcscope lab");
        assert!(s.scan.is_none());
        assert_eq!(
            s.lab,
            Some(LabSummary {
                cycles_with_lab: 2,
                objects_scanned: 400,
                bytes_scanned: 6400,
                page_visits: 50,
                objects_per_page_visit: Some(8.0),
                objects_freed: 14,
                thread_cpu_ms: 3.0,
                thread_cpu_ms_per_cycle: 1.5,
                offcpu_ms: 0.0,
                offcpu_share: Some(0.0),
                density_hist: vec![6, 2, 3],
            })
        );
        // A run without lab lines has no lab section; sums saturate rather than overflow.
        let mut stats = RunStats::default();
        let c = Cycle::default();
        stats.push(&c);
        assert!(stats.summary(1, None).unwrap().lab.is_none());
        let huge = Cycle {
            lab: Some(Box::new(LabStats {
                objects_scanned: u64::MAX,
                density_hist: vec![u64::MAX],
                ..Default::default()
            })),
            ..Default::default()
        };
        stats.push(&huge);
        stats.push(&huge);
        let l = stats.summary(1, None).unwrap().lab.unwrap();
        assert_eq!(
            (l.objects_scanned, l.density_hist),
            (u64::MAX, vec![u64::MAX])
        );
        assert_eq!(l.objects_per_page_visit, None);
    }

    /// `Derived` is the model's definitions (`Cycle::gc_cpu`, `pause`, `mark_wall`), and a
    /// row's columns are in `Col` order.
    #[test]
    fn derived_figures_are_the_models() {
        for go15 in [None, Some(3u64)] {
            let c = Cycle {
                clock: Clock {
                    sweep_term: 11,
                    mark: 1300,
                    mark_term: 17,
                },
                cpu: Cpu {
                    sweep_term: 19,
                    assist: 2300,
                    background: 2900,
                    idle: 3100,
                    mark_term: 37,
                },
                go15: go15.map(|k| {
                    Box::new(gcscope_model::Go15Phases {
                        clock_scan: 41 * k,
                        clock_install_wb: 43 * k,
                        cpu_scan: 47 * k,
                        cpu_install_wb: 53 * k,
                    })
                }),
                ..Default::default()
            };
            let d = Derived::of(&c);
            assert_eq!(
                (d.gc_cpu, d.pause, d.mark),
                (c.gc_cpu(), c.pause(), c.mark_wall())
            );
            let row = Col::row(&c, &d);
            for (i, col) in Col::ALL.into_iter().enumerate() {
                assert_eq!(col as usize, i);
            }
            assert_eq!(
                row,
                [2300, 2900, 3100, c.gc_cpu(), c.pause(), c.mark_wall()]
            );
        }
    }

    /// Values are read from text and may be anything a u64 holds: every sum saturates (no
    /// wrap in a release build, no panic in a debug one), through `push`, `push_scan` and
    /// `append` alike, and the figures derived from the sums stay at the top.
    #[test]
    fn sums_of_huge_values_saturate() {
        let big = u64::MAX - 5;
        let c = Cycle {
            num: 1,
            at: big,
            heap_live: big,
            goal: Some(big),
            clock: gcscope_model::Clock {
                sweep_term: big,
                mark: big,
                mark_term: big,
            },
            cpu: gcscope_model::Cpu {
                sweep_term: big,
                assist: big,
                background: big,
                idle: big,
                mark_term: big,
            },
            go15: Some(Box::new(gcscope_model::Go15Phases {
                clock_scan: big,
                clock_install_wb: big,
                cpu_scan: big,
                cpu_install_wb: big,
            })),
            lab: Some(Box::new(LabStats {
                objects_scanned: big,
                page_visits: big,
                thread_cpu: big,
                density_hist: vec![big],
                ..Default::default()
            })),
            ..Default::default()
        };
        let g = GreenTeaCounts {
            sparse_objs: big,
            span_objs_sparse: big,
            span_objs_dense: big,
            spans_sparse: big,
            spans_dense: big,
        };
        let counts = gcscope_model::ScanCounts {
            objs: big,
            green_tea: Some(g),
        };
        let lines = [None, Some(16)].map(|class| ScanLine { class, counts });
        let run = |cycles: u32| {
            let mut s = RunStats::default();
            for num in 1..=cycles {
                s.push(&Cycle { num, ..c.clone() });
                for l in &lines {
                    s.push_scan(l).unwrap();
                }
            }
            s
        };
        let mut joined = run(3);
        joined.append(&run(2));
        for s in [run(5), joined] {
            let sum = s.summary(1, None).unwrap();
            let top = ms(u64::MAX);
            assert_eq!(sum.cpu_ms.assist, top);
            assert_eq!(sum.clock_ms.mark, top);
            assert_eq!((sum.gc_cpu_ms, sum.compulsory_cpu_ms), (top, 0.0));
            assert_eq!((sum.pause_ms.max, sum.mark_ms.max), (top, top));
            assert_eq!(sum.pause_ms.p99, top);
            assert_eq!(sum.idle_share, Some(1.0));
            let scan = sum.scan.unwrap();
            assert_eq!((scan.objects, scan.span_visits), (u64::MAX, Some(u64::MAX)));
            assert_eq!(scan.classes[0].objects, u64::MAX);
            let lab = sum.lab.unwrap();
            assert_eq!((lab.objects_scanned, lab.thread_cpu_ms), (u64::MAX, top));
        }
    }

    /// Hand-picked lines (gc 96, then gc 180 0.18 s later) ran 84 cycles in that time: the
    /// rate is the runtime's, by cycle numbers, and the summary says 83 lines are missing.
    #[test]
    fn rates_come_from_cycle_numbers_and_missing_lines_are_counted() {
        let text = "gc 96 @1.000s 5%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 2 P\n\
                    gc 180 @1.180s 5%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 2 P\n";
        let tl = crate::read::read_all(text.as_bytes()).unwrap();
        let s = tl.runs[0].summary().unwrap();
        assert_eq!(s.cycles, 2);
        assert_eq!(s.missing_cycles, 83);
        let rate = s.cycles_per_s.unwrap();
        assert!((rate - 84.0 / 0.18).abs() < 0.01, "{rate}");
    }
}
