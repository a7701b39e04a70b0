//! Physical lines -> events: what needs more than one line to decide.
//!
//! - **Runs.** A cycle goes to the run it continues (previous number + 1, time not going back);
//!   a counter that restarts or goes backwards starts a new run, so two processes' cycles are
//!   never merged into one timeline. A forward jump (an elided paste) stays in the run.
//! - **Split lines.** The runtime writes a gc line in many small writes, so under `2>&1` another
//!   line can land inside it: `gc 10 @2.216s 38%` + a program line, then `: 0.080+…` on the next
//!   physical line. A line holding a gc head that stops parsing is held back one line; if head +
//!   next line parse as one complete gc line, they are joined (and a `stitched` note says so),
//!   otherwise both lines are reported as they are.
//! - **scan: lines** follow their cycle and are tagged with its run.
//! - **lab: lines** (the lab's extension) come just before their cycle's gc line: one is held
//!   until the next cycle is emitted (whichever run it goes to, stitched or not) and travels in
//!   it as `Cycle::lab`. A lab line that never gets its cycle is a problem at its own line: when
//!   another lab line comes first, when the next gc line does not parse, or at the end.

use super::lines::RawLine;
use super::parse::{
    gc_head, gc_space_offsets, gc_start_within, later_gc_starts, parse_cycle, parse_line,
    parse_part, Line, LineKind,
};
use gcscope_model::NoteKind;
use gcscope_model::{Cycle, LabStats};
use gcscope_model::{Event, RunId};

/// How many of the latest runs an interleaved cycle may continue. A run older than these is
/// never continued again: a timeline may retire it (`Timeline::retire`).
pub const RECENT_RUNS: usize = 16;

#[derive(Default)]
pub struct Reader {
    router: Router,
    pending: Option<Pending>,
    /// Run of the last cycle emitted, for `scan:` lines.
    last_cycle_run: Option<usize>,
    /// A `lab:` line (its number and fields) waiting for the next cycle.
    lab: Option<(u64, Box<LabStats>)>,
    /// Reading a piece of a larger input on its own: how its cycles were routed, so that
    /// `join` can check the piece's runs are those a reader of the whole input makes.
    routes: Option<Routes>,
    /// A text written a line number into (a `lab:` line's problem): a piece read on its own
    /// numbers lines from 1, and such a text cannot be renumbered.
    numbered_text: bool,
    /// The settings a `# gcscope LABEL` header names, for the next run that starts.
    label: Option<String>,
}

/// How a lab trace names its settings: `# gcscope lab tree greentea GOGC=100 ...`.
const LABEL_HEADER: &[u8] = b"# gcscope ";

/// Why a held `lab:` line is reported rather than attached.
const LAB_ORPHAN: &str = "lab: line with no gc line after it";

/// Which run each cycle goes to: the last cycle of each of the latest runs, and the current
/// run. Only the latest `RECENT_RUNS` can be continued, so only theirs are kept: a log of
/// millions of one-cycle runs routes in constant memory.
#[derive(Clone, Default)]
struct Router {
    /// The last cycle of runs `base..base + tails.len()`.
    tails: Vec<RunTail>,
    base: usize,
    current: Option<usize>,
    /// Runs below this belong to an earlier stream and are never continued.
    closed: usize,
}

#[derive(Clone, Copy, Debug)]
struct RunTail {
    num: u32,
    at: u64,
}

/// Where `Router::route` put a cycle.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Routed {
    Run(usize),
    /// A new run; `restart` is the cycle number and the one it broke the sequence of.
    New {
        run: usize,
        restart: Option<(u32, u32)>,
    },
}

impl Router {
    /// How many runs there have been.
    fn len(&self) -> usize {
        self.base + self.tails.len()
    }

    fn tail(&self, run: usize) -> RunTail {
        self.tails[run - self.base]
    }

    /// The run a cycle `num` starting at `at` belongs to (a new one if none); it becomes the
    /// current run and the cycle its last.
    fn route(&mut self, num: u32, at: u64) -> Routed {
        let routed = self.decide(num, at);
        let run = match routed {
            Routed::Run(run) => run,
            Routed::New { run, .. } => {
                self.tails.push(RunTail { num, at });
                // Forget the runs no cycle can continue, half a window at a time.
                if self.tails.len() >= 2 * RECENT_RUNS {
                    let old = self.tails.len() - RECENT_RUNS;
                    self.tails.drain(..old);
                    self.base += old;
                }
                run
            }
        };
        self.tails[run - self.base] = RunTail { num, at };
        self.current = Some(run);
        routed
    }

