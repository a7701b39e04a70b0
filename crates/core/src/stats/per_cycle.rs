//! A run's per-cycle figures, the ones medians and percentiles are taken from: every cycle's
//! row while the run is short (exact, 24 bytes a cycle), then one streaming column a figure
//! past `rows_cap()` cycles (constant memory however long the run): its distinct values
//! counted (`counted`: exact, and a push is one probe), or past `distinct_cap()` of them,
//! binned (`dist::Distribution`).
//!
//! Binned, a column of gctrace's own values (assist, background, idle, pause, mark) still gives
//! the exact median and percentiles: two of its distinct values never share a bin below 1 s
//! (`dist`). A sum of several fields (a cycle's GC P time, its compulsory part) can share a bin
//! with another, and its median is then within 2^-10 of the exact one; the summary says so
//! (`RunSummary::per_cycle_binned`). tests/binned_figures.rs checks all three over the corpus.

use super::counted::{distinct_cap, Counted};
use super::dist::Distribution;
use super::median_u64;
use super::percentile::{percentiles_in_place, percentiles_ranked, Percentiles};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Cycles a run keeps as rows before its columns are binned: 384 KiB of rows at most, and the
/// same cap as `compare`'s runs (`dist::EXACT_CAP`). Binning is slower a value than a row
/// (a hash probe a column): at 4,096 the 1M-line mixed corpus, whose runs of a 10,476-cycle
/// trace binned, read 5-10 % slower than with rows.
pub const ROWS_CAP: usize = super::dist::EXACT_CAP;

static CAP: AtomicUsize = AtomicUsize::new(ROWS_CAP);

/// The cap in force (`ROWS_CAP`).
#[must_use]
pub fn rows_cap() -> usize {
    CAP.load(Relaxed)
}

/// Sets the cap for the whole process: for a test that compares binned figures with exact ones
/// (tests/binned_figures.rs, a test binary of its own), never the program itself.
#[doc(hidden)]
pub fn set_rows_cap(cap: usize) {
    CAP.store(cap, Relaxed);
}

thread_local! {
    /// The per-cycle column a summary selects its medians and percentiles in.
    static SCRATCH: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Per cycle, ns: the figures of `Col`, one row a cycle.
///
/// Kept as whole microseconds in 32 bits while every value allows it, which is always for
/// text (the runtime prints ms with at most three decimals): 24 bytes a cycle instead of 48.
/// On this size a large log's summary spent a quarter of its time page-faulting in fresh
/// memory. A value that is not whole µs (the lab's) or does not fit turns the run to ns.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Rows {
    Micros(Vec<[u32; Col::COUNT]>),
    Nanos(Vec<[u64; Col::COUNT]>),
}

gcscope_model::named_enum! {
    /// The columns of `Rows`: a cycle's figures that medians and percentiles are taken from,
    /// in column order (`col as usize`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum Col (name, from_name) {
        Assist => "assist",
        Background => "background",
        Idle => "idle",
        /// All GC CPU (`run_stats::Derived::gc_cpu`).
        GcCpu => "gc_cpu",
        Pause => "pause",
        /// Concurrent mark wall time (`run_stats::Derived::mark`).
        Mark => "mark",
    }
}

impl Col {
    pub(super) const COUNT: usize = Col::ALL.len();
}

/// A column's index for the compulsory GC P time (all GC P time minus idle), after `Col`'s.
const COMPULSORY: usize = Col::COUNT;

/// A run's per-cycle figures: rows, then streamed columns (module docs).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CycleColumns {
    Rows(Rows),
    /// `Col`'s columns in order, then the compulsory GC P time, in ns.
    Streamed(Box<[Column; Col::COUNT + 1]>),
}

impl Default for CycleColumns {
    fn default() -> Self {
        CycleColumns::Rows(Rows::default())
    }
}

/// A column past the rows' cap: its values counted while they are few (`counted`: exact),
/// binned past that (`dist`).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Column {
    Counted(Counted),
    Binned(Distribution),
}

