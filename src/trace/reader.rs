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

use super::lines::RawLine;
use super::parse::{gc_head, gc_space_offsets, parse_cycle, parse_line, Line, NoteKind};
use crate::cycle::Cycle;
use crate::event::Event;

/// How many of the latest runs an interleaved cycle may continue.
const RECENT_RUNS: usize = 16;

#[derive(Default)]
pub struct Reader {
    runs: Vec<RunTail>,
    current: Option<usize>,
    pending: Option<Pending>,
    /// Run of the last cycle emitted, for `scan:` lines.
    last_cycle_run: Option<usize>,
}

#[derive(Clone, Copy)]
struct RunTail {
    num: u32,
    at: u64,
}

/// A line with a gc head cut short, waiting to see whether the next line completes it.
struct Pending {
    no: u64,
    text: Vec<u8>,
    head: std::ops::Range<usize>,
    /// What the line is on its own, if the next line does not complete it.
    alone: Line,
    dropped: u64,
}

impl Reader {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed one physical line; events go to `out`.
    pub fn line(&mut self, raw: RawLine<'_>, out: &mut impl FnMut(Event)) {
        let parsed = parse_line(raw.bytes);
        self.classified(raw, parsed, out);
    }

    /// Feed one physical line already classified by `parse_line` (which is stateless, so a
    /// large file classifies its lines on another thread).
    pub fn classified(&mut self, raw: RawLine<'_>, parsed: Line, out: &mut impl FnMut(Event)) {
        if let Some(p) = self.pending.take() {
            if self.try_stitch(&p, raw.bytes, raw.no, out) {
                return;
            }
            self.emit_line(p.no, &p.text, p.alone, p.dropped, out);
        }
        if matches!(parsed, Line::Other | Line::Malformed(_)) && raw.dropped == 0 {
            if let Some(head) = stitch_head(raw.bytes) {
                self.pending = Some(Pending {
                    no: raw.no,
                    text: raw.bytes.to_vec(),
                    head,
                    alone: parsed,
                    dropped: raw.dropped,
                });
                return;
            }
        }
        self.emit_line(raw.no, raw.bytes, parsed, raw.dropped, out);
    }

    /// End of input: a held-back line is reported as it is.
    pub fn finish(&mut self, out: &mut impl FnMut(Event)) {
        if let Some(p) = self.pending.take() {
            self.emit_line(p.no, &p.text, p.alone, p.dropped, out);
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
        let mut joined = p.text[p.head.clone()].to_vec();
        joined.extend_from_slice(next);
        let Ok((mut cycle, end)) = parse_cycle(&joined, 0) else {
            return false;
        };
        if !joined[end..].iter().all(u8::is_ascii_whitespace) {
            return false;
        }
        output(p.no, &p.text[..p.head.start], out);
        output(p.no, &p.text[p.head.end..], out);
        out(Event::Note {
            line: next_no,
            kind: NoteKind::Stitched,
            text: format!(
                "gc {} was split by other output; joined lines {} and {}",
                cycle.num, p.no, next_no
            ),
        });
        cycle.line = p.no;
        self.cycle(cycle, p.no, out);
        true
    }

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
                reason: format!(
                    "line is {} bytes long; only the first {} were read",
                    bytes.len() as u64 + dropped,
                    bytes.len()
                ),
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
                    run,
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
            Line::Malformed(e) => out(Event::Problem {
                line: no,
                reason: e.reason(),
            }),
            Line::Other => output(no, bytes, out),
        }
    }

    fn cycle(&mut self, cycle: Cycle, no: u64, out: &mut impl FnMut(Event)) {
        let run = self.route(&cycle, no, out);
        self.runs[run] = RunTail {
            num: cycle.num,
            at: cycle.at,
        };
        self.current = Some(run);
        self.last_cycle_run = Some(run);
        out(Event::Cycle {
            run,
            cycle: Box::new(cycle),
        });
    }

    /// Which run a cycle belongs to (a new one if none).
    fn route(&mut self, c: &Cycle, no: u64, out: &mut impl FnMut(Event)) -> usize {
        let continues = |t: &RunTail| t.num.checked_add(1) == Some(c.num) && c.at >= t.at;
        if let Some(cur) = self.current {
            let t = self.runs[cur];
            if continues(&t) {
                return cur;
            }
            // Interleaved processes: another recent run this cycle continues exactly. Only
            // the last few are searched: a log of thousands of short runs stays linear.
            let recent = self.runs.len().saturating_sub(RECENT_RUNS)..self.runs.len();
            if let Some(other) = recent.rev().find(|&r| continues(&self.runs[r])) {
                return other;
            }
            if c.num > t.num && c.at >= t.at {
                return cur;
            }
        }
        let run = self.runs.len();
        let restart = self.current.map(|cur| (c.num, self.runs[cur].num));
        self.runs.push(RunTail { num: 0, at: 0 });
        out(Event::RunStart {
            run,
            line: no,
            restart,
        });
        run
    }
}

/// Where a gc line may have been cut by another write: the `gc` occurrence that parses
/// furthest before failing. Only heads that got past `gc ` count.
fn stitch_head(line: &[u8]) -> Option<std::ops::Range<usize>> {
    gc_space_offsets(line)
        .filter(|&s| s == 0 || !line[s - 1].is_ascii_alphanumeric())
        .filter_map(|s| gc_head(line, s).map(|end| s..end))
        .filter(|r| r.len() >= 3)
        .max_by_key(|r| (r.len(), std::cmp::Reverse(r.start)))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
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
                Event::Cycle { run, cycle } => Some((*run, cycle.num, cycle.line)),
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
            run: 1,
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
                run: 0,
                line: 2,
                ..
            })
        ));
        let orphan = events("scan: total 3 objs\n");
        assert!(matches!(orphan[0], Event::Problem { line: 1, .. }));
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
