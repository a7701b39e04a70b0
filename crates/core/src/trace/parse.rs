//! One physical line of gctrace text -> what it is.
//!
//! Hand-written over bytes rather than a regex: it is several times faster on a large trace, it
//! reports *where* a broken line stops making sense, and the same prefix parser tells the reader
//! where a gc line was cut by another write (see `reader.rs`). The grammar and its history are in
//! `../shared/reference/gctrace-format.md` and README.md; every shape here was seen in a real log under `traces/`.

use super::cursor::Cursor;
use gcscope_model::{
    Clock, Cpu, Cycle, Go15Phases, GreenTeaCounts, LabStats, NoteKind, Ns, ScanCounts, ScanLine,
};
use memchr::memmem::{self, Finder};
use std::sync::LazyLock;

/// The largest phase time (wall clock or CPU) a gc line may carry: 2^53 ns, 104 days. A line
/// with a larger one is a problem, not a cycle: the policy that keeps every figure exact. A
/// cycle's derived sums (pause, GC CPU, mark CPU: at most ten phases) then fit a u64 with room
/// to spare, and a run's sums over its cycles saturate rather than wrap (`stats`), which takes
/// over two thousand cycles of 104 days each.
pub const MAX_PHASE_NS: Ns = 1 << 53;

// Built once: constructing a searcher per line showed up in profiles of large traces.
static GC: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"gc"));
static GC_SPACE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"gc "));
static MS_CLOCK: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b" ms clock,"));

/// What a line is.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// A gc summary line. `before`/`after` are the byte ranges of other text on the same
    /// physical line (a log prefix, a benchmark name the line was glued to). Boxed where it
    /// is made, since it travels on boxed (`Event::Cycle`): a 200-byte cycle inline made every
    /// line that size, copied at each step on its way.
    Cycle {
        cycle: Box<Cycle>,
        before: std::ops::Range<usize>,
        after: std::ops::Range<usize>,
    },
    /// A `GODEBUG=gctrace=2` `scan:` line; belongs to the cycle printed just before it.
    Scan(ScanLine),
    /// The lab's extension line (`lab: objs N bytes N visits N freed N cpu_ns N hist a,b,c`);
    /// belongs to the cycle printed just after it.
    Lab(Box<LabStats>),
    /// A runtime line that is not a cycle (`scvg`, `scav`, `pacer:`, `GC forced`).
    Note(NoteKind),
    /// Go <= 1.4's `gcN(P): ...` line: recognised, not supported.
    OldFormat,
    /// The middle or end of a gc line whose start is elsewhere (` ms clock,` without `gc N @`).
    Fragment,
    /// Starts like a gc line (`gc N @`), or is a `scan:` or `lab:` line, but does not parse.
    Malformed(ParseError),
    /// Anything else: the program's own output.
    Other,
}

/// Where and why a line stopped parsing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What kind of line it is: `gc`, `scan:` or `lab:`.
    pub kind: LineKind,
    /// Byte offset in the physical line where parsing stopped.
    pub pos: usize,
    /// Byte offset where the gc line started.
    pub start: usize,
    pub expected: &'static str,
    /// True when the line ended at `pos` (a cut-off line) rather than holding something else.
    pub at_end: bool,
}

/// The kinds of line a `ParseError` can come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Gc,
    Scan,
    Lab,
}

impl LineKind {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            LineKind::Gc => "gc line",
            LineKind::Scan => "scan: line",
            LineKind::Lab => "lab: line",
        }
    }
}

impl ParseError {
    #[must_use]
    pub fn reason(&self) -> String {
        if self.at_end {
            format!(
                "{} ends early at column {}: expected {} (truncated?)",
                self.kind.name(),
                self.pos + 1,
                self.expected
            )
        } else {
            format!(
                "{} does not parse at column {}: expected {}",
                self.kind.name(),
                self.pos + 1,
                self.expected
            )
        }
    }
}

/// Classify one physical line (without its newline).
#[must_use]
pub fn parse_line(line: &[u8]) -> Line {
    let line = trim_end(line);
    // Fast path: most lines of a trace are gc lines of the common shape at column 0, read in
    // one pass (`fast`) in place (a 200-byte cycle returned and then boxed is copied twice).
    if line.starts_with(b"gc ") {
        let mut cycle = Box::<Cycle>::default();
        if let Some(end) = super::fast::parse_common(line, &mut cycle) {
            return Line::Cycle {
                cycle,
                before: 0..0,
                after: trailing(line, end),
            };
        }
    }
    parse_uncommon(line)
}

/// The common gc line `rest` starts with, when a newline (or the end of `rest`) follows it
/// right away: its length and `parse_line` of it, read without first looking for the end of
/// the line (a pass over every byte: a tenth of a large file's read). `None` for anything
/// else, which is then cut at its newline and read by `parse_line`. The cycle is read into
/// `spare`'s box when it holds one (an empty cycle's), and a box not used is left there.
#[inline]
pub fn common_line_at(rest: &[u8], spare: &mut Option<Box<Cycle>>) -> Option<(usize, Line)> {
    if !rest.starts_with(b"gc ") {
        return None;
    }
    let mut cycle = spare.take().unwrap_or_default();
    match super::fast::parse_common(rest, &mut cycle) {
        Some(end) if matches!(rest.get(end), None | Some(b'\n')) => Some((
            end,
            Line::Cycle {
                cycle,
                before: 0..0,
                after: end..end,
            },
        )),
        _ => {
            *cycle = Cycle::default();
            *spare = Some(cycle);
            None
        }
    }
}

