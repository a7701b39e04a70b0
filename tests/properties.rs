//! Properties: the Go-format printer and the parser agree, and no input makes a reader panic.
// Tests build their inputs from numbers they chose; the workspace's cast lints are for
// numbers read from traces.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]
// A test or bench that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use gcscope_core::read as core_read;
use gcscope_core::timeline::Timeline;
use gcscope_core::trace::{format, parse};
use gcscope_model::{Clock, Cpu, Cycle, Go15Phases, LabStats};
use proptest::prelude::*;

/// Durations as the runtime can print them: up to ~2 significant digits below 10 ms.
fn ns() -> impl Strategy<Value = u64> {
    prop_oneof![Just(0u64), 0u64..10_000_000, 10_000_000u64..100_000_000_000]
}

prop_compose! {
    fn cycle()(
        num in 1u32..u32::MAX, at_ms in 0u64..10_000_000_000, pct in 0u16..100,
        forced: bool, leak: bool, go15: bool,
        clock in [ns(), ns(), ns()], cpu in [ns(), ns(), ns(), ns(), ns()],
        extra in [ns(), ns(), ns(), ns()],
        heap in [0u64..1 << 24, 0u64..1 << 24, 0u64..1 << 24],
        goal in proptest::option::of(0u64..1 << 24), sg in proptest::option::of((0u64..1 << 20, 0u64..1 << 20)),
        procs in 1u32..1024,
    ) -> Cycle {
        Cycle {
            num, at: at_ms * 1_000_000, cum_pct: pct, forced, leak_check: leak,
            clock: Clock { sweep_term: clock[0], mark: clock[1], mark_term: clock[2] },
            cpu: Cpu { sweep_term: cpu[0], assist: cpu[1], background: cpu[2], idle: cpu[3], mark_term: cpu[4] },
            go15: go15.then(|| Box::new(Go15Phases { clock_scan: extra[0], clock_install_wb: extra[1], cpu_scan: extra[2], cpu_install_wb: extra[3] })),
            heap_start: heap[0] << 20, heap_end: heap[1] << 20, heap_live: heap[2] << 20,
            goal: goal.map(|g| g << 20),
            stacks: sg.map(|s| s.0 << 20), globals: sg.map(|s| s.1 << 20),
            procs, ..Default::default()
        }
    }
}

prop_compose! {
    fn lab_stats()(
        n in [any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>()],
        small in [0u64..1 << 20, 0u64..1 << 20],
        density_hist in proptest::collection::vec(any::<u64>(), 0..24),
        big: bool,
        setup: bool,
        offcpu in any::<u64>(),
        turn in proptest::option::of(any::<u32>()),
    ) -> LabStats {
        let n = if big { n } else { [small[0], small[1], n[2] >> 40, n[3] >> 40, n[4] >> 30] };
        LabStats {
            objects_scanned: n[0], bytes_scanned: n[1], page_visits: n[2], objects_freed: n[3],
            density_hist, thread_cpu: n[4], offcpu, setup, turn,
        }
    }
}