    /// Whether cycle `num` at `at` is the next of the current run: then `route` puts it there
    /// whatever the other runs are.
    fn continues_current(&self, num: u32, at: u64) -> bool {
        self.current
            .is_some_and(|cur| continues(&self.tail(cur), num, at))
    }

    /// Make `tail` the current run's last cycle, as routing the cycles that continue it up to
    /// `tail` does.
    fn set_current_tail(&mut self, tail: RunTail) {
        if let Some(cur) = self.current {
            self.tails[cur - self.base] = tail;
        }
    }

    fn decide(&self, num: u32, at: u64) -> Routed {
        let continues = |t: &RunTail| continues(t, num, at);
        if let Some(cur) = self.current {
            let t = self.tail(cur);
            if continues(&t) {
                return Routed::Run(cur);
            }
            // Interleaved processes: another recent run this cycle continues exactly. Only
            // the last few are searched: a log of thousands of short runs stays linear.
            let recent = self.len().saturating_sub(RECENT_RUNS).max(self.closed)..self.len();
            if let Some(other) = recent.rev().find(|&r| continues(&self.tail(r))) {
                return Routed::Run(other);
            }
            if num > t.num && at >= t.at {
                return Routed::Run(cur);
            }
        }
        Routed::New {
            run: self.len(),
            restart: self.current.map(|cur| (num, self.tail(cur).num)),
        }
    }
}

/// Whether cycle `num` at `at` comes right after `tail` in the same run.
fn continues(tail: &RunTail, num: u32, at: u64) -> bool {
    tail.num.checked_add(1) == Some(num) && at >= tail.at
}

/// How a piece's cycles were routed, kept for `Reader::join`: each cycle that did not simply
/// continue the current run, and before it the last of those that did. A cycle that continues
/// the current run goes there in any reading, so only the others need routing again; the
/// record is as long as the piece has breaks, not cycles (a 16-byte entry a cycle made a
/// large file's summary spend a tenth of its time page-faulting fresh memory).
#[derive(Default)]
struct Routes {
    hops: Vec<Hop>,
    /// The last cycle since the last hop, which continued the current run.
    continued: Option<RunTail>,
}

/// A cycle that did not continue the current run.
struct Hop {
    /// The current run's last cycle just before it, when that one continued it.
    after: Option<RunTail>,
    cycle: RunTail,
}

/// How a piece read on its own joins the reading before it: `runs[k]` is the run the piece's
/// run `k` is; `restart` is what the first of them, when new, says about the counter.
pub struct Join {
    pub runs: Vec<usize>,
    pub restart: Option<(u32, u32)>,
}

/// A line with a gc head cut short, waiting to see whether the next line completes it.
struct Pending {
    no: u64,
    text: Vec<u8>,
    head: std::ops::Range<usize>,
    /// What the line is on its own, if the next line does not complete it.
    alone: Line,
    dropped: u64,
    /// Lines after it that carried the gc line on, each cut again by other output (a gc line
    /// in three or more pieces): each with how far into it the gc text goes.
    more: Vec<(HeldLine, usize)>,
    /// The gc text so far: the head, then each later piece's gc part.
    joined: Vec<u8>,
}

/// A physical line held while a split gc line is put together, as it would be read alone.
struct HeldLine {
    no: u64,
    text: Vec<u8>,
    alone: Line,
}

/// Lines a split gc line may span: a head and this many more pieces.
const MAX_PIECES: usize = 4;

impl Reader {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A reader for a piece of an input that starts at a gc line, read on its own while other
    /// pieces are read on other threads; `join` fits it to the reading before it.
    #[must_use]
    pub fn for_piece() -> Self {
        Reader {
            routes: Some(Routes::default()),
            ..Self::default()
        }
    }