/// `parse_line` of a line without trailing blanks that is not a gc line of the common shape:
/// a gc line the full grammar reads, anything else.
fn parse_uncommon(line: &[u8]) -> Line {
    if line.starts_with(b"gc ") {
        let mut cycle = Box::<Cycle>::default();
        if let Ok(end) = parse_cycle_into(line, 0, &mut cycle) {
            return Line::Cycle {
                cycle,
                before: 0..0,
                after: trailing(line, end),
            };
        }
    }
    let body = trim_quote(line);
    if let Some(kind) = runtime_note(body, line.len() - body.len()) {
        return kind;
    }
    match find_cycle(line) {
        Found::Cycle(cycle, start, end) => Line::Cycle {
            cycle: Box::new(cycle),
            before: 0..start,
            after: trailing(line, end),
        },
        Found::Malformed(e) => Line::Malformed(e),
        Found::Nothing => {
            if MS_CLOCK.find(line).is_some() {
                Line::Fragment
            } else {
                Line::Other
            }
        }
    }
}

/// `parse_line` for a caller that keeps the cycles (a batch of lines read on one thread and
/// built on another): a gc line of the common shape at column 0 is read into `into`, which
/// starts as `Cycle::default()`, and `Ok(after)` is what `Line::Cycle`'s `after` would be (its
/// `before` is empty); any other line is `Err` of what `parse_line` makes of it. No box is
/// made for the common line, so none is freed on another thread.
pub fn parse_line_into(line: &[u8], into: &mut Cycle) -> Result<std::ops::Range<usize>, Line> {
    let trimmed = trim_end(line);
    if trimmed.starts_with(b"gc ") {
        if let Some(end) = super::fast::parse_common(trimmed, into) {
            return Ok(trailing(trimmed, end));
        }
        *into = Cycle::default();
    }
    Err(parse_uncommon(trimmed))
}

enum Found {
    Cycle(Cycle, usize, usize),
    Malformed(ParseError),
    Nothing,
}

/// Look for a gc line anywhere in the physical line: after a timestamp, behind `> `, glued to a
/// benchmark name.
fn find_cycle(line: &[u8]) -> Found {
    let mut malformed = None;
    for start in GC.find_iter(line) {
        if start > 0 && line[start - 1].is_ascii_alphanumeric() {
            continue;
        }
        match parse_cycle(line, start) {
            Ok((cycle, end)) => return Found::Cycle(cycle, start, end),
            Err(e) => {
                if malformed.is_none() && looks_like_gc(line, start) {
                    malformed = Some(e);
                }
            }
        }
    }
    malformed.map_or(Found::Nothing, Found::Malformed)
}

/// Offsets of `gc ` in a line, for the reader's stitching of split lines.
pub fn gc_space_offsets(line: &[u8]) -> impl Iterator<Item = usize> + '_ {
    GC_SPACE.find_iter(line)
}

/// `gc N @` or `gc #N @` (N any number of digits, whatever precedes `gc`): the start of a gc
/// line, which must then parse or be reported.
fn looks_like_gc(line: &[u8], start: usize) -> bool {
    let mut c = Cursor::new(line, start);
    c.lit(b"gc").is_ok() && c.ws().is_ok() && {
        c.opt(b"#");
        c.digits().1 > 0 && c.ws().is_ok() && c.peek() == Some(b'@')
    }
}

/// Where gc lines start in a physical line after its first byte: every `gc N @`. A line holds
/// more than one thing when the runtime's writes were spliced (`scav ...,gc 3529 @...`, a gc
/// line cut short and the next one after it, two gc lines on one line); the reader reads each
/// part on its own, so that every gc line is a cycle or a problem.
pub fn later_gc_starts(line: &[u8]) -> impl Iterator<Item = usize> + '_ {
    GC.find_iter(line)
        .filter(move |&at| at > 0 && looks_like_gc(line, at))
}

/// Whether a gc line starts anywhere in `line[range]` (`gc N @`, at any position).
#[must_use]
#[inline]
pub fn gc_start_within(line: &[u8], range: std::ops::Range<usize>) -> bool {
    // Most gc lines have no text around them: nothing to search (the searcher's set-up was a
    // thirtieth of a large file's summary), and no call (56 instructions a line).
    !range.is_empty() && gc_start_in(line, range)
}

#[inline(never)]
fn gc_start_in(line: &[u8], range: std::ops::Range<usize>) -> bool {
    let from = range.start;
    line.get(range)
        .is_some_and(|part| GC.find_iter(part).any(|at| looks_like_gc(line, from + at)))
}

