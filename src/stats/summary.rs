//! One run of cycles -> the figures `gcscope summary` prints (and the dashboard shows).
//!
//! Every field name here is part of the documented `--json` output (docs/SUMMARY.md).

use super::{median_u64, ms};
use crate::model::ScanLine;
use crate::model::{Cycle, GreenTeaCounts, LabStats};
use hdrhistogram::Histogram;
use serde::Serialize;

/// Significant digits kept by the pause and mark histograms. The runtime prints two
/// (`fmtNSAsMS`), so two lose nothing of Go's text and keep the buckets few.
pub const SIGFIG: u8 = 2;

#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    /// Which line shape the run was printed in.
    pub format: &'static str,
    pub first_line: u64,
    /// `[new, previous]` cycle numbers when this run began because the counter restarted.
    pub restart: Option<(u32, u32)>,
    pub procs: u32,
    pub cycles: usize,
    pub forced: usize,
    pub first_cycle: u32,
    pub last_cycle: u32,
    /// Start of the first and last cycle, seconds since process start.
    pub start_s: f64,
    pub end_s: f64,
    /// Cycles per second between the first and last cycle's start (None for one cycle).
    pub cycles_per_s: Option<f64>,
    /// The runtime's cumulative GC CPU % printed on the last line.
    pub final_gc_pct: u16,
    /// Sums over the run, ms.
    pub cpu_ms: CpuMs,
    pub clock_ms: ClockMs,
    /// All GC CPU (`/cpu/classes/gc/total`), and that minus idle marking (compulsory), ms.
    pub gc_cpu_ms: f64,
    pub compulsory_cpu_ms: f64,
    /// Per-cycle medians, ms.
    pub per_cycle_median_ms: PerCycle,
    /// idle / (assist + background + idle), over the run.
    pub idle_share: Option<f64>,
    /// STW pauses (sweep termination + mark termination), never the concurrent mark.
    pub pause_ms: Percentiles,
    /// Concurrent mark wall time.
    pub mark_ms: Percentiles,
    pub heap_live_mb: MinMax,
    pub heap_goal_mb: Option<MinMax>,
    /// From `GODEBUG=gctrace=2` lines, when present.
    pub scan: Option<ScanSummary>,
    /// From the lab's `lab:` lines, when present.
    pub lab: Option<LabSummary>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct CpuMs {
    pub sweep_term: f64,
    pub assist: f64,
    pub background: f64,
    pub idle: f64,
    pub mark_term: f64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ClockMs {
    pub sweep_term: f64,
    pub mark: f64,
    pub mark_term: f64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct PerCycle {
    pub assist: f64,
    pub background: f64,
    pub idle: f64,
    pub gc_cpu: f64,
    pub compulsory_cpu: f64,
}

/// hdrhistogram percentiles (`SIGFIG` significant digits) with the exact maximum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Percentiles {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct MinMax {
    pub min: u64,
    pub max: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ScanSummary {
    /// `green_tea` when the span counters are present, `legacy` when only objects are.
    pub collector: &'static str,
    pub cycles_with_scan: usize,
    pub objects: u64,
    /// Green Tea: objects scanned per span (page) visit, (A+B+C)/(A+S+D), over the run.
    pub objects_per_span_visit: Option<f64>,
    pub span_visits: Option<u64>,
    /// Share of objects scanned by the dense (SIMD) kernel.
    pub dense_share: Option<f64>,
    /// Per size class (bytes; 0 = large objects): objects and objects per span visit.
    pub classes: Vec<ClassScan>,
}

/// Sums over the cycles of a run that carry lab fields (`Cycle::lab`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabSummary {
    pub cycles_with_lab: usize,
    pub objects_scanned: u64,
    pub bytes_scanned: u64,
    pub page_visits: u64,
    /// Objects scanned per page visit over the run (the lab's page scan density); None
    /// without page visits.
    pub objects_per_page_visit: Option<f64>,
    pub objects_freed: u64,
    /// True thread CPU of all GC work, ms.
    pub thread_cpu_ms: f64,
    /// Page visits by objects scanned per visit, bucket i = [2^i, 2^(i+1)), summed.
    pub density_hist: Vec<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClassScan {
    pub class: u32,
    pub objects: u64,
    pub objects_per_span_visit: Option<f64>,
}

impl RunSummary {
    /// Mean compulsory GC CPU per cycle, ms.
    pub fn compulsory_ms_per_cycle(&self) -> f64 {
        self.compulsory_cpu_ms / self.cycles as f64
    }

    /// Mean GC CPU (all of it, idle marking included) per cycle, ms.
    pub fn gc_cpu_ms_per_cycle(&self) -> f64 {
        self.gc_cpu_ms / self.cycles as f64
    }

    /// Objects scanned per page (span) visit over the run: the lab's figure when the run has
    /// lab lines, otherwise Green Tea's from gctrace=2 `scan:` lines (as `Cycle::page_density`
    /// chooses per cycle). None when neither is there, or the run's lab lines count no visits.
    pub fn page_density(&self) -> Option<f64> {
        match &self.lab {
            Some(lab) => lab.objects_per_page_visit,
            None => self.scan.as_ref()?.objects_per_span_visit,
        }
    }
}

/// Running statistics of one run, updated cycle by cycle: the timeline keeps them current as
/// events arrive (the dashboard reads them every frame), and `summary` can drop the cycles
/// themselves on a huge file. About 24 bytes a cycle (the per-cycle values medians need).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStats {
    format: &'static str,
    n: usize,
    forced: usize,
    procs: u32,
    first: (u32, u64),
    last: (u32, u64, u16),
    cpu: [u64; 5],
    clock: [u64; 3],
    gc_cpu: u64,
    /// The per-cycle values medians and percentiles are taken from when a summary is asked
    /// for (thousands of runs would otherwise hold thousands of histograms).
    per: Rows,
    pause_max: u64,
    mark_max: u64,
    live: Option<(u64, u64)>,
    goal: Option<(u64, u64)>,
    scan: ScanAcc,
    lab: LabAcc,
}

/// Per cycle, ns: assist, background and idle CPU, all GC CPU, pause, mark wall time.
///
/// Kept as whole microseconds in 32 bits while every value allows it, which is always for
/// text (the runtime prints ms with at most three decimals): 24 bytes a cycle instead of 48.
/// On this size a large log's summary spent a quarter of its time page-faulting in fresh
/// memory. A value that is not whole µs (the lab's) or does not fit turns the run to ns.
#[derive(Debug, Clone, PartialEq)]
enum Rows {
    Micros(Vec<[u32; 6]>),
    Nanos(Vec<[u64; 6]>),
}

impl Default for Rows {
    fn default() -> Self {
        Rows::Micros(Vec::new())
    }
}

impl Rows {
    fn push(&mut self, row: [u64; 6]) {
        if let Rows::Micros(v) = self {
            let micros = row.map(|ns| u32::try_from(ns / 1000).ok().filter(|_| ns % 1000 == 0));
            if micros.iter().all(Option::is_some) {
                v.push(micros.map(|us| us.unwrap_or_default()));
                return;
            }
            let wide = v.iter().map(|r| r.map(|us| u64::from(us) * 1000)).collect();
            *self = Rows::Nanos(wide);
        }
        if let Rows::Nanos(v) = self {
            v.push(row);
        }
    }

    fn len(&self) -> usize {
        match self {
            Rows::Micros(v) => v.len(),
            Rows::Nanos(v) => v.len(),
        }
    }

    /// `other`'s rows after these.
    fn append(&mut self, other: &Rows) {
        match (&mut *self, other) {
            (Rows::Micros(a), Rows::Micros(b)) => a.extend_from_slice(b),
            _ => {
                let mut wide = Vec::with_capacity(self.len() + other.len());
                for rows in [&*self, other] {
                    match rows {
                        Rows::Micros(v) => {
                            wide.extend(v.iter().map(|r| r.map(|us| u64::from(us) * 1000)))
                        }
                        Rows::Nanos(v) => wide.extend_from_slice(v),
                    }
                }
                *self = Rows::Nanos(wide);
            }
        }
    }

    /// Figure `i` of every cycle, ns.
    fn column(&self, i: usize) -> Vec<u64> {
        match self {
            Rows::Micros(v) => v.iter().map(|r| u64::from(r[i]) * 1000).collect(),
            Rows::Nanos(v) => v.iter().map(|r| r[i]).collect(),
        }
    }
}

/// Lab fields summed over the cycles that have them. Sums saturate: the fields are read from
/// text and may be anything.
#[derive(Debug, Clone, Default, PartialEq)]
struct LabAcc {
    cycles: usize,
    sum: LabStats,
}

impl LabAcc {
    fn push(&mut self, l: &LabStats) {
        let s = &mut self.sum;
        self.cycles += 1;
        for (sum, v) in [
            (&mut s.objects_scanned, l.objects_scanned),
            (&mut s.bytes_scanned, l.bytes_scanned),
            (&mut s.page_visits, l.page_visits),
            (&mut s.objects_freed, l.objects_freed),
            (&mut s.thread_cpu, l.thread_cpu),
        ] {
            *sum = sum.saturating_add(v);
        }
        if s.density_hist.len() < l.density_hist.len() {
            s.density_hist.resize(l.density_hist.len(), 0);
        }
        for (sum, v) in s.density_hist.iter_mut().zip(&l.density_hist) {
            *sum = sum.saturating_add(*v);
        }
    }

    /// Another accumulator's cycles after these (saturating sums add up the same either way).
    fn append(&mut self, other: &LabAcc) {
        let cycles = self.cycles + other.cycles;
        self.push(&other.sum);
        self.cycles = cycles;
    }

    fn summary(&self) -> Option<LabSummary> {
        (self.cycles > 0).then(|| {
            let s = &self.sum;
            LabSummary {
                cycles_with_lab: self.cycles,
                objects_scanned: s.objects_scanned,
                bytes_scanned: s.bytes_scanned,
                page_visits: s.page_visits,
                objects_per_page_visit: s.density(),
                objects_freed: s.objects_freed,
                thread_cpu_ms: ms(s.thread_cpu),
                density_hist: s.density_hist.clone(),
            }
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
struct ScanAcc {
    cycles: usize,
    last_cycle: Option<u32>,
    objects: u64,
    green_tea: Option<GreenTeaCounts>,
    /// By size class, sorted by class (a vector: a few dozen classes, looked up on every
    /// `scan:` line, which are half the lines of a gctrace=2 log).
    classes: Vec<(u32, u64, Option<GreenTeaCounts>)>,
    /// Where the next class is expected: Go prints a cycle's classes in increasing order.
    next: usize,
}

impl ScanAcc {
    fn append(&mut self, other: &ScanAcc) {
        if other.cycles == 0 {
            return;
        }
        self.cycles += other.cycles;
        self.last_cycle = other.last_cycle;
        self.objects += other.objects;
        if let Some(g) = &other.green_tea {
            add(self.green_tea.get_or_insert_with(Default::default), g);
        }
        for &(class, objects, g) in &other.classes {
            let at = match self.classes.binary_search_by_key(&class, |e| e.0) {
                Ok(at) => at,
                Err(at) => {
                    self.classes.insert(at, (class, 0, None));
                    at
                }
            };
            let e = &mut self.classes[at];
            e.1 += objects;
            if let Some(g) = g {
                add(e.2.get_or_insert_with(Default::default), &g);
            }
        }
        // Where the other's next class was expected, in the merged list.
        if let Some(&(class, ..)) = other.next.checked_sub(1).and_then(|i| other.classes.get(i)) {
            self.next = self
                .classes
                .binary_search_by_key(&class, |e| e.0)
                .map_or(0, |at| at + 1);
        }
    }
}

fn widen(r: Option<(u64, u64)>, v: u64) -> Option<(u64, u64)> {
    Some(r.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
}

impl RunStats {
    pub fn cycles(&self) -> usize {
        self.n
    }

    pub fn push(&mut self, c: &Cycle) {
        if self.n == 0 {
            self.format = format_name(c);
            self.first = (c.num, c.at);
        }
        self.n += 1;
        self.forced += usize::from(c.forced);
        self.procs = self.procs.max(c.procs);
        self.last = (c.num, c.at, c.cum_pct);
        let parts = [
            c.cpu.sweep_term,
            c.cpu.assist,
            c.cpu.background,
            c.cpu.idle,
            c.cpu.mark_term,
        ];
        for (sum, v) in self.cpu.iter_mut().zip(parts) {
            *sum += v;
        }
        self.clock[0] += c.clock.sweep_term;
        self.clock[1] += c.mark_wall();
        self.clock[2] += c.clock.mark_term;
        let total = c.gc_cpu();
        self.gc_cpu += total;
        self.per.push([
            c.cpu.assist,
            c.cpu.background,
            c.cpu.idle,
            total,
            c.pause(),
            c.mark_wall(),
        ]);
        self.pause_max = self.pause_max.max(c.pause());
        self.mark_max = self.mark_max.max(c.mark_wall());
        self.live = widen(self.live, c.heap_live >> 20);
        if let Some(g) = c.goal {
            self.goal = widen(self.goal, g >> 20);
        }
        if let Some(l) = &c.lab {
            self.lab.push(l);
        }
    }

    /// A `scan:` line of the run's last cycle.
    pub fn push_scan(&mut self, line: &ScanLine) {
        let acc = &mut self.scan;
        if acc.last_cycle != Some(self.last.0) {
            acc.last_cycle = Some(self.last.0);
            acc.cycles += 1;
        }
        match line.class {
            None => {
                acc.objects += line.counts.objs;
                if let Some(g) = line.counts.green_tea {
                    add(acc.green_tea.get_or_insert_with(Default::default), &g);
                }
            }
            Some(class) => {
                let at = match acc.classes.get(acc.next) {
                    Some(e) if e.0 == class => acc.next,
                    _ => match acc.classes.binary_search_by_key(&class, |e| e.0) {
                        Ok(at) => at,
                        Err(at) => {
                            acc.classes.insert(at, (class, 0, None));
                            at
                        }
                    },
                };
                acc.next = at + 1;
                let e = &mut acc.classes[at];
                e.1 += line.counts.objs;
                if let Some(g) = line.counts.green_tea {
                    add(e.2.get_or_insert_with(Default::default), &g);
                }
            }
        }
    }

    /// The statistics of this run's cycles followed by `other`'s, as if they had been pushed
    /// here one by one: how a run split over two pieces of a large input read side by side is
    /// put back together. (Summed in the same order, so the sums are the same numbers.)
    pub fn append(&mut self, other: &RunStats) {
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
        for (sum, v) in self.cpu.iter_mut().zip(other.cpu) {
            *sum += v;
        }
        for (sum, v) in self.clock.iter_mut().zip(other.clock) {
            *sum += v;
        }
        self.gc_cpu += other.gc_cpu;
        self.per.append(&other.per);
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

    pub fn summary(&self, first_line: u64, restart: Option<(u32, u32)>) -> Option<RunSummary> {
        if self.n == 0 {
            return None;
        }
        let n = self.n;
        let (cpu, clock) = (&self.cpu, &self.clock);
        let column = |i: usize| self.per.column(i);
        let med = |i: usize| median_u64(&mut column(i)).unwrap_or(0.0) / 1e6;
        // All GC CPU minus idle, per cycle.
        let mut compulsory = column(3);
        for (c, idle) in compulsory.iter_mut().zip(column(2)) {
            *c -= idle;
        }
        let mark_cpu = cpu[1] + cpu[2] + cpu[3];
        let span = self.last.1.saturating_sub(self.first.1);
        let (live_min, live_max) = self.live.unwrap_or_default();
        Some(RunSummary {
            format: self.format,
            first_line,
            restart,
            procs: self.procs,
            cycles: n,
            forced: self.forced,
            first_cycle: self.first.0,
            last_cycle: self.last.0,
            start_s: self.first.1 as f64 / 1e9,
            end_s: self.last.1 as f64 / 1e9,
            cycles_per_s: (n > 1 && span > 0).then(|| (n - 1) as f64 / (span as f64 / 1e9)),
            final_gc_pct: self.last.2,
            cpu_ms: CpuMs {
                sweep_term: ms(cpu[0]),
                assist: ms(cpu[1]),
                background: ms(cpu[2]),
                idle: ms(cpu[3]),
                mark_term: ms(cpu[4]),
            },
            clock_ms: ClockMs {
                sweep_term: ms(clock[0]),
                mark: ms(clock[1]),
                mark_term: ms(clock[2]),
            },
            gc_cpu_ms: ms(self.gc_cpu),
            compulsory_cpu_ms: ms(self.gc_cpu - cpu[3]),
            per_cycle_median_ms: PerCycle {
                assist: med(0),
                background: med(1),
                idle: med(2),
                gc_cpu: med(3),
                compulsory_cpu: median_u64(&mut compulsory).unwrap_or(0.0) / 1e6,
            },
            idle_share: (mark_cpu > 0).then(|| cpu[3] as f64 / mark_cpu as f64),
            pause_ms: percentiles_of(&column(4), self.pause_max),
            mark_ms: percentiles_of(&column(5), self.mark_max),
            heap_live_mb: MinMax {
                min: live_min,
                max: live_max,
            },
            heap_goal_mb: self.goal.map(|(min, max)| MinMax { min, max }),
            scan: self.scan_summary(),
            lab: self.lab.summary(),
        })
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
            objects_per_span_visit: acc.green_tea.and_then(|g| g.density()),
            span_visits: acc.green_tea.map(|g| g.visits()),
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
                    objects_per_span_visit: g.and_then(|g| g.density()),
                })
                .collect(),
        })
    }
}

/// An hdrhistogram of ns values, recorded in µs (the text's resolution) with `SIGFIG` digits.
pub fn histogram(values_ns: &[u64]) -> Histogram<u64> {
    // `new` fails only for sigfig > 5.
    let mut h = Histogram::<u64>::new(SIGFIG).unwrap_or_else(|_| unreachable!("valid sigfig"));
    for v in values_ns {
        let _ = h.record(v / 1000);
    }
    h
}

/// The same figures as `percentiles(&histogram(values))`, without building and walking a
/// histogram: the value at each rank is selected in O(n) and reported as hdrhistogram's
/// bucket edge for it. A log of thousands of short runs spent most of its summary time
/// walking thousands of histograms.
pub fn percentiles_of(values_ns: &[u64], max_ns: u64) -> Percentiles {
    if values_ns.is_empty() {
        return Percentiles::default();
    }
    // Only the bucket edges are used: one empty histogram serves every call.
    static BUCKETS: std::sync::OnceLock<Histogram<u64>> = std::sync::OnceLock::new();
    let buckets = BUCKETS.get_or_init(|| histogram(&[]));
    let mut us: Vec<u64> = values_ns.iter().map(|v| v / 1000).collect();
    let n = us.len();
    let mut at = |q: f64| {
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        let (_, v, _) = us.select_nth_unstable(rank - 1);
        ms((buckets.highest_equivalent(*v) * 1000).min(max_ns))
    };
    Percentiles {
        p50: at(0.5),
        p90: at(0.9),
        p99: at(0.99),
        max: ms(max_ns),
    }
}

/// p50/p90/p99 of a histogram of µs values, in one walk over its buckets, and the exact
/// maximum (ns).
pub fn percentiles(h: &Histogram<u64>, max_ns: u64) -> Percentiles {
    const QS: [f64; 3] = [0.5, 0.9, 0.99];
    let mut out = [0u64; 3];
    let total = h.len();
    if total == 0 {
        return Percentiles::default();
    }
    // The same rank rule as `value_at_quantile`: the first value whose cumulative count
    // reaches ceil(q * n).
    let ranks = QS.map(|q| ((q * total as f64).ceil() as u64).max(1));
    let (mut next, mut seen) = (0, 0u64);
    for v in h.iter_recorded() {
        seen += v.count_at_value();
        while next < 3 && seen >= ranks[next] {
            out[next] = h.highest_equivalent(v.value_iterated_to());
            next += 1;
        }
        if next == 3 {
            break;
        }
    }
    // The histogram's bucket edge is never reported above the exact maximum.
    let q = |us: u64| ms((us * 1000).min(max_ns));
    Percentiles {
        p50: q(out[0]),
        p90: q(out[1]),
        p99: q(out[2]),
        max: ms(max_ns),
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

fn add(sum: &mut GreenTeaCounts, g: &GreenTeaCounts) {
    sum.sparse_objs += g.sparse_objs;
    sum.span_objs_sparse += g.span_objs_sparse;
    sum.span_objs_dense += g.span_objs_dense;
    sum.spans_sparse += g.spans_sparse;
    sum.spans_dense += g.spans_dense;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run's statistics put together from two halves (`append`) are the statistics of the
    /// whole, at every cut: sums, ranges, per-cycle rows (whole µs, or ns once a value is not),
    /// scan: classes and lab fields.
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
                if n % 4 == 1 {
                    c.lab = Some(Box::new(LabStats {
                        objects_scanned: u64::from(n),
                        density_hist: vec![1; n as usize % 5],
                        ..Default::default()
                    }));
                }
                let scans = (0..n % 3)
                    .map(|k| ScanLine {
                        class: (k > 0).then_some(16 * (n % 4 + k)),
                        counts: crate::model::ScanCounts {
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
                (c, scans)
            })
            .collect();
        let push_all = |part: &[(Cycle, Vec<ScanLine>)]| {
            let mut s = RunStats::default();
            for (c, scans) in part {
                s.push(c);
                for l in scans {
                    s.push_scan(l);
                }
            }
            s
        };
        let whole = push_all(&cycles);
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
            setup: false,
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
        let tl = crate::source::read_all(text.as_bytes()).unwrap();
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

    #[test]
    fn selected_percentiles_equal_the_histogram_walk() {
        // A spread of values from 0 to seconds, with repeats, as pauses and marks have.
        let mut x: u64 = 12345;
        for n in [1usize, 2, 3, 10, 99, 100, 101, 1000, 5000] {
            let values: Vec<u64> = (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((x >> 33) % 2_000_000_000) >> ((x >> 20) % 24)
                })
                .collect();
            let max = values.iter().copied().max().unwrap();
            let walked = percentiles(&histogram(&values), max);
            let h = histogram(&values);
            assert_eq!(percentiles_of(&values, max), walked, "n={n}");
            // And both are hdrhistogram's own answer.
            let q = |p| ms((h.value_at_quantile(p) * 1000).min(max));
            assert_eq!(
                (walked.p50, walked.p90, walked.p99),
                (q(0.5), q(0.9), q(0.99)),
                "n={n}"
            );
        }
    }
}
