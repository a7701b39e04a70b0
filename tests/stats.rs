//! One statistics engine: a run's summary (`RunStats`, fed through `Timeline::apply`) says what
//! the kept per-cycle records say, whatever the input, and whether or not the records are kept.
//!
//! The figures are recomputed here from `Run.cycles` without the engine, so a rule applied in
//! one place and not the other (a second `scan: total` line, warm-up cycles) shows up.
// A test that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use gcscope_core::stats::summary::RunStats;
use gcscope_core::timeline::Timeline;
use gcscope_model::{Cycle, Event, GreenTeaCounts, LabStats, ScanCounts, ScanLine, ScanStats};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A gctrace=2-style cycle: every figure different from its neighbours'.
fn cycle(num: u32, line: u64) -> Cycle {
    let n = u64::from(num);
    let mut c = Cycle {
        num,
        line,
        at: n * 10_000_000,
        cum_pct: u16::try_from(num).unwrap(),
        procs: 2,
        heap_live: (10 + n * 3 % 7) << 20,
        goal: Some((20 + n) << 20),
        ..Default::default()
    };
    c.clock.sweep_term = 10_000 * n;
    c.clock.mark = 1_000_000 + 7_000 * (n % 4);
    c.clock.mark_term = 20_000;
    c.cpu.sweep_term = 20_000;
    c.cpu.assist = 100_000 * (n % 3);
    c.cpu.background = 500_000 + 1_000 * n;
    c.cpu.idle = 300_000 * (n % 2);
    c.cpu.mark_term = 40_000;
    c
}

fn lab_cycle(num: u32, line: u64, setup: bool) -> Cycle {
    let n = u64::from(num);
    Cycle {
        lab: Some(Box::new(LabStats {
            objects_scanned: 1000 * n,
            bytes_scanned: 16_000 * n,
            page_visits: 10 * n,
            objects_freed: n,
            density_hist: vec![n, 1],
            thread_cpu: 900_000 + n,
            offcpu: 100 * n,
            setup,
            turn: None,
        })),
        ..cycle(num, line)
    }
}

fn scan(class: Option<u32>, objs: u64) -> ScanLine {
    ScanLine {
        class,
        counts: ScanCounts {
            objs,
            green_tea: Some(GreenTeaCounts {
                sparse_objs: 1,
                span_objs_sparse: objs - 1,
                span_objs_dense: 0,
                spans_sparse: 1,
                spans_dense: 0,
            }),
        },
    }
}

/// What a source sends for one run: cycles and `scan:` lines, each with its line number.
enum In {
    Cycle(Cycle),
    Scan(ScanLine),
}

/// The events for `input` as run 0, applied to a timeline that keeps its cycles and to one
/// that drops them (as `gcscope summary` does).
fn timelines(input: Vec<In>) -> (Timeline, Timeline) {
    let mut events = vec![Event::RunStart {
        run: gcscope_model::RunId::FIRST,
        line: 1,
        restart: None,
    }];
    for (i, x) in input.into_iter().enumerate() {
        let line = i as u64 + 1;
        events.push(match x {
            In::Cycle(cycle) => Event::Cycle {
                run: gcscope_model::RunId::FIRST,
                cycle: Box::new(Cycle { line, ..cycle }),
            },
            In::Scan(scan) => Event::Scan {
                run: gcscope_model::RunId::FIRST,
                line,
                scan,
            },
        });
    }
    let mut kept = Timeline::default();
    let mut dropped = Timeline {
        drop_cycles: true,
        ..Default::default()
    };
    for e in events {
        kept.apply(e.clone());
        dropped.apply(e);
    }
    (kept, dropped)
}

fn is_setup(c: &Cycle) -> bool {
    c.lab.as_ref().is_some_and(|l| l.setup)
}

/// The median as docs/SUMMARY.md defines it: the middle value, or the mean of the two middle
/// ones. Here by a sort, independently of the engine's selection.
fn median(mut v: Vec<u64>) -> f64 {
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0
    }
}

