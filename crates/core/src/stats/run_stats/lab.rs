//! The lab's per-cycle fields summed over a run (`LabAcc`).

use super::super::ms;
use super::super::summary::LabSummary;
use gcscope_model::LabStats;

/// Lab fields summed over the cycles that have them. Sums saturate: the fields are read from
/// text and may be anything.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct LabAcc {
    cycles: usize,
    sum: LabStats,
}

impl LabAcc {
    pub(super) fn push(&mut self, l: &LabStats) {
        let s = &mut self.sum;
        self.cycles += 1;
        for (sum, v) in [
            (&mut s.objects_scanned, l.objects_scanned),
            (&mut s.bytes_scanned, l.bytes_scanned),
            (&mut s.page_visits, l.page_visits),
            (&mut s.objects_freed, l.objects_freed),
            (&mut s.thread_cpu, l.thread_cpu),
            (&mut s.offcpu, l.offcpu),
        ] {
            *sum = sum.saturating_add(v);
        }
        if s.density_hist.len() < l.density_hist.len() {
            s.density_hist.resize(l.density_hist.len(), 0);
        }
        for (sum, v) in s.density_hist.iter_mut().zip(&l.density_hist) {
            *sum = sum.saturating_add(*v);
        }
    }

    /// Another accumulator's cycles after these (saturating sums add up the same either way).
    pub(super) fn append(&mut self, other: &LabAcc) {
        let cycles = self.cycles + other.cycles;
        self.push(&other.sum);
        self.cycles = cycles;
    }

    pub(super) fn summary(&self) -> Option<LabSummary> {
        (self.cycles > 0).then(|| {
            let s = &self.sum;
            LabSummary {
                cycles_with_lab: self.cycles,
                objects_scanned: s.objects_scanned,
                bytes_scanned: s.bytes_scanned,
                page_visits: s.page_visits,
                objects_per_page_visit: s.density(),
                objects_freed: s.objects_freed,
                thread_cpu_ms: ms(s.thread_cpu),
                thread_cpu_ms_per_cycle: ms(s.thread_cpu) / self.cycles as f64,
                offcpu_ms: ms(s.offcpu),
                offcpu_share: None,
                density_hist: s.density_hist.clone(),
            }
        })
    }
}