    /// Whether `piece`, a `for_piece` reader that read the input right after this one's
    /// `lines_before` lines (numbering its own from 1), made exactly the events this reader
    /// would have made reading on, renumbered: then its timeline is this one's continued with
    /// the runs renamed as `Join` says, and this reader takes over its state. `None` (this
    /// reader unchanged) when not: the piece must be read again, on.
    ///
    /// It is so when nothing is held across the cut (a split gc line, a `lab:` line), the
    /// piece's first line is a cycle (so its `scan:` lines all follow one of its own cycles),
    /// no text of the piece has a line number in it, and routing the piece's cycles on from
    /// this reader's runs puts every one in the run the piece's own reading did, renamed: the
    /// first may continue a run of ours, every other new run of the piece must be new here too.
    pub fn join(
        &mut self,
        piece: Reader,
        piece_starts_with_cycle: bool,
        lines_before: u64,
    ) -> Option<Join> {
        // Only a `for_piece` reader knows where its cycles went.
        let routes = piece.routes.as_ref()?;
        if self.pending.is_some()
            || self.lab.is_some()
            || !piece_starts_with_cycle
            || piece.numbered_text
        {
            return None;
        }
        let mut on = self.router.clone();
        let mut alone = Router::default();
        let mut join = Join {
            runs: Vec::new(),
            restart: None,
        };
        for hop in &routes.hops {
            if let Some(tail) = hop.after {
                alone.set_current_tail(tail);
                on.set_current_tail(tail);
            }
            let RunTail { num, at } = hop.cycle;
            match (alone.route(num, at), on.route(num, at)) {
                (Routed::Run(k), Routed::Run(r)) if join.runs.get(k) == Some(&r) => {}
                (Routed::New { run: 0, .. }, Routed::Run(r)) => join.runs.push(r),
                (Routed::New { run: k, .. }, Routed::New { run: r, restart }) => {
                    if k == 0 {
                        join.restart = restart;
                    }
                    join.runs.push(r);
                }
                _ => return None,
            }
        }
        if let Some(tail) = routes.continued {
            on.set_current_tail(tail);
        }
        self.router = on;
        self.pending = piece.pending.map(|mut p| {
            for (h, _) in &mut p.more {
                h.no += lines_before;
            }
            Pending {
                no: p.no + lines_before,
                ..p
            }
        });
        self.lab = piece.lab.map(|(no, lab)| (no + lines_before, lab));
        self.last_cycle_run = piece.last_cycle_run.map(|k| join.runs[k]);
        Some(join)
    }

    /// Feed one physical line; events go to `out`.
    pub fn line(&mut self, raw: RawLine<'_>, out: &mut impl FnMut(Event)) {
        let parsed = parse_line(raw.bytes);
        self.parsed_line(raw, parsed, out);
    }

    /// `line`, with the line already classified by `parse_line` (stateless, so a stream's
    /// lines are classified on another thread: `crate::read::read_stream_into`).
    pub fn parsed_line(&mut self, raw: RawLine<'_>, parsed: Line, out: &mut impl FnMut(Event)) {
        // Is there another gc line on this one? For a cycle, only the text around it can
        // hold one (for most lines there is none: nothing is searched); any other line is
        // searched after its first byte.
        let more = match &parsed {
            Line::Cycle { before, after, .. } => {
                gc_start_within(raw.bytes, before.clone())
                    || gc_start_within(raw.bytes, after.clone())
            }
            _ => later_gc_starts(raw.bytes).next().is_some(),
        };
        if !more {
            return self.classified(raw, parsed, out);
        }
        // Several things on one line: each part from a gc start to the next is read on its
        // own. A line held for stitching is resolved against the whole line first.
        let cuts: Vec<usize> = later_gc_starts(raw.bytes).collect();
        if let Some(p) = self.pending.take() {
            if self.try_stitch(&p, raw.bytes, raw.no, out) {
                return;
            }
            self.release(p, out);
        }
        if raw.dropped > 0 {
            out(Event::Problem {
                line: raw.no,
                reason: too_long(raw.bytes.len(), raw.dropped),
            });
        }
        let mut from = 0;
        for &to in &cuts {
            let part = parse_part(&raw.bytes[..to], from);
            self.emit_line(raw.no, &raw.bytes[from..to], part, 0, out);
            from = to;
        }
        let last = parse_part(raw.bytes, from);
        let rest = &raw.bytes[from..];
        if raw.dropped > 0 {
            // Cut short: never a head to join with the next line.
            self.emit_line(raw.no, rest, last, 0, out);
        } else {
            let rest = RawLine {
                no: raw.no,
                bytes: rest,
                dropped: 0,
            };
            self.classified(rest, last, out);
        }
    }

    /// Feed one physical line already classified by `parse_line` (which is stateless, so a
    /// large file classifies its lines on another thread).
    #[inline(always)]
    pub fn classified(&mut self, raw: RawLine<'_>, parsed: Line, out: &mut impl FnMut(Event)) {
        if let Some(mut p) = self.pending.take() {
            if self.try_stitch(&p, raw.bytes, raw.no, out) {
                return;
            }
            // Not the end of the gc line, but its next part, cut again by other output: held
            // with it, and the line after tried.
            if raw.dropped == 0 && p.more.len() + 1 < MAX_PIECES {
                if let Some(k) = continuation(&p.joined, raw.bytes) {
                    p.joined.extend_from_slice(&raw.bytes[..k]);
                    p.more.push((
                        HeldLine {
                            no: raw.no,
                            text: raw.bytes.to_vec(),
                            alone: parsed,
                        },
                        k,
                    ));
                    self.pending = Some(p);
                    return;
                }
            }
            self.release(p, out);
        }
        if matches!(parsed, Line::Other | Line::Malformed(_)) && raw.dropped == 0 {
            if let Some(head) = stitch_head(raw.bytes) {
                self.pending = Some(Pending {
                    no: raw.no,
                    joined: raw.bytes[head.clone()].to_vec(),
                    text: raw.bytes.to_vec(),
                    head,
                    alone: parsed,
                    dropped: raw.dropped,
                    more: Vec::new(),
                });
                return;
            }
        }
        self.emit_line(raw.no, raw.bytes, parsed, raw.dropped, out);
    }