/// The figures of a run recomputed from its kept records: over the cycles that are not
/// setup cycles, or over the setup cycles when the run has nothing else.
fn from_records(cycles: &[Cycle]) -> Value {
    let steady: Vec<&Cycle> = cycles.iter().filter(|c| !is_setup(c)).collect();
    // Left out of the figures: none when the setup cycles are all there is.
    let setup = if steady.is_empty() {
        0
    } else {
        cycles.len() - steady.len()
    };
    let used: Vec<&Cycle> = if steady.is_empty() {
        cycles.iter().collect()
    } else {
        steady
    };
    let sum = |f: &dyn Fn(&Cycle) -> u64| used.iter().map(|c| f(c)).sum::<u64>();
    let ms = |ns: u64| ns as f64 / 1e6;
    let live: Vec<u64> = used.iter().map(|c| c.heap_live >> 20).collect();
    let scanned: Vec<_> = used.iter().filter_map(|c| c.scan.as_deref()).collect();
    let scan = if scanned.is_empty() {
        Value::Null
    } else {
        let mut classes = BTreeMap::<u32, u64>::new();
        for s in &scanned {
            for (class, counts) in &s.classes {
                *classes.entry(*class).or_default() += counts.objs;
            }
        }
        let visits: u64 = scanned
            .iter()
            .filter_map(|s| s.total.green_tea)
            .map(|g| g.visits())
            .sum();
        json!({
            "cycles_with_scan": scanned.len(),
            "objects": scanned.iter().map(|s| s.total.objs).sum::<u64>(),
            "span_visits": visits,
            "classes": classes.into_iter().map(|(class, objects)| json!([class, objects])).collect::<Vec<_>>(),
        })
    };
    let labs: Vec<&LabStats> = used.iter().filter_map(|c| c.lab.as_deref()).collect();
    let lab = if labs.is_empty() {
        Value::Null
    } else {
        json!({
            "cycles_with_lab": labs.len(),
            "objects_scanned": labs.iter().map(|l| l.objects_scanned).sum::<u64>(),
            "page_visits": labs.iter().map(|l| l.page_visits).sum::<u64>(),
            "objects_freed": labs.iter().map(|l| l.objects_freed).sum::<u64>(),
        })
    };
    json!({
        "cycles": used.len(),
        "setup_cycles": setup,
        "first_cycle": used[0].num,
        "last_cycle": used[used.len() - 1].num,
        "start_s": used[0].at as f64 / 1e9,
        "final_gc_pct": used[used.len() - 1].cum_pct,
        "cpu_assist_ms": ms(sum(&|c| c.cpu.assist)),
        "clock_mark_ms": ms(sum(&|c| c.mark_wall())),
        "gc_cpu_ms": ms(sum(&|c| c.gc_cpu())),
        "assist_median_ms": median(used.iter().map(|c| c.cpu.assist).collect()) / 1e6,
        "pause_max_ms": ms(used.iter().map(|c| c.pause()).max().unwrap_or(0)),
        "heap_live_mb": [live.iter().min(), live.iter().max()],
        "scan": scan,
        "lab": lab,
    })
}

