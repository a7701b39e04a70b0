//! CPU accounting: each mark segment (assist, background, idle) booked in wall time, as Go's
//! gctrace does, and in thread CPU time, the lab's own figure.

use super::Gc;
use crate::lab::heap::sizeclass;
use crate::lab::mark::{MarkStats, Marker};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Accounting of one cycle, filled by workers and assists.
#[derive(Default)]
pub struct CycleAcct {
    pub assist_ns: AtomicU64,
    pub bg_ns: AtomicU64,
    pub idle_ns: AtomicU64,
    pub thread_cpu_ns: AtomicU64,
    pub scan_done: AtomicU64,
}

impl CycleAcct {
    pub(super) fn reset(&self) {
        for a in [
            &self.assist_ns,
            &self.bg_ns,
            &self.idle_ns,
            &self.thread_cpu_ns,
            &self.scan_done,
        ] {
            a.store(0, Relaxed);
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Seg {
    Assist,
    Background,
    Idle,
}

impl Gc {
    pub(super) fn book(&self, seg: Seg, wall: u64, cpu: u64) {
        let a = match seg {
            Seg::Assist => &self.acct.assist_ns,
            Seg::Background => &self.acct.bg_ns,
            Seg::Idle => &self.acct.idle_ns,
        };
        a.fetch_add(wall, Relaxed);
        self.acct.thread_cpu_ns.fetch_add(cpu, Relaxed);
    }
}

/// Cumulative GC CPU for gctrace's `%` (idle excluded, as the runtime does).
#[derive(Default)]
pub struct CumCpu {
    pub gc: u64,
}

/// Go's gctrace=2 `scan:` lines for this cycle (total and per size class, classes in Go's
/// order with large objects last as `L`), Go 1.26 meaning.
pub(super) fn scan_stats(marker: Marker, s: &MarkStats) -> crate::model::ScanStats {
    use crate::model::{GreenTeaCounts, ScanCounts, ScanStats};
    let counts = |objs: u64, span_objs: u64, spans: u64| match marker {
        Marker::Legacy => ScanCounts {
            objs,
            green_tea: None,
        },
        Marker::Greentea => ScanCounts {
            objs,
            green_tea: Some(GreenTeaCounts {
                // Objects scanned outside span scans: the fast path and the >512 B path.
                sparse_objs: objs - span_objs,
                span_objs_sparse: span_objs,
                span_objs_dense: 0,
                spans_sparse: spans,
                spans_dense: 0,
            }),
        },
    };
    let total = counts(s.objs_scanned, s.span_objs_sparse, s.spans_sparse);
    let mut classes: Vec<(u32, ScanCounts)> = (1..s.by_class.len())
        .chain(std::iter::once(0))
        .filter(|&c| s.by_class[c][0] > 0)
        .map(|c| {
            let [objs, span_objs, spans] = s.by_class[c];
            (sizeclass::CLASS_SIZE[c], counts(objs, span_objs, spans))
        })
        .collect();
    classes.shrink_to_fit();
    ScanStats { total, classes }
}