    /// End of input: a held-back line is reported as it is, and so is a `lab:` line still
    /// waiting for its cycle.
    pub fn finish(&mut self, out: &mut impl FnMut(Event)) {
        if let Some(p) = self.pending.take() {
            self.release(p, out);
        }
        self.drop_lab(format_args!("the input ends"), out);
    }

    /// A new stream begins (see `Decoder::new_stream`): what is held is read as it is, and no
    /// run so far can be continued.
    pub fn new_stream(&mut self, out: &mut impl FnMut(Event)) {
        self.finish(out);
        self.router.current = None;
        self.router.closed = self.router.len();
        self.last_cycle_run = None;
    }

    /// A held `lab:` line will get no cycle: report it at its own line.
    fn drop_lab(&mut self, why: std::fmt::Arguments<'_>, out: &mut impl FnMut(Event)) {
        if let Some((no, _)) = self.lab.take() {
            self.numbered_text = true;
            out(Event::Problem {
                line: no,
                reason: format!("{LAB_ORPHAN} ({why})"),
            });
        }
    }

    fn try_stitch(
        &mut self,
        p: &Pending,
        next: &[u8],
        next_no: u64,
        out: &mut impl FnMut(Event),
    ) -> bool {
        // A line that is a gc line on its own is never a tail.
        if matches!(parse_line(next), Line::Cycle { .. }) {
            return false;
        }
        let mut joined = p.joined.clone();
        joined.extend_from_slice(next);
        let Ok((mut cycle, end)) = parse_cycle(&joined, 0) else {
            return false;
        };
        if !joined[end..].iter().all(u8::is_ascii_whitespace) {
            return false;
        }
        output(p.no, &p.text[..p.head.start], out);
        output(p.no, &p.text[p.head.end..], out);
        // A middle piece's text after its gc part is the output that cut it.
        for (h, k) in &p.more {
            output(h.no, &h.text[*k..], out);
        }
        // The note is at the last line; the text names no line numbers, so that a piece of
        // a large input read on its own can be renumbered (see `join`).
        out(Event::Note {
            line: next_no,
            kind: NoteKind::Stitched,
            text: if p.more.is_empty() {
                format!(
                    "gc {} was split by other output; joined with the line before",
                    cycle.num
                )
            } else {
                format!(
                    "gc {} was split by other output into {} pieces; joined from {} lines",
                    cycle.num,
                    p.more.len() + 2,
                    p.more.len() + 2
                )
            },
        });
        cycle.line = p.no;
        self.cycle(Box::new(cycle), p.no, out);
        true
    }

    /// A held split line that no later line completed: every line it held, read as it is.
    fn release(&mut self, p: Pending, out: &mut impl FnMut(Event)) {
        self.emit_line(p.no, &p.text, p.alone, p.dropped, out);
        for (h, _) in p.more {
            self.emit_line(h.no, &h.text, h.alone, 0, out);
        }
    }

    #[inline(always)]
    fn emit_line(
        &mut self,
        no: u64,
        bytes: &[u8],
        parsed: Line,
        dropped: u64,
        out: &mut impl FnMut(Event),
    ) {
        if dropped > 0 {
            out(Event::Problem {
                line: no,
                reason: too_long(bytes.len(), dropped),
            });
        }
        match parsed {
            Line::Cycle {
                mut cycle,
                before,
                after,
            } => {
                output(no, &bytes[before], out);
                cycle.line = no;
                self.cycle(cycle, no, out);
                output(no, &bytes[after], out);
            }
            Line::Scan(scan) => match self.last_cycle_run {
                Some(run) => out(Event::Scan {
                    run: RunId::from_index(run),
                    line: no,
                    scan,
                }),
                None => out(Event::Problem {
                    line: no,
                    reason: "scan: line with no gc line before it".into(),
                }),
            },
            Line::Note(kind) => out(Event::Note {
                line: no,
                kind,
                text: text(bytes),
            }),
            Line::OldFormat => out(Event::Problem {
                line: no,
                reason: "Go 1.4 or older gc line (gcN(P): ...): this format is not supported"
                    .into(),
            }),
            Line::Fragment => out(Event::Problem {
                line: no,
                reason: "part of a gc line without its start (cut by other output or a paste?)"
                    .into(),
            }),
            Line::Lab(lab) => {
                self.drop_lab(format_args!("another lab: line follows on line {no}"), out);
                self.lab = Some((no, lab));
            }
            Line::Malformed(e) => {
                // A held lab: line never goes past a broken gc line (the one it was for) or a
                // broken lab: line (the start of the next cycle's record): its fields would
                // land on the wrong cycle.
                match e.kind {
                    LineKind::Gc => {
                        self.drop_lab(format_args!("the gc line on line {no} does not parse"), out)
                    }
                    LineKind::Lab => {
                        self.drop_lab(format_args!("another lab: line follows on line {no}"), out)
                    }
                    LineKind::Scan => {}
                }
                out(Event::Problem {
                    line: no,
                    reason: e.reason(),
                })
            }
            Line::Other => {
                if let Some(label) = bytes.strip_prefix(LABEL_HEADER) {
                    self.label = Some(text(label).trim_end().to_string());
                }
                output(no, bytes, out)
            }
        }
    }

