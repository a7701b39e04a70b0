//! `tune --verify`: a prediction against runs of the program at its setting. Each run's
//! cycles and compulsory GC P time are scaled to the fitted trace's work (MiB allocated,
//! counted as the model counts it), and the median of the runs must fall in the model's
//! range: its point prediction widened by the error the validation allows per figure
//! (docs/TUNE.md: cycles 20 %, peak heap 15 %, compulsory GC P time 25 %).

use super::fit;
use super::{Prediction, Setting};
use crate::stats::Spread;
use gcscope_model::CycleSlice;
use serde::Serialize;

/// The model's stated tolerance per figure, as a share of the prediction.
pub const TOLERANCE: Figures = Figures {
    cycles: 0.20,
    compulsory_gc_cpu_s: 0.25,
    peak_heap_mb: 0.15,
};

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Figures {
    pub cycles: f64,
    pub compulsory_gc_cpu_s: f64,
    pub peak_heap_mb: f64,
}

/// What one run of the program measured, scaled to the fit's work.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunFigures {
    pub figures: Figures,
    /// MiB the run allocated, as the model counts work.
    pub work_mib: f64,
}

/// A run's figures for `work_fit` MiB of work; `None` for a run with under two cycles (no
/// work to scale by).
#[must_use]
pub fn run_figures(cycles: &CycleSlice<'_>, work_fit: f64) -> Option<RunFigures> {
    let (_, work) = fit::pairs(cycles);
    if cycles.len() < 2 || work <= 0.0 {
        return None;
    }
    let k = work_fit / work;
    let cpu: f64 = cycles.iter().map(|c| c.compulsory_cpu() as f64 / 1e9).sum();
    Some(RunFigures {
        figures: Figures {
            cycles: cycles.len() as f64 * k,
            compulsory_gc_cpu_s: cpu * k,
            peak_heap_mb: cycles
                .iter()
                .map(|c| c.heap_end as f64 / fit::MIB)
                .fold(0.0, f64::max),
        },
        work_mib: work,
    })
}

/// Measured: the median and range of the runs, per figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    pub runs: usize,
    pub cycles: Spread,
    pub compulsory_gc_cpu_s: Spread,
    pub peak_heap_mb: Spread,
}

/// Whether each figure's measured median fell in the model's range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Held {
    pub cycles: bool,
    pub compulsory_gc_cpu_s: bool,
    pub peak_heap_mb: bool,
}

impl Held {
    #[must_use]
    pub fn all(&self) -> bool {
        self.cycles && self.compulsory_gc_cpu_s && self.peak_heap_mb
    }
}

/// One setting: the prediction, its range, what was measured, and whether it held.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verified {
    pub gogc: Option<u32>,
    pub limit_mib: Option<f64>,
    pub own: bool,
    pub predicted: Figures,
    /// [low, high] per figure: the prediction +- its tolerance.
    pub range: [Figures; 2],
    /// `None` when no run of this setting gave figures (all failed).
    pub measured: Option<Measured>,
    pub failed_runs: usize,
    pub held: Option<Held>,
}

impl Verified {
    #[must_use]
    pub fn setting(&self) -> Setting {
        Setting {
            gogc: self.gogc,
            limit_mib: self.limit_mib,
        }
    }
}

