//! The lab collector's correctness, proven the way Go proves its own: a checkmark oracle at
//! every mark termination, end-of-mark invariants, poisoned frees, adversarial mutators at
//! GOGC 1-10 on both markers, and a negative control showing the oracle catches a collector
//! without a write barrier; and the markers' difference the lab exists to show (Green Tea's
//! dense page visits where objects are scattered).
//!
//! Every run here is bounded by cycles, never by the wall clock: it ends at its cycle count,
//! when the test has seen what it asserts (`on_cycle` returns false), or by failing. The tests
//! assert what the cycles found (checks clean, objects freed, ratios between markers), so a
//! slow or loaded machine makes them slower, never different. The only clock is `within`'s,
//! which turns a hang (a run that never returns) into a failure instead of a stuck suite.
// A test or bench that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use gcscope_lab::{self as lab, Checks, Config, LabCycle, LabError, Marker, RunEnd, Shape};
use std::time::Duration;

const MARKERS: [Marker; 2] = [Marker::Legacy, Marker::Greentea];

/// A test run's settings: a small heap (scale 1/16), the oracle and poisoning on, and no
/// wall-clock limit (`duration: None`): the run ends by its cycle count, by the test's
/// `on_cycle`, or by failing.
fn cfg(shape: Shape, marker: Marker, gogc: u64) -> Config {
    Config {
        shape,
        marker,
        gogc,
        procs: 2,
        duration: None,
        max_cycles: None,
        seed: 7,
        scale: 1.0 / 16.0,
        arena_mb: 1024,
        write_barrier: true,
        checkmark: true,
        poison: true,
        turns: None,
        fault: None,
    }
}

/// What the tests keep of a cycle.
#[derive(Debug, Clone)]
struct Seen {
    /// The workload was still building its long-lived heap at the cycle's end.
    setup: bool,
    checks: Checks,
    objects_freed: u64,
    objects_scanned: u64,
    page_visits: u64,
}

impl Seen {
    fn of(lc: &LabCycle) -> Seen {
        let l = lc
            .result
            .cycle
            .lab
            .as_deref()
            .expect("a lab cycle has lab fields");
        Seen {
            setup: lc.setup,
            checks: lc.result.checks.clone(),
            objects_freed: l.objects_freed,
            objects_scanned: l.objects_scanned,
            page_visits: l.page_visits,
        }
    }
}

/// Runs `c` until `more` (asked after each cycle with every cycle so far) says it has seen
/// enough, or `cap` cycles. The run must not fail.
fn run_while(c: &Config, cap: u32, mut more: impl FnMut(&[Seen]) -> bool) -> (RunEnd, Vec<Seen>) {
    let mut c = c.clone();
    c.max_cycles = Some(cap);
    let mut seen = Vec::new();
    let end = lab::run(&c, |lc| {
        seen.push(Seen::of(&lc));
        more(&seen)
    });
    assert!(end.error.is_none(), "{}: {:?}", c.label(), end.error);
    assert_eq!(end.cycles as usize, seen.len(), "{}", c.label());
    (end, seen)
}

/// Runs `c` for exactly `n` cycles.
fn run_cycles(c: &Config, n: u32) -> (RunEnd, Vec<Seen>) {
    let (end, seen) = run_while(c, n, |_| true);
    assert_eq!(
        end.cycles,
        n,
        "{}: the run ended before its {n} cycles",
        c.label()
    );
    (end, seen)
}

/// The cycles after the workload's setup: setup cycles are left out (building the long-lived
/// heap makes no garbage), and so is the first cycle after them, when setup ended during its
/// mark (`setup` is read at the cycle's end).
fn steady(seen: &[Seen]) -> &[Seen] {
    let first = seen
        .iter()
        .position(|s| !s.setup)
        .map_or(seen.len(), |i| i + 1);
    &seen[first.min(seen.len())..]
}

/// Runs `c` until `n` cycles after setup (`steady`), at most `cap` cycles in all.
fn run_steady(c: &Config, n: usize, cap: u32) -> (RunEnd, Vec<Seen>) {
    let (end, seen) = run_while(c, cap, |seen| steady(seen).len() < n);
    assert_eq!(
        steady(&seen).len(),
        n,
        "{}: {n} cycles after setup not reached in {cap} cycles",
        c.label()
    );
    (end, seen)
}