/// `parse_line` of `line[from..]`, with the positions it reports counted from the start of
/// the physical line.
#[must_use]
pub fn parse_part(line: &[u8], from: usize) -> Line {
    match parse_line(&line[from..]) {
        Line::Malformed(mut e) => {
            e.pos += from;
            e.start += from;
            Line::Malformed(e)
        }
        other => other,
    }
}

/// The furthest a gc line starting at `start` parses, for the reader's stitching of split lines:
/// `Some(end)` when the text from `start` is a clean prefix of a gc line cut at `end`.
#[must_use]
pub fn gc_head(line: &[u8], start: usize) -> Option<usize> {
    match parse_cycle(line, start) {
        Ok(_) => None,
        Err(e) => Some(e.pos),
    }
}

/// Runtime lines other than gc lines, recognised at the start of the (unquoted) line. `indent`
/// is how many bytes of indentation and quoting precede `body`, so that a malformed line's
/// columns count from the start of the physical line.
fn runtime_note(body: &[u8], indent: usize) -> Option<Line> {
    let malformed = |kind, e: ParseError| {
        Line::Malformed(ParseError {
            kind,
            pos: e.pos + indent,
            start: e.start + indent,
            ..e
        })
    };
    let first = *body.first()?;
    match first {
        b's' => {
            if body.starts_with(b"scan: ") {
                return Some(match parse_scan(body) {
                    Ok(s) => Line::Scan(s),
                    Err(e) => malformed(LineKind::Scan, e),
                });
            }
            if body.starts_with(b"scvg") {
                let rest = &body[4..];
                let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                if rest.get(digits) == Some(&b':') {
                    return Some(Line::Note(NoteKind::Scvg));
                }
            }
            if body.starts_with(b"scav ") && memmem::find(body, b" KiB work").is_some() {
                return Some(Line::Note(NoteKind::Scav));
            }
            None
        }
        b'l' if body.starts_with(b"lab: ") => Some(match parse_lab(body) {
            Ok(l) => Line::Lab(Box::new(l)),
            Err(e) => malformed(LineKind::Lab, e),
        }),
        b'p' if body.starts_with(b"pacer: ") => Some(Line::Note(NoteKind::Pacer)),
        b'G' if body == b"GC forced" => Some(Line::Note(NoteKind::GcForced)),
        b'g' if is_old_format(body) => Some(Line::OldFormat),
        _ => None,
    }
}

/// Go <= 1.4: `gc24(1): 0+0+0 ms, ...`.
fn is_old_format(body: &[u8]) -> bool {
    let mut c = Cursor::new(body, 0);
    c.lit(b"gc").is_ok() && c.int().is_ok() && c.lit(b"(").is_ok() && c.int().is_ok() && {
        c.lit(b"):").is_ok()
    }
}

fn trim_end(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., last] = line {
        if last.is_ascii_whitespace() {
            line = rest;
        } else {
            break;
        }
    }
    line
}

/// Strip indentation and `>` quoting.
fn trim_quote(mut line: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = line {
        if first.is_ascii_whitespace() || *first == b'>' {
            line = rest;
        } else {
            break;
        }
    }
    line
}

fn trailing(line: &[u8], end: usize) -> std::ops::Range<usize> {
    if line[end..].iter().all(|b| b.is_ascii_whitespace()) {
        line.len()..line.len()
    } else {
        end..line.len()
    }
}

/// Parse a gc line starting at byte `start`; returns the cycle and the byte offset after it.
pub fn parse_cycle(line: &[u8], start: usize) -> Result<(Cycle, usize), ParseError> {
    let mut cy = Cycle::default();
    let end = parse_cycle_into(line, start, &mut cy)?;
    Ok((cy, end))
}

