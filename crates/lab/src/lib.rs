//! The GC lab: a real concurrent mark-sweep collector running heap-shape workloads, with two
//! marking strategies, legacy (object by object) and Green Tea (page by page).
//!
//! `heap` is the arena and its spans, `mark` the two markers, `sched` the P tokens,
//! `pacer` Go's GOGC arithmetic, `collector` the cycle and the mutator interface, `workload`
//! the heap shapes, `checkmark` the oracle. `run` drives one run and hands each finished cycle
//! to its caller as a `Cycle`, the record every gcscope source produces.
//!
//! Stop-the-world policy: an operation that is only sound while every mutator, mark worker
//! and sweeper is parked (sweep termination's mark start, the ragged barrier, mark
//! termination's cache flush and checks, the checkmark oracle, starting a sweep generation)
//! takes a `&sched::StoppedWorld`, which only `Sched::stop_world` makes, so calling one
//! while the world runs does not compile.
//!
//! Lock policy: every lock in the lab is a `parking_lot` mutex, which has no poisoning. A
//! panic on any lab thread ends the run (the stop guard in `run` stops every thread when the
//! coordinator unwinds; a mutator's or mark worker's `HeldP` gives its P back, stops the run
//! and makes the coordinator abandon the cycle in progress), so no one goes on with the data
//! a panicking holder left; recovering a poisoned std lock (`into_inner`) could instead
//! silently drop a work buffer and hide a lost object. Locks are never held across a wait
//! for a P token, except the scheduler's own.

// The lab's numbers are its own: sizes within its arena, counts of its objects, times it
// measured, all bounded by its settings and never read from a trace, so the workspace's cast
// lints (there for input-derived numbers) are allowed here.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

pub mod checkmark;
pub mod collector;
pub mod error;
pub mod heap;
pub mod mark;
pub mod pacer;
pub mod rand;
pub mod sched;
pub mod turns;
pub mod workload;

pub use collector::{Checks, CycleResult};
pub use error::LabError;
pub use mark::Marker;
pub use workload::Shape;

use collector::{CumCpu, Gc, GcOptions, HeldP};
use std::time::{Duration, Instant};

/// One lab run's settings.
#[derive(Debug, Clone)]
pub struct Config {
    pub shape: Shape,
    pub marker: Marker,
    pub gogc: u64,
    pub procs: usize,
    /// Stop after this long (None: until the caller stops it).
    pub duration: Option<Duration>,
    /// Stop after this many cycles.
    pub max_cycles: Option<u32>,
    pub seed: u64,
    /// Heap size factor (1.0: tens of MB live).
    pub scale: f64,
    pub arena_mb: u64,
    /// Off only for the negative control: the oracle must then find lost objects.
    pub write_barrier: bool,
    /// Run the checkmark oracle at every mark termination (slow; tests).
    pub checkmark: bool,
    /// Overwrite freed objects so a dangling reference is detected.
    pub poison: bool,
    /// Share the machine with other runs by taking turns: the gate and this run's side.
    pub turns: Option<(std::sync::Arc<turns::Turns>, usize)>,
    /// Fault injection, a switch for tests of the run's failure paths: `None` in normal use
    /// (the CLI never sets it).
    pub fault: Option<Fault>,
}

/// A fault a test injects into a run (`Config::fault`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Every mark worker panics when it starts a mark segment, holding a P and its local
    /// state: the run must still end, with the panic reaching `run`'s caller.
    MarkWorkerPanics,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            shape: Shape::Tree,
            marker: Marker::Greentea,
            gogc: 100,
            procs: 2,
            duration: Some(Duration::from_secs(5)),
            max_cycles: None,
            seed: 1,
            scale: 1.0,
            arena_mb: 8192,
            write_barrier: true,
            checkmark: false,
            poison: false,
            turns: None,
            fault: None,
        }
    }
}

impl Config {
    /// The run's label: every setting two runs must share to be compared, and the marker,
    /// e.g. `lab tree greentea GOGC=100 P=2 seed=1 scale=1`, and `duration=5s` for a run of
    /// fixed length. Lab traces start with `# gcscope LABEL`, so a file says how it was made
    /// (`gcscope_model::settings` reads it back).
    #[must_use]
    pub fn label(&self) -> String {
        let mut s = format!(
            "lab {} {} GOGC={} P={} seed={} scale={}",
            self.shape.name(),
            self.marker.name(),
            self.gogc,
            self.procs,
            self.seed,
            self.scale
        );
        if let Some(d) = self.duration {
            s.push_str(&format!(" duration={}s", d.as_secs_f64()));
        }
        s
    }
}

/// How a run ended.
#[derive(Debug, Clone, Default)]
pub struct RunEnd {
    pub wall: Duration,
    pub cycles: u32,
    /// Workload operations done (trees, accesses, replacements).
    pub ops: u64,
    pub checks: Checks,
    /// Why the run ended early, if it failed (the arena filled up): the cycles before it are
    /// still reported.
    pub error: Option<LabError>,
}

