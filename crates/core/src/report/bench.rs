//! `compare --format bench`: Go benchmark lines for benchstat.

use super::Source;
use crate::stats::compare;
use std::fmt::Write;

/// Per-run benchmark lines; `side: A` / `side: B` config lines let `benchstat -col side` split them.
#[must_use]
pub fn compare_bench(a: &[Source], b: &[Source]) -> String {
    let mut o = String::new();
    for (side, sources) in [("A", a), ("B", b)] {
        let _ = writeln!(o, "side: {side}");
        for source in sources {
            for r in source.records().iter() {
                let _ = writeln!(o, "{}", compare::bench_line("GCTrace", r));
            }
        }
    }
    o
}