/// A prediction against the runs of its setting.
#[must_use]
pub fn verify(p: &Prediction, runs: &[RunFigures], failed_runs: usize) -> Verified {
    let predicted = Figures {
        cycles: p.cycles,
        compulsory_gc_cpu_s: p.compulsory_gc_cpu_s,
        peak_heap_mb: p.peak_heap_mb,
    };
    let scale = |f: f64| Figures {
        cycles: predicted.cycles * (1.0 + f * TOLERANCE.cycles),
        compulsory_gc_cpu_s: predicted.compulsory_gc_cpu_s
            * (1.0 + f * TOLERANCE.compulsory_gc_cpu_s),
        peak_heap_mb: predicted.peak_heap_mb * (1.0 + f * TOLERANCE.peak_heap_mb),
    };
    let range = [scale(-1.0), scale(1.0)];
    let spread = |get: fn(&Figures) -> f64| {
        Spread::of(&runs.iter().map(|r| get(&r.figures)).collect::<Vec<_>>())
    };
    let measured = match (
        spread(|f| f.cycles),
        spread(|f| f.compulsory_gc_cpu_s),
        spread(|f| f.peak_heap_mb),
    ) {
        (Some(cycles), Some(cpu), Some(peak)) => Some(Measured {
            runs: runs.len(),
            cycles,
            compulsory_gc_cpu_s: cpu,
            peak_heap_mb: peak,
        }),
        _ => None,
    };
    let within = |x: f64, lo: f64, hi: f64| x >= lo && x <= hi;
    let held = measured.as_ref().map(|m| Held {
        cycles: within(m.cycles.median, range[0].cycles, range[1].cycles),
        compulsory_gc_cpu_s: within(
            m.compulsory_gc_cpu_s.median,
            range[0].compulsory_gc_cpu_s,
            range[1].compulsory_gc_cpu_s,
        ),
        peak_heap_mb: within(
            m.peak_heap_mb.median,
            range[0].peak_heap_mb,
            range[1].peak_heap_mb,
        ),
    });
    Verified {
        gogc: p.gogc,
        limit_mib: p.limit_mib,
        own: p.own,
        predicted,
        range,
        measured,
        failed_runs,
        held,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn pred(cycles: f64) -> Prediction {
        Prediction {
            gogc: Some(200),
            limit_mib: None,
            own: false,
            cycles,
            compulsory_gc_cpu_s: 1.0,
            gc_share_of_ps: 0.1,
            peak_heap_mb: 100.0,
            mean_heap_mb: 70.0,
            wall_s: 5.0,
            cycles_per_s: 10.0,
            limit_binds_share: 0.0,
            cpu_limiter: false,
            refused: None,
        }
    }

    fn run(cycles: f64, cpu: f64, peak: f64) -> RunFigures {
        RunFigures {
            figures: Figures {
                cycles,
                compulsory_gc_cpu_s: cpu,
                peak_heap_mb: peak,
            },
            work_mib: 1000.0,
        }
    }

    #[test]
    fn the_median_of_the_runs_must_fall_in_the_models_range() {
        let v = verify(
            &pred(50.0),
            &[
                run(48.0, 1.1, 104.0),
                run(70.0, 0.9, 99.0),
                run(52.0, 1.0, 101.0),
            ],
            0,
        );
        let held = v.held.unwrap();
        // Median 52 within 40-60; 1.0 within 0.75-1.25; 101 within 85-115.
        assert!(held.all(), "{v:?}");
        let v = verify(&pred(50.0), &[run(61.0, 1.0, 100.0)], 0);
        assert!(!v.held.unwrap().cycles, "61 is past 50 + 20 %");
        let v = verify(&pred(50.0), &[], 3);
        assert!(v.held.is_none() && v.measured.is_none());
    }

    /// The trace's own setting is the control: when its runs miss, the text says the runs
    /// differ from the trace (here a machine twice as fast: half the GC P time).
    #[test]
    fn a_control_that_misses_says_the_runs_differ_from_the_trace() {
        let own = Prediction {
            gogc: Some(100),
            own: true,
            ..pred(50.0)
        };
        let control = verify(&own, &[run(50.0, 0.5, 100.0); 3], 0);
        let other = verify(&pred(25.0), &[run(25.0, 0.25, 150.0); 3], 0);
        let text = crate::report::verify_text("prog", 3, 1000.0, &[control, other.clone()]);
        assert!(
            text.contains("the control, measured GC P time s 0.50 against the trace's 1.00"),
            "{text}"
        );
        assert!(!text.contains("cycles 50 against"), "cycles held: {text}");
        let text = crate::report::verify_text("prog", 3, 1000.0, &[other]);
        assert!(!text.contains("the control"), "no control, no line: {text}");
    }
}
