//! gctrace=2's `scan:` counters summed over a run, in total and by size class (`ScanAcc`).

use gcscope_model::{GreenTeaCounts, ScanLine};

#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct ScanAcc {
    pub(super) cycles: usize,
    pub(super) objects: u64,
    pub(super) green_tea: Option<GreenTeaCounts>,
    /// By size class, sorted by class (a vector: a few dozen classes, looked up on every
    /// `scan:` line, which are half the lines of a gctrace=2 log).
    pub(super) classes: Vec<(u32, u64, Option<GreenTeaCounts>)>,
    /// Where the next class is expected: Go prints a cycle's classes in increasing order.
    next: usize,
}

impl ScanAcc {
    /// A `scan:` line that counts; `first`: the first of its cycle.
    pub(super) fn push(&mut self, line: &ScanLine, first: bool) {
        self.cycles += usize::from(first);
        match line.class {
            None => {
                self.objects = self.objects.saturating_add(line.counts.objs);
                if let Some(g) = line.counts.green_tea {
                    add(self.green_tea.get_or_insert_with(Default::default), &g);
                }
            }
            Some(class) => {
                let at = match self.classes.get(self.next) {
                    Some(e) if e.0 == class => self.next,
                    _ => match self.classes.binary_search_by_key(&class, |e| e.0) {
                        Ok(at) => at,
                        Err(at) => {
                            self.classes.insert(at, (class, 0, None));
                            at
                        }
                    },
                };
                self.next = at + 1;
                let e = &mut self.classes[at];
                e.1 = e.1.saturating_add(line.counts.objs);
                if let Some(g) = line.counts.green_tea {
                    add(e.2.get_or_insert_with(Default::default), &g);
                }
            }
        }
    }

    pub(super) fn append(&mut self, other: &ScanAcc) {
        if other.cycles == 0 {
            return;
        }
        self.cycles += other.cycles;
        self.objects = self.objects.saturating_add(other.objects);
        if let Some(g) = &other.green_tea {
            add(self.green_tea.get_or_insert_with(Default::default), g);
        }
        for &(class, objects, g) in &other.classes {
            let at = match self.classes.binary_search_by_key(&class, |e| e.0) {
                Ok(at) => at,
                Err(at) => {
                    self.classes.insert(at, (class, 0, None));
                    at
                }
            };
            let e = &mut self.classes[at];
            e.1 = e.1.saturating_add(objects);
            if let Some(g) = g {
                add(e.2.get_or_insert_with(Default::default), &g);
            }
        }
        // Where the other's next class was expected, in the merged list.
        if let Some(&(class, ..)) = other.next.checked_sub(1).and_then(|i| other.classes.get(i)) {
            self.next = self
                .classes
                .binary_search_by_key(&class, |e| e.0)
                .map_or(0, |at| at + 1);
        }
    }
}

fn add(sum: &mut GreenTeaCounts, g: &GreenTeaCounts) {
    for (sum, v) in [
        (&mut sum.sparse_objs, g.sparse_objs),
        (&mut sum.span_objs_sparse, g.span_objs_sparse),
        (&mut sum.span_objs_dense, g.span_objs_dense),
        (&mut sum.spans_sparse, g.spans_sparse),
        (&mut sum.spans_dense, g.spans_dense),
    ] {
        *sum = sum.saturating_add(v);
    }
}

/// `GreenTeaCounts::visits` of counts summed over a run, saturating.
pub(super) fn visits(g: &GreenTeaCounts) -> u64 {
    g.sparse_objs
        .saturating_add(g.spans_sparse)
        .saturating_add(g.spans_dense)
}

/// `GreenTeaCounts::density` of counts summed over a run, saturating.
pub(super) fn density(g: &GreenTeaCounts) -> Option<f64> {
    let objects = g
        .sparse_objs
        .saturating_add(g.span_objs_sparse)
        .saturating_add(g.span_objs_dense);
    let visits = visits(g);
    (visits > 0).then(|| objects as f64 / visits as f64)
}
