//! Issue 25's proof that a run's streaming statistics lose nothing a user sees: every trace
//! under traces/ summarised with each run's per-cycle figures streamed from its first cycle,
//! counted (`counted`) and binned (`dist`), against the same runs kept as rows and selected
//! exactly.
//!
//! A test binary of its own, with one test: the caps it sets are the whole process's.
// A test that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use gcscope_core::report::{summary_text, Source};
use gcscope_core::stats::counted::{set_distinct_cap, DISTINCT_CAP};
use gcscope_core::stats::per_cycle::set_rows_cap;
use gcscope_core::stats::summary::RunSummary;
use std::path::{Path, PathBuf};

fn traces(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            traces(&p, out);
        } else if p.extension().is_some_and(|x| x == "log" || x == "txt") {
            out.push(p);
        }
    }
}

fn read(path: &Path) -> Source {
    let timeline = gcscope_source::read_path(path).unwrap();
    Source {
        name: path.display().to_string(),
        timeline,
    }
}

fn within_a_bin(binned: f64, exact: f64) -> bool {
    (binned - exact).abs() <= exact.abs() / 1024.0
}

/// Streamed from the first cycle, every run of the corpus prints the same summary, byte for
/// byte, as its exact rows. Counted, every figure is the exact one. Binned, its figures of
/// gctrace's own values (the assist, background and idle medians, the pause and mark
/// percentiles) are equal to the last bit, and its medians of sums (GC P time and its
/// compulsory part per cycle) are within a bin, 2^-10, of the exact.
#[test]
fn binned_runs_print_what_exact_rows_print_over_the_whole_corpus() {
    let mut files = Vec::new();
    traces(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces"),
        &mut files,
    );
    files.sort();
    let (mut runs, mut cycles, mut sums_off) = (0, 0, 0);
    for path in &files {
        set_rows_cap(usize::MAX);
        let exact = read(path);
        set_rows_cap(0);
        set_distinct_cap(usize::MAX);
        let counted = read(path);
        set_distinct_cap(0);
        let binned = read(path);
        let (e, b): (Vec<RunSummary>, Vec<RunSummary>) = (exact.summaries(), binned.summaries());
        let c: Vec<RunSummary> = counted.summaries();
        assert_eq!(e.len(), c.len(), "{}", path.display());
        for (e, c) in e.iter().zip(&c) {
            assert_eq!(
                (
                    &e.per_cycle_median_ms,
                    e.pause_ms,
                    e.mark_ms,
                    c.per_cycle_binned
                ),
                (&c.per_cycle_median_ms, c.pause_ms, c.mark_ms, false),
                "counted, {} line {}",
                path.display(),
                e.first_line
            );
        }
        assert_eq!(
            summary_text(std::slice::from_ref(&exact)),
            summary_text(std::slice::from_ref(&counted)),
            "counted, {}",
            path.display()
        );
        assert_eq!(e.len(), b.len(), "{}", path.display());
        for (e, b) in e.iter().zip(&b) {
            let at = format!("{} line {}", path.display(), e.first_line);
            let (pe, pb) = (&e.per_cycle_median_ms, &b.per_cycle_median_ms);
            assert_eq!(
                (pe.assist, pe.background, pe.idle),
                (pb.assist, pb.background, pb.idle),
                "{at}"
            );
            assert_eq!((e.pause_ms, e.mark_ms), (b.pause_ms, b.mark_ms), "{at}");
            for (x, y) in [
                (pb.gc_cpu, pe.gc_cpu),
                (pb.compulsory_cpu, pe.compulsory_cpu),
            ] {
                assert!(within_a_bin(x, y), "{at}: {x} v {y}");
                sums_off += usize::from(x != y);
            }
            runs += 1;
            cycles += e.cycles;
        }
        assert_eq!(
            summary_text(std::slice::from_ref(&exact)),
            summary_text(std::slice::from_ref(&binned)),
            "{}",
            path.display()
        );
    }
    set_rows_cap(gcscope_core::stats::per_cycle::ROWS_CAP);
    set_distinct_cap(DISTINCT_CAP);
    eprintln!(
        "{} files, {runs} runs, {cycles} cycles: counted, every figure exact; binned, \
         {sums_off} medians of sums off by under 2^-10; every printed figure the same",
        files.len()
    );
    assert!(
        files.len() > 100 && cycles > 50_000,
        "{} files, {cycles} cycles",
        files.len()
    );
}