/// Runs `f` on a thread of its own and returns its result, failing the test if it takes
/// longer than `secs`: a hang guard for the tests of the run's ending (a hang fails instead of
/// blocking the suite), far above what the runs take.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("no return within {secs} s"))
}

/// The message of a caught panic.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    match (
        payload.downcast_ref::<&str>(),
        payload.downcast_ref::<String>(),
    ) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "(not a string)".to_string(),
    }
}

/// A full arena is an error the run returns, not an exit of the process: every thread stops
/// and `run` reports it in `RunEnd::error`. The run has no other way to end (no cycle or time
/// limit), so its return is the error's doing.
#[test]
fn a_full_arena_ends_the_run_with_an_error() {
    for marker in MARKERS {
        let mut c = cfg(Shape::Tree, marker, 100);
        c.arena_mb = 1;
        c.checkmark = false;
        let end = within(60, move || lab::run(&c, |_| true));
        assert!(
            matches!(end.error, Some(LabError::ArenaFull { arena_mb: 1, .. })),
            "{marker:?}: {:?}",
            end.error
        );
        let msg = end.error.unwrap().to_string();
        assert!(msg.contains("--arena-mb"), "{msg}");
    }
}

/// A panic in the caller's `on_cycle` (the coordinator) stops the run's threads: that panic
/// reaches the caller instead of the workers and mutators spinning forever.
#[test]
fn a_panicking_coordinator_stops_every_thread() {
    let mut c = cfg(Shape::Tree, Marker::Greentea, 100);
    c.checkmark = false;
    let caught = within(60, move || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lab::run(&c, |lc| {
                if lc.result.cycle.num == 2 {
                    panic!("on_cycle fails at cycle 2");
                }
                true
            })
        }))
        .err()
        .map(|p| panic_message(&*p))
    });
    assert_eq!(caught.as_deref(), Some("on_cycle fails at cycle 2"));
}

/// A panicking mark worker gives its P back and stops the run (as a panicking mutator does):
/// the panic reaches the caller instead of the coordinator waiting forever at its next
/// stop-the-world for the P the worker held, or for marking no worker is left to do. Map runs
/// one mutator on two Ps, so idle mark workers run in every cycle.
#[test]
fn a_panicking_mark_worker_stops_every_thread() {
    for marker in MARKERS {
        let mut c = cfg(Shape::Map, marker, 100);
        c.checkmark = false;
        c.fault = Some(lab::Fault::MarkWorkerPanics);
        let caught = within(60, move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lab::run(&c, |_| true)))
                .is_err()
        });
        assert!(caught, "{marker:?}: the panic did not reach the caller");
    }
}

/// The adversarial mutator moves the only pointer to an object between holders during mark:
/// at GOGC 1, 5 and 10, every one of a fixed number of cycles is checked by the oracle and
/// clean, while the collector really frees (the adversary's garbage).
fn adversarial_mutator_loses_nothing(marker: Marker) {
    const CYCLES: u32 = 350;
    for gogc in [1, 5, 10] {
        let c = cfg(Shape::Adversary, marker, gogc);
        let (end, seen) = run_cycles(&c, CYCLES);
        assert!(
            end.checks.clean(),
            "{marker:?} GOGC={gogc}: {:?} over {CYCLES} cycles",
            end.checks
        );
        assert!(
            seen.iter().all(|s| s.objects_scanned > 0),
            "{marker:?} GOGC={gogc}: a cycle marked nothing"
        );
        let freed: u64 = seen.iter().map(|s| s.objects_freed).sum();
        assert!(freed > 0, "{marker:?} GOGC={gogc}: nothing freed");
        eprintln!("adversarial {marker:?} GOGC={gogc}: {CYCLES} checked cycles clean, {freed} objects freed");
    }
}

#[test]
fn adversarial_mutator_never_loses_an_object_on_legacy() {
    adversarial_mutator_loses_nothing(Marker::Legacy);
}

#[test]
fn adversarial_mutator_never_loses_an_object_on_green_tea() {
    adversarial_mutator_loses_nothing(Marker::Greentea);
}

