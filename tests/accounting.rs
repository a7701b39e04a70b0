//! The reader's accounting rule: every occurrence of `gc <digits> @` in the input is a cycle or a
//! problem with its line number, whatever precedes it on its line, however many share a line,
//! however large the number. Checked on real gc lines from traces/, spliced, cut and prefixed
//! the way `2>&1` interleaving and runtime notes splice them.
//!
//! The default run is short (CI); `GCSCOPE_FUZZ_CASES=10000000 cargo test --release --test
//! accounting` is the long campaign (its figures are in the issue notes).
// A test that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use gcscope_core::read as core_read;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::sync::LazyLock;

/// Real gc lines (and a few real runtime lines), from the recorded traces.
static REAL: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut lines = Vec::new();
    for f in [
        "traces/go/go1.27.3_greentea_tree_p2_r1.log",
        "traces/go/go1.19.8_legacy_tree_p2_r1.log",
        "traces/go/go1.27.3_greentea_map_p2_gctrace2.log",
        "traces/wild/001_gcvis-go15-stderr-log.txt",
        "traces/wild/034_felixge-dump-gctrace-gotest-bench-12P.txt",
    ] {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        lines.extend(
            text.lines()
                .filter(|l| l.contains("gc "))
                .take(60)
                .map(String::from),
        );
    }
    assert!(lines.len() > 50, "the real lines are read");
    lines
});

/// What `2>&1` and the runtime put in front of or between gc lines.
const PREFIXES: &[&str] = &[
    "scav 0 KiB work (bg),",
    "pacer: assist ratio=2.3",
    "scan: total 136 objs ",
    "scvg0: inuse: 0, idle: 0 ",
    "GC forced\n",
    "2026-12-01T03:05:34Z ",
    "> ",
    "BenchmarkMap-8   \t",
    "x",
    "",
];

/// Occurrences of `gc <digits> @` (the spaces are the runtime's: spaces or tabs).
fn occurrences(text: &str) -> usize {
    let re = regex::Regex::new(r"gc[ \t]+#?[0-9]+[ \t]+@").unwrap();
    re.find_iter(text).count()
}

/// One piece of a mutated line.
#[derive(Debug, Clone)]
enum Piece {
    Real(usize),
    Cut(usize, usize),
    Prefix(usize),
    Huge(usize, String),
    Junk(String),
    Newline,
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        4 => any::<usize>().prop_map(Piece::Real),
        3 => (any::<usize>(), any::<usize>()).prop_map(|(i, k)| Piece::Cut(i, k)),
        3 => any::<usize>().prop_map(Piece::Prefix),
        1 => (any::<usize>(), "[0-9]{20,30}").prop_map(|(i, n)| Piece::Huge(i, n)),
        1 => "[ -~]{0,12}".prop_map(Piece::Junk),
        2 => Just(Piece::Newline),
    ]
}

fn render(pieces: &[Piece]) -> String {
    let real = &*REAL;
    let mut s = String::new();
    for p in pieces {
        match p {
            Piece::Real(i) => s += &real[i % real.len()],
            Piece::Cut(i, k) => {
                let l = &real[i % real.len()];
                let mut k = k % (l.len() + 1);
                while !l.is_char_boundary(k) {
                    k -= 1;
                }
                s += &l[..k];
            }
            Piece::Prefix(i) => s += PREFIXES[i % PREFIXES.len()],
            Piece::Huge(i, n) => {
                let l = &real[i % real.len()];
                // The cycle number replaced by a number of 20+ digits.
                match l.find("gc ") {
                    Some(at) => {
                        let digits = l[at + 3..].find(' ').map_or(l.len(), |e| at + 3 + e);
                        s += &l[..at + 3];
                        s += n;
                        s += &l[digits..];
                    }
                    None => s += l,
                }
            }
            Piece::Junk(j) => s += j,
            Piece::Newline => s.push('\n'),
        }
    }
    s.push('\n');
    s
}

/// Problems that stand for a gc line: a gc line that does not parse or ends early.
fn gc_problems(tl: &gcscope_core::timeline::Timeline) -> usize {
    tl.problems
        .iter()
        .filter(|p| p.reason.starts_with("gc line"))
        .count()
}

fn check(pieces: &[Piece]) -> Result<(), TestCaseError> {
    let text = render(pieces);
    let tl = core_read::read_all(text.as_bytes()).unwrap();
    let cycles = tl.cycle_count();
    let problems = gc_problems(&tl);
    prop_assert_eq!(
        cycles + problems,
        occurrences(&text),
        "{:?}\ncycles {} problems {:?}",
        text,
        cycles,
        tl.problems
    );
    // Files (in pieces) and streams read alike.
    let mapped = core_read::read_bytes_into(text.as_bytes(), Default::default());
    prop_assert_eq!(mapped.cycle_count(), cycles);
    prop_assert_eq!(&mapped.problems, &tl.problems);
    Ok(())
}

#[test]
fn every_gc_occurrence_is_a_cycle_or_a_problem() {
    let cases = std::env::var("GCSCOPE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let start = std::time::Instant::now();
    runner
        .run(&proptest::collection::vec(piece(), 1..8), |p| check(&p))
        .unwrap();
    eprintln!("{cases} inputs in {:.1} s", start.elapsed().as_secs_f64());
}

/// The cases of the issue, one by one.
#[test]
fn gc_lines_behind_runtime_prefixes_and_side_by_side_are_read() {
    let gc = |n: u32| {
        format!("gc {n} @0.{n}s 1%: 0.080+54+0.094 ms clock, 0.32+0.098/53/103+0.37 ms cpu, 98->105->103 MB, 114 MB goal, 0 MB stacks, 0 MB globals, 4 P")
    };
    for (text, cycles, problems) in [
        (format!("scav 0 KiB work (bg),{}", gc(1)), 1, 0),
        (format!("pacer: assist ratio=2.3{}", gc(1)), 1, 0),
        (format!("scan: total 136 objs {}", gc(1)), 1, 0),
        (format!("scvg0: inuse: 0, idle: 0 {}", gc(1)), 1, 0),
        (format!("{} {}", gc(1), gc(2)), 2, 0),
        (format!("{}{}{}", gc(1), gc(2), gc(3)), 3, 0),
        (format!("{}{}", &gc(1)[..30], gc(2)), 1, 1),
        ("gc 123456789012345678901 @0.5s 3%".to_string(), 0, 1),
        (format!("gc 123456789012345678901 @0.5s 3%{}", gc(2)), 1, 1),
    ] {
        let tl = core_read::read_all(format!("{text}\n").as_bytes()).unwrap();
        assert_eq!(tl.cycle_count(), cycles, "{text}: {:?}", tl.problems);
        assert_eq!(gc_problems(&tl), problems, "{text}: {:?}", tl.problems);
        assert!(tl.problems.iter().all(|p| p.line == 1));
    }
}
