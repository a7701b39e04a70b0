//! Properties: the Go-format printer and the parser agree, and no input makes a reader panic.

use gcscope::cycle::{Clock, Cpu, Cycle, Go15Phases};
use gcscope::trace::{self, format, parse};
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

fn parse_one(line: &str) -> Cycle {
    match parse::parse_line(line.as_bytes()) {
        parse::Line::Cycle { cycle, .. } => cycle,
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

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = parse::parse_line(&bytes);
        let tl = trace::read_all(&bytes[..]).unwrap();
        prop_assert!(tl.ended.is_some());
    }

    /// Corruptions of a real line: every variant is read as a cycle, a problem, or output,
    /// and reading never stops.
    #[test]
    fn corrupted_real_lines_are_reported(cut in 0usize..160, junk in "[ -~]{0,8}") {
        let line = "gc 6 @0.458s 7%: 0.080+54+0.094 ms clock, 0.32+0.098/53/103+0.37 ms cpu, 98->105->103 MB, 114 MB goal, 0 MB stacks, 0 MB globals, 4 P";
        let cut = cut.min(line.len());
        let text = format!("{}{}\n{}\n", &line[..cut], junk, line);
        let tl = trace::read_all(text.as_bytes()).unwrap();
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
    let tl = trace::read_all(&text[..]).unwrap();
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
    let tl = trace::read_all(&text[..]).unwrap();
    assert_eq!(tl.cycle_count(), 1);
    assert_eq!(tl.problems.len(), 1);
    assert!(
        tl.problems[0].reason.contains("only the first 65536"),
        "{}",
        tl.problems[0].reason
    );
    assert_eq!(tl.output[0].text.len(), 65536);
}
