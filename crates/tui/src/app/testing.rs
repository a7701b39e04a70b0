//! Panes for the app's unit tests.

use super::pane::Pane;
use gcscope_model::{Cycle, Event, RunId};

/// A file pane of one run with these cycles, all shown.
pub(super) fn pane_of(cycles: impl IntoIterator<Item = Cycle>) -> Pane {
    let mut p = Pane::new("t", false);
    p.timeline.apply(Event::RunStart {
        run: RunId::FIRST,
        line: 1,
        restart: None,
    });
    for c in cycles {
        p.timeline.apply(Event::Cycle {
            run: RunId::FIRST,
            cycle: Box::new(c),
        });
    }
    p.reveal_all();
    p.clamp_cursor();
    p
}

/// Cycles 1, 2, ... starting at these times.
pub(super) fn pane(times_ms: &[u64]) -> Pane {
    pane_of(times_ms.iter().enumerate().map(|(i, &t)| Cycle {
        num: i as u32 + 1,
        at: t * 1_000_000,
        ..Default::default()
    }))
}
