//! The model against a program simulated by the runtime's own pacer rule: a steady live heap,
//! a fixed allocation per MiB of runway, a cost per MiB marked.
#![allow(
    clippy::unwrap_used,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use super::*;
use gcscope_model::{Clock, Cpu, Cycle, CycleStore};

/// `super::tune` over cycles as a run stores them.
fn tune(
    cycles: &[Cycle],
    pacer: Option<&crate::stats::pacer::PacerSummary>,
    settings: &[Setting],
) -> Result<Tune, Refusal> {
    super::tune(&CycleStore::from(cycles.to_vec()).all(), pacer, settings)
}

const MIB_U: u64 = 1 << 20;

/// `n` cycles of a program with `live` MiB live and `roots` MiB of stacks + globals under
/// GOGC=`gogc`: each cycle's heap ends at its goal, allocation runs at 100 MiB/s, marking
/// costs 1 ms per MiB scanned. Values are whole MiB, as gctrace prints them.
fn simulate(n: u32, live: u64, roots: u64, gogc: u64) -> Vec<Cycle> {
    let goal = (live + (live + roots) * gogc / 100).max(4 * gogc / 100);
    let mut at = 0u64;
    (1..=n)
        .map(|num| {
            let alloc = goal - live;
            at += alloc * 10_000_000; // 100 MiB/s
            Cycle {
                num,
                at,
                heap_start: (goal - 1) * MIB_U,
                heap_end: goal * MIB_U,
                heap_live: live * MIB_U,
                goal: Some(goal * MIB_U),
                stacks: Some(roots * MIB_U),
                globals: Some(0),
                procs: 2,
                clock: Clock {
                    sweep_term: 50_000,
                    mark: 5_000_000,
                    mark_term: 50_000,
                },
                cpu: Cpu {
                    background: (live + roots) * 1_000_000,
                    idle: 500_000,
                    ..Cpu::default()
                },
                ..Cycle::default()
            }
        })
        .collect()
}

fn gogc(g: u32) -> Setting {
    Setting {
        gogc: Some(g),
        limit_mib: None,
    }
}

#[test]
fn doubling_gogc_on_a_steady_heap_halves_the_cycles_and_the_gc_cpu() {
    let t = tune(&simulate(200, 100, 0, 100), None, &[gogc(100), gogc(200)]).unwrap();
    let (a, b) = (&t.predictions[0], &t.predictions[1]);
    // GOGC=100: 100 MiB of runway a cycle; 200: 200 MiB.
    let ratio = b.cycles / a.cycles;
    assert!((ratio - 0.5).abs() < 0.02, "{ratio}");
    let cpu = b.compulsory_gc_cpu_s / a.compulsory_gc_cpu_s;
    assert!((cpu - 0.5).abs() < 0.02, "{cpu}");
    // Peak heap: live + live x GOGC/100, plus the half-MiB expectation the model adds to each
    // truncated figure (live, and the "0 MB" stacks and globals).
    assert!((a.peak_heap_mb - 200.0).abs() < 3.0, "{}", a.peak_heap_mb);
    assert!((b.peak_heap_mb - 300.0).abs() < 4.5, "{}", b.peak_heap_mb);
    // The own setting reproduces the trace's cycle count.
    assert!((a.cycles - 199.0).abs() < 4.0, "{}", a.cycles);
}

#[test]
fn roots_count_in_the_goal_since_go_1_18() {
    let t = tune(&simulate(100, 50, 50, 100), None, &[gogc(100)]).unwrap();
    // goal = 50 + (50 + 50) = 150 MiB.
    assert!((t.predictions[0].peak_heap_mb - 150.0).abs() < 3.0);
    assert_eq!(t.basis.formula, "go1.18+");
}

#[test]
fn the_floor_holds_a_tiny_heap_at_four_mib_times_gogc() {
    let t = tune(&simulate(100, 1, 0, 100), None, &[gogc(50), gogc(200)]).unwrap();
    // GOGC=200: floor 8 MiB, above 1.5 + 1.5 x 2.
    assert!(
        t.predictions[1].peak_heap_mb >= 8.0 * 0.9,
        "{:?}",
        t.predictions[1]
    );
}

