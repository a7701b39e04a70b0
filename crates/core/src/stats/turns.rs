//! The live lab A/B's samples: its two sides take turns on the machine (`lab::turns`), and
//! each completed turn of a side is one sample, summarised like a run. The strip compares
//! turns as `compare` compares runs, so a verdict comes by the same rule as turns accumulate.

use super::run_stats::RunStats;
use super::summary::RunSummary;
use gcscope_model::CycleSlice;

/// One side's completed turns, kept up to date as its run's cycles arrive.
#[derive(Debug, Default, Clone)]
pub struct TurnSamples {
    run: usize,
    seen: usize,
    /// The turn in progress: its number and statistics.
    current: Option<(u32, RunStats)>,
    /// A summary per completed turn that had cycles past the workload's setup.
    pub done: Vec<RunSummary>,
}

impl TurnSamples {
    /// Takes in the cycles of run `run` not seen yet (starting over for another run). Cycles
    /// without a turn (not an A/B) are not samples.
    pub fn update(&mut self, run: usize, cycles: &CycleSlice<'_>) {
        if run != self.run || cycles.len() < self.seen {
            *self = TurnSamples {
                run,
                ..TurnSamples::default()
            };
        }
        for c in cycles.slice(self.seen..cycles.len()) {
            let Some(turn) = c.lab.as_ref().and_then(|l| l.turn) else {
                continue;
            };
            if self.current.as_ref().is_none_or(|(t, _)| *t != turn) {
                self.close();
                self.current = Some((turn, RunStats::default()));
            }
            if let Some((_, stats)) = &mut self.current {
                stats.push(&c);
            }
        }
        self.seen = cycles.len();
    }

    /// The turn in progress ended (a later one began).
    fn close(&mut self) {
        if let Some((_, stats)) = self.current.take() {
            // A turn spent building the workload's heap is warm-up, not a sample.
            if stats.cycles() > stats.setup_cycles() {
                self.done.extend(stats.summary(0, None));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcscope_model::{Cycle, CycleStore, LabStats};

    fn cycle(num: u32, turn: Option<u32>, setup: bool, assist_ns: u64) -> Cycle {
        Cycle {
            num,
            at: u64::from(num) * 1_000_000,
            cpu: gcscope_model::Cpu {
                assist: assist_ns,
                ..Default::default()
            },
            procs: 2,
            lab: Some(Box::new(LabStats {
                turn,
                setup,
                ..LabStats::default()
            })),
            ..Cycle::default()
        }
    }

    #[test]
    fn each_completed_turn_past_setup_is_one_sample() {
        let cycles = [
            cycle(1, Some(0), true, 1),
            cycle(2, Some(1), false, 10),
            cycle(3, Some(1), false, 30),
            cycle(4, Some(2), false, 50),
            cycle(5, Some(3), false, 70),
        ];
        let mut t = TurnSamples::default();
        let cycles = CycleStore::from(cycles.to_vec());
        t.update(0, &cycles.slice(0..3));
        // Turn 0 was setup only; turn 1 is still in progress.
        assert!(t.done.is_empty());
        t.update(0, &cycles.all());
        // Turns 1 and 2 are done; turn 3 is in progress.
        let assist: Vec<f64> = t.done.iter().map(|s| s.cpu_ms.assist).collect();
        assert_eq!(assist, [40e-6, 50e-6]);
        assert_eq!(t.done[0].cycles, 2);
        // Another run starts over.
        t.update(1, &cycles.slice(0..2));
        assert!(t.done.is_empty());
    }

    #[test]
    fn cycles_outside_an_ab_are_not_samples() {
        let mut t = TurnSamples::default();
        let cycles = CycleStore::from(vec![cycle(1, None, false, 1), cycle(2, None, false, 1)]);
        t.update(0, &cycles.all());
        assert!(t.done.is_empty() && t.current.is_none());
    }
}