/// The negative control: the adversary with the write barrier off. The oracle must report
/// reachable objects left unmarked, and they must really be lost: the sweep frees and poisons
/// them, and the mutator then loads one (a bad dereference). Each run stops as soon as both
/// are seen (within the first few cycles), and must see them within 500.
#[test]
fn without_a_write_barrier_the_oracle_reports_the_objects_then_freed() {
    for marker in MARKERS {
        for seed in 1..=4 {
            let mut c = cfg(Shape::Adversary, marker, 5);
            c.write_barrier = false;
            c.seed = seed;
            let seen_both = |s: &[Seen]| {
                s.iter().any(|s| s.checks.reachable_unmarked > 0)
                    && s.iter().any(|s| s.checks.bad_derefs > 0)
            };
            let (end, seen) = run_while(&c, 500, |s| !seen_both(s));
            assert!(
                end.checks.reachable_unmarked > 0,
                "{marker:?} seed {seed}: the oracle missed lost objects over {} cycles: {:?}",
                end.cycles,
                end.checks
            );
            assert!(
                end.checks.bad_derefs > 0,
                "{marker:?} seed {seed}: no lost object was freed and loaded over {} cycles: {:?}",
                end.cycles,
                end.checks
            );
            assert!(seen_both(&seen));
            eprintln!(
                "negative control {marker:?} seed {seed}: caught by cycle {}: {:?}",
                end.cycles, end.checks
            );
        }
    }
}

/// Every workload on both markers, at GOGC 50, through its setup and 8 cycles after it: every
/// cycle is checked by the oracle and clean, and marks something.
#[test]
fn every_shape_on_both_markers_is_checked_clean() {
    for shape in Shape::ALL {
        for marker in MARKERS {
            let (end, seen) = run_steady(&cfg(shape, marker, 50), 8, 300);
            assert!(
                end.checks.clean(),
                "{shape:?} {marker:?}: {:?} over {} cycles",
                end.checks,
                end.cycles
            );
            assert!(
                seen.iter().all(|s| s.objects_scanned > 0),
                "{shape:?} {marker:?}: a cycle marked nothing"
            );
        }
    }
}

/// Every cycle after the workload's setup frees something: each shape's churn leaves garbage
/// in every cycle, and the sweep that ends the cycle frees it (`steady` says which cycles
/// count). Four such cycles per shape and marker.
#[test]
fn every_cycle_after_setup_frees_something_on_each_workload() {
    for shape in Shape::ALL {
        for marker in MARKERS {
            let mut c = cfg(shape, marker, 100);
            c.checkmark = false;
            c.poison = false;
            let (_, seen) = run_steady(&c, 4, 300);
            let freed: Vec<u64> = seen.iter().map(|s| s.objects_freed).collect();
            assert!(
                steady(&seen).iter().all(|s| s.objects_freed > 0),
                "{shape:?} {marker:?}: a cycle after setup freed nothing: {freed:?} (setup: {:?})",
                seen.iter().map(|s| s.setup).collect::<Vec<_>>()
            );
        }
    }
}

/// Objects scanned per page visit over 5 cycles after setup, the density the markers differ
/// in (a visit is a run of consecutive scans on one page).
fn scan_density(shape: Shape, marker: Marker) -> f64 {
    let mut c = cfg(shape, marker, 100);
    c.checkmark = false;
    c.poison = false;
    let (_, seen) = run_steady(&c, 5, 300);
    let s = steady(&seen);
    let objects: u64 = s.iter().map(|s| s.objects_scanned).sum();
    let visits: u64 = s.iter().map(|s| s.page_visits).sum();
    assert!(visits > 0, "{shape:?} {marker:?}: no page visited");
    objects as f64 / visits as f64
}

/// Green Tea scans a page at a time: where the objects marked together are scattered over
/// pages (graph's nodes point by hash into a pool, map's items at random items), legacy scans
/// about one object per page visit and Green Tea many (about 50x on graph and 12x on map
/// here); where the heap is scanned in allocation order anyway (tree's nodes), the two are
/// alike.
#[test]
fn green_tea_scans_more_objects_per_page_visit_than_legacy_where_objects_are_scattered() {
    for shape in [Shape::Graph, Shape::Map] {
        let legacy = scan_density(shape, Marker::Legacy);
        let green_tea = scan_density(shape, Marker::Greentea);
        assert!(
            green_tea >= 5.0 * legacy,
            "{shape:?}: Green Tea {green_tea:.2} objects per page visit, legacy {legacy:.2}"
        );
        eprintln!(
            "{shape:?}: objects per page visit: legacy {legacy:.2}, Green Tea {green_tea:.2}"
        );
    }
    let legacy = scan_density(Shape::Tree, Marker::Legacy);
    let green_tea = scan_density(Shape::Tree, Marker::Greentea);
    let ratio = green_tea / legacy;
    assert!(
        (1.0 / 1.5..=1.5).contains(&ratio),
        "Tree: Green Tea {green_tea:.2} objects per page visit, legacy {legacy:.2}"
    );
}