#[test]
fn a_limit_below_the_goal_binds_and_multiplies_the_cycles() {
    let lim = Setting {
        gogc: Some(100),
        limit_mib: Some(150.0),
    };
    let t = tune(&simulate(200, 100, 0, 100), None, &[gogc(100), lim]).unwrap();
    let (free, bound) = (&t.predictions[0], &t.predictions[1]);
    assert!(bound.limit_binds_share > 0.99);
    // Goal 150 x (1 - 0.11) - 5 = 128.5 MiB: a runway of about 30 MiB instead of 100.
    assert!(
        bound.cycles > 2.5 * free.cycles,
        "{} vs {}",
        bound.cycles,
        free.cycles
    );
    assert!(bound.peak_heap_mb < 135.0, "{}", bound.peak_heap_mb);
    // A limit above the goal changes nothing.
    let loose = Setting {
        gogc: Some(100),
        limit_mib: Some(1000.0),
    };
    let t = tune(&simulate(200, 100, 0, 100), None, &[loose]).unwrap();
    assert_eq!(t.predictions[0].limit_binds_share, 0.0);
}

#[test]
fn a_limit_at_the_live_heap_hits_the_cpu_limiter() {
    let lim = Setting {
        gogc: Some(100),
        limit_mib: Some(100.0),
    };
    let t = tune(&simulate(200, 100, 0, 100), None, &[lim]).unwrap();
    let p = &t.predictions[0];
    assert!(p.cpu_limiter, "{p:?}");
    assert!(p.gc_share_of_ps <= 0.5 + 1e-9);
}

#[test]
fn what_the_model_cannot_say_it_refuses() {
    assert!(matches!(
        tune(&simulate(10, 100, 0, 100), None, &[]),
        Err(Refusal::TooFew(_))
    ));
    let mut growing = simulate(60, 10, 0, 100);
    for (i, c) in growing.iter_mut().enumerate() {
        let live = 10 + i as u64;
        c.heap_live = live * MIB_U;
        c.heap_end = 2 * live * MIB_U;
        c.goal = Some(2 * live * MIB_U);
    }
    assert!(matches!(
        tune(&growing, None, &[]),
        Err(Refusal::Growing(..))
    ));
    let t = tune(&simulate(100, 100, 0, 100), None, &[gogc(5000)]).unwrap();
    assert!(t.predictions[0].refused.is_some(), "a heap 50x the trace's");
    let off = Setting {
        gogc: None,
        limit_mib: None,
    };
    let t = tune(&simulate(100, 100, 0, 100), None, &[off]).unwrap();
    assert!(t.predictions[0].refused.is_some());
}

#[test]
fn the_default_grid_is_predicted() {
    let t = tune(&simulate(200, 100, 0, 100), None, &[]).unwrap();
    assert_eq!(t.predictions.len(), GRID.len());
    assert!(
        t.basis.goal_check.is_none(),
        "no GOGC read back without a pacer"
    );
}

/// A benchmark's runtime.GC() calls (forced cycles) happen at every setting: they are carried
/// over as they are, and only the pacer's cycles move with GOGC.
#[test]
fn forced_cycles_stay_the_same_at_every_setting() {
    let mut cycles = simulate(200, 100, 0, 100);
    // Every 20th cycle was the program's runtime.GC(), costing 7 ms.
    for c in cycles.iter_mut().filter(|c| c.num % 20 == 0) {
        c.forced = true;
        c.cpu.background = 7_000_000;
    }
    let t = tune(&cycles, None, &[gogc(100), gogc(400)]).unwrap();
    let (own, wide) = (&t.predictions[0], &t.predictions[1]);
    // The own setting gives the trace's 200 cycles back (within the uncalibrated model's few
    // cycles, as without forced ones); at GOGC=400 the 190 pacer cycles become about a
    // quarter as many, the 10 forced ones stay.
    assert!((own.cycles - 200.0).abs() < 5.0, "{}", own.cycles);
    let pacer = wide.cycles - 10.0;
    assert!((pacer / 190.0 - 0.25).abs() < 0.03, "{}", wide.cycles);
    // And their cost stays: 70 ms on top of the pacer cycles' quarter.
    let pacer_ms = (own.compulsory_gc_cpu_s * 1e3 - 70.0) / 4.0;
    assert!(
        (wide.compulsory_gc_cpu_s * 1e3 - (pacer_ms + 70.0)).abs() < 0.05 * pacer_ms,
        "{} vs {}",
        wide.compulsory_gc_cpu_s * 1e3,
        pacer_ms + 70.0
    );
}