impl Column {
    #[inline(always)]
    fn push(&mut self, ns: u64) {
        match self {
            Column::Counted(c) => {
                if !c.push(ns) {
                    self.bin().push_binned(ns as f64);
                }
            }
            Column::Binned(d) => d.push_binned(ns as f64),
        }
    }

    /// The column's bins, its counted values moved into them first if need be.
    #[cold]
    fn bin(&mut self) -> &mut Distribution {
        if let Column::Counted(c) = self {
            let mut d = Distribution::with_cap(0);
            bin_counted(&mut d, c);
            *self = Column::Binned(d);
        }
        match self {
            Column::Binned(d) => d,
            Column::Counted(_) => unreachable!("binned just above"),
        }
    }

    /// `other`'s values with these: counted while the two together have few distinct values,
    /// else binned (so a run read in pieces ends as the same column as one read whole).
    fn append(&mut self, other: &Column) {
        if let (Column::Counted(mine), Column::Counted(theirs)) = (&mut *self, other) {
            if mine.append(theirs) {
                return;
            }
        }
        let d = self.bin();
        match other {
            Column::Counted(c) => bin_counted(d, c),
            Column::Binned(theirs) => d.append(theirs),
        }
    }

    fn len(&self) -> usize {
        match self {
            Column::Counted(c) => c.len(),
            Column::Binned(d) => d.len(),
        }
    }

    fn median(&self) -> Option<f64> {
        match self {
            Column::Counted(c) => c.median(),
            Column::Binned(d) => d.median(),
        }
    }

    /// The values at 1-based ranks (0 outside 1..=len).
    fn at_ranks(&self, ranks: &[usize]) -> Vec<u64> {
        match self {
            Column::Counted(c) => c
                .at_ranks(ranks)
                .into_iter()
                .map(Option::unwrap_or_default)
                .collect(),
            // Each value of a bin is whole ns below 2^64.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Column::Binned(d) => d
                .at_ranks(ranks)
                .into_iter()
                .map(|v| v.unwrap_or(0.0) as u64)
                .collect(),
        }
    }
}

/// Counted values into bins, each value's count at once (ns as f64: exact below 2^53 ns).
fn bin_counted(d: &mut Distribution, c: &Counted) {
    for (ns, count) in c.values() {
        d.push_many(ns as f64, count);
    }
}

/// A row into the columns (`CycleColumns::streamed`): a push to each.
#[inline(always)]
fn stream_row(cols: &mut [Column; Col::COUNT + 1], row: [u64; Col::COUNT]) {
    for (c, ns) in cols.iter_mut().zip(row) {
        c.push(ns);
    }
    let compulsory = row[Col::GcCpu as usize].saturating_sub(row[Col::Idle as usize]);
    cols[COMPULSORY].push(compulsory);
}

impl CycleColumns {
    pub(super) fn push(&mut self, row: [u64; Col::COUNT]) {
        self.push_capped(row, rows_cap(), distinct_cap());
    }

    /// `push` with at most `cap` rows, then columns that count at most `distinct` values.
    fn push_capped(&mut self, row: [u64; Col::COUNT], cap: usize, distinct: usize) {
        match self {
            CycleColumns::Rows(rows) if rows.len() < cap => rows.push(row),
            _ => stream_row(self.streamed(distinct), row),
        }
    }

    /// The columns, the rows moved into them first if need be (columns that count at most
    /// `distinct` values).
    fn streamed(&mut self, distinct: usize) -> &mut [Column; Col::COUNT + 1] {
        if let CycleColumns::Rows(rows) = self {
            let mut cols: Box<[Column; Col::COUNT + 1]> = Box::new(std::array::from_fn(|_| {
                Column::Counted(Counted::with_cap(distinct))
            }));
            rows.for_each(|r| stream_row(&mut cols, r));
            *self = CycleColumns::Streamed(cols);
        }
        match self {
            CycleColumns::Streamed(cols) => cols,
            CycleColumns::Rows(_) => unreachable!("streamed just above"),
        }
    }