/// The same figures, as the engine's summary of the run states them.
fn from_summary(tl: &Timeline) -> Value {
    let s = serde_json::to_value(tl.runs[0].summary().expect("a run with cycles")).unwrap();
    let scan = match &s["scan"] {
        Value::Null => Value::Null,
        sc => json!({
            "cycles_with_scan": sc["cycles_with_scan"],
            "objects": sc["objects"],
            "span_visits": sc["span_visits"],
            "classes": sc["classes"].as_array().unwrap().iter().map(|c| json!([c["class"], c["objects"]])).collect::<Vec<_>>(),
        }),
    };
    let lab = match &s["lab"] {
        Value::Null => Value::Null,
        l => json!({
            "cycles_with_lab": l["cycles_with_lab"],
            "objects_scanned": l["objects_scanned"],
            "page_visits": l["page_visits"],
            "objects_freed": l["objects_freed"],
        }),
    };
    json!({
        "cycles": s["cycles"],
        "setup_cycles": s["setup_cycles"],
        "first_cycle": s["first_cycle"],
        "last_cycle": s["last_cycle"],
        "start_s": s["start_s"],
        "final_gc_pct": s["final_gc_pct"],
        "cpu_assist_ms": s["cpu_ms"]["assist"],
        "clock_mark_ms": s["clock_ms"]["mark"],
        "gc_cpu_ms": s["gc_cpu_ms"],
        "assist_median_ms": s["per_cycle_median_ms"]["assist"],
        "pause_max_ms": s["pause_ms"]["max"],
        "heap_live_mb": [s["heap_live_mb"]["min"], s["heap_live_mb"]["max"]],
        "scan": scan,
        "lab": lab,
    })
}

/// The summary of run 0, whole, as JSON (`RunSummary` is compared by its documented form).
fn summary_json(tl: &Timeline) -> Value {
    serde_json::to_value(tl.runs[0].summary()).unwrap()
}

fn problem_lines(tl: &Timeline) -> Vec<(u64, String)> {
    tl.problems
        .iter()
        .map(|p| (p.line, p.reason.clone()))
        .collect()
}

/// Both timelines: the summary agrees with the kept records, a timeline that drops its records
/// reaches the same summary and the same problems, and so do the kept records pushed again
/// (as the dashboard's replay does).
fn check(input: Vec<In>) -> Timeline {
    let (kept, dropped) = timelines(input);
    assert_eq!(
        from_summary(&kept),
        from_records(&kept.runs[0].cycles.clone().into_iter().collect::<Vec<_>>()),
        "the summary and the per-cycle records disagree"
    );
    assert_eq!(
        summary_json(&dropped),
        summary_json(&kept),
        "dropping the records changes the summary"
    );
    assert_eq!(
        problem_lines(&dropped),
        problem_lines(&kept),
        "dropping the records changes the problems"
    );
    let run = &kept.runs[0];
    let mut replayed = RunStats::default();
    for c in &run.cycles {
        replayed.push(&c);
    }
    assert_eq!(
        serde_json::to_value(replayed.summary(run.first_line, run.restart)).unwrap(),
        summary_json(&kept),
        "pushing the kept records again changes the summary"
    );
    kept
}

/// A `scan:` line before the run's first cycle, two `total` lines for one cycle, a class
/// printed twice in one cycle: the first line counts, a repeated one is a problem and counts
/// nowhere.
#[test]
fn scan_lines_count_as_the_kept_records_say() {
    let tl = check(vec![
        In::Scan(scan(None, 100)), // line 1: before any cycle
        In::Cycle(cycle(1, 0)),
        In::Scan(scan(None, 3)),
        In::Scan(scan(None, 4)), // line 4: a second total
        In::Scan(scan(Some(0), 1)),
        In::Scan(scan(Some(16), 2)),
        In::Scan(scan(Some(32), 1)),
        In::Scan(scan(Some(16), 5)), // line 8: class 16 again
        In::Cycle(cycle(2, 0)),
        In::Scan(scan(None, 10)),
        In::Scan(scan(Some(16), 10)),
        In::Cycle(cycle(3, 0)),
    ]);
    let lines: Vec<u64> = tl.problems.iter().map(|p| p.line).collect();
    assert_eq!(lines, [1, 4, 8], "{:?}", tl.problems);
    let s = tl.runs[0].summary().unwrap();
    let scan = s.scan.unwrap();
    assert_eq!((scan.cycles_with_scan, scan.objects), (2, 13));
    let classes: Vec<(u32, u64)> = scan.classes.iter().map(|c| (c.class, c.objects)).collect();
    assert_eq!(classes, [(0, 1), (16, 12), (32, 1)]);
}