    fn cycle(&mut self, mut cycle: Box<Cycle>, no: u64, out: &mut impl FnMut(Event)) {
        if let Some((_, lab)) = self.lab.take() {
            cycle.lab = Some(lab);
        }
        if let Some(routes) = &mut self.routes {
            let cycle = RunTail {
                num: cycle.num,
                at: cycle.at,
            };
            if self.router.continues_current(cycle.num, cycle.at) {
                routes.continued = Some(cycle);
            } else {
                let after = routes.continued.take();
                routes.hops.push(Hop { after, cycle });
            }
        }
        let run = match self.router.route(cycle.num, cycle.at) {
            Routed::Run(run) => run,
            Routed::New { run, restart } => {
                out(Event::RunStart {
                    run: RunId::from_index(run),
                    line: no,
                    restart,
                });
                if let Some(label) = self.label.take() {
                    out(Event::RunLabel {
                        run: RunId::from_index(run),
                        label,
                    });
                }
                run
            }
        };
        self.last_cycle_run = Some(run);
        out(Event::Cycle {
            run: RunId::from_index(run),
            cycle,
        });
    }
}

/// Where a gc line may have been cut by another write: the `gc` occurrence that parses
/// furthest before failing. Only heads that got past `gc ` count.
/// How far into `next` the gc text `joined` goes on, when it goes on further than `next`'s
/// start and stops short of `next`'s end: the next piece of a gc line cut again (the rest of
/// `next` is the output that cut it). A line that is a gc line or a head of its own is not.
fn continuation(joined: &[u8], next: &[u8]) -> Option<usize> {
    if next.is_empty()
        || matches!(parse_line(next), Line::Cycle { .. })
        || stitch_head(next).is_some_and(|h| h.start == 0)
    {
        return None;
    }
    let mut both = joined.to_vec();
    both.extend_from_slice(next);
    let end = gc_head(&both, 0)?;
    let k = end.checked_sub(joined.len())?;
    // Some of `next` carried the gc line, and not all of it (else it was not cut again).
    (k > 0 && k < next.len()).then_some(k)
}

fn stitch_head(line: &[u8]) -> Option<std::ops::Range<usize>> {
    gc_space_offsets(line)
        .filter(|&s| s == 0 || !line[s - 1].is_ascii_alphanumeric())
        .filter_map(|s| gc_head(line, s).map(|end| s..end))
        .filter(|r| r.len() >= 3)
        .max_by_key(|r| (r.len(), std::cmp::Reverse(r.start)))
}

fn too_long(kept: usize, dropped: u64) -> String {
    format!(
        "line is {} bytes long; only the first {kept} were read",
        kept as u64 + dropped
    )
}