    /// Whether a column is binned: its figures then may be off by a bin's width.
    pub(super) fn is_binned(&self) -> bool {
        match self {
            CycleColumns::Rows(_) => false,
            CycleColumns::Streamed(cols) => cols.iter().any(|c| matches!(c, Column::Binned(_))),
        }
    }

    /// `other`'s cycles after these.
    pub(super) fn append(&mut self, other: &CycleColumns) {
        self.append_capped(other, rows_cap(), distinct_cap());
    }

    fn append_capped(&mut self, other: &CycleColumns, cap: usize, distinct: usize) {
        if let (CycleColumns::Rows(mine), CycleColumns::Rows(theirs)) = (&mut *self, other) {
            if mine.len() + theirs.len() <= cap {
                mine.append(theirs);
                return;
            }
        }
        let cols = self.streamed(distinct);
        match other {
            CycleColumns::Rows(rows) => rows.for_each(|r| stream_row(cols, r)),
            CycleColumns::Streamed(theirs) => {
                for (mine, theirs) in cols.iter_mut().zip(theirs.iter()) {
                    mine.append(theirs);
                }
            }
        }
    }

    /// A column's median, ms (0 without cycles).
    pub(super) fn median_ms(&self, col: Col) -> f64 {
        self.median_ns_of(col as usize) / 1e6
    }

    /// The median of all GC P time minus idle, cycle by cycle, ms.
    pub(super) fn compulsory_median_ms(&self) -> f64 {
        self.median_ns_of(COMPULSORY) / 1e6
    }

    fn median_ns_of(&self, col: usize) -> f64 {
        match self {
            CycleColumns::Rows(rows) => with_column(rows, col, |v| median_u64(v).unwrap_or(0.0)),
            CycleColumns::Streamed(cols) => cols[col].median().unwrap_or(0.0),
        }
    }

    /// A column's percentiles (`percentile`'s definition), with the exact maximum `max_ns`.
    pub(super) fn percentiles(&self, col: Col, max_ns: u64) -> Percentiles {
        match self {
            CycleColumns::Rows(rows) => {
                with_column(rows, col as usize, |v| percentiles_in_place(v, max_ns))
            }
            CycleColumns::Streamed(cols) => {
                let c = &cols[col as usize];
                percentiles_ranked(
                    c.len(),
                    |ranks| {
                        let mut at = c.at_ranks(&ranks).into_iter();
                        ranks.map(|_| at.next().unwrap_or(0))
                    },
                    max_ns,
                )
            }
        }
    }
}

/// `f` of one column of the rows (the compulsory one too), in the thread's reused buffer: a
/// dashboard refreshing the summary of a long run spent most of its time having the kernel
/// zero the fresh pages of new ones.
fn with_column<T>(rows: &Rows, col: usize, f: impl FnOnce(&mut [u64]) -> T) -> T {
    let mut buf = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    if col == COMPULSORY {
        rows.compulsory_into(&mut buf);
    } else {
        rows.column_into(col, &mut buf);
    }
    let out = f(&mut buf);
    SCRATCH.with(|s| *s.borrow_mut() = buf);
    out
}

impl Default for Rows {
    fn default() -> Self {
        Rows::Micros(Vec::new())
    }
}