fn parse_one(line: &str) -> Cycle {
    match parse::parse_line(line.as_bytes()) {
        parse::Line::Cycle { cycle, .. } => *cycle,
        other => panic!("{line}: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// format -> parse -> format is the identity on the text, and parse -> format -> parse on
    /// the value: the printer loses exactly what the runtime's printer loses, nothing more.
    #[test]
    fn format_parse_round_trip(c in cycle()) {
        let line = format::line(&c);
        let parsed = parse_one(&line);
        prop_assert_eq!(&format::line(&parsed), &line);
        prop_assert_eq!(parse_one(&format::line(&parsed)), parsed.clone());
        prop_assert_eq!((parsed.num, parsed.procs, parsed.forced), (c.num, c.procs, c.forced));
        prop_assert_eq!(parsed.heap_live, c.heap_live);
        prop_assert_eq!(parsed.goal, c.goal);
        // Whole ms from 10 ms up; 2 significant digits below.
        prop_assert!(parsed.clock.mark <= c.clock.mark);
        prop_assert!(c.clock.mark - parsed.clock.mark <= c.clock.mark / 10 + 1_000);
    }

    /// The lab's extension line reads back exactly, as the lab's own line kind.
    #[test]
    fn lab_line_round_trip(l in lab_stats()) {
        let line = format::lab_line(&l);
        prop_assert!(!line.contains('\n'));
        let parse::Line::Lab(parsed) = parse::parse_line(line.as_bytes()) else {
            return Err(TestCaseError::fail(format!("not a lab line: {line}")));
        };
        prop_assert_eq!(&*parsed, &l);
        prop_assert_eq!(format::lab_line(&parsed), line);
    }

    /// A lab trace (a lab line before each gc line, some gc lines split by program output):
    /// streamed and mapped reads build the same timeline, every cycle read carries exactly its
    /// own lab fields, and every lab line is attached or reported.
    #[test]
    fn lab_traces_read_alike_on_both_paths(
        cycles in proptest::collection::vec((cycle(), lab_stats(), proptest::option::of(3usize..200)), 1..12),
    ) {
        let mut text = String::new();
        let mut labs = Vec::new();
        for (i, (mut c, lab, cut)) in cycles.into_iter().enumerate() {
            c.num = i as u32 + 1;
            c.at = i as u64 * 1_000_000;
            text.push_str(&format::lab_line(&lab));
            text.push('\n');
            let line = format::line(&c);
            match cut.filter(|&k| k < line.len()) {
                Some(k) => {
                    text.push_str(&line[..k]);
                    text.push_str("[prog] output\n");
                    text.push_str(&line[k..]);
                }
                None => text.push_str(&line),
            }
            text.push('\n');
            labs.push(lab);
        }
        let streamed = core_read::read_all(text.as_bytes()).unwrap();
        let mapped = core_read::read_bytes_into(text.as_bytes(), Timeline::default());
        prop_assert_eq!(streamed.runs.len(), mapped.runs.len());
        for (a, b) in streamed.runs.iter().zip(&mapped.runs) {
            prop_assert_eq!(&a.cycles, &b.cycles);
        }
        prop_assert_eq!(&streamed.output, &mapped.output);
        prop_assert_eq!(&streamed.notes, &mapped.notes);
        prop_assert_eq!(&streamed.problems, &mapped.problems);
        let read: Vec<std::borrow::Cow<Cycle>> = streamed.runs.iter().flat_map(|r| &r.cycles).collect();
        let mut attached = 0;
        for c in &read {
            if let Some(l) = &c.lab {
                prop_assert_eq!(&**l, &labs[c.num as usize - 1], "gc {}", c.num);
                attached += 1;
            }
        }
        let orphans = streamed
            .problems
            .iter()
            .filter(|p| p.reason.starts_with("lab: line with no gc line after it"))
            .count();
        prop_assert_eq!(attached + orphans, labs.len());
        // A cycle read whole (not a stitched one that lost its head) always has its fields.
        prop_assert!(read.iter().all(|c| c.lab.is_some()), "{:?}", streamed.problems);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = parse::parse_line(&bytes);
        let tl = core_read::read_all(&bytes[..]).unwrap();
        prop_assert!(tl.source.ended());
    }

    /// Corruptions of a real line: every variant is read as a cycle, a problem, or output,
    /// and reading never stops.
    #[test]
    fn corrupted_real_lines_are_reported(cut in 0usize..160, junk in "[ -~]{0,8}") {
        let line = "gc 6 @0.458s 7%: 0.080+54+0.094 ms clock, 0.32+0.098/53/103+0.37 ms cpu, 98->105->103 MB, 114 MB goal, 0 MB stacks, 0 MB globals, 4 P";
        let cut = cut.min(line.len());
        let text = format!("{}{}\n{}\n", &line[..cut], junk, line);
        let tl = core_read::read_all(text.as_bytes()).unwrap();
        // The intact second line is always read.
        prop_assert!(tl.runs.iter().flat_map(|r| &r.cycles).any(|c| c.line == 2 && c.num == 6));
        let first_seen = tl.runs.iter().flat_map(|r| &r.cycles).any(|c| c.line == 1)
            || tl.problems.iter().any(|p| p.line == 1)
            || tl.output.iter().any(|o| o.line == 1)
            || text.lines().next().unwrap().trim().is_empty();
        prop_assert!(first_seen);
    }
}

#[test]
fn invalid_utf8_does_not_stop_reading() {
    let mut text =
        b"gc 1 @0.1s 0%: 0+0.99+0 ms clock, 0+0/0/0+0 ms cpu, 4->5->1 MB, 5 MB goal, 12 P\n"
            .to_vec();
    text.extend_from_slice(b"\xff\xfe program \xc3\x28 output\n");
    text.extend_from_slice(
        b"gc 2 @0.2s 0%: 0+0.99+0 ms clock, 0+0/0/0+0 ms cpu, 4->5->1 MB, 5 MB goal, 12 P\n",
    );
    let tl = core_read::read_all(&text[..]).unwrap();
    assert_eq!(tl.cycle_count(), 2);
    assert_eq!(tl.output.len(), 1);
    assert!(tl.output[0].text.contains("program"));
}

#[test]
fn a_huge_line_is_cut_and_reported() {
    let mut text = vec![b'x'; 5 << 20];
    text.push(b'\n');
    text.extend_from_slice(
        b"gc 2 @0.2s 0%: 0+0.99+0 ms clock, 0+0/0/0+0 ms cpu, 4->5->1 MB, 5 MB goal, 12 P\n",
    );
    let tl = core_read::read_all(&text[..]).unwrap();
    assert_eq!(tl.cycle_count(), 1);
    assert_eq!(tl.problems.len(), 1);
    assert!(
        tl.problems[0].reason.contains("only the first 65536"),
        "{}",
        tl.problems[0].reason
    );
    assert_eq!(tl.output[0].text.len(), 65536);
}

/// One step of a generated log.
#[derive(Debug, Clone)]
enum Step {
    /// Process `p`'s next gc line (`gap` > 1: a forward jump in its counter).
    Gc {
        p: usize,
        gap: u32,
    },
    /// Process `p` restarts: its counter goes back to 1.
    Restart {
        p: usize,
    },
    /// Process `p`'s next gc line, cut at byte `at` by a line of program output.
    Split {
        p: usize,
        at: usize,
    },
    /// A gctrace=2 `scan:` line.
    Scan,
    /// A `lab:` line.
    Lab,
    Output,
    Blank,
}

/// Processes a generated log may mix: more than the reader's window of recent runs
/// (`RECENT_RUNS`, 16), so that runs fall out of it and a piece's join must agree on that too.
const PROCESSES: usize = 24;

/// Which process writes: mostly one of three, sometimes any of `PROCESSES`.
fn process() -> impl Strategy<Value = usize> {
    prop_oneof![3 => 0usize..3, 1 => 0usize..PROCESSES]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (process(), prop_oneof![9 => Just(1u32), 1 => 2u32..5]).prop_map(|(p, gap)| Step::Gc { p, gap }),
        1 => process().prop_map(|p| Step::Restart { p }),
        1 => (process(), 1usize..120).prop_map(|(p, at)| Step::Split { p, at }),
        3 => Just(Step::Scan),
        1 => Just(Step::Lab),
        2 => Just(Step::Output),
        1 => Just(Step::Blank),
    ]
}

/// The text of a generated log: up to `PROCESSES` processes writing to one file.
fn render(steps: &[Step]) -> String {
    let mut num = [0u32; PROCESSES];
    let mut at = [0u64; PROCESSES];
    let mut text = String::new();
    let mut gc = |p: usize, gap: u32, num: &mut [u32; PROCESSES]| {
        num[p] += gap;
        at[p] += 1_000_000 * (1 + p as u64);
        let c = Cycle {
            num: num[p],
            at: at[p],
            procs: 2 + p as u32,
            goal: Some(4 << 20),
            ..Default::default()
        };
        format::line(&c)
    };
    for s in steps {
        match *s {
            Step::Gc { p, gap } => text.push_str(&gc(p, gap, &mut num)),
            Step::Restart { p } => {
                num[p] = 0;
                text.push_str(&gc(p, 1, &mut num));
            }
            Step::Split { p, at } => {
                let line = gc(p, 1, &mut num);
                let at = at.min(line.len());
                text.push_str(&line[..at]);
                text.push_str("[prog] interrupting output\n");
                text.push_str(&line[at..]);
            }
            Step::Scan => text.push_str("scan: total 10+2+3=15 objs, 4+1=5 spans"),
            Step::Lab => text.push_str(&format::lab_line(&LabStats::default())),
            Step::Output => text.push_str("program output"),
            Step::Blank => {}
        }
        text.push('\n');
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A log cut into pieces read side by side reads exactly as one reader reads it, whatever
    /// the cuts fall on: interleaved processes, restarts, split lines, held lab lines.
    #[test]
    fn pieces_read_like_one_reader(steps in proptest::collection::vec(step(), 1..160), pieces in 2usize..12) {
        let text = render(&steps);
        let whole = core_read::read_all(text.as_bytes()).unwrap();
        let (tl, count) = core_read::read_bytes_in_pieces(text.as_bytes(), Timeline::default(), pieces);
        prop_assert!(count.read <= pieces);
        prop_assert_eq!(tl.runs.len(), whole.runs.len());
        for (a, b) in tl.runs.iter().zip(&whole.runs) {
            prop_assert_eq!(a, b);
        }
        prop_assert_eq!(&tl.output, &whole.output);
        prop_assert_eq!(&tl.notes, &whole.notes);
        prop_assert_eq!(&tl.problems, &whole.problems);
        prop_assert!(tl == whole);
    }
}

/// More processes than the reader's window of recent runs (16), writing in turn, some of them
/// restarting: cut into pieces anywhere, the log reads as one reader reads it. (Its pieces are
/// read again rather than joined: a piece whose cycles go on several earlier runs is.)
#[test]
fn pieces_read_past_the_window_of_recent_runs_as_one_reader() {
    let mut num = [0u32; 30];
    let mut text = String::new();
    for round in 0..40u64 {
        for (p, n) in num.iter_mut().enumerate() {
            // Processes 0-9 write every round, the others every third: runs drop out of the
            // window and come back.
            if p >= 10 && round % 3 != 0 {
                continue;
            }
            *n = if round == 20 && p % 7 == 0 { 1 } else { *n + 1 };
            let c = Cycle {
                num: *n,
                at: (round + 1) * 1_000_000_000 + p as u64,
                procs: 2,
                goal: Some(4 << 20),
                ..Default::default()
            };
            text.push_str(&format::line(&c));
            text.push('\n');
        }
    }
    let whole = core_read::read_all(text.as_bytes()).unwrap();
    assert!(whole.runs.len() > 30, "{} runs", whole.runs.len());
    for pieces in 2..12 {
        let (tl, count) =
            core_read::read_bytes_in_pieces(text.as_bytes(), Timeline::default(), pieces);
        assert!(tl == whole, "{pieces} pieces");
        assert_eq!(count.read, pieces, "cut into {pieces}");
    }
}

/// Pieces and a line longer than the line limit: cut the same way as a stream cuts it.
#[test]
fn a_huge_line_reads_the_same_in_pieces() {
    let gc = |n: u32| {
        format!(
            "gc {n} @0.{n}s 0%: 0+0.99+0 ms clock, 0+0/0/0+0 ms cpu, 4->5->1 MB, 5 MB goal, 12 P\n"
        )
    };
    let mut text = String::new();
    for n in 1..40 {
        text += &gc(n);
        if n == 20 {
            text += &"x".repeat(3 << 20);
            text.push('\n');
        }
    }
    let whole = core_read::read_all(text.as_bytes()).unwrap();
    assert_eq!(whole.problems.len(), 1);
    for pieces in [2, 3, 5] {
        let (tl, count) =
            core_read::read_bytes_in_pieces(text.as_bytes(), Timeline::default(), pieces);
        assert!(count.read > 1, "{pieces} pieces: {count:?}");
        assert!(tl == whole, "{pieces} pieces");
    }
}