/// `parse_cycle` into a cycle that starts as `Cycle::default()`; the byte offset after it.
fn parse_cycle_into(line: &[u8], start: usize, cy: &mut Cycle) -> Result<usize, ParseError> {
    let mut c = Cursor::new(line, start);
    c.lit(b"gc")?;
    c.ws()?;
    c.opt(b"#");
    cy.num = c.int_as("the cycle number")?;
    c.ws()?;
    c.lit(b"@")?;
    cy.at = c.decimal(9, "the start time in seconds")?;
    c.lit(b"s")?;
    c.ws()?;
    cy.cum_pct = c.int_as("the GC CPU percentage")?;
    c.lit(b"%")?;
    c.skip_ws();
    if c.opt(b"(checking for goroutine leaks)") {
        cy.leak_check = true;
    }
    c.lit(b":")?;
    c.ws()?;

    let (clock, n_clock) = c.ms_list(b'+', "a wall-clock phase in ms")?;
    c.ws()?;
    c.lit(b"ms clock,")?;
    c.ws()?;
    let (pre, n_pre, mark, post) = c.cpu_fields()?;
    c.ws()?;
    c.lit(b"ms cpu,")?;
    c.ws()?;
    match (&clock[..n_clock], &pre[..n_pre], post) {
        ([sweep, mark_clock, term], [sweep_cpu], term_cpu) => {
            cy.clock = Clock {
                sweep_term: *sweep,
                mark: *mark_clock,
                mark_term: *term,
            };
            cy.cpu = Cpu {
                sweep_term: *sweep_cpu,
                assist: mark[0],
                background: mark[1],
                idle: mark[2],
                mark_term: term_cpu,
            };
        }
        // Go 1.5: sweep term, scan, install write barrier, mark, mark term.
        ([sweep, scan, wb, mark_clock, term], [sweep_cpu, scan_cpu, wb_cpu], term_cpu) => {
            cy.clock = Clock {
                sweep_term: *sweep,
                mark: *mark_clock,
                mark_term: *term,
            };
            cy.cpu = Cpu {
                sweep_term: *sweep_cpu,
                assist: mark[0],
                background: mark[1],
                idle: mark[2],
                mark_term: term_cpu,
            };
            cy.go15 = Some(Box::new(Go15Phases {
                clock_scan: *scan,
                clock_install_wb: *wb,
                cpu_scan: *scan_cpu,
                cpu_install_wb: *wb_cpu,
            }));
        }
        _ => {
            return Err(c.error_at(
                start,
                "3 clock and 5 cpu values (Go 1.6+) or 5 and 7 (Go 1.5)",
            ))
        }
    }

    cy.heap_start = c.mb("the heap size at GC start")?;
    c.lit(b"->")?;
    cy.heap_end = c.mb("the heap size at GC end")?;
    c.lit(b"->")?;
    cy.heap_live = c.mb("the marked heap size")?;
    c.ws()?;
    c.lit(b"MB")?;
    // `, N MB goal`, `, N MB stacks`, `, N MB globals` (in any order), then `, N P`.
    loop {
        c.lit(b",")?;
        c.ws()?;
        let n: u64 = c.int_as("a number")?;
        c.skip_ws();
        if c.opt(b"P") {
            cy.procs = u32::try_from(n).map_err(|_| c.err("a P count below 2^32"))?;
            break;
        }
        c.lit(b"MB")?;
        c.ws()?;
        let bytes = n
            .checked_mul(1 << 20)
            .ok_or_else(|| c.err("a size below 2^44 MB"))?;
        if c.opt(b"goal") {
            cy.goal = Some(bytes);
        } else if c.opt(b"stacks") {
            cy.stacks = Some(bytes);
        } else if c.opt(b"globals") {
            cy.globals = Some(bytes);
        } else {
            return Err(c.err("`goal`, `stacks` or `globals`"));
        }
    }
    let end = c.pos;
    let mut after = Cursor::new(line, end);
    after.skip_ws();
    if after.opt(b"(forced)") {
        cy.forced = true;
        return Ok(after.pos);
    }
    Ok(end)
}

/// `scan: total A+B+C=T objs, S+D=N spans`, `scan: class 16B ...`, `scan: total N objs`.
fn parse_scan(body: &[u8]) -> Result<ScanLine, ParseError> {
    let mut c = Cursor::new(body, 0);
    c.lit(b"scan:")?;
    c.ws()?;
    let class = if c.opt(b"total") {
        None
    } else {
        c.lit(b"class")?;
        c.ws()?;
        if c.opt(b"L") {
            Some(0)
        } else {
            let size = c.int_as("a size class")?;
            c.lit(b"B")?;
            Some(size)
        }
    };
    c.ws()?;
    let first: u64 = c.int_as("an object count")?;
    let counts = if c.opt(b"+") {
        let span_objs_sparse = c.int_as("an object count")?;
        c.lit(b"+")?;
        let span_objs_dense = c.int_as("an object count")?;
        c.lit(b"=")?;
        let objs: u64 = c.int_as("an object total")?;
        c.ws()?;
        c.lit(b"objs,")?;
        c.ws()?;
        let spans_sparse = c.int_as("a span count")?;
        c.lit(b"+")?;
        let spans_dense = c.int_as("a span count")?;
        c.lit(b"=")?;
        let spans: u64 = c.int_as("a span total")?;
        c.ws()?;
        c.lit(b"spans")?;
        let g = GreenTeaCounts {
            sparse_objs: first,
            span_objs_sparse,
            span_objs_dense,
            spans_sparse,
            spans_dense,
        };
        let sum_objs = first
            .checked_add(span_objs_sparse)
            .and_then(|s| s.checked_add(span_objs_dense));
        let sum_spans = spans_sparse.checked_add(spans_dense);
        if sum_objs != Some(objs) || sum_spans != Some(spans) {
            return Err(c.error_at(0, "counters that add up to their totals"));
        }
        ScanCounts {
            objs,
            green_tea: Some(g),
        }
    } else {
        c.ws()?;
        c.lit(b"objs")?;
        ScanCounts {
            objs: first,
            green_tea: None,
        }
    };
    Ok(ScanLine { class, counts })
}