/// Warm-up cycles (the lab's `setup`) are counted and left out of every figure; the `scan:`
/// lines after a setup cycle are that cycle's and are left out with it.
#[test]
fn setup_cycles_are_counted_and_left_out() {
    let tl = check(vec![
        In::Cycle(lab_cycle(1, 0, true)),
        In::Scan(scan(None, 50)),
        In::Scan(scan(Some(16), 50)),
        In::Cycle(lab_cycle(2, 0, true)),
        In::Scan(scan(None, 60)),
        In::Scan(scan(None, 61)), // a second total in a setup cycle: still a problem
        In::Cycle(lab_cycle(3, 0, false)),
        In::Scan(scan(None, 7)),
        In::Scan(scan(Some(16), 7)),
        In::Cycle(lab_cycle(4, 0, false)),
        In::Cycle(lab_cycle(5, 0, false)),
        In::Scan(scan(None, 9)),
        In::Scan(scan(Some(32), 9)),
    ]);
    let lines: Vec<u64> = tl.problems.iter().map(|p| p.line).collect();
    assert_eq!(lines, [6], "{:?}", tl.problems);
    let s = summary_json(&tl);
    assert_eq!(
        (&s["cycles"], &s["setup_cycles"], &s["first_cycle"]),
        (&json!(3), &json!(2), &json!(3))
    );
    assert_eq!(s["scan"]["objects"], 16);
    assert_eq!(s["lab"]["cycles_with_lab"], 3);
    // The cycle count callers use to tell an empty run from one with something to show.
    assert_eq!(tl.runs[0].stats.cycles(), 5);
    assert_eq!(tl.cycle_count(), 5);
}

/// A run of nothing but setup cycles (a short lab run) still has a summary: theirs.
#[test]
fn a_run_of_setup_cycles_only_has_their_figures() {
    let tl = check(vec![
        In::Cycle(lab_cycle(1, 0, true)),
        In::Scan(scan(None, 50)),
        In::Cycle(lab_cycle(2, 0, true)),
        In::Scan(scan(None, 60)),
        In::Scan(scan(Some(8), 60)),
    ]);
    let s = summary_json(&tl);
    assert_eq!(
        (&s["cycles"], &s["setup_cycles"], &s["last_cycle"]),
        (&json!(2), &json!(0), &json!(2))
    );
    assert_eq!(s["scan"]["objects"], 110);
}

/// The lab's cycles carry their `scan:` counters in the record (`Cycle::scan`) instead of
/// sending lines: they count by the same rule, a line after such a cycle repeating its total
/// is refused, and setup cycles' counters are left out with them.
#[test]
fn scan_counters_in_a_cycle_record_count_by_the_same_rule() {
    let with_scan = |c: Cycle, objs: u64| Cycle {
        scan: Some(Box::new(ScanStats {
            total: scan(None, objs).counts,
            classes: vec![(16, scan(None, objs - 1).counts), (0, scan(None, 1).counts)],
        })),
        ..c
    };
    let tl = check(vec![
        In::Cycle(with_scan(lab_cycle(1, 0, true), 40)),
        In::Cycle(with_scan(lab_cycle(2, 0, false), 5)),
        In::Scan(scan(None, 5)),     // line 3: the record has its total
        In::Scan(scan(Some(32), 2)), // a class the record lacks: counted
        In::Cycle(with_scan(lab_cycle(3, 0, false), 8)),
    ]);
    let lines: Vec<u64> = tl.problems.iter().map(|p| p.line).collect();
    assert_eq!(lines, [3], "{:?}", tl.problems);
    let s = summary_json(&tl);
    assert_eq!(s["scan"]["objects"], 13);
    assert_eq!(s["scan"]["cycles_with_scan"], 2);
}