/// A cycle as the lab reports it: the record, plus whether the workload was still building
/// its long-lived heap, plus the correctness findings.
pub struct LabCycle {
    pub result: CycleResult,
    pub setup: bool,
}

/// Ends a run when dropped: at the end of `run`, and also when the coordinator unwinds from
/// a panic (in `on_cycle` or in the collector). It gives the A/B turn away, asks every thread
/// to stop, lets the mark workers leave and wakes the waiting, so the scoped threads `run`
/// joins all return instead of spinning forever.
struct StopGuard<'a> {
    gc: &'a Gc,
    turns: Option<(&'a turns::Turns, usize)>,
}

impl Drop for StopGuard<'_> {
    fn drop(&mut self) {
        if let Some((t, side)) = self.turns {
            t.finish(side);
        }
        self.gc.stop();
        self.gc.finish();
        self.gc.wake();
    }
}

/// Runs the collector and workload until the duration, the cycle count, or `on_cycle`
/// returning false. Blocks; call it from a thread of its own for live use.
pub fn run(cfg: &Config, mut on_cycle: impl FnMut(LabCycle) -> bool) -> RunEnd {
    let procs = cfg.procs.clamp(1, 64);
    let sizes = workload::Sizes::new(cfg.scale);
    let Some(heap) = heap::Heap::try_new(cfg.arena_mb << 20, workload::types(), cfg.poison) else {
        return RunEnd {
            wall: Duration::ZERO,
            cycles: 0,
            ops: 0,
            checks: Checks::default(),
            error: Some(LabError::ArenaReserve {
                arena_mb: cfg.arena_mb,
            }),
        };
    };
    let mutators = cfg.shape.mutators(procs);
    let gc = Gc::new(
        GcOptions {
            marker: cfg.marker,
            gogc: cfg.gogc.max(1),
            procs,
            write_barrier: cfg.write_barrier,
            checkmark: cfg.checkmark,
            fault: cfg.fault,
        },
        heap,
        sizes.globals(cfg.shape),
        mutators,
        64,
        cfg.seed,
    );
    let mut pacer = pacer::Pacer::new(cfg.gogc.max(1));
    gc.set_trigger(pacer.trigger);
    let shared = workload::Shared::new(cfg.shape, sizes);
    // Nothing of this run starts before its first turn.
    if let Some((t, side)) = &cfg.turns {
        gc.wait_turn(t, *side, false);
    }
    let start = Instant::now();
    let mut end = RunEnd::default();
    std::thread::scope(|s| {
        // Declared first in the scope's body, so it is dropped last: after the loop below
        // ends, or while the coordinator unwinds.
        let _stop = StopGuard {
            gc: &gc,
            turns: cfg.turns.as_ref().map(|(t, side)| (&**t, *side)),
        };
        for m in 0..mutators {
            let gc = &gc;
            let mut w = workload::Mutator::new(shared.clone(), m, cfg.seed);
            s.spawn(move || {
                // The mutator's P: given back when the thread leaves, whether it returns or
                // unwinds (a panic also stops the run).
                let mut held = HeldP::none(gc);
                while !gc.stopping() {
                    match gc.quantum(&mut held.p, m, |ctx| w.step(ctx)) {
                        workload::Step::Ran => {}
                        workload::Step::Wait => {
                            gc.release_p(&mut held.p);
                            std::thread::sleep(Duration::from_micros(200));
                        }
                        workload::Step::Stop => break,
                    }
                }
            });
        }
        for id in 0..procs {
            let gc = &gc;
            s.spawn(move || gc.worker(id));
        }
        if let Some(d) = cfg.duration {
            let gc = &gc;
            s.spawn(move || {
                while !gc.stopping() && start.elapsed() < d {
                    std::thread::sleep(Duration::from_millis(5));
                }
                gc.stop();
            });
        }
        let mut cum = CumCpu::default();
        let mut num = 1;
        let mut turn = Instant::now();
        // This side's turns on the machine so far: each is one sample of an A/B.
        let mut turns_taken = 0;
        while let Some(mut result) = gc.cycle(&mut pacer, num, &mut cum) {
            end.checks.add(&result.checks);
            end.cycles = num;
            let setup = !shared.ready();
            if let Some(l) = result.cycle.lab.as_deref_mut() {
                l.setup = setup;
                l.turn = cfg.turns.as_ref().map(|_| turns_taken);
            }
            let go_on = on_cycle(LabCycle { result, setup });
            if !go_on || cfg.max_cycles.is_some_and(|m| num >= m) {
                break;
            }
            num += 1;
            if let Some((t, side)) = &cfg.turns {
                if turn.elapsed() >= t.slice {
                    gc.wait_turn(t, *side, true);
                    turn = Instant::now();
                    turns_taken += 1;
                }
            }
        }
    });
    end.wall = start.elapsed();
    end.ops = shared.ops();
    end.error = gc.take_error();
    end
}