#[test]
fn trace_out_round_trips_through_the_parser() {
    const CYCLES: u32 = 5;
    let mut c = cfg(Shape::Tree, Marker::Greentea, 100);
    c.checkmark = false;
    c.max_cycles = Some(CYCLES);
    let mut out: Vec<u8> = Vec::new();
    let mut cycles = Vec::new();
    let end = lab::run(&c, |lc| {
        out.extend_from_slice(gcscope_core::trace::format::cycle_text(&lc.result.cycle).as_bytes());
        cycles.push(lc.result.cycle);
        true
    });
    assert_eq!(end.cycles, CYCLES);
    let tl = gcscope_core::read::read_bytes_into(&out, Default::default());
    assert!(tl.problems.is_empty(), "{:?}", tl.problems);
    assert_eq!(tl.runs.len(), 1);
    let read = &tl.runs[0].cycles;
    assert_eq!(read.len(), CYCLES as usize);
    assert_eq!(read.len(), cycles.len());
    for (r, c) in read.iter().zip(&cycles) {
        // Lab-only fields come back exactly; the Go line at its printed precision.
        assert_eq!(r.lab, c.lab);
        assert_eq!(r.num, c.num);
        assert_eq!(r.heap_live >> 20, c.heap_live >> 20);
        assert_eq!(r.procs, 2);
        // Go's scan: lines, total and per size class, come back as written.
        assert_eq!(r.scan, c.scan);
        assert!(c.scan.as_ref().is_some_and(|s| !s.classes.is_empty()));
        assert_eq!(
            gcscope_core::trace::format::line(&r),
            gcscope_core::trace::format::line(c)
        );
    }
}

/// The live lab source sends every cycle of a run, each with every lab field, and ends: three
/// cycles per workload and marker.
#[test]
fn lab_source_events_carry_every_lab_field_for_each_workload() {
    use gcscope_model::Event;
    use gcscope_source::{spawn, Spec};
    const CYCLES: u32 = 3;
    for shape in Shape::ALL {
        for marker in MARKERS {
            let mut c = cfg(shape, marker, 100);
            c.checkmark = false;
            c.poison = false;
            c.max_cycles = Some(CYCLES);
            let (tx, mut rx) = tokio::sync::mpsc::channel(64);
            spawn(
                Spec::Lab(Box::new(gcscope_source::LabSpec {
                    cfg: c,
                    switches: None,
                })),
                gcscope_model::SourceId::from_index(0),
                tx,
            );
            let (cycles, ended) = within(120, move || {
                let mut cycles = Vec::new();
                let mut ended = None;
                while let Some((_, batch)) = rx.blocking_recv() {
                    for e in batch {
                        match e {
                            Event::Cycle { cycle, .. } => cycles.push(*cycle),
                            Event::End { error } => ended = Some(error),
                            _ => {}
                        }
                    }
                }
                (cycles, ended)
            });
            assert_eq!(
                ended,
                Some(None),
                "{shape:?} {marker:?}: the source ends cleanly"
            );
            assert_eq!(
                cycles.len(),
                CYCLES as usize,
                "{shape:?} {marker:?}: every cycle of the run is sent"
            );
            for c in &cycles {
                let l = c.lab.as_ref().expect("lab fields");
                assert!(c.goal.is_some() && c.stacks.is_some() && c.globals.is_some());
                assert!(c.clock.mark > 0 && c.heap_live > 0 && c.procs == 2);
                assert!(l.objects_scanned > 0 && l.bytes_scanned > 0 && l.page_visits > 0);
                assert!(l.thread_cpu > 0);
                assert_eq!(l.density_hist.len(), 10);
                assert_eq!(l.density_hist.iter().sum::<u64>(), l.page_visits);
                let scan = c.scan.as_ref().expect("scan counters");
                assert_eq!(scan.total.objs, l.objects_scanned);
                assert_eq!(scan.total.green_tea.is_some(), marker == Marker::Greentea);
            }
        }
    }
}