impl Rows {
    pub(super) fn push(&mut self, row: [u64; Col::COUNT]) {
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

    pub(super) fn len(&self) -> usize {
        match self {
            Rows::Micros(v) => v.len(),
            Rows::Nanos(v) => v.len(),
        }
    }

    /// `other`'s rows after these.
    pub(super) fn append(&mut self, other: &Rows) {
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

    /// Every row, ns.
    fn for_each(&self, mut f: impl FnMut([u64; Col::COUNT])) {
        match self {
            Rows::Micros(v) => v.iter().for_each(|r| f(r.map(|us| u64::from(us) * 1000))),
            Rows::Nanos(v) => v.iter().for_each(|&r| f(r)),
        }
    }

    /// One figure (column `i`) of every cycle, ns, into `out` (cleared first).
    fn column_into(&self, i: usize, out: &mut Vec<u64>) {
        out.clear();
        match self {
            Rows::Micros(v) => out.extend(v.iter().map(|r| u64::from(r[i]) * 1000)),
            Rows::Nanos(v) => out.extend(v.iter().map(|r| r[i])),
        }
    }

    /// All GC CPU minus idle of every cycle, ns (never below 0: the sum saturates).
    fn compulsory_into(&self, out: &mut Vec<u64>) {
        let (g, i) = (Col::GcCpu as usize, Col::Idle as usize);
        out.clear();
        match self {
            Rows::Micros(v) => out.extend(
                v.iter()
                    .map(|r| u64::from(r[g].saturating_sub(r[i])) * 1000),
            ),
            Rows::Nanos(v) => out.extend(v.iter().map(|r| r[g].saturating_sub(r[i]))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of gctrace-like values (whole µs, two significant digits), the GC P time a sum.
    fn row(i: u64) -> [u64; Col::COUNT] {
        let two = |k: u64| (10 + (i * k) % 90) * 10u64.pow(u32::try_from(i % 4).unwrap()) * 1000;
        let (assist, background, idle) = (two(7), two(11), two(13));
        [
            assist,
            background,
            idle,
            assist + background + idle + 20_000,
            two(17),
            two(19),
        ]
    }

    fn figures(c: &CycleColumns) -> (Vec<f64>, Vec<Percentiles>) {
        (
            [Col::Assist, Col::Background, Col::Idle, Col::GcCpu]
                .map(|col| c.median_ms(col))
                .into_iter()
                .chain([c.compulsory_median_ms()])
                .collect(),
            [Col::Pause, Col::Mark]
                .map(|col| c.percentiles(col, u64::MAX))
                .to_vec(),
        )
    }

    /// Past the row cap the columns stream, by pushing or by appending (rows to rows past the
    /// cap, rows to columns, columns to columns), and give the rows' figures: counted, every
    /// one exactly; binned (from the first value, or once a column passes its distinct cap),
    /// gctrace's values exactly and the sums within a bin.
    #[test]
    fn streamed_columns_give_the_rows_figures_however_they_were_joined() {
        let n = 3000;
        let mut exact = CycleColumns::default();
        (0..n).for_each(|i| exact.push_capped(row(i), usize::MAX, 0));
        assert!(!exact.is_binned());
        let (me, pe) = figures(&exact);
        for distinct in [usize::MAX, 0, 100] {
            for (cap, cut) in [(0, 1000), (1000, 500), (1000, 2000), (2500, 1500)] {
                let at = format!("distinct {distinct} cap {cap} cut {cut}");
                let (mut first, mut second) = (CycleColumns::default(), CycleColumns::default());
                (0..cut).for_each(|i| first.push_capped(row(i), cap, distinct));
                (cut..n).for_each(|i| second.push_capped(row(i), cap, distinct));
                first.append_capped(&second, cap, distinct);
                assert!(matches!(first, CycleColumns::Streamed(_)), "{at}");
                assert_eq!(first.is_binned(), distinct != usize::MAX, "{at}");
                let (ms, ps) = figures(&first);
                assert_eq!(pe, ps, "{at}");
                assert_eq!(me[..3], ms[..3], "{at}");
                for (e, s) in me[3..].iter().zip(&ms[3..]) {
                    if distinct == usize::MAX {
                        assert_eq!(e, s, "{at}");
                    } else {
                        assert!((e - s).abs() <= e / 1024.0, "{at}: {e} v {s}");
                    }
                }
            }
        }
    }
}