/// `lab: objs N bytes N visits N freed N cpu_ns N hist a,b,c` (`hist -` when empty): the
/// lab's extension line, printed by `format::lab_line`.
fn parse_lab(body: &[u8]) -> Result<LabStats, ParseError> {
    let mut c = Cursor::new(body, 0);
    c.lit(b"lab:")?;
    fn field(
        c: &mut Cursor<'_>,
        name: &'static [u8],
        what: &'static str,
    ) -> Result<u64, ParseError> {
        c.ws()?;
        c.lit(name)?;
        c.ws()?;
        c.int_as(what)
    }
    let objects_scanned = field(&mut c, b"objs", "the objects scanned")?;
    let bytes_scanned = field(&mut c, b"bytes", "the bytes scanned")?;
    let page_visits = field(&mut c, b"visits", "the page visits")?;
    let objects_freed = field(&mut c, b"freed", "the objects freed")?;
    let thread_cpu = field(&mut c, b"cpu_ns", "the thread CPU in ns")?;
    c.ws()?;
    // Lab traces written before off-CPU time was measured go straight to `hist`.
    let offcpu = if c.opt(b"offcpu_ns") {
        c.ws()?;
        let v = c.int_as("the off-CPU time in ns")?;
        c.ws()?;
        v
    } else {
        0
    };
    c.lit(b"hist")?;
    c.ws()?;
    let mut density_hist = Vec::new();
    if !c.opt(b"-") {
        density_hist.push(c.int_as("a histogram count or `-`")?);
        while c.opt(b",") {
            density_hist.push(c.int_as("a histogram count")?);
        }
    }
    let turn = if c.opt(b" turn ") {
        Some(c.int_as("the A/B turn")?)
    } else {
        None
    };
    let setup = c.opt(b" setup");
    if c.pos < body.len() {
        return Err(c.err("the end of the line after the histogram (or ` setup`)"));
    }
    Ok(LabStats {
        objects_scanned,
        bytes_scanned,
        page_visits,
        objects_freed,
        density_hist,
        thread_cpu,
        offcpu,
        setup,
        turn,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cycle(line: &str) -> Cycle {
        match parse_line(line.as_bytes()) {
            Line::Cycle { cycle, .. } => *cycle,
            other => panic!("not a cycle: {other:?}"),
        }
    }

    const MS: u64 = 1_000_000;
    const MB: u64 = 1 << 20;

    /// A common gc line read where it starts in a buffer of lines is the line `parse_line`
    /// reads once cut at its newline; a line that ends in anything but its newline (a CR,
    /// blanks, other text, a newline inside the number) is left to the cut.
    #[test]
    fn a_common_line_read_in_a_buffer_is_the_line_cut_at_its_newline() {
        let gc = "gc 6 @0.458s 7%: 0.080+54+0.094 ms clock, 0.32+0.098/53/103+0.37 ms cpu, 98->105->103 MB, 114 MB goal, 0 MB stacks, 0 MB globals, 4 P";
        for line in [gc.to_string(), format!("{gc} (forced)")] {
            for rest in ["\ngc 7 @0.5s", "", "\n"] {
                let buf = format!("{line}{rest}");
                let (len, read) = common_line_at(buf.as_bytes(), &mut None).expect("read");
                assert_eq!(len, line.len());
                assert_eq!(read, parse_line(line.as_bytes()));
            }
            for rest in ["\r\n", " \n", " x\n", "0\n", "\t"] {
                let buf = format!("{line}{rest}");
                let mut spare = Some(Box::default());
                assert!(
                    common_line_at(buf.as_bytes(), &mut spare).is_none(),
                    "{buf:?}"
                );
                assert_eq!(spare.as_deref(), Some(&Cycle::default()), "left empty");
            }
        }
        let cut = &gc[..gc.len() - 4];
        assert!(common_line_at(format!("{cut}\n{gc}").as_bytes(), &mut None).is_none());
        assert!(common_line_at(b"scvg: 1 MB released\n", &mut None).is_none());
    }

    #[test]
    fn go_1_18_plus_line() {
        let c = cycle("gc 6 @0.458s 7%: 0.080+54+0.094 ms clock, 0.32+0.098/53/103+0.37 ms cpu, 98->105->103 MB, 114 MB goal, 0 MB stacks, 0 MB globals, 4 P");
        assert_eq!(c.num, 6);
        assert_eq!(c.at, 458 * MS);
        assert_eq!(c.cum_pct, 7);
        assert_eq!(c.clock.sweep_term, 80_000);
        assert_eq!(c.clock.mark, 54 * MS);
        assert_eq!(c.clock.mark_term, 94_000);
        assert_eq!(c.cpu.sweep_term, 320_000);
        assert_eq!(c.cpu.assist, 98_000);
        assert_eq!(c.cpu.background, 53 * MS);
        assert_eq!(c.cpu.idle, 103 * MS);
        assert_eq!(c.cpu.mark_term, 370_000);
        assert_eq!(
            (c.heap_start, c.heap_end, c.heap_live),
            (98 * MB, 105 * MB, 103 * MB)
        );
        assert_eq!(c.goal, Some(114 * MB));
        assert_eq!(c.stacks, Some(0));
        assert_eq!(c.globals, Some(0));
        assert_eq!(c.procs, 4);
        assert!(!c.forced && !c.leak_check && c.go15.is_none());
    }

    #[test]
    fn exact_decimal_values() {
        let c = cycle("gc 1 @0.001s 3%: 0.29+0.10+0.001 ms clock, 0.30+0/0.27/0.047+0.18 ms cpu, 1->1->1 MB, 4 MB goal, 12 P");
        assert_eq!(c.clock.sweep_term, 290_000, "0.29 ms is exactly 290 µs");
        assert_eq!(c.clock.mark_term, 1_000);
        assert_eq!(c.cpu.idle, 47_000);
        assert_eq!(c.at, MS);
        assert_eq!((c.stacks, c.globals), (None, None));
    }

    #[test]
    fn go_1_6_to_1_17_line_and_forced() {
        let c = cycle("gc 1 @3.842s 0%: 0.029+0.31+0.005 ms clock, 0.46+0/0.42/0.25+0.084 ms cpu, 4->4->3 MB, 5 MB goal, 16 P (forced)");
        assert!(c.forced);
        assert_eq!(c.procs, 16);
        assert_eq!(c.goal, Some(5 * MB));
        assert_eq!(c.stacks, None);
    }

    #[test]
    fn go_1_5_five_phases() {
        let c = cycle("gc 47 @1.101s 13%: 0.027+6.1+0.001+0.29+1.0 ms clock, 0.11+6.1+0+6.0/0.015/0.021+4.3 ms cpu, 6->7->5 MB, 7 MB goal, 4 P");
        assert_eq!(c.clock.sweep_term, 27_000);
        assert_eq!(c.clock.mark, 290_000);
        assert_eq!(c.clock.mark_term, MS);
        let g = c.go15.as_deref().copied().unwrap();
        assert_eq!(
            (
                g.clock_scan,
                g.clock_install_wb,
                g.cpu_scan,
                g.cpu_install_wb
            ),
            (6_100_000, 1_000, 6_100_000, 0)
        );
        assert_eq!(c.cpu.assist, 6 * MS);
        assert_eq!(c.cpu.background, 15_000);
        assert_eq!(c.cpu.idle, 21_000);
        assert_eq!(c.cpu.mark_term, 4_300_000);
        assert_eq!(c.pause(), 1_027_000);
        assert_eq!(c.mark_wall(), 6_100_000 + 1_000 + 290_000);
    }

    #[test]
    fn go_1_5_hash_number_and_no_goal() {
        let c = cycle("gc #12 @0.166s 0%: 0.22+2.3+0.074+0.76+0.56 ms clock, 0.45+2.3+0+0.55/0.59/0+1.1 ms cpu, 5->5->1 MB, 4 P");
        assert_eq!(c.num, 12);
        assert_eq!(c.goal, None);
        assert_eq!(c.procs, 4);
    }

    #[test]
    fn leak_check_marker() {
        let c = cycle("gc 7 @0.639s 13% (checking for goroutine leaks): 0.065+20+0.021 ms clock, 0.13+0/6.5/17+0.042 ms cpu, 142->146->18 MB, 283 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)");
        assert!(c.leak_check && c.forced);
        assert_eq!(c.heap_live, 18 * MB);
    }

    #[test]
    fn gc_line_inside_a_physical_line() {
        let line = "BenchmarkJSONUmarshal-12    \tgc 3 @0.002s 5%: 0.030+0.12+0.001 ms clock, 0.36+0/0.16/0.021+0.017 ms cpu, 1->1->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 12 P (forced)";
        match parse_line(line.as_bytes()) {
            Line::Cycle {
                cycle,
                before,
                after,
            } => {
                assert_eq!(cycle.num, 3);
                assert!(cycle.forced);
                assert_eq!(&line[before], "BenchmarkJSONUmarshal-12    \t");
                assert!(after.is_empty());
            }
            other => panic!("{other:?}"),
        }
        for prefixed in [
            "2020/03/02 11:22:38 gc 1 @0.1s 0%: 0+0.99+0 ms clock, 0+0/0/0+0 ms cpu, 4->5->1 MB, 5 MB goal, 12 P",
            ">   gc 1 @0.1s 0%: 0+0.99+0 ms clock, 0+0/0/0+0 ms cpu, 4->5->1 MB, 5 MB goal, 12 P",
            "    gc 1 @0.1s 0%: 0+0.99+0 ms clock, 0+0/0/0+0 ms cpu, 4->5->1 MB, 5 MB goal, 12 P\r",
        ] {
            assert_eq!(cycle(prefixed).clock.mark, 990_000, "{prefixed}");
        }
    }

    #[test]
    fn truncated_line_is_malformed_with_position() {
        let line = "gc 9 @10.453s 17%: 0.060+913+0.032 ms clock, 0.12+142/452/0+0.";
        match parse_line(line.as_bytes()) {
            Line::Malformed(e) => {
                assert!(e.at_end);
                assert_eq!(e.pos, line.len());
                assert!(e.reason().contains("truncated"), "{}", e.reason());
            }
            other => panic!("{other:?}"),
        }
        match parse_line(b"gc 9 @10.453s 17%: 0.060+913+0.032 ms clock, garbage") {
            Line::Malformed(e) => {
                assert!(!e.at_end);
                assert_eq!(e.pos, 45);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn program_output_is_other() {
        for line in [
            "",
            "gcwork: mode=scalar go=go1.27.3 GOMAXPROCS=2 workers=2 scale=0.5",
            "[gcwork] progress #1 t=0.027s mode=pointer done=0/0 (0.0%) goroutines=2",
            "running gc 5 times",
            "# command-line-arguments",
            "PASS",
        ] {
            assert_eq!(parse_line(line.as_bytes()), Line::Other, "{line}");
        }
    }

    #[test]
    fn notes() {
        for (line, kind) in [
            ("scvg: 0 MB released", NoteKind::Scvg),
            (
                "scvg0: inuse: 49, idle: 3, sys: 52, released: 0, consumed: 52 (MB)",
                NoteKind::Scvg,
            ),
            (
                "scav 0 KiB work (bg), 0 KiB work (eager), 3448 KiB now, 99% util",
                NoteKind::Scav,
            ),
            (
                "scav 2888 KiB work, 787464 KiB total, 91% util (forced)",
                NoteKind::Scav,
            ),
            (
                "pacer: assist ratio=2.54 (scan 0 MB in 16->16 MB) workers=0+0.25",
                NoteKind::Pacer,
            ),
            ("GC forced", NoteKind::GcForced),
        ] {
            assert_eq!(parse_line(line.as_bytes()), Line::Note(kind), "{line}");
        }
        assert_eq!(
            parse_line(b"gc24(1): 0+0+0 ms, 0 -> 0 MB 3 -> 3 (4-1) objects"),
            Line::OldFormat
        );
    }

    #[test]
    fn scan_lines() {
        let Line::Scan(s) =
            parse_line(b"scan: total 893+27590+186390=214873 objs, 2205+1298=3503 spans")
        else {
            panic!()
        };
        assert_eq!(s.class, None);
        assert_eq!(s.counts.objs, 214873);
        let g = s.counts.green_tea.unwrap();
        assert_eq!((g.spans_sparse, g.spans_dense), (2205, 1298));
        let Line::Scan(s) = parse_line(b"scan: class L 384+0+0=384 objs, 0+0=0 spans") else {
            panic!()
        };
        assert_eq!(s.class, Some(0));
        let Line::Scan(s) = parse_line(b"scan: class 32B 6291459 objs") else {
            panic!()
        };
        assert_eq!(s.class, Some(32));
        assert_eq!(s.counts.objs, 6291459);
        assert!(s.counts.green_tea.is_none());
        let Line::Malformed(e) = parse_line(b"scan: total 1+2+3=7 objs, 1+1=2 spans") else {
            panic!()
        };
        assert_eq!(e.kind, LineKind::Scan);
        assert!(e.reason().starts_with("scan: line "), "{}", e.reason());
    }

    #[test]
    fn lab_lines() {
        let Line::Lab(l) = parse_line(
            b"lab: objs 123456 bytes 9876543 visits 2345 freed 34567 cpu_ns 12345678 hist 10,3,2,0,1",
        ) else {
            panic!()
        };
        assert_eq!(
            *l,
            LabStats {
                objects_scanned: 123456,
                bytes_scanned: 9876543,
                page_visits: 2345,
                objects_freed: 34567,
                density_hist: vec![10, 3, 2, 0, 1],
                thread_cpu: 12345678,
                offcpu: 0,
                setup: false,
                turn: None,
            }
        );
        // An empty histogram is `-`; the same prefix rules as `scan:` (indent, `>` quoting,
        // trailing blanks and `\r`).
        for line in [
            "lab: objs 0 bytes 0 visits 0 freed 0 cpu_ns 0 hist -",
            "  > lab: objs 0 bytes 0 visits 0 freed 0 cpu_ns 0 hist -\r",
            "lab:  objs 0 bytes 0\tvisits 0 freed 0 cpu_ns 0 hist - ",
        ] {
            assert_eq!(
                parse_line(line.as_bytes()),
                Line::Lab(Box::default()),
                "{line:?}"
            );
        }
        let Line::Lab(l) = parse_line(b"lab: objs 7 bytes 8 visits 0 freed 1 cpu_ns 2 hist 5")
        else {
            panic!()
        };
        assert_eq!(
            (l.density_hist.as_slice(), l.density()),
            (&[5u64][..], None)
        );
        // Not at the start of the line (after other text): program output, as for `scan:`.
        assert_eq!(
            parse_line(b"log: lab: objs 0 bytes 0 visits 0 freed 0 cpu_ns 0 hist -"),
            Line::Other
        );
        assert_eq!(parse_line(b"lab:objs 1"), Line::Other);
    }

    #[test]
    fn malformed_lab_lines_say_where_and_why() {
        let malformed = |line: &str| match parse_line(line.as_bytes()) {
            Line::Malformed(e) => e,
            other => panic!("{line}: {other:?}"),
        };
        let good = "lab: objs 1 bytes 2 visits 3 freed 4 cpu_ns 5 hist 6,7";
        // The hist field starts at column 52 (offset 51) in all of these.
        let head = "lab: objs 1 bytes 2 visits 3 freed 4 cpu_ns 5 hist";
        let with = |tail: &str| format!("{head}{tail}");
        for (line, pos, at_end, expected) in [
            // Cut off.
            (
                "lab: objs 1 bytes 2 visits".to_string(),
                26,
                true,
                "a space",
            ),
            (head.to_string(), 50, true, "a space"),
            (with(" "), 50, true, "a space"),
            (with(" 6,"), 53, true, "a histogram count"),
            // Fields out of order, misspelt, not integers, overflowing.
            (
                "lab: bytes 2 objs 1 visits 3 freed 4 cpu_ns 5 hist -".into(),
                5,
                false,
                "`objs`",
            ),
            (
                "lab: objs 1 bytes 2 visits 3 freed 4 cpu 5 hist -".into(),
                37,
                false,
                "`cpu_ns`",
            ),
            (
                "lab: objs 1.5 bytes 2 visits 3 freed 4 cpu_ns 5 hist -".into(),
                11,
                false,
                "a space",
            ),
            (
                "lab: objs -1 bytes 2 visits 3 freed 4 cpu_ns 5 hist -".into(),
                10,
                false,
                "the objects scanned",
            ),
            (
                "lab: objs 1 bytes 99999999999999999999 visits 3 freed 4 cpu_ns 5 hist -".into(),
                37,
                false,
                "the bytes scanned",
            ),
            // A bad histogram, trailing text.
            (with(" 6,,7"), 53, false, "a histogram count"),
            (with(" x"), 51, false, "a histogram count or `-`"),
            (
                with(" -,1"),
                52,
                false,
                "the end of the line after the histogram (or ` setup`)",
            ),
            (
                with(" 6 extra"),
                52,
                false,
                "the end of the line after the histogram (or ` setup`)",
            ),
            (
                with(" 6;7"),
                52,
                false,
                "the end of the line after the histogram (or ` setup`)",
            ),
        ] {
            let e = malformed(&line);
            assert_eq!(
                (e.kind, e.pos, e.at_end, e.expected),
                (LineKind::Lab, pos, at_end, expected),
                "{line}"
            );
            assert!(e.reason().starts_with("lab: line "), "{}", e.reason());
            assert!(
                e.reason().contains(&format!("column {}", pos + 1)),
                "{}",
                e.reason()
            );
        }
        // Every cut of a good line is a lab line or a reported problem, never output.
        for cut in "lab: o".len()..good.len() {
            match parse_line(&good.as_bytes()[..cut]) {
                Line::Lab(_) | Line::Malformed(_) => {}
                other => panic!("{cut}: {other:?}"),
            }
        }
        // Columns count from the start of the physical line, indentation included.
        let e = malformed("    lab: objs x");
        assert_eq!(e.pos, 14);
        assert_eq!(
            e.reason(),
            "lab: line does not parse at column 15: expected the objects scanned"
        );
        assert_eq!(
            malformed("lab: objs 1 bytes").reason(),
            "lab: line ends early at column 18: expected a space (truncated?)"
        );
    }

    #[test]
    fn fragments() {
        assert_eq!(
            parse_line(b": 0.080+323+0.006 ms clock, 0.16+214/172/0+0.013 ms cpu, 379->447->224 MB, 445 MB goal, 0 MB stacks, 0 MB globals, 2 P"),
            Line::Fragment
        );
    }

    #[test]
    fn gc_head_finds_the_cut() {
        let line = b"gc 10 @2.216s 38%[gcwork] progress #127";
        assert_eq!(gc_head(line, 0), Some(17));
        assert_eq!(gc_head(b"gc [gcwork] progress", 0), Some(3));
    }

    /// A phase time whose sums could not be exact is a problem at its column (issue: a line
    /// of 18446744073709 ms phases was accepted and its pause wrapped to 1.9 ms).
    #[test]
    fn phase_times_over_the_limit_are_refused() {
        let line = |t: &str| {
            format!("gc 1 @1.2s 5%: {t}+1+{t} ms clock, 0.32+0.098/53/103+0.37 ms cpu, 98->105->103 MB, 114 MB goal, 4 P")
        };
        let Line::Malformed(e) = parse_line(line("18446744073709").as_bytes()) else {
            panic!("accepted");
        };
        assert_eq!(e.pos, 15);
        assert!(e.reason().contains("below 2^53 ns"), "{}", e.reason());
        // 2^53 ns itself is 9007199254.740992 ms: the largest accepted value.
        let Line::Cycle { cycle, .. } = parse_line(line("9007199254.740992").as_bytes()) else {
            panic!("refused");
        };
        assert_eq!(cycle.pause(), 2 * MAX_PHASE_NS);
        assert!(matches!(
            parse_line(line("9007199254.740993").as_bytes()),
            Line::Malformed(_)
        ));
    }
}