fn text(bytes: &[u8]) -> String {
    // `from_utf8` checks ASCII a word at a time; `from_utf8_lossy` goes byte by byte even
    // when there is nothing to replace, which made it a tenth of the build.
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

fn output(no: u64, bytes: &[u8], out: &mut impl FnMut(Event)) {
    if !bytes.iter().all(u8::is_ascii_whitespace) {
        out(Event::Output {
            line: no,
            text: text(bytes),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::lines::LineSplitter;

    fn events(text: &str) -> Vec<Event> {
        let mut r = Reader::new();
        let mut s = LineSplitter::default();
        let mut ev = Vec::new();
        let mut sink = |e| ev.push(e);
        s.push(text.as_bytes(), |l| r.line(l, &mut sink));
        s.finish(|l| r.line(l, &mut sink));
        r.finish(&mut sink);
        ev
    }

    fn cycles(ev: &[Event]) -> Vec<(usize, u32, u64)> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Cycle { run, cycle } => Some((run.index(), cycle.num, cycle.line)),
                _ => None,
            })
            .collect()
    }

    const TAIL: &str = "0.027+20+0.020 ms clock, 0.054+7.5/11/0+0.041 ms cpu, 272->296->149 MB, 319 MB goal, 0 MB stacks, 0 MB globals, 2 P";

    fn line(n: u32, at: &str) -> String {
        format!("gc {n} @{at}s 12%: {TAIL}\n")
    }

    #[test]
    fn stitches_a_head_cut_after_gc() {
        let text = format!(
            "{}gc [gcwork] progress #201 t=2.567s\n39 @2.546s 12%: {TAIL}\n{}",
            line(38, "2.5"),
            line(40, "2.6")
        );
        let ev = events(&text);
        assert_eq!(cycles(&ev), vec![(0, 38, 1), (0, 39, 2), (0, 40, 4)]);
        assert!(ev.contains(&Event::Output {
            line: 2,
            text: "[gcwork] progress #201 t=2.567s".into()
        }));
        assert!(ev.iter().any(|e| matches!(
            e,
            Event::Note {
                kind: NoteKind::Stitched,
                line: 3,
                ..
            }
        )));
        assert!(!ev.iter().any(|e| matches!(e, Event::Problem { .. })));
    }

    #[test]
    fn stitches_a_head_cut_after_percent() {
        let text = format!("gc 10 @2.216s 38%[gcwork] progress #127\n: {TAIL}\n");
        let ev = events(&text);
        assert_eq!(cycles(&ev), vec![(0, 10, 1)]);
        assert!(ev.contains(&Event::Output {
            line: 1,
            text: "[gcwork] progress #127".into()
        }));
    }

    /// Cut twice by the program's output (a real blog's log has one): three physical lines,
    /// one gc line, both cuts kept as output at their own lines, one note at the last line.
    #[test]
    fn stitches_a_gc_line_cut_in_three() {
        let text = format!(
            "{}gc 10 @2.216s 38%: 0.027+20[gcwork] one\n+0.020 ms clock, 0.054+7.5/11/0+0.041 ms cpu, [gcwork] two\n272->296->149 MB, 319 MB goal, 0 MB stacks, 0 MB globals, 2 P\n{}",
            line(9, "2.1"),
            line(11, "2.3")
        );
        let ev = events(&text);
        assert_eq!(cycles(&ev), vec![(0, 9, 1), (0, 10, 2), (0, 11, 5)]);
        for (line, text) in [(2, "[gcwork] one"), (3, "[gcwork] two")] {
            assert!(
                ev.contains(&Event::Output {
                    line,
                    text: text.into()
                }),
                "{ev:?}"
            );
        }
        assert!(ev.iter().any(|e| matches!(
            e,
            Event::Note { kind: NoteKind::Stitched, line: 4, text } if text.contains("3 pieces")
        )));
        assert!(
            !ev.iter().any(|e| matches!(e, Event::Problem { .. })),
            "{ev:?}"
        );
        // The same cycle as the whole line.
        let whole = events(&format!("gc 10 @2.216s 38%: {TAIL}\n"));
        let c = |ev: &[Event]| {
            ev.iter()
                .find_map(|e| match e {
                    Event::Cycle { cycle, .. } if cycle.num == 10 => Some(cycle.clone()),
                    _ => None,
                })
                .unwrap()
        };
        let (mut a, b) = (c(&ev), c(&whole));
        a.line = b.line;
        assert_eq!(a, b);
    }

    /// A second piece that goes on but no third that ends it: every line read as it is.
    #[test]
    fn a_three_way_cut_without_its_end_loses_nothing() {
        let text =
            "gc 10 @2.216s 38%: 0.027+20[gcwork] one\n+0.020 ms clock, [gcwork] two\nplain text\n";
        let ev = events(text);
        assert!(cycles(&ev).is_empty());
        assert!(ev.contains(&Event::Output {
            line: 3,
            text: "plain text".into()
        }));
        let problems: Vec<u64> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Problem { line, .. } => Some(*line),
                _ => None,
            })
            .collect();
        assert_eq!(problems, vec![1, 2], "{ev:?}");
    }

    #[test]
    fn unstitchable_pieces_are_problems_not_losses() {
        let text = format!(
            "gc 10 @2.216s 38%[gcwork] progress\n{}: {TAIL}\n",
            line(11, "3")
        );
        let ev = events(&text);
        assert_eq!(cycles(&ev), vec![(0, 11, 2)]);
        let problems: Vec<u64> = ev
            .iter()
            .filter_map(|e| match e {
                Event::Problem { line, .. } => Some(*line),
                _ => None,
            })
            .collect();
        assert_eq!(problems, vec![1, 3]);
    }

    #[test]
    fn program_text_with_gc_is_kept_as_output() {
        let ev = events("running gc 5 times\nok\n");
        assert_eq!(
            ev,
            vec![
                Event::Output {
                    line: 1,
                    text: "running gc 5 times".into()
                },
                Event::Output {
                    line: 2,
                    text: "ok".into()
                }
            ]
        );
    }

    #[test]
    fn restarts_split_runs_and_gaps_do_not() {
        let text = [
            line(1, "0.1"),
            line(2, "0.2"),
            line(7, "0.9"),
            "# command-line-arguments\n".into(),
            line(1, "0.0"),
            line(2, "0.1"),
        ]
        .concat();
        let ev = events(&text);
        assert_eq!(
            cycles(&ev),
            vec![(0, 1, 1), (0, 2, 2), (0, 7, 3), (1, 1, 5), (1, 2, 6)]
        );
        assert!(ev.contains(&Event::RunStart {
            run: RunId::from_index(1),
            line: 5,
            restart: Some((1, 7))
        }));
    }

    #[test]
    fn interleaved_processes_keep_their_own_runs() {
        let text = [
            line(1, "0.1"),
            line(2, "0.2"),
            line(1, "0.05"),
            line(3, "0.3"),
            line(2, "0.15"),
        ]
        .concat();
        assert_eq!(
            cycles(&events(&text)),
            vec![(0, 1, 1), (0, 2, 2), (1, 1, 3), (0, 3, 4), (1, 2, 5)]
        );
    }

    #[test]
    fn scan_lines_follow_their_cycle() {
        let text = format!("{}scan: total 3 objs\n", line(1, "0.1"));
        let ev = events(&text);
        assert!(matches!(
            ev.last(),
            Some(Event::Scan {
                run: RunId::FIRST,
                line: 2,
                ..
            })
        ));
        let orphan = events("scan: total 3 objs\n");
        assert!(matches!(orphan[0], Event::Problem { line: 1, .. }));
    }

    fn lab(n: u64) -> LabStats {
        LabStats {
            objects_scanned: 100 * n,
            bytes_scanned: 1000 * n,
            page_visits: 10 * n,
            objects_freed: n,
            density_hist: vec![n, 0, 1],
            thread_cpu: 5000 * n,
            offcpu: 0,
            setup: false,
            turn: None,
        }
    }

    fn lab_line(n: u64) -> String {
        format!("{}\n", crate::trace::format::lab_line(&lab(n)))
    }

    /// (run, cycle number, line, lab fields' tag) per cycle.
    fn lab_cycles(ev: &[Event]) -> Vec<(usize, u32, u64, Option<u64>)> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Cycle { run, cycle } => Some((
                    run.index(),
                    cycle.num,
                    cycle.line,
                    cycle.lab.as_ref().map(|l| l.objects_freed),
                )),
                _ => None,
            })
            .collect()
    }

    fn problems(ev: &[Event]) -> Vec<(u64, &str)> {
        ev.iter()
            .filter_map(|e| match e {
                Event::Problem { line, reason } => Some((*line, reason.as_str())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn lab_line_goes_with_the_next_cycle() {
        let text = [
            lab_line(1),
            line(1, "0.1"),
            lab_line(2),
            line(2, "0.2"),
            line(3, "0.3"),
        ]
        .concat();
        let ev = events(&text);
        assert_eq!(
            lab_cycles(&ev),
            vec![(0, 1, 2, Some(1)), (0, 2, 4, Some(2)), (0, 3, 5, None)]
        );
        let Some(Event::Cycle { cycle, .. }) = ev.iter().find(|e| matches!(e, Event::Cycle { .. }))
        else {
            panic!()
        };
        assert_eq!(cycle.lab.as_deref(), Some(&lab(1)));
        assert_eq!(cycle.page_density(), Some(10.0));
        assert!(problems(&ev).is_empty(), "{ev:?}");
        // Nothing else is emitted for the lab line itself.
        assert!(!ev.iter().any(|e| matches!(e, Event::Output { .. })));
    }

    #[test]
    fn orphan_lab_lines_are_problems_at_their_line() {
        // A second lab line before a gc line, and one at the end of the input.
        let text = [lab_line(1), lab_line(2), line(1, "0.1"), lab_line(3)].concat();
        let ev = events(&text);
        assert_eq!(lab_cycles(&ev), vec![(0, 1, 3, Some(2))]);
        assert_eq!(
            problems(&ev),
            vec![
                (
                    1,
                    "lab: line with no gc line after it (another lab: line follows on line 2)"
                ),
                (4, "lab: line with no gc line after it (the input ends)"),
            ]
        );
        // A broken gc line takes its lab line with it: the next cycle does not get its fields.
        let text = format!(
            "{}gc 2 @0.2s 12%: 0.027+20+0.020 ms clock, garbage\n{}",
            lab_line(1),
            line(3, "0.3")
        );
        let ev = events(&text);
        assert_eq!(lab_cycles(&ev), vec![(0, 3, 3, None)]);
        let p = problems(&ev);
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(
            p[0],
            (
                1,
                "lab: line with no gc line after it (the gc line on line 2 does not parse)"
            )
        );
        assert_eq!(p[1].0, 2);
        // So does a broken lab line (it starts the next cycle's record).
        let text = format!("{}lab: objs 1 bytes\n{}", lab_line(1), line(1, "0.1"));
        let ev = events(&text);
        assert_eq!(lab_cycles(&ev), vec![(0, 1, 3, None)]);
        let p = problems(&ev);
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[0].0, 1);
        assert!(p[0].1.starts_with("lab: line with no gc line after it"));
        assert_eq!(p[1].0, 2);
        assert!(p[1].1.starts_with("lab: line ends early"), "{}", p[1].1);
    }

    #[test]
    fn lab_line_before_a_split_gc_line() {
        // Stitched: the joined cycle gets the lab fields.
        let text = format!(
            "{}gc 10 @2.216s 38%[gcwork] progress #127\n: {TAIL}\n{}{}",
            lab_line(10),
            lab_line(11),
            line(11, "2.3")
        );
        let ev = events(&text);
        assert_eq!(
            lab_cycles(&ev),
            vec![(0, 10, 2, Some(10)), (0, 11, 5, Some(11))]
        );
        assert!(problems(&ev).is_empty(), "{ev:?}");
        // A held gc head that the lab line itself follows: the head is reported, the lab line
        // waits for the gc line after it.
        let text = format!(
            "gc 10 @2.216s 38%[gcwork] progress\n{}{}",
            lab_line(11),
            line(11, "2.3")
        );
        let ev = events(&text);
        assert_eq!(lab_cycles(&ev), vec![(0, 11, 3, Some(11))]);
        assert_eq!(
            problems(&ev).iter().map(|p| p.0).collect::<Vec<_>>(),
            vec![1]
        );
        // A head that never gets its tail, at the end of the input: both are reported, in
        // line order.
        let text = format!("{}gc 10 @2.216s 38%[gcwork] progress", lab_line(10));
        let ev = events(&text);
        assert_eq!(lab_cycles(&ev), vec![]);
        assert_eq!(
            problems(&ev).iter().map(|p| p.0).collect::<Vec<_>>(),
            vec![1, 2]
        );
    }

    #[test]
    fn lab_lines_follow_their_cycle_into_its_run() {
        // Two interleaved processes (and a restart): each cycle keeps the lab line before it.
        let text = [
            lab_line(1),
            line(1, "0.1"),
            lab_line(2),
            line(2, "0.2"),
            lab_line(3),
            line(1, "0.05"),
            lab_line(4),
            line(3, "0.3"),
            lab_line(5),
            line(2, "0.15"),
            lab_line(6),
            line(1, "0.0"),
        ]
        .concat();
        let ev = events(&text);
        assert_eq!(
            lab_cycles(&ev),
            vec![
                (0, 1, 2, Some(1)),
                (0, 2, 4, Some(2)),
                (1, 1, 6, Some(3)),
                (0, 3, 8, Some(4)),
                (1, 2, 10, Some(5)),
                (2, 1, 12, Some(6)),
            ]
        );
        assert!(problems(&ev).is_empty());
    }

    #[test]
    fn a_lab_header_labels_the_run_that_follows() {
        let text = format!(
            "# gcscope lab tree legacy GOGC=100 P=2 seed=1 scale=1 duration=5s\n{}{}",
            line(1, "0.1"),
            line(1, "0.1")
        );
        let ev = events(&text);
        let labels: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                Event::RunLabel { run, label } => Some((run.index(), label.as_str())),
                _ => None,
            })
            .collect();
        // The second run (the counter restarted) had no header of its own.
        assert_eq!(
            labels,
            [(0, "lab tree legacy GOGC=100 P=2 seed=1 scale=1 duration=5s")]
        );
        assert!(ev
            .iter()
            .any(|e| matches!(e, Event::Output { line: 1, .. })));
    }

    #[test]
    fn truncated_last_line_is_reported() {
        let ev = events("gc 9 @10.453s 17%: 0.060+913+0.032 ms clock, 0.12+142/452/0+0.");
        assert_eq!(ev.len(), 1);
        assert!(
            matches!(&ev[0], Event::Problem { line: 1, reason } if reason.contains("truncated"))
        );
    }
}