/// A dashboard key switches the live lab: the run ends at its next cycle and a fresh,
/// labelled run starts with the new workload. Neither run has a limit of its own: the switch
/// ends the first, and the test, going away once the second has sent a cycle, ends the second.
#[test]
fn a_live_switch_starts_a_fresh_labelled_run() {
    use gcscope_model::Event;
    use gcscope_source::LabKnob;
    use gcscope_source::{spawn, LabControl};
    let mut c = cfg(Shape::Tree, Marker::Greentea, 100);
    c.checkmark = false;
    c.poison = false;
    let (labels, cycles_in_run) = within(120, move || {
        let (mut control, mut specs) = LabControl::new(vec![c]);
        let (tx, mut rx) = tokio::sync::mpsc::channel(64);
        spawn(specs.remove(0), gcscope_model::SourceId::from_index(0), tx);
        let mut labels = Vec::new();
        let mut cycles_in_run = [0usize; 2];
        let mut switched = false;
        'events: while let Some((_, batch)) = rx.blocking_recv() {
            for e in batch {
                match e {
                    Event::RunLabel { run, label } => labels.push((run, label)),
                    Event::Cycle { run, .. } => {
                        cycles_in_run[run.index().min(1)] += 1;
                        if run.index() >= 1 {
                            // The dashboard goes away (`rx` dropped): the source ends.
                            break 'events;
                        }
                        if !switched {
                            control.turn(LabKnob::NextWorkload);
                            switched = true;
                        }
                    }
                    _ => {}
                }
            }
        }
        (labels, cycles_in_run)
    });
    assert_eq!(labels.len(), 2, "{labels:?}");
    assert_eq!(labels[0].0.index(), 0);
    assert!(labels[0].1.contains("tree"), "{labels:?}");
    assert_eq!(labels[1].0.index(), 1);
    assert!(labels[1].1.contains("map"), "{labels:?}");
    assert!(
        cycles_in_run[0] >= 1 && cycles_in_run[1] == 1,
        "{cycles_in_run:?}"
    );
}

/// The long soak: the adversarial mutator at GOGC 1 with the oracle on, 50,000 cycles per
/// marker (about a minute each). Not in the default suite (CI's budget); run with
/// `cargo test --release --test lab -- --ignored`.
#[test]
#[ignore]
fn soak_adversarial_never_loses_an_object_in_50000_cycles_per_marker() {
    const CYCLES: u32 = 50_000;
    for marker in MARKERS {
        let (end, _) = run_cycles(&cfg(Shape::Adversary, marker, 1), CYCLES);
        assert!(
            end.checks.clean(),
            "{marker:?}: {:?} over {CYCLES} cycles",
            end.checks
        );
        eprintln!("soak {marker:?}: {CYCLES} checked cycles, clean");
    }
}

/// The dashboard's lab source: a full arena ends the source with the error, which the header
/// shows ("ended: the lab's arena is full ..."), instead of the process exiting from a thread
/// with the terminal left in the alternate screen.
#[test]
fn a_full_arena_ends_the_live_lab_source_with_its_message() {
    use gcscope_model::Event;
    use gcscope_source::{spawn, LabSpec, Spec};
    let mut c = cfg(Shape::Tree, Marker::Greentea, 100);
    c.arena_mb = 1;
    c.checkmark = false;
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    spawn(
        Spec::Lab(Box::new(LabSpec {
            cfg: c,
            switches: None,
        })),
        gcscope_model::SourceId::from_index(0),
        tx,
    );
    // The run has no limit: only the error can end it, and the source with it.
    let ended = within(60, move || {
        let mut ended = None;
        while let Some((_, events)) = rx.blocking_recv() {
            for e in events {
                if let Event::End { error } = e {
                    ended = Some(error);
                }
            }
        }
        ended
    });
    let error = ended.expect("the source ended").expect("with an error");
    let gcscope_model::SourceError::Lab(text) = &error else {
        panic!("a lab source ends with the lab's error, not {error:?}");
    };
    assert!(
        text.contains("arena is full") && text.contains("--arena-mb"),
        "{text}"
    );
}
